package surface

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpusFiles compares the interpreter with the SC machine on the
// corpus's programs: the litmus tests (core programs, which the resolver
// compiles rather than the lowering: the interpreter runs them as protocol
// programs that use no register), the regressions and the protocols (where
// corpus/protocols exists).
func TestCorpusFiles(t *testing.T) {
	var files []string
	for _, dir := range []string{"../litmus", "../regress", "../protocols"} {
		fs, err := filepath.Glob(filepath.Join(dir, "*.rdma"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	compared := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Compare(context.Background(), f, src, Options{MaxStates: 100000})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(rep.Problems) > 0 {
			t.Errorf("%s: disagreement:\n%s", f, strings.Join(rep.Problems, "\n"))
		}
		if rep.Skipped == "" {
			compared++
		}
	}
	t.Logf("%d of %d files compared", compared, len(files))
}
