package axiom

import (
	"testing"

	"rdmasim/opsem/prog"
)

// TestAtomicAxioms checks the atomics' axioms on hand-built traces: an
// atomic fetch-and-add A on location 0 (naR reads the initial write, naW),
// with a CPU write c or another atomic B between A's read and write in mo.
func TestAtomicAxioms(t *testing.T) {
	ev := func(k prog.EventKind, thread, index int) Event {
		return Event{Event: prog.Event{Kind: k, Thread: thread, Loc: 0, Remote: 1}, Index: index, QP: thread, PC: index}
	}
	pend := func(thread, index int) Event {
		e := ev(prog.EvNAR, thread, index)
		e.Writes = true
		return e
	}
	init := Event{Event: prog.Event{Kind: prog.EvLW, Thread: -1, Loc: 0, Remote: -1}, Index: -1, QP: -1, PC: -1}
	tests := []struct {
		name      string
		events    []Event
		rf        []int
		mo        []int
		rdma, sc  bool
		edgeRmwTo int // an sc cycle's edge into the atomic's read is named ";rmw⁻¹" (-1: no check)
	}{
		{"a CPU write between: RDMA yes, SC no",
			[]Event{init, ev(prog.EvNAR, 0, 0), ev(prog.EvNAW, 0, 1), ev(prog.EvLW, 1, 0)},
			[]int{-1, 0, -1, -1}, []int{0, 3, 2}, true, false, 1},
		{"another atomic's write between: neither",
			[]Event{init, ev(prog.EvNAR, 0, 0), ev(prog.EvNAW, 0, 1), ev(prog.EvNAR, 1, 0), ev(prog.EvNAW, 1, 1)},
			[]int{-1, 0, -1, 0, -1}, []int{0, 4, 2}, false, false, -1},
		{"a failing atomic reading a CPU write between: neither (the lock)",
			[]Event{init, ev(prog.EvNAR, 0, 0), ev(prog.EvNAW, 0, 1), ev(prog.EvLW, 1, 0), ev(prog.EvNAR, 2, 0)},
			[]int{-1, 0, -1, -1, 3}, []int{0, 3, 2}, false, false, -1},
		// A prefix may end between a writing atomic's read and write (the
		// machine's ATOMR(v locked)): the atomic holds the lock to the end,
		// as if its write came mo-last (issue 35), under RDMA and under SC
		// (where every other access of the location comes before it).
		{"a pending atomic and another atomic reading the same value: neither (the lock)",
			[]Event{init, pend(0, 0), ev(prog.EvNAR, 1, 0), ev(prog.EvNAW, 1, 1)},
			[]int{-1, 0, 0, -1}, []int{0, 3}, false, false, -1},
		{"a pending atomic after another atomic's write: both",
			[]Event{init, pend(0, 0), ev(prog.EvNAR, 1, 0), ev(prog.EvNAW, 1, 1)},
			[]int{-1, 3, 0, -1}, []int{0, 3}, true, true, -1},
		{"a failing atomic reading the value a pending one read: both (it read first)",
			[]Event{init, pend(0, 0), ev(prog.EvNAR, 1, 0)},
			[]int{-1, 0, 0}, []int{0}, true, true, -1},
		{"two pending atomics on one location: neither holds the lock alone",
			[]Event{init, pend(0, 0), pend(1, 0)},
			[]int{-1, 0, 0}, []int{0}, false, false, -1},
		{"two atomics one after the other: both",
			[]Event{init, ev(prog.EvNAR, 0, 0), ev(prog.EvNAW, 0, 1), ev(prog.EvNAR, 1, 0), ev(prog.EvNAW, 1, 1)},
			[]int{-1, 0, -1, 2, -1}, []int{0, 2, 4}, true, true, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.events {
				tc.events[i].ID = i
			}
			tr := &Trace{Events: tc.events, RF: tc.rf, MO: [][]int{tc.mo}}
			r := tr.Relations()
			if got := r.RDMAConsistent(); got != tc.rdma {
				t.Errorf("RDMA-consistent = %v, want %v (at = %v)", got, tc.rdma, r.AT.Pairs())
			}
			if got := r.SCConsistent(); got != tc.sc {
				t.Errorf("SC-consistent = %v, want %v", got, tc.sc)
			}
			if tc.edgeRmwTo >= 0 {
				cyc := tr.SCCycle()
				named := false
				for k, a := range cyc {
					b := cyc[(k+1)%len(cyc)]
					if b == tc.edgeRmwTo && r.EdgeKind(a, b) == "mo;rmw⁻¹" {
						named = true
					}
				}
				if !named {
					t.Errorf("sc cycle %v has no edge mo;rmw⁻¹ into e%d", cyc, tc.edgeRmwTo)
				}
			}
		})
	}
}
