package machine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

func mustParse(t *testing.T, src string) *prog.Program {
	t.Helper()
	p, err := parse.Parse("t.rdma", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return p
}

// driver steps a machine by naming transitions: "T0" for a CPU step of
// thread T0 (first alternative), "T0#1" for its second alternative, or a
// rule name with its queue pair, e.g. "N1 T0->B", "N6 T0->B #1".
type driver struct {
	t     *testing.T
	m     *Machine
	state []byte
}

func newDriver(t *testing.T, src string, opt Options, sc bool) *driver {
	t.Helper()
	p := mustParse(t, src)
	var m *Machine
	var err error
	if sc {
		m, err = NewSC(p, opt)
	} else {
		m, err = NewRDMA(p, opt)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &driver{t: t, m: m, state: m.Initial(nil)}
}

// name gives a transition label the driver's notation.
func (d *driver) name(l uint64) string {
	t, rule, qi, arg := unlabel(l)
	p := d.m.p
	if rule == RuleStep {
		if arg > 0 {
			return fmt.Sprintf("%s#%d", p.Threads[t].Name, arg)
		}
		return p.Threads[t].Name
	}
	qp := p.QPs[qi]
	s := fmt.Sprintf("%s %s->%s", ruleNames[rule], p.Threads[qp.Thread].Name, p.Nodes[qp.Remote].Name)
	if rule == RuleN6 || rule == RuleA1 || rule == RuleA2 {
		s += fmt.Sprintf(" #%d", arg)
	}
	return s
}

// enabled lists the enabled transitions in the driver's notation.
func (d *driver) enabled() ([]string, uint32) {
	var names []string
	pruned := d.m.Successors(d.state, func(l uint64, _ []byte) { names = append(names, d.name(l)) })
	return names, pruned
}

func (d *driver) has(name string) bool {
	names, _ := d.enabled()
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// do takes the named transitions in turn.
func (d *driver) do(names ...string) {
	d.t.Helper()
	for _, name := range names {
		var next []byte
		d.m.Successors(d.state, func(l uint64, s []byte) {
			if d.name(l) == name {
				next = append([]byte(nil), s...)
			}
		})
		if next == nil {
			all, _ := d.enabled()
			d.t.Fatalf("%s not enabled; enabled: %v\n%s", name, all, d.m.Format(d.state))
		}
		d.state = next
	}
}

func (d *driver) mem(loc string) uint8 {
	st := d.m.NewState()
	d.m.Decode(d.state, st)
	return st.Mem(d.m.p.LocIndex(loc))
}

func (d *driver) expect(name string, want bool) {
	d.t.Helper()
	if got := d.has(name); got != want {
		all, _ := d.enabled()
		d.t.Fatalf("%s enabled = %v, want %v; enabled: %v\n%s", name, got, want, all, d.m.Format(d.state))
	}
}

const twoNodes = "node A { x = 1; y = 0; one = 1 }\nnode B { z = 0; w = 5; v = 0 }\n"

// TestRules drives each rule of the queue-pair machine on its own.
func TestRules(t *testing.T) {
	tests := []struct {
		name string
		body string // thread T0 on A
		run  func(d *driver)
	}{
		{"submit does not block the CPU", "z := x; y := 2", func(d *driver) {
			d.do("T0")
			d.expect("T0", true)
			d.expect("N1 T0->B", true)
			d.do("T0")
			if d.mem("y") != 2 {
				d.t.Fatal("local write did not happen")
			}
		}},
		{"N1 put reads its source when it leaves B1", "z := x; x := 7", func(d *driver) {
			d.do("T0", "T0", "N1 T0->B", "N4 T0->B", "F1 T0->B")
			if d.mem("z") != 7 {
				d.t.Fatalf("z = %d, want 7 (the put read x after x := 7)", d.mem("z"))
			}
		}},
		{"N1 waits for LW of its queue pair", "y := w; z := x", func(d *driver) {
			d.do("T0", "T0", "N2 T0->B", "N5 T0->B", "N6 T0->B #0", "N8 T0->B")
			d.expect("N1 T0->B", false)
			d.do("F2 T0->B")
			d.expect("N1 T0->B", true)
		}},
		{"N2 N5 N6 N8 F2 carry a get", "y := w", func(d *driver) {
			d.do("T0", "N2 T0->B", "N5 T0->B", "N6 T0->B #0", "N8 T0->B")
			if d.mem("y") != 0 {
				d.t.Fatal("get visible before F2")
			}
			d.do("F2 T0->B")
			if d.mem("y") != 5 {
				d.t.Fatalf("y = %d, want 5", d.mem("y"))
			}
		}},
		{"N3 fence waits for B2 and B3, not RW", "z := x; rfence(B); w := x", func(d *driver) {
			d.do("T0", "T0", "T0", "N1 T0->B")
			d.expect("N3 T0->B", false) // PUTV in B2
			d.do("N4 T0->B")
			d.expect("N3 T0->B", false) // ACK in B3
			d.do("N7 T0->B")
			d.expect("N3 T0->B", true) // RW still holds z=1
			d.expect("F1 T0->B", true)
			d.do("N3 T0->B")
			d.expect("N1 T0->B", true)
		}},
		{"N4 issues the remote write, F1 makes it visible", "z := x", func(d *driver) {
			d.do("T0", "N1 T0->B", "N4 T0->B")
			if d.mem("z") != 0 {
				d.t.Fatal("put visible before F1")
			}
			d.do("F1 T0->B")
			if d.mem("z") != 1 {
				d.t.Fatal("put not visible after F1")
			}
		}},
		{"N6 reads responses in any order", "y := w; x := v", func(d *driver) {
			d.do("T0", "T0", "N2 T0->B", "N2 T0->B", "N5 T0->B", "N5 T0->B")
			d.expect("N6 T0->B #0", true)
			d.expect("N6 T0->B #1", true)
			d.expect("N8 T0->B", false) // head not read yet
		}},
		{"N6 waits for RW of its queue pair", "z := x; y := z", func(d *driver) {
			d.do("T0", "T0", "N1 T0->B", "N2 T0->B", "N4 T0->B", "N5 T0->B")
			d.expect("N6 T0->B #1", false) // RW holds z=1
			d.do("F1 T0->B")
			d.expect("N6 T0->B #1", true)
			d.do("N6 T0->B #1", "N7 T0->B", "N8 T0->B", "F2 T0->B")
			if d.mem("y") != 1 {
				d.t.Fatalf("y = %d, want 1: the get was flushed behind the put", d.mem("y"))
			}
		}},
		{"N7 completes a put before its write is visible", "z := x; poll(B)", func(d *driver) {
			d.do("T0")
			d.expect("T0", false) // not complete
			d.do("N1 T0->B", "N4 T0->B")
			d.expect("T0", false) // ACK still in B3
			d.do("N7 T0->B")
			d.expect("T0", true)
			if d.mem("z") != 0 {
				d.t.Fatal("write visible")
			}
		}},
		{"F2 completes a get", "y := w; poll(B)", func(d *driver) {
			d.do("T0", "N2 T0->B", "N5 T0->B", "N6 T0->B #0", "N8 T0->B")
			d.expect("T0", false)
			d.do("F2 T0->B")
			d.expect("T0", true)
		}},
		{"poll waits for the oldest unpolled operation only", "y := w; z := x; poll(B); poll(B)", func(d *driver) {
			d.do("T0", "T0", "N2 T0->B", "N5 T0->B", "N6 T0->B #0", "N8 T0->B", "F2 T0->B", "T0")
			// get polled; the put is still in B1
			d.expect("T0", false)
			d.do("N1 T0->B", "N4 T0->B", "N7 T0->B")
			d.expect("T0", true)
		}},
		{"poll blocked by an older incomplete get, not by a complete later put", "y := w; z := one; poll(B)", func(d *driver) {
			d.do("T0", "T0", "N2 T0->B", "N5 T0->B", "N6 T0->B #0", "N8 T0->B", "F2 T0->B")
			d.expect("T0", true)
		}},
		{"rfences are not polled", "rfence(B); z := x; poll(B)", func(d *driver) {
			d.do("T0", "T0", "N3 T0->B")
			d.expect("T0", false)
			d.do("N1 T0->B", "N4 T0->B", "N7 T0->B")
			d.expect("T0", true)
		}},
		{"poll with nothing to wait for blocks", "poll(B)", func(d *driver) {
			d.expect("T0", false)
		}},
		{"CAS is two events", "y := cas(x, 1, 9)", func(d *driver) {
			d.do("T0")
			if d.mem("x") != 9 || d.mem("y") != 0 {
				d.t.Fatalf("after CAS event: x=%d y=%d", d.mem("x"), d.mem("y"))
			}
			d.do("T0")
			if d.mem("y") != 1 {
				d.t.Fatalf("result y=%d, want 1", d.mem("y"))
			}
		}},
		{"failing CAS reads and writes the old value", "y := cas(x, 0, 9)", func(d *driver) {
			d.do("T0", "T0")
			if d.mem("x") != 1 || d.mem("y") != 1 {
				d.t.Fatalf("x=%d y=%d", d.mem("x"), d.mem("y"))
			}
		}},
		{"assume blocks", "assume(x == 0)", func(d *driver) { d.expect("T0", false) }},
		{"assume != passes", "assume(x != 0); y := 3", func(d *driver) { d.do("T0", "T0") }},
		{"choose offers every branch", "choose { y := 1 } or { y := 2 } or { skip }", func(d *driver) {
			d.expect("T0", true)
			d.expect("T0#1", true)
			d.expect("T0#2", true)
			d.do("T0#1", "T0")
			if d.mem("y") != 2 {
				d.t.Fatal("second branch not taken")
			}
		}},
		{"loop iterates or exits", "loop { y := 1 }; y := 2", func(d *driver) {
			d.do("T0", "T0", "T0", "T0", "T0#1", "T0")
			if d.mem("y") != 2 {
				d.t.Fatal("loop exit")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newDriver(t, twoNodes+"thread T0 on A { "+tc.body+" }\n", DefaultOptions(), false)
			tc.run(d)
		})
	}
}

// TestSCSteps checks the SC machine: a put and a get are two steps each, an
// rfence one, a poll needs a completed put or get.
func TestSCSteps(t *testing.T) {
	d := newDriver(t, twoNodes+"thread T0 on A { z := x; poll(B); y := w; rfence(B) }\nthread T1 on A { x := 3 }\n", DefaultOptions(), true)
	d.do("T0") // nlR(x,1)
	d.do("T1") // x := 3 between the two events
	d.do("T0") // nrW(z,1)
	if d.mem("z") != 1 {
		t.Fatalf("z = %d, want 1 (read before T1's write)", d.mem("z"))
	}
	d.do("T0", "T0", "T0", "T0")
	if d.mem("y") != 5 {
		t.Fatalf("y = %d", d.mem("y"))
	}
	names, _ := d.enabled()
	if len(names) != 0 {
		t.Fatalf("enabled at the end: %v", names)
	}
}

func TestBounds(t *testing.T) {
	d := newDriver(t, twoNodes+"thread T0 on A { z := x; w := x }\n", Options{MaxInflight: 1}, false)
	d.do("T0")
	if _, pruned := d.enabled(); pruned != PrunedInflight {
		t.Fatalf("pruned = %b, want max-inflight", pruned)
	}
	d.expect("T0", false)
	d.do("N1 T0->B", "N4 T0->B", "N7 T0->B")
	d.expect("T0", false) // the RW entry is still in flight
	d.do("F1 T0->B")
	d.expect("T0", true)

	u := newDriver(t, twoNodes+"thread T0 on A { loop { y := 1 } }\n", Options{MaxInflight: 8, Unroll: 2}, false)
	u.do("T0", "T0", "T0", "T0")
	if _, pruned := u.enabled(); pruned != PrunedUnroll {
		t.Fatalf("pruned = %b, want unroll", pruned)
	}
	u.expect("T0#1", true)
}

// TestPollsLeftFinite: a loop of puts with one poll after it has finitely
// many SC configurations, because operations no poll can reach are
// forgotten.
func TestPollsLeftFinite(t *testing.T) {
	p := mustParse(t, twoNodes+"thread T0 on A { loop { z := x }; poll(B); x := 2 }\n")
	m, err := NewSC(p, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	stack := [][]byte{m.Initial(nil)}
	var pruned uint32
	for len(stack) > 0 && len(seen) < 10000 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[string(s)] {
			continue
		}
		seen[string(s)] = true
		pruned |= m.Successors(s, func(_ uint64, n []byte) { stack = append(stack, append([]byte(nil), n...)) })
	}
	if len(seen) >= 10000 || pruned != 0 {
		t.Fatalf("%d states, pruned %b: not finite", len(seen), pruned)
	}
}

// TestEncodingCanonical: the same configuration reached along different
// interleavings encodes identically, and decode∘encode is the identity.
func TestEncodingCanonical(t *testing.T) {
	src := twoNodes + "thread T0 on A { y := 1; z := x }\nthread T1 on B { v := 2; x := w }\n"
	a := newDriver(t, src, DefaultOptions(), false)
	b := newDriver(t, src, DefaultOptions(), false)
	a.do("T0", "T1", "T0", "T1")
	b.do("T1", "T0", "T1", "T0")
	if !bytes.Equal(a.state, b.state) {
		t.Fatalf("different encodings of one configuration:\n%s\n%s", a.m.Format(a.state), b.m.Format(b.state))
	}
	// Round trip over every reachable configuration.
	m := a.m
	st := m.NewState()
	seen := map[string]bool{}
	stack := [][]byte{m.Initial(nil)}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[string(s)] {
			continue
		}
		seen[string(s)] = true
		m.Decode(s, st)
		if re := m.encode(nil, st); !bytes.Equal(re, s) {
			t.Fatalf("encode(decode(s)) != s:\n%v\n%v", s, re)
		}
		m.Successors(s, func(_ uint64, n []byte) { stack = append(stack, append([]byte(nil), n...)) })
	}
	if len(seen) < 50 {
		t.Fatalf("only %d configurations", len(seen))
	}
}

func TestExplain(t *testing.T) {
	d := newDriver(t, twoNodes+"thread T0 on A { z := x }\n", DefaultOptions(), false)
	d.do("T0", "N1 T0->B")
	var lab uint64
	d.m.Successors(d.state, func(l uint64, _ []byte) { lab = l })
	tr := d.m.Explain(d.state, lab)
	got := fmt.Sprintf("%s|%s|%s|%s", tr.Actor, tr.Rule, tr.Event, strings.Join(tr.Changes, ";"))
	want := "NIC T0->B|N4|nrW(z,1) issued|B2[T0->B] = [];B3[T0->B] = [ACK];RW[T0->B] = [z=1]"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestInitialIsFresh: Initial gives the same encoding however the machine's
// scratch state was used before (replaying witness paths relies on it).
func TestInitialIsFresh(t *testing.T) {
	for _, opt := range []Options{DefaultOptions(), {MaxInflight: 8, Graph: true}, {MaxInflight: 8, Unroll: 2}} {
		p := mustParse(t, twoNodes+"thread T0 on A { y := w; z := x; loop { x := 2 } }\n")
		if opt.Graph && opt.Unroll == 0 {
			opt.Unroll = 1
		}
		m, err := NewRDMA(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		first := m.Initial(nil)
		s := first
		for i := 0; i < 6; i++ {
			var next []byte
			m.Successors(s, func(_ uint64, n []byte) { next = append([]byte(nil), n...) })
			s = next
		}
		if again := m.Initial(nil); !bytes.Equal(first, again) {
			t.Fatalf("%+v: Initial changed after use:\n%v\n%v", opt, first, again)
		}
	}
}

// TestGraphCycle: the section 5.1 violation appears in the event graph of
// the run where the put reads x after the later local write.
func TestGraphCycle(t *testing.T) {
	d := newDriver(t, "node n1 { x = 1; y = 0 }\nnode n2 { z = 0; w = 1 }\nthread p on n1 { y := w; z := x; x := 2 }\n",
		Options{MaxInflight: 8, Graph: true}, false)
	d.do("p", "p")
	if d.m.HasSCCycle(d.state) {
		t.Fatal("cycle before any event")
	}
	d.do("p", "N2 p->n2", "N1 p->n2")
	if !d.m.HasSCCycle(d.state) {
		t.Fatal("no cycle after nlR(x,2) read the po-later lW(x,2)")
	}
	g, err := d.m.Graph(d.state)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range g.Cycle {
		e := g.Events[i]
		got = append(got, fmt.Sprintf("%s@%d", d.m.p.EventString(e.Event), e.Slot))
	}
	if strings.Join(got, " ") != "lW(x,2)@4 nlR(x,2,n2)@2" && strings.Join(got, " ") != "nlR(x,2,n2)@2 lW(x,2)@4" {
		t.Fatalf("cycle %v", got)
	}
	// The in-order run has no cycle.
	o := newDriver(t, "node n1 { x = 1; y = 0 }\nnode n2 { z = 0; w = 1 }\nthread p on n1 { y := w; z := x; x := 2 }\n",
		Options{MaxInflight: 8, Graph: true}, false)
	o.do("p", "N2 p->n2", "N5 p->n2", "N6 p->n2 #0", "N8 p->n2", "F2 p->n2", "p", "N1 p->n2", "N4 p->n2", "F1 p->n2", "N7 p->n2", "p")
	if o.m.HasSCCycle(o.state) {
		t.Fatal("cycle in an in-order run")
	}
}
