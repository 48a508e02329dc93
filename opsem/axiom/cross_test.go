package axiom_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"rdmasim/corpus/gen"
	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// TestMachineAgrees compares, on every corpus program (loops unrolled twice
// in both), the final memories (all locations) of complete RDMA- and
// SC-consistent traces with the final configurations of the operational
// RDMA and SC machines.
func TestMachineAgrees(t *testing.T) {
	ctx := context.Background()
	files, err := filepath.Glob("../../corpus/litmus/*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, f := range files {
		base := filepath.Base(f)
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		unroll := 0
		for _, th := range p.Threads {
			if th.Loops > 0 {
				unroll = 2
			}
		}
		p.Query = prog.Query{Kind: prog.QExists, Cond: &prog.Cond{Op: prog.CTrue}} // show every location
		rdma, sc, _, err := axiom.Outcomes(ctx, p, axiom.Options{Unroll: unroll})
		if err != nil {
			t.Fatal(err)
		}
		for i, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
			res, err := verdict.Compute(ctx, p, sem, verdict.Options{Machine: machine.Options{MaxInflight: 8, Unroll: unroll}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range res.Outcomes {
				got = append(got, fmt.Sprint(o.Values))
			}
			mine := rdma
			if i == 1 {
				mine = sc
			}
			var want []string
			for _, m := range mine {
				want = append(want, fmt.Sprint(m))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %s: machine %v (complete %v), axiom %v", base, sem, got, res.Complete, want)
			}
		}
	}
}

// TestMachineAgreesRandom compares the model with the operational machines on
// random programs (corpus/gen): final memories of complete traces under RDMA
// and SC, and robustness (against the machine's event-graph search, whenever
// that search is complete or finds a violation).
func TestMachineAgreesRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("random differential test")
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2026, 11))
	n := 150
	if axiom.RaceEnabled {
		n = 30
	}
	bad := 0
	for i := 0; i < n && bad < 3; i++ {
		cfg := gen.DefaultConfig()
		unroll := 0
		if i%4 == 3 {
			cfg.Loops = true
			unroll = 2
		}
		p := gen.Program(rng, cfg, fmt.Sprintf("rand%d", i))
		mopt := machine.Options{MaxInflight: 8, Unroll: unroll}
		robust, w, _, err := axiom.Robust(ctx, p, axiom.Options{Unroll: unroll})
		if err != nil {
			t.Fatalf("%v\n%s", err, p)
		}
		mr, err := verdict.RobustMachine(ctx, p, verdict.Options{Machine: mopt, Settings: explore.Settings{MaxStates: 1 << 21}})
		if err != nil {
			t.Fatalf("%v\n%s", err, p)
		}
		if mr.Robust != robust && (mr.Complete || !mr.Robust) {
			bad++
			var tr string
			if w != nil {
				tr = w.Format(p)
			}
			t.Errorf("robust: machine %v (complete %v), model %v\n%s\n%s", mr.Robust, mr.Complete, robust, p, tr)
		}
		p.Query = prog.Query{Kind: prog.QExists, Cond: &prog.Cond{Op: prog.CTrue}} // show every location
		rdma, sc, _, err := axiom.Outcomes(ctx, p, axiom.Options{Unroll: unroll})
		if err != nil {
			t.Fatalf("%v\n%s", err, p)
		}
		for k, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
			res, err := verdict.Compute(ctx, p, sem, verdict.Options{Machine: mopt, Settings: explore.Settings{MaxStates: 1 << 21}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete {
				continue
			}
			var got, want []string
			for _, o := range res.Outcomes {
				got = append(got, fmt.Sprint(o.Values))
			}
			mine := rdma
			if k == 1 {
				mine = sc
			}
			for _, m := range mine {
				want = append(want, fmt.Sprint(m))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				bad++
				t.Errorf("%s outcomes: machine %v, model %v\n%s", sem, got, want, p)
			}
		}
	}
}
