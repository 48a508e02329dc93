package verdict

import (
	"context"
	"errors"
	"strings"
	"testing"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/parse"
)

// TestModelLimited: a program too large for the declarative model gets,
// from ModelLimited and RobustLimited, results that say unknown and why,
// never a certain answer; other errors are left alone.
func TestModelLimited(t *testing.T) {
	src := "node A { x = 0 }\nnode B { z = 0 }\nthread T0 on A {" + strings.Repeat(" x := 1;", 66) + " z := x }\nexists z = 1\n"
	p, err := parse.Parse("big.rdma", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	const bound = "model limit: 70 events > 64"
	_, _, err = ComputeModel(context.Background(), p, Options{})
	if !errors.Is(err, axiom.ErrTooLarge) {
		t.Fatalf("ComputeModel: err %v, want one matching axiom.ErrTooLarge", err)
	}
	rdma, sc, ok := ModelLimited(p, err)
	if !ok {
		t.Fatal("ModelLimited: not ok")
	}
	for _, r := range []*Result{rdma, sc} {
		if _, certain := r.Holds(); certain || r.Certain() || r.Coverage() != Unknown || r.Bound != bound || r.Limit == nil || !r.Model {
			t.Errorf("%s: %+v", r.Semantics, r)
		}
	}
	_, _, err = RobustModel(context.Background(), p, Options{})
	rr, ok := RobustLimited(err)
	if !ok || rr.Certain() || rr.Coverage() != Unknown || rr.Bound != bound || rr.Method != "enum-axiom" {
		t.Errorf("RobustLimited(%v) = %+v, %v", err, rr, ok)
	}
	other := errors.New("some other error")
	if r, s, ok := ModelLimited(p, other); ok || r != nil || s != nil {
		t.Error("ModelLimited accepted another error")
	}
	if r, ok := RobustLimited(other); ok || r != nil {
		t.Error("RobustLimited accepted another error")
	}
	if _, _, ok := ModelLimited(p, nil); ok {
		t.Error("ModelLimited accepted no error")
	}
}
