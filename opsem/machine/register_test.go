package machine

import (
	"fmt"
	"slices"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/prog/progtest"
)

// TestRegisterOps runs the run-time register instructions on the SC and
// RDMA machines (progtest.Registers) and compares the final memories (x,
// y, r) and the error points reached with what the program does by hand.
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

// machineConfig is a machine a test builds: its semantics and options.
type machineConfig struct {
	sem Semantics
	opt Options
}

// everyMachine returns the machines a register test runs: the SC machine,
// the RDMA machine's byte-level step, the reduced one, and the structured
// one under event graphs.
func everyMachine() []machineConfig {
	return []machineConfig{
		{SC, Options{MaxInflight: 2}},
		{RDMA, Options{MaxInflight: 2}},
		{RDMA, Options{MaxInflight: 2, Reduce: true}},
		{RDMA, Options{MaxInflight: 2, Graph: true, Unroll: 1}},
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
	for _, tc := range everyMachine() {
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

// TestSwitchOnRegister: a switch on a run-time register
// (progtest.SwitchRegister, which the lowering never emits) is a register
// step, as an OpIf is and as the decider's settle and the model's trie
// paths run it: no event and no read of memory. Every machine (the
// byte-level step, the structured one under event graphs, the reduced one)
// runs it within the step that reached it, so that no configuration has T
// at the eval into r, the switch or its alternatives (instructions 1 to
// 4), except at a switch with no alternative for r's value, where T waits
// for ever (StuckEncoded: Filtered); no transition makes an event on r;
// and the final memories (x, y, r) are those worked out by hand.
func TestSwitchOnRegister(t *testing.T) {
	for _, tc := range []struct {
		name    string
		m       int64
		orElse  bool
		finals  [][3]byte // x, y, r
		waiting bool      // some configuration has T waiting at the switch
	}{
		{"taken", 2, true, [][3]byte{{1, 0, 0}, {1, 3, 2}}, false},
		{"not taken", 1, true, [][3]byte{{1, 0, 0}, {1, 0, 1}}, false},
		{"no else, taken", 2, false, [][3]byte{{1, 3, 2}}, true}, // T read 0: r = 0 has no alternative
		{"no else, never taken", 1, false, nil, true},
	} {
		p := progtest.SwitchRegister(t, tc.m, tc.orElse)
		for _, mc := range everyMachine() {
			m, err := New(p, mc.sem, mc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if why := switchOnRegister(m, tc.finals, tc.waiting); why != "" {
				t.Errorf("%s on %v %+v: %s", tc.name, mc.sem, mc.opt, why)
			}
		}
	}
}

// switchOnRegister explores m, a machine of progtest.SwitchRegister, and
// returns why it does not run the switch on r as a register step, or "".
func switchOnRegister(m *Machine, finals [][3]byte, waiting bool) string {
	e, complete := exploreAll(m, 1000)
	if !complete {
		return "more than 1000 configurations"
	}
	var got [][3]byte
	for s := range e.finals {
		if f := [3]byte{s[progtest.X], s[progtest.Y], s[progtest.R]}; !slices.Contains(got, f) {
			got = append(got, f)
		}
	}
	slices.SortFunc(got, func(a, b [3]byte) int { return slices.Compare(a[:], b[:]) })
	if !slices.Equal(got, finals) {
		return fmt.Sprintf("final (x, y, r) %v, want %v", got, finals)
	}
	waits := false
	for s := range e.states {
		pc, _ := m.pcOf([]byte(s), 1)
		if pc >= 1 && pc <= 4 {
			in := &m.p.Threads[1].Code[pc]
			if in.Op != prog.OpSwitch || in.SwitchAlt(s[progtest.R]) >= 0 {
				return fmt.Sprintf("a configuration has T at instruction %d, a register step", pc)
			}
			waits = true
			if m.StuckEncoded([]byte(s)) == Deadlock {
				return "T waiting at the switch is a deadlock, want a run filtered out"
			}
		}
		var labels []uint64
		m.Successors([]byte(s), func(l uint64, _ []byte) { labels = append(labels, l) })
		for _, l := range labels {
			if ev := m.Explain([]byte(s), l).Step.Event; ev.Kind != prog.EvNone && ev.Loc == progtest.R {
				return fmt.Sprintf("an event on the register: %+v", ev)
			}
		}
	}
	if waits != waiting {
		return fmt.Sprintf("T waits at the switch: %v, want %v", waits, waiting)
	}
	return ""
}
