package promela

import (
	"bytes"
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

// wordsBounded are programs whose multi-word work requests meet the
// max-inflight bound (a work request counts once however many entries its
// words take: wordsInflight), dead destination words (dropped from RW on a
// queue pair without gets, a group's header going when fewer than two
// words are kept), groups of three and four words, a one-word operation
// between groups, and a remote atomic and a fenced get beside them.
var wordsBounded = []struct{ name, src string }{
	{"puts", `node A { x0 = 1; x1 = 2; x2 = 3; x3 = 4 }
node B { y0 = 0; y1 = 0; y2 = 0; y3 = 0 }
thread T on A { (y0, y1) := (x0, x1); (y2, y3) := (x2, x3); (y1, y2) := (x2, x3) }
thread U on B { assume(y2 == 3); assume(y1 == 0) }
exists (y0 = 1)
`},
	{"gets", `node A { a = 5; r0 = 0; r1 = 0; r2 = 0; r3 = 0 }
node B { y0 = 1; y1 = 2; y2 = 3; y3 = 4 }
thread T on A { (r0, r1, r2) := (y0, y1, y2); y3 := a; (r1, r2, r3) := (y1, y2, y3); poll(B); poll(B) }
thread U on B { y1 := 7 }
exists (r3 = 5 /\ r0 = 1)
`},
	{"dead", `node A { x0 = 1; x1 = 2; x2 = 3; x3 = 4 }
node B { y0 = 0; y1 = 0; y2 = 0; y3 = 0 }
thread T on A { (y0, y1, y2, y3) := (x0, x1, x2, x3); (y0, y1) := (x2, x3); x0 := 9 }
thread U on B { assume(y3 == 4) }
exists (y2 = 3)
`},
	{"atomic", `node A { r = 9; r0 = 0; r1 = 0; x0 = 3; x1 = 4 }
node B { C = 4; y0 = 1; y1 = 2 }
thread T on A { r := rfaa(C, 2); (r0, r1) := (y0, y1) fenced; (y0, y1) := (x0, x1); poll(B); poll(B); poll(B) }
thread U on B { y1 := 7; C := 1 }
exists (r0 = 1 /\ r = 1)
`},
	{"mixed", `node A { x0 = 1; x1 = 2; r0 = 0; r1 = 0 }
node B { y0 = 0; y1 = 0 }
thread T on A { (y0, y1) := (x0, x1); (r0, r1) := (y0, y1); y0 := x1; poll(B) }
exists (r0 = 1 /\ r1 = 0)
`},
}

// TestWordsBounded compares SPIN with rdmasim on wordsBounded under both
// semantics, both placements and max-inflight 1, 2 and 3 (outcomes, cut,
// states), and checks that the bound meets groups there: at max-inflight 1
// rdmasim's RDMA search of each is cut, and the model's in-flight count
// of the first two is wordsInflight's.
func TestWordsBounded(t *testing.T) {
	needSpin(t)
	for i, c := range wordsBounded {
		p, err := parse.Parse(c.name+".rdma", []byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r, err := verdict.Compute(context.Background(), p, machine.RDMA, verdict.Options{Machine: machine.Options{MaxInflight: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Complete {
			t.Errorf("%s: the RDMA search at max-inflight 1 is complete, want it cut", c.name)
		}
		if m := model(t, p, Options{Semantics: machine.RDMA, MaxInflight: 1}); i < 2 && !bytes.Contains(m, []byte("kind == PUTV && q0_b2[0].w > 0 || q0_b2[0].kind == PUTP -> 1 : 0")) {
			t.Errorf("%s: the model's in-flight count is not wordsInflight's:\n%s", c.name, m)
		}
		for _, sem := range sems {
			for _, pl := range []machine.Placement{machine.PlaceAny, machine.PlaceInOrder} {
				if sem == machine.SC && pl == machine.PlaceInOrder {
					continue
				}
				for _, k := range []int{1, 2, 3} {
					t.Run(fmt.Sprintf("%s/k=%d/%s/%s", c.name, k, sem, pl), func(t *testing.T) {
						t.Parallel()
						comparePlaced(t, p, sem, k, 0, pl)
					})
				}
			}
		}
	}
}

// TestWordsRegress: corpus/regress's words-sc-dead-get-source, whose get
// has a dead target word under SC: SPIN stores the get's source words as
// rdmasim does (the model reads them in the step's guard), under both
// semantics. (The differ shows every location, so no word is dead there:
// only this comparison, which shows the query's, sees it.)
func TestWordsRegress(t *testing.T) {
	needSpin(t)
	p, err := parse.File("../../corpus/regress/words-sc-dead-get-source.rdma")
	if err != nil {
		t.Fatal(err)
	}
	for _, sem := range sems {
		t.Run(sem.String(), func(t *testing.T) { comparePlaced(t, p, sem, 0, 0, machine.PlaceAny) })
	}
}
