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
