package differ

import (
	"context"
	"testing"

	"rdmasim/opsem/machine"
)

// TestWordsSpin: the differ runs SPIN on a multi-word program under each
// placement, with the placement in the export (SEMANTICS-VERBS.md 1):
// WORDS-LAST-WORD's U (it assumes y1 = 1, then y0 = 0) ends under any and
// never under in-order, and SPIN agrees with the machines either way (outcomes, cut,
// states), skipping neither.
func TestWordsSpin(t *testing.T) {
	if err := SpinAvailable(); err != nil {
		t.Skip(err)
	}
	if testing.Short() {
		t.Skip("compiles four C programs")
	}
	for _, tc := range []struct {
		placement machine.Placement
		outcomes  int // SPIN's outcomes under RDMA
	}{
		{machine.PlaceAny, 1},     // U's assumes pass: y1 placed before y0
		{machine.PlaceInOrder, 0}, // they never pass: y0 is placed first
	} {
		r, err := Check(context.Background(), load(t, "WORDS-LAST-WORD.rdma"), Options{Checks: CheckSpin, Placement: tc.placement})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Problems) > 0 || len(r.Skipped) > 0 || r.Spin[0] == nil || r.Spin[1] == nil {
			t.Fatalf("%s: problems %v, skipped %v, spin %v", tc.placement, r.Problems, r.Skipped, r.Spin)
		}
		if got := len(r.Spin[0].Outcomes); got != tc.outcomes {
			t.Errorf("%s: spin's RDMA outcomes %q, want %d", tc.placement, r.Spin[0].Outcomes, tc.outcomes)
		}
	}
}
