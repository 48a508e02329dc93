package axiom

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"rdmasim/opsem/prog"
)

// Programs of TestReach.
const (
	// reachVac stops every run at line 9, where x := y + 1 writes 2 into
	// x : 0..1 (an OpFail of the lowering).
	reachVac = "litmus vac\nnode a { x : 0..1 = 0; y : 0..1 = 0 }\nnode b { z : 0..1 = 0 }\n" +
		"thread t on a {\n  x := 1\n  z := x\n  poll(b)\n  y := 1\n  x := y + 1\n}\nexists (z = 1)\n"
	// reachInflight: T0 ends while its put is in flight (rule F1).
	reachInflight = "node A { one = 1 }\nnode B { z = 0 }\nthread T0 on A { z := one }\nreach (T0@end /\\ z = 0)\n"
	// reachPutAhead: the CPU runs past its put, whose write is in flight:
	// x = 1 with z = 0 under RDMA only; the po-prefixes alone never show
	// it (the put's nrW is po-before x := 1).
	reachPutAhead = "node A { one = 1; x = 0 }\nnode B { z = 0 }\nthread T0 on A { z := one; x := 1 }\nreach (x = 1 /\\ z = 0)\n"
	// reachAssert: a committed entry read from the replica before it lands
	// fails the client's assertion under RDMA, never under SC.
	reachAssert = "node L { val = 1; one = 1 }\nnode F { log : 0..1 = 0 }\nnode C { commit : 0..1 = 0; copy : 0..1 = 0 }\n" +
		"thread leader on L {\n  log := val\n  poll(F)\n  commit := one\n}\n" +
		"thread client on C {\n  reg c : 0..1\n  reg v : 0..1\n  c := commit\n  if (c == 1) {\n    copy := log\n    poll(F)\n    v := copy\n    assert(v == 1)\n  }\n}\n"
	// reachNICRange: the get writes 2 into d : 0..1, a checked range.
	reachNICRange = "node A { d : 0..1 = 0 }\nnode B { s : 0..2 = 2 }\nthread T on A { d := s\n poll(B) }\n"
	// Two gets land values out of range. After a poll, or on one queue
	// pair, the first lands first and the run stops there; on two queue
	// pairs either may land first under RDMA (program order under SC).
	twoRangesPoll = "node A { d : 0..1 = 0; e : 0..1 = 0 }\nnode B { s : 0..2 = 2; t : 0..2 = 2 }\nthread T on A {\n  d := s\n  poll(B)\n  e := t\n  poll(B)\n}\n"
	twoRangesQP   = "node A { d : 0..1 = 0; e : 0..1 = 0 }\nnode B { s : 0..2 = 2; t : 0..2 = 2 }\nthread T on A {\n  d := s\n  e := t\n  poll(B)\n  poll(B)\n}\n"
	twoRangesQPs  = "node A { d : 0..1 = 0; e : 0..1 = 0 }\nnode B { s : 0..2 = 2 }\nnode C { u : 0..2 = 2 }\nthread T on A {\n  d := s\n  e := u\n  poll(B)\n  poll(C)\n}\n"
	// reachDeadlock: the second poll has nothing to poll from.
	reachDeadlock = "node A { x = 0 }\nnode B { y = 0 }\nthread T0 on A { y := x; poll(B); poll(B) }\nexists (y = 1)\n"
)

// Range errors of the twoRanges programs, as the machines describe them.
const (
	dErr  = "T at line 4 (d := s): the value 2 written into d leaves its range 0..1"
	dErr5 = "T at line 5 (d := s): the value 2 written into d leaves its range 0..1"
	eErr6 = "T at line 6 (e := u): the value 2 written into e leaves its range 0..1"
)

// TestReach: reach answers, error points (by description) and deadlocks
// of consistent trace prefixes, under RDMA and SC.
func TestReach(t *testing.T) {
	type want struct {
		cond      bool
		errors    string // the error points described, as fmt prints a []string
		deadlocks bool
	}
	for _, tc := range []struct {
		name, src string
		rdma, sc  want
	}{
		{"vacuous", reachVac, want{false, "[t at line 9: the value 2 leaves the range 0..1 of x]", false}, want{false, "[t at line 9: the value 2 leaves the range 0..1 of x]", false}},
		{"in flight at end", reachInflight, want{true, "[]", false}, want{false, "[]", false}},
		{"CPU ahead of its put", reachPutAhead, want{true, "[]", false}, want{false, "[]", false}},
		// An assertion is a reach query of its failure (client@fail).
		{"assert rdma only", reachAssert, want{true, "[client at line 17: assertion v == 1 failed]", false}, want{false, "[]", false}},
		{"NIC write out of range", reachNICRange, want{true, "[T at line 3 (d := s): the value 2 written into d leaves its range 0..1]", false}, want{true, "[T at line 3 (d := s): the value 2 written into d leaves its range 0..1]", false}},
		{"range errors ordered by a poll", twoRangesPoll, want{true, "[" + dErr + "]", false}, want{true, "[" + dErr + "]", false}},
		{"range errors on one queue pair", twoRangesQP, want{true, "[" + dErr + "]", false}, want{true, "[" + dErr + "]", false}},
		{"range errors on two queue pairs", twoRangesQPs, want{true, "[" + dErr5 + " " + eErr6 + "]", false}, want{true, "[" + dErr5 + "]", false}},
		{"deadlock", reachDeadlock, want{false, "[]", true}, want{false, "[]", true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, "reach.rdma", tc.src)
			q := ReachQuery{Errors: true, Deadlocks: true}
			if p.Query.Kind == prog.QReach {
				q.Cond, q.Locs = p.Query.Cond, p.Query.Cond.Locs(nil)
			}
			rdma, sc, _, err := Reach(context.Background(), p, Options{Unroll: 2}, q)
			if err != nil {
				t.Fatal(err)
			}
			for i, got := range []Reached{rdma, sc} {
				w := []want{tc.rdma, tc.sc}[i]
				descs := []string{}
				for _, e := range got.Errors {
					descs = append(descs, e.Describe(p))
				}
				if got.Cond != w.cond || fmt.Sprint(descs) != w.errors || (got.Deadlocks > 0) != w.deadlocks {
					t.Errorf("%s: reached %v, errors %v, deadlocks %d; want %v, %s, %v", []string{"rdma", "sc"}[i], got.Cond, descs, got.Deadlocks, w.cond, w.errors, w.deadlocks)
				}
			}
		})
	}
}

// TestReachRefused: more NIC writes in flight than Reach enumerates is
// refused with a RefusedError, not answered.
func TestReachRefused(t *testing.T) {
	src := "node A { one = 1 }\nnode B { z = 0 }\nthread T0 on A {\n"
	for range maxPending + 1 {
		src += "  z := one\n"
	}
	src += "}\nreach (z = 0)\n"
	p := mustParse(t, "many.rdma", src)
	_, _, _, err := Reach(context.Background(), p, Options{}, ReachQuery{Cond: p.Query.Cond, Locs: p.Query.Cond.Locs(nil)})
	var r *RefusedError
	if !errors.As(err, &r) {
		t.Fatalf("err %v, want a RefusedError", err)
	}
}
