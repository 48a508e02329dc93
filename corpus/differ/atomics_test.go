package differ

import (
	"context"
	"testing"
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
