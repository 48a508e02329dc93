package promela

import (
	"fmt"
	"path/filepath"
	"testing"

	"rdmasim/opsem/parse"
)

// TestFencedOutcomesMatch: on every litmus test of the fenced mark
// (corpus/litmus/FENCED-*.rdma, SEMANTICS-VERBS.md 4), SPIN's search of the
// exported machine reaches exactly the final outcomes rdmasim finds, and
// stores as many states as it explores, under both semantics and with a
// max-inflight bound of 2 as well as the default.
func TestFencedOutcomesMatch(t *testing.T) {
	needSpin(t)
	files, err := filepath.Glob(litmus + "FENCED-*.rdma")
	if err != nil || len(files) < 4 {
		t.Fatalf("want at least four litmus tests of fenced, found %d (%v)", len(files), err)
	}
	for _, file := range files {
		for _, sem := range sems {
			for _, k := range []int{0, 2} {
				t.Run(fmt.Sprintf("%s/k=%d/%s", filepath.Base(file), k, sem), func(t *testing.T) {
					t.Parallel()
					p, err := parse.File(file)
					if err != nil {
						t.Fatal(err)
					}
					compare(t, p, sem, k, 0)
				})
			}
		}
	}
}
