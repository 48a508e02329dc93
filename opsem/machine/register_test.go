package machine

import (
	"slices"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/prog/progtest"
)

// TestRegisterOps runs the run-time register instructions on the SC and
// RDMA machines (progtest.Registers) and compares the final memories (x, y, r) and the error
// points reached with what the program does by hand.
func TestRegisterOps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		m      int64
		hi     uint8
		finals [][3]byte // x, y, r
		fails  int       // configurations with T at its error point
	}{
		{"not taken", 1, 3, [][3]byte{{1, 0, 0}, {1, 0, 1}}, 0},
		{"taken", 2, 3, [][3]byte{{1, 0, 0}, {1, 3, 2}}, 0},
		{"out of range", 2, 1, [][3]byte{{1, 0, 0}}, 1},
	} {
		for _, sem := range []Semantics{SC, RDMA} {
			m, err := New(progtest.Registers(t, tc.m, tc.hi), sem, Options{MaxInflight: 2})
			if err != nil {
				t.Fatal(err)
			}
			e, complete := exploreAll(m, 1000)
			if !complete {
				t.Fatalf("%s: more than 1000 configurations", tc.name)
			}
			var finals [][3]byte
			for s := range e.finals {
				f := [3]byte{s[0], s[1], s[2]}
				if !slices.Contains(finals, f) {
					finals = append(finals, f)
				}
			}
			slices.SortFunc(finals, func(a, b [3]byte) int { return slices.Compare(a[:], b[:]) })
			if !slices.Equal(finals, tc.finals) {
				t.Errorf("%s on %v: final (x, y, r) %v, want %v", tc.name, sem, finals, tc.finals)
			}
			fails := 0
			for s := range e.states {
				if pc, _ := m.pcOf([]byte(s), 1); pc == 4 {
					fails++
				}
			}
			if fails != tc.fails {
				t.Errorf("%s on %v: %d configurations at the error point, want %d", tc.name, sem, fails, tc.fails)
			}
		}
	}
}

// TestLoadBlocked: a load without an error point (Fail -1) whose location
// holds a value outside its Lo..Hi, which a NIC write brings once the
// range checks are dropped (prog.WithoutRangeChecks, as robustness does),
// blocks: the run is filtered out there, as at the specialised lowering's
// switch with no alternative for the value. Every machine (the byte-level
// step, the structured one under event graphs, the reduced one) takes no
// step there, and StuckEncoded says Filtered, not Deadlock.
func TestLoadBlocked(t *testing.T) {
	const src = `litmus blocked
registers runtime
node a { x : 0..1 = 0 }
node b { y = 5 }
thread t on a {
  reg r
  x := y
  poll(b)
  r := x
  assert(r < 2)
}
`
	p, err := parse.Parse("blocked.rdma", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	q, dropped := prog.WithoutRangeChecks(p)
	if dropped == "" {
		t.Fatal("the program has no range check to drop")
	}
	load := -1
	for pc, in := range q.Threads[0].Code {
		if in.Op == prog.OpLoad {
			load = pc
			if in.Fail >= 0 || in.Hi != 1 {
				t.Fatalf("load %v: want Fail -1 and Hi 1", in)
			}
		}
	}
	if load < 0 {
		t.Fatal("no load in the lowering")
	}
	for _, tc := range []struct {
		sem Semantics
		opt Options
	}{
		{SC, Options{MaxInflight: 2}},
		{RDMA, Options{MaxInflight: 2}},
		{RDMA, Options{MaxInflight: 2, Reduce: true}},
		{RDMA, Options{MaxInflight: 2, Graph: true, Unroll: 1}},
	} {
		m, err := New(q, tc.sem, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		e, complete := exploreAll(m, 1000)
		if !complete || len(e.finals) != 0 || len(e.deadlocks) != 0 {
			t.Errorf("%v %+v: complete %v, %d final, %d deadlocked configurations; want none (the load blocks)", tc.sem, tc.opt, complete, len(e.finals), len(e.deadlocks))
		}
		blocked := 0
		for s := range e.states {
			if pc, _ := m.pcOf([]byte(s), 0); pc == load {
				blocked++
				if k := m.StuckEncoded([]byte(s)); k != Filtered {
					t.Errorf("%v %+v: at the load, StuckEncoded %v, want Filtered", tc.sem, tc.opt, k)
				}
			}
		}
		if blocked == 0 {
			t.Errorf("%v %+v: no configuration at the load", tc.sem, tc.opt)
		}
	}
}
