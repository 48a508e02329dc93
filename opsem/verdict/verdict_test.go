package verdict

import (
	"context"
	"path/filepath"
	"testing"

	"rdmasim/explore"
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
			for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
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
		for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
			seq, err := Compute(context.Background(), p, sem, Options{Machine: machine.DefaultOptions()})
			if err != nil {
				t.Fatal(err)
			}
			par, err := Compute(context.Background(), p, sem, Options{Machine: machine.DefaultOptions(), Witness: true, Settings: explore.Settings{Workers: 2}})
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

// TestReduceCorpus computes every litmus program's RDMA verdict with and
// without the partial-order reduction, which settles successors (and, where
// no reach condition reads a control point, submissions): the reduced search
// is complete whenever the full one is, and finds the same outcomes and the
// same answer. Its witness is a run of the machine: each step starts where
// the last ended, and the last reaches a configuration that decides the
// query.
func TestReduceCorpus(t *testing.T) {
	files, err := filepath.Glob("../../corpus/litmus/*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	// The fuzzer's regressions, among them one the reduction got wrong
	// (N8 taken eagerly on a queue pair with puts).
	regress, err := filepath.Glob("../../corpus/regress/*.rdma")
	if err != nil || len(regress) == 0 {
		t.Fatalf("no regression files: %v", err)
	}
	files = append(files, regress...)
	hidden := 0
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		var res [2]*Result
		for i, reduce := range []bool{false, true} {
			opt := Options{Machine: machine.DefaultOptions(), Witness: true}
			opt.Machine.Reduce = reduce
			if res[i], err = Compute(context.Background(), p, machine.RDMA, opt); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		full, red := res[0], res[1]
		name := filepath.Base(f)
		if full.Complete && !red.Complete {
			t.Errorf("%s: reduced search cut by %s, full search complete", name, red.Bound)
		}
		if d := CompareOutcomes(red, full); !d.Empty() {
			t.Errorf("%s: outcomes only reduced %v, only full %v", name, d.OnlyMachine, d.OnlyModel)
		}
		if full.Complete && red.Allowed != full.Allowed {
			t.Errorf("%s: allowed %v reduced, %v full", name, red.Allowed, full.Allowed)
		}
		if full.Complete && (red.Finals != full.Finals || red.Filtered != full.Filtered || red.Deadlocks != full.Deadlocks) {
			t.Errorf("%s: ends (final, filtered, deadlocked) reduced %d, %d, %d; full %d, %d, %d", name,
				red.Finals, red.Filtered, red.Deadlocks, full.Finals, full.Filtered, full.Deadlocks)
		}
		if red.Search.States > full.Search.States {
			t.Errorf("%s: %d states reduced, %d full", name, red.Search.States, full.Search.States)
		}
		if p.Query.Kind != prog.QReach || !p.Query.Cond.HasControl() {
			hidden++
		}
		w := red.Witness
		if w == nil {
			continue
		}
		// The full machine Compute searched (Dead as it sets it).
		mopt := machine.DefaultOptions()
		mopt.Dead = machine.DeadLocations(p, ShownLocations(p))
		m, err := machine.New(p, machine.RDMA, mopt)
		if err != nil {
			t.Fatal(err)
		}
		cur := w.Initial
		for i, st := range w.Steps {
			found := false
			m.Successors(cur, func(l uint64, next []byte) {
				found = found || l == st.Label && string(next) == string(st.Post)
			})
			if !found {
				t.Fatalf("%s: witness step %d (%s %s) is not a step of the full machine", name, i+1, st.Actor, st.What)
			}
			cur = st.Post
		}
		sat := p.Query.Cond == nil || p.Query.Cond.Eval(p, m.Encoded(cur))
		if p.Query.Kind == prog.QForall {
			sat = !sat
		}
		if !sat || p.Query.Final() && !m.FinalEncoded(cur) {
			t.Errorf("%s: the witness ends in %s, which does not decide the query", name, m.Format(cur))
		}
	}
	if hidden == 0 || hidden == len(files) {
		t.Errorf("%d of %d programs hide control points: want both kinds", hidden, len(files))
	}
}
