package fuzz

import (
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestWithReach: a disputed reach condition goes with a candidate that
// still has what it names, and drops one that lost it.
func TestWithReach(t *testing.T) {
	p, err := parse.Parse("c.rdma", []byte("node A { x = 0 }\nnode B { z = 1 }\nthread t1 on B { x := z }\nexists true\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cond string
		ok   bool
	}{
		{"(t1@end /\\ x = 1)", true},
		{"z = 1", true},
		{"y = 1", false},  // no location y
		{"t2@end", false}, // no thread t2
	} {
		q, ok := WithReach(p, tc.cond)
		if ok != tc.ok {
			t.Errorf("WithReach(%q): ok %v, want %v", tc.cond, ok, tc.ok)
			continue
		}
		if ok && (q.Query.Kind != prog.QReach || q.CondString(q.Query.Cond) == "") {
			t.Errorf("WithReach(%q): query %v", tc.cond, q.Query)
		}
	}
}
