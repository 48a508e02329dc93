package decide

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/opsem/instr"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestRefusesQuiet: the decider refuses every corpus program with quiet
// (SEMANTICS-VERBS.md 6), with an *instr.FeatureError that names the
// feature and the first quiet's position, rather than answering on a
// program its normal form was not checked for.
func TestRefusesQuiet(t *testing.T) {
	files, _ := filepath.Glob("../../corpus/litmus/QUIET-*.rdma")
	if len(files) == 0 {
		t.Fatal("no litmus tests of quiet")
	}
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Decide(context.Background(), p, Options{})
		var refused *instr.FeatureError
		if !errors.As(err, &refused) {
			t.Fatalf("%s: %v, want an *instr.FeatureError", f, err)
		}
		if s := prog.FirstVerbs(p); refused.Pos != s.Pos || refused.Feature != "quiet" || !strings.Contains(err.Error(), "does not cover quiet") {
			t.Errorf("%s: %v (first quiet at %s)", f, err, s.Pos)
		}
	}
}
