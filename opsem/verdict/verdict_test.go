package verdict

import (
	"context"
	"path/filepath"
	"testing"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestCorpusExpectations checks every rdma and sc expect line of the bundled
// litmus corpus: the computed verdict must be certain and equal.
func TestCorpusExpectations(t *testing.T) {
	files, err := filepath.Glob("../../corpus/litmus/*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := parse.File(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, sem := range []Semantics{RDMA, SC} {
				want, ok := p.Expectation(prog.Semantics(sem))
				if !ok {
					continue
				}
				r, err := Compute(context.Background(), p, sem, Options{Machine: machine.DefaultOptions(), Witness: true})
				if err != nil {
					t.Fatal(err)
				}
				if !r.Certain() {
					t.Errorf("%s: verdict not certain (bound %s), expected %s", sem, r.Bound, want.Word())
					continue
				}
				if r.Allowed != want.Yes {
					t.Errorf("%s: allowed=%v, expected %s (states %d)", sem, r.Allowed, want.Word(), r.Search.States)
				}
				if r.Allowed && r.Witness == nil {
					t.Errorf("%s: allowed without a witness", sem)
				}
			}
		})
	}
}

// TestRobustMachineCorpus checks the expect robust lines of the corpus by
// enumeration on the machine (loops unrolled twice).
func TestRobustMachineCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../corpus/litmus/*.rdma")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := parse.File(f)
			if err != nil {
				t.Fatal(err)
			}
			want, ok := p.Expectation(prog.Robust)
			if !ok {
				t.Skip("no expect robust line")
			}
			opt := Options{Machine: machine.DefaultOptions()}
			opt.Machine.Unroll = 2
			r, err := RobustMachine(context.Background(), p, opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Robust != want.Yes {
				t.Errorf("robust=%v (coverage %s, bound %q), expected %s", r.Robust, r.Coverage(), r.Bound, want.Word())
				if r.Graph != nil {
					t.Logf("cycle %v", r.Graph.Cycle)
				}
			}
			if !r.Robust && (r.Graph == nil || len(r.Graph.Cycle) < 2) {
				t.Errorf("violation without an sc cycle")
			}
		})
	}
}

// TestWorkersEqualSequential: parallel exploration gives the same counts,
// outcomes and verdicts as the sequential one, on every corpus file.
func TestWorkersEqualSequential(t *testing.T) {
	files, _ := filepath.Glob("../../corpus/litmus/*.rdma")
	if testing.Short() {
		files = files[:10]
	}
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, sem := range []Semantics{RDMA, SC} {
			seq, err := Compute(context.Background(), p, sem, Options{Machine: machine.DefaultOptions()})
			if err != nil {
				t.Fatal(err)
			}
			par, err := Compute(context.Background(), p, sem, Options{Machine: machine.DefaultOptions(), Workers: 2, Witness: true})
			if err != nil {
				t.Fatal(err)
			}
			if seq.Search.States != par.Search.States || seq.Search.Transitions != par.Search.Transitions ||
				seq.Search.MaxDepth != par.Search.MaxDepth || seq.Allowed != par.Allowed || len(seq.Outcomes) != len(par.Outcomes) ||
				seq.Positive != par.Positive || seq.Negative != par.Negative {
				t.Errorf("%s %s: sequential %+v vs parallel %+v", f, sem, seq.Search.Stats, par.Search.Stats)
			}
			if par.Allowed && par.Witness == nil {
				t.Errorf("%s %s: no witness with workers", f, sem)
			}
		}
	}
}
