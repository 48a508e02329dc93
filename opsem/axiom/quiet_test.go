package axiom

import (
	"testing"

	"rdmasim/opsem/prog"
)

// TestPPOQuiet checks quiet's row and column of the ppo table
// (SEMANTICS-VERBS.md 6, derived from the machine in ppo.go): every event
// kind of the thread before a quiet is ordered before it in ippo and oppo,
// whatever its queue pair (a NIC write is visible by then); a quiet is
// ordered before every later event, as a CPU event is; and a poll, for
// contrast, keeps the paper's column (nrW -> poll in neither).
func TestPPOQuiet(t *testing.T) {
	kinds := []prog.EventKind{prog.EvLR, prog.EvLW, prog.EvCAS, prog.EvPoll, prog.EvNLR, prog.EvNRW, prog.EvNRR,
		prog.EvNLW, prog.EvNF, prog.EvNAR, prog.EvNAW, prog.EvQuiet}
	ev := func(k prog.EventKind, index, remote int) *Event {
		return &Event{Event: prog.Event{Kind: k, Thread: 0, Remote: remote}, Index: index, QP: remote - 1}
	}
	quiet := func(index int) *Event { return ev(prog.EvQuiet, index, -1) }
	for _, k := range kinds {
		for _, remote := range []int{1, 2} {
			if i, o := PPO(ev(k, 0, remote), quiet(1)); !i || !o {
				t.Errorf("%s(remote %d) -> quiet: ippo %v oppo %v, want both", kindNames[k], remote, i, o)
			}
			if i, o := PPO(quiet(0), ev(k, 1, remote)); !i || !o {
				t.Errorf("quiet -> %s(remote %d): ippo %v oppo %v, want both", kindNames[k], remote, i, o)
			}
			// po only: never against program order.
			if i, o := PPO(quiet(1), ev(k, 0, remote)); i || o {
				t.Errorf("quiet after %s: ppo against po", kindNames[k])
			}
		}
	}
	if i, o := PPO(ev(prog.EvNRW, 0, 1), ev(prog.EvPoll, 1, 1)); i || o {
		t.Errorf("nrW -> poll: ippo %v oppo %v, want neither (the paper's table)", i, o)
	}
	if got := ClassOf(prog.EvQuiet); got != ClassQuiet || got.String() != "quiet" || got.Kind() != prog.EvQuiet {
		t.Errorf("ClassOf(quiet) = %v (%s, kind %v)", got, got, got.Kind())
	}
	if !cpuKind(prog.EvQuiet) {
		t.Error("quiet is not executed by the CPU step of its instruction (cpuKind)")
	}
}
