package axiom

import (
	"testing"

	"rdmasim/opsem/prog"
)

// TestPPOFenced checks the entries the fenced mark adds (SEMANTICS-VERBS.md
// 4, derived from the machine's N1/N2 guard): an earlier get's or atomic's
// events (nrR, nlW, naR, naW) before a fenced operation's events on the
// same queue pair are in ippo and oppo; an earlier put's, a fence's or a
// CPU event's entries are the table's; another queue pair gets nothing;
// an unmarked operation keeps the table's entries.
func TestPPOFenced(t *testing.T) {
	ev := func(k prog.EventKind, index, remote int, fenced bool) *Event {
		e := &Event{Event: prog.Event{Kind: k, Thread: 0, Remote: remote}, Index: index, QP: remote - 1, Fenced: fenced}
		if fenced {
			e.Fences = 1 // as NumberFences numbers one fenced operation
		}
		if ClassOf(k) == ClassCPU {
			e.Remote, e.QP = -1, -1
		}
		return e
	}
	earlier := []prog.EventKind{prog.EvNRR, prog.EvNLW, prog.EvNAR, prog.EvNAW}
	others := []prog.EventKind{prog.EvNLR, prog.EvNRW, prog.EvNF, prog.EvLW, prog.EvLR}
	marked := []prog.EventKind{prog.EvNLR, prog.EvNRW, prog.EvNRR, prog.EvNLW, prog.EvNAR, prog.EvNAW}
	for _, b := range marked {
		for _, a := range earlier {
			if i, o := PPO(ev(a, 0, 1, false), ev(b, 1, 1, true)); !i || !o {
				t.Errorf("%v -> fenced %v, same queue pair: ippo %v oppo %v, want both", a, b, i, o)
			}
			wi, wo := PPO(ev(a, 0, 1, false), ev(b, 1, 2, false))
			if i, o := PPO(ev(a, 0, 1, false), ev(b, 1, 2, true)); i != wi || o != wo {
				t.Errorf("%v -> fenced %v, other queue pair: ippo %v oppo %v, want the table's %v %v", a, b, i, o, wi, wo)
			}
		}
		for _, a := range others {
			wi, wo := PPO(ev(a, 0, 1, false), ev(b, 1, 1, false))
			if i, o := PPO(ev(a, 0, 1, false), ev(b, 1, 1, true)); i != wi || o != wo {
				t.Errorf("%v -> fenced %v: ippo %v oppo %v, want the table's %v %v (the flag waits for reads and atomics only)", a, b, i, o, wi, wo)
			}
		}
		// Never against program order.
		if i, o := PPO(ev(prog.EvNRR, 1, 1, false), ev(b, 0, 1, true)); i || o {
			t.Errorf("nrR after fenced %v: ppo against po", b)
		}
	}
	// The flag matters: unmarked, nrR -> nlR is × in the table.
	if i, o := PPO(ev(prog.EvNRR, 0, 1, false), ev(prog.EvNLR, 1, 1, false)); i || o {
		t.Errorf("nrR -> nlR unmarked: ippo %v oppo %v, want neither", i, o)
	}
}

// TestPPOFenceBetween: a fenced operation orders an earlier get's events
// before the events of every later operation of its queue pair, not only
// its own (the later operation leaves B1 after it). fuzz --verbs found the
// model without it (corpus/regress/fenced-between.rdma): t1 on n1 does
// x := z; y := z fenced; z := x, and the model let the put read x before the
// first get's write landed.
func TestPPOFenceBetween(t *testing.T) {
	at := func(k prog.EventKind, index, remote int, fenced bool) Event {
		return Event{Event: prog.Event{Kind: k, Thread: 0, Remote: remote}, Index: index, QP: remote - 1, Fenced: fenced}
	}
	ev := []Event{
		at(prog.EvNRR, 0, 1, false), at(prog.EvNLW, 1, 1, false), // x := z
		at(prog.EvNRR, 2, 1, true), at(prog.EvNLW, 3, 1, true), // y := z fenced
		at(prog.EvNLR, 4, 1, false), at(prog.EvNRW, 5, 1, false), // z := x
		at(prog.EvNRR, 6, 2, false), at(prog.EvNLW, 7, 2, false), // w := v, another queue pair
		at(prog.EvNLR, 8, 1, false), at(prog.EvNRW, 9, 1, false), // z := x
		at(prog.EvPoll, 10, 1, false), // poll(n2): it waits for the first get only
	}
	NumberFences(ev)
	for _, tc := range []struct {
		a, b int
		want bool
	}{
		{1, 4, true},   // the first get's write before the put's read: the fence lies between
		{0, 5, true},   // its read before the put's write
		{1, 2, true},   // before the fenced get itself
		{3, 4, false},  // the fenced get's own write: no fence after it (nlW -> nlR is ×)
		{1, 7, false},  // another queue pair
		{7, 8, false},  // a get of another queue pair before no fence of its own
		{1, 8, true},   // any later operation of the queue pair
		{1, 10, false}, // not a poll: it may wait for an operation before the fence (fenced-poll-earlier.rdma)
		{3, 10, false}, // nor the fenced get's write: a poll is a CPU event (× below the first row)
	} {
		if i, o := PPO(&ev[tc.a], &ev[tc.b]); i != tc.want || o != tc.want {
			t.Errorf("%v(%d) -> %v(%d): ippo %v oppo %v, want %v", ev[tc.a].Kind, tc.a, ev[tc.b].Kind, tc.b, i, o, tc.want)
		}
	}
}
