package promela

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// TestWordsOutcomesMatch: on every litmus test of multi-word transfers
// (corpus/litmus/WORDS-*.rdma, SEMANTICS-VERBS.md 1), SPIN's search of the
// exported machine reaches exactly the final outcomes rdmasim finds, is cut
// by a bound alike, and stores as many states as rdmasim explores, under
// both semantics, both placements (a file's placement in-order line holds
// under either) and max-inflight 2 as well as the default.
func TestWordsOutcomesMatch(t *testing.T) {
	needSpin(t)
	files, err := filepath.Glob(litmus + "WORDS-*.rdma")
	if err != nil || len(files) < 4 {
		t.Fatalf("want at least four litmus tests of multi-word transfers, found %d (%v)", len(files), err)
	}
	for _, file := range files {
		for _, sem := range sems {
			for _, pl := range []machine.Placement{machine.PlaceAny, machine.PlaceInOrder} {
				if sem == machine.SC && pl == machine.PlaceInOrder {
					continue // placement does not reach the SC machine
				}
				for _, k := range []int{0, 2} {
					t.Run(fmt.Sprintf("%s/k=%d/%s/%s", filepath.Base(file), k, sem, pl), func(t *testing.T) {
						t.Parallel()
						p, err := parse.File(file)
						if err != nil {
							t.Fatal(err)
						}
						comparePlaced(t, p, sem, k, 0, pl)
					})
				}
			}
		}
	}
}

// comparePlaced is compare under placement pl: SPIN's search of p's model
// and rdmasim's exploration, both with pl, find the same outcomes, are cut
// by a bound alike and count the same states. It returns SPIN's states.
func comparePlaced(t *testing.T, p *prog.Program, sem machine.Semantics, k, unroll int, pl machine.Placement) uint64 {
	t.Helper()
	if k == 0 {
		k = machine.DefaultOptions().MaxInflight
	}
	m := model(t, p, Options{Semantics: sem, MaxInflight: k, Unroll: unroll, Placement: pl})
	want, err := verdict.Compute(context.Background(), p, sem, verdict.Options{Machine: machine.Options{MaxInflight: k, Unroll: unroll, Placement: pl}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(context.Background(), m, RunOptions{CFlags: []string{"-O0"}, MaxDepth: 1000, HashBits: 18})
	if err != nil {
		t.Fatal(err)
	}
	if wantOut := VerdictOutcomes(p, want); !slices.Equal(got.Outcomes, wantOut) {
		t.Errorf("outcomes differ:\nspin    %q\nrdmasim %q", got.Outcomes, wantOut)
	}
	if cut := len(got.Cut) > 0; cut == want.Complete {
		t.Errorf("spin cut by %q, rdmasim complete=%v (bound %q)", got.Cut, want.Complete, want.Bound)
	}
	if got.States != want.Search.States {
		t.Errorf("spin stored %d states, rdmasim explored %d", got.States, want.Search.States)
	}
	if t.Failed() {
		t.Logf("program:\n%s\nmodel:\n%s", p, m)
	}
	return got.States
}
