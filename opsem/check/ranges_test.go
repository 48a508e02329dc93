package check

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/promela"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// TestRangeChecks: a write the lowering cannot check where it is issued (a
// put's remote write, a get's local write, an rfaa's write, a cas's or an
// rcas's landing) of a value outside its location's range is an error point
// under every semantics: the machines stop the run there and name the
// statement, the declarative model has no final outcome with it (and
// agrees), robustness answers without the checks and says so, and the
// Promela export refuses the program. Before, each ended with the location
// out of its range and no error.
func TestRangeChecks(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		errorAt   string // in the RDMA machine's ErrorAt
		finals    bool   // some run ends
	}{
		{"put", "node A { x = 2 }\nnode B { L : 0..1 = 0 }\nthread T on A { L := x }\nexists (L = 2)\n",
			"T at line 3 (L := x): the value 2 written into L leaves its range 0..1", false},
		{"get", "node A { g : 0..1 = 0 }\nnode B { big = 3 }\nthread T on A { g := big }\nexists (g = 3)\n",
			"T at line 3 (g := big): the value 3 written into g leaves its range 0..1", false},
		{"rfaa", "node A { o = 0 }\nnode B { c : 0..1 = 1 }\nthread T on A { o := rfaa(c, 1) }\nexists (c = 2)\n",
			"T at line 3 (o := rfaa(c, 1)): the value 2 written into c leaves its range 0..1", false},
		{"rcas landing", "node A { o : 0..1 = 0 }\nnode B { c = 5 }\nthread T on A { o := rcas(c, 0, 1) }\nexists (o = 5)\n",
			"T at line 3 (o := rcas(c, 0, 1)): the value 5 written into o leaves its range 0..1", false},
		{"put sometimes", "node A { x = 1 }\nnode B { L : 0..1 = 0 }\nthread T on A { L := x; x := 2 }\nthread U on A { reg r\n r := 0 }\nexists (L = 1)\n",
			"T at line 3 (L := x): the value 2 written into L leaves its range 0..1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parse.Parse(tc.name+".rdma", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if !prog.HasRangeChecks(p) {
				t.Fatal("the lowering marks no location to check")
			}
			opt := verdict.Options{Machine: machine.DefaultOptions()}
			r, err := Answer(context.Background(), p, Options{Semantics: Both, Verdict: opt})
			if err != nil {
				t.Fatal(err)
			}
			rdma := r.Results[0]
			if rdma.ErrorAt != tc.errorAt || rdma.Failed == 0 || (rdma.Finals > 0) != tc.finals {
				t.Errorf("rdma: error %q, %d failed, %d finals; want %q, finals %v", rdma.ErrorAt, rdma.Failed, rdma.Finals, tc.errorAt, tc.finals)
			}
			if len(rdma.Outcomes) > 0 && !tc.finals {
				t.Errorf("rdma outcomes %v, want none", rdma.Outcomes)
			}
			if r.Disagree {
				t.Errorf("the model disagrees: %v", r.Agreement)
			}
			rob, err := robust.Decide(context.Background(), p, robust.Options{Method: robust.EnumMachine, Verdict: opt})
			if err != nil || !strings.Contains(rob.Unchecked, "written by T at line 3") {
				t.Errorf("robust: %v, unchecked %q", err, rob.Unchecked)
			}
			var rce *prog.RangeChecksError
			if err := promela.Write(&bytes.Buffer{}, p, promela.Options{Semantics: machine.RDMA, MaxInflight: 8}); !errors.As(err, &rce) {
				t.Errorf("promela.Write: %v, want a RangeChecksError", err)
			}
		})
	}
}

// TestRCASSwapOutOfRange: the value an rcas may swap in is known where it
// is issued, and checked there against its target's range, as a cas's.
func TestRCASSwapOutOfRange(t *testing.T) {
	p, err := parse.Parse("rcas.rdma", []byte("node A { o = 0 }\nnode B { L : 0..1 = 0 }\nthread T on A { o := rcas(L, 0, 2) }\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := verdict.Compute(context.Background(), p, machine.RDMA, verdict.Options{Machine: machine.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if want := "T at line 3: the value 2 leaves the range 0..1 of L"; r.ErrorAt != want || !r.Allowed {
		t.Errorf("error %q (reach T@fail allowed %v), want %q", r.ErrorAt, r.Allowed, want)
	}
}
