package decide_test

import (
	"context"
	"testing"

	"rdmasim/opsem/decide"
	"rdmasim/opsem/parse"
)

// TestEagerUnreadLocation: eager guessing guesses every location, those
// no thread reads included, against M1, so canonMemory must not forget
// their M1 before they are guessed (it once did, and every guess of an
// unread location with an initial value other than 0 failed: eager
// guessing answered "robust" on this violation of paper-5.1.rdma with u
// added, found by TestRegistersAgreement).
func TestEagerUnreadLocation(t *testing.T) {
	src := "litmus eager-unread\nnode n1 { x = 1; y = 0; u = 1 }\nnode n2 { z = 0; w = 1 }\n" +
		"thread p on n1 {\n  y := w\n  z := x\n  x := 2\n}\nexists (z = 2)\n"
	p, err := parse.Parse("eager-unread.rdma", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, eager := range []bool{false, true} {
		d, err := decide.Decide(context.Background(), p, decide.Options{EagerGuess: eager})
		if err != nil {
			t.Fatal(err)
		}
		if d.Robust || d.Witness == nil {
			t.Errorf("eager %v: robust %v (witness %v), want the violation of paper-5.1", eager, d.Robust, d.Witness != nil)
		}
	}
}
