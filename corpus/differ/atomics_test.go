package differ

import (
	"context"
	"testing"

	"rdmasim/opsem/parse"
)

// TestDeciderAtomics: the decider is skipped on programs with remote
// atomics unless Options.DeciderAtomics asks for its experimental
// instrumentation of them; then it is compared with both enumerations, on
// a robust program and on one whose only violation ends with a pending
// atomic (ATOM-CPU-BETWEEN), and agrees.
func TestDeciderAtomics(t *testing.T) {
	for _, file := range []string{"ATOM-FAA-FAA.rdma", "ATOM-CPU-BETWEEN.rdma", "ATOM-PENDING-FAA-CAS.rdma"} {
		p := load(t, file)
		off, err := Check(context.Background(), p, Options{Checks: CheckRobust | CheckDecide})
		if err != nil {
			t.Fatal(err)
		}
		if off.Decide != nil || !off.WasSkipped("decider") {
			t.Errorf("%s: the decider ran without DeciderAtomics", file)
		}
		on, err := Check(context.Background(), p, Options{Checks: CheckRobust | CheckDecide, DeciderAtomics: true})
		if err != nil {
			t.Fatal(err)
		}
		if on.Decide == nil || on.WasSkipped("decider") || len(on.Problems) > 0 {
			t.Errorf("%s: decider %v, skipped %v, problems %v", file, on.Decide, on.Skipped, on.Problems)
			continue
		}
		if on.RobustMachine == nil || on.Decide.Robust != on.RobustMachine.Robust {
			t.Errorf("%s: decider robust=%v, enum-machine %v", file, on.Decide.Robust, on.RobustMachine)
		}
	}
}

// TestDeciderAtomicsLoops: with loops (which the enumerations bound and the
// decider does not) the experimental decider is compared one way: a
// violation of a bounded enumeration must be one of the decider (whose
// witness replays), and its "robust" must meet no violation. A spinning
// rcas robust for every iteration, and a generated program (make agree
// ATOMICS=1 LOOPS=1, seed 23) whose violation both find.
func TestDeciderAtomicsLoops(t *testing.T) {
	for _, c := range []struct {
		name, src string
		robust    bool
	}{
		{"loop-rcas-robust", `litmus loop-rcas-robust
node n1 { x = 0 }
node n2 { y = 0 }
node n3 { w = 0 }
thread t1 on n1 {
  loop {
    x := rcas(y, 0, 1)
    poll(n2)
  }
}
thread t2 on n3 {
  w := rcas(y, 1, 0)
  poll(n2)
}
exists w = 0
`, true},
		{"gen-23", `litmus gen-23
node n1 { x = 0 }
node n2 { y = 0 }
node n3 { z = 0 }
thread t1 on n2 {
  y := cas(y, 0, 0)
  y := rcas(z, 8, 2)
}
thread t2 on n3 {
  z := cas(z, 0, 0)
  loop {
    z := rfaa(y, 2)
    loop {
      z := rcas(y, 52, 0)
    }
  }
}
exists z = 106
`, false},
	} {
		if raceOn && c.name == "gen-23" {
			// Its bounded enumerations took 22-71 s under the race
			// detector on a loaded host (2 s without it); make test's
			// race-free pass compares it.
			continue
		}
		p, err := parse.Parse(c.name+".rdma", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Check(context.Background(), p, Options{Checks: CheckRobust | CheckDecide, DeciderAtomics: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Decide == nil || !r.Decide.Certain() || len(r.Problems) > 0 {
			t.Errorf("%s: decider %v, skipped %v, problems %v", c.name, r.Decide, r.Skipped, r.Problems)
			continue
		}
		if r.Decide.Robust != c.robust || r.RobustMachine == nil || r.RobustMachine.Robust != c.robust {
			t.Errorf("%s: decider robust=%v, enum-machine %v; want robust=%v", c.name, r.Decide.Robust, r.RobustMachine, c.robust)
		}
		if c.robust && r.RobustMachine.Complete {
			t.Errorf("%s: enum-machine complete on a loop", c.name)
		}
	}
}
