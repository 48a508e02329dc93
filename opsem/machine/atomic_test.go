package machine

import (
	"strings"
	"testing"
)

// TestAtomicRules drives the remote atomics' rules (A1, A2 and the get's
// rules they share) and the per-location lock.
func TestAtomicRules(t *testing.T) {
	tests := []struct {
		name    string
		threads string // after twoNodes
		run     func(d *driver)
	}{
		{"an atomic travels like a get and reads then writes", "thread T0 on A { x := rfaa(z, 3) }", func(d *driver) {
			d.do("T0", "N2 T0->B", "N5 T0->B")
			d.expect("A2 T0->B #0", false)
			d.do("A1 T0->B #0")
			if d.mem("z") != 0 {
				d.t.Fatal("the read wrote")
			}
			d.expect("N8 T0->B", false) // the response waits for the write
			d.do("A2 T0->B #0")
			if d.mem("z") != 3 {
				d.t.Fatalf("z = %d, want 3", d.mem("z"))
			}
			d.do("N8 T0->B", "F2 T0->B")
			if d.mem("x") != 0 {
				d.t.Fatalf("x = %d, want the old value 0", d.mem("x"))
			}
		}},
		{"the lock excludes another atomic on the location, not a CPU write", "thread T0 on A { x := rfaa(z, 1) }\nthread T1 on A { y := rcas(z, 1, 7) }\nthread T2 on B { z := 9 }", func(d *driver) {
			d.do("T0", "N2 T0->B", "N5 T0->B", "T1", "N2 T1->B", "N5 T1->B", "A1 T0->B #0")
			d.expect("A1 T1->B #0", false)
			d.expect("T2", true)
			d.do("T2") // between the atomic's read and write
			d.do("A2 T0->B #0")
			if d.mem("z") != 1 {
				d.t.Fatalf("z = %d, want 1: the atomic's write overwrites the CPU's", d.mem("z"))
			}
			d.expect("A1 T1->B #0", true)
		}},
		{"the lock is per location", "thread T0 on A { x := rfaa(z, 1) }\nthread T1 on A { y := rfaa(w, 1) }", func(d *driver) {
			d.do("T0", "N2 T0->B", "N5 T0->B", "T1", "N2 T1->B", "N5 T1->B", "A1 T0->B #0")
			d.expect("A1 T1->B #0", true)
		}},
		{"a failing rcas reads and takes no lock", "thread T0 on A { x := rcas(z, 7, 1) }\nthread T1 on A { y := rfaa(z, 1) }", func(d *driver) {
			d.do("T0", "N2 T0->B", "N5 T0->B", "A1 T0->B #0")
			d.expect("A2 T0->B #0", false)
			d.expect("N8 T0->B", true)
			d.do("T1", "N2 T1->B", "N5 T1->B")
			d.expect("A1 T1->B #0", true)
		}},
		{"an atomic reads only once its queue pair's remote writes are in memory", "thread T0 on A { z := one; x := rfaa(z, 1) }", func(d *driver) {
			d.do("T0", "T0", "N1 T0->B", "N4 T0->B", "N2 T0->B", "N5 T0->B")
			d.expect("A1 T0->B #1", false)
			d.do("F1 T0->B", "A1 T0->B #1")
		}},
		{"a later put may land between an atomic's read and write", "thread T0 on A { x := rcas(z, 0, 2); z := one }", func(d *driver) {
			d.do("T0", "T0", "N2 T0->B", "N1 T0->B", "N5 T0->B", "A1 T0->B #0", "N4 T0->B", "F1 T0->B")
			if d.mem("z") != 1 {
				d.t.Fatal("the put did not land")
			}
			d.do("A2 T0->B #0")
			if d.mem("z") != 2 {
				d.t.Fatalf("z = %d, want 2", d.mem("z"))
			}
		}},
		{"a poll waits for the atomic's old value", "thread T0 on A { x := rfaa(z, 1); poll(B) }", func(d *driver) {
			d.do("T0", "N2 T0->B", "N5 T0->B", "A1 T0->B #0", "A2 T0->B #0", "N8 T0->B")
			d.expect("T0", false)
			d.do("F2 T0->B", "T0")
		}},
		{"a fence waits for the atomic to leave B3", "thread T0 on A { x := rfaa(z, 1); rfence(B) }", func(d *driver) {
			d.do("T0", "T0", "N2 T0->B", "N5 T0->B", "A1 T0->B #0")
			d.expect("N3 T0->B", false)
			d.do("A2 T0->B #0", "N8 T0->B", "N3 T0->B")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(newDriver(t, twoNodes+tc.threads+"\n", DefaultOptions(), false))
		})
	}
}

// TestAtomicSC checks that the SC machine performs an atomic's read and
// write in one step, and lands the old value in a second.
func TestAtomicSC(t *testing.T) {
	d := newDriver(t, twoNodes+"thread T0 on A { x := rfaa(w, 2) }\n", DefaultOptions(), true)
	d.do("T0")
	if d.mem("w") != 7 || d.mem("x") != 1 {
		t.Fatalf("after the first step w = %d, x = %d; want 7, 1 (x untouched)", d.mem("w"), d.mem("x"))
	}
	d.do("T0")
	if d.mem("x") != 5 {
		t.Fatalf("x = %d, want the old value 5", d.mem("x"))
	}
}

// TestAtomicExplain checks the words of an atomic's steps.
func TestAtomicExplain(t *testing.T) {
	d := newDriver(t, twoNodes+"thread T0 on A { x := rcas(z, 0, 1) }\n", DefaultOptions(), false)
	d.do("T0", "N2 T0->B", "N5 T0->B")
	var got []string
	d.m.Successors(d.state, func(l uint64, _ []byte) {
		tr := d.m.Explain(d.state, l)
		got = append(got, tr.Rule+" "+tr.Event+" "+strings.Join(tr.Changes, "; "))
	})
	want := "A1 naR(z,0) B3[T0->B] = [ATOMR(x,rcas(z,0,1),0 locked)]"
	if len(got) != 1 || got[0] != want {
		t.Errorf("explained %q, want [%q]", got, want)
	}
}
