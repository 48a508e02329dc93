package axiom

import (
	"testing"

	"rdmasim/opsem/prog"
)

// TestPPOInline checks the rows and columns of an inline put's read
// (SEMANTICS-VERBS.md 5, derived from the machine's submission step) beside
// the seed's entries they replace, on the same queue pair and another.
func TestPPOInline(t *testing.T) {
	ev := func(k prog.EventKind, index, remote int, inline bool) *Event {
		e := &Event{Event: prog.Event{Kind: k, Thread: 0, Remote: remote}, Index: index, QP: remote - 1, Inline: inline}
		if ClassOf(k) == ClassCPU || k == prog.EvQuiet {
			e.Remote, e.QP = -1, -1
		}
		return e
	}
	const (
		no   = 0 // in neither relation
		both = 3 // in ippo and oppo
	)
	for _, tc := range []struct {
		name           string
		a, b           prog.EventKind
		aInline, bInl  bool
		same, other    int // the entry on the same queue pair and on another
		seedSame, seed int // the seed's entry (both unmarked)
	}{
		{"CPU -> inline nlR", prog.EvLW, prog.EvNLR, false, true, both, both, both, both},
		{"poll -> inline nlR", prog.EvPoll, prog.EvNLR, false, true, both, both, both, both},
		{"quiet -> inline nlR", prog.EvQuiet, prog.EvNLR, false, true, both, both, both, both},
		{"nlR -> inline nlR", prog.EvNLR, prog.EvNLR, false, true, no, no, both, no},
		{"nF -> inline nlR", prog.EvNF, prog.EvNLR, false, true, no, no, both, no},
		{"nrW -> inline nlR", prog.EvNRW, prog.EvNLR, false, true, no, no, no, no},
		{"nlW -> inline nlR", prog.EvNLW, prog.EvNLR, false, true, no, no, no, no},
		{"nrR -> inline nlR", prog.EvNRR, prog.EvNLR, false, true, no, no, no, no},
		{"naW -> inline nlR", prog.EvNAW, prog.EvNLR, false, true, no, no, no, no},
		{"inline nlR -> CPU", prog.EvNLR, prog.EvLR, true, false, both, both, no, no},
		{"inline nlR -> poll", prog.EvNLR, prog.EvPoll, true, false, both, both, no, no},
		{"inline nlR -> nlR", prog.EvNLR, prog.EvNLR, true, false, both, both, both, no},
		{"inline nlR -> nrW", prog.EvNLR, prog.EvNRW, true, false, both, both, both, no},
		{"inline nlR -> nrR", prog.EvNLR, prog.EvNRR, true, false, both, both, both, no},
		{"inline nlR -> naR", prog.EvNLR, prog.EvNAR, true, false, both, both, both, no},
		{"inline nlR -> inline nlR", prog.EvNLR, prog.EvNLR, true, true, both, both, both, no},
		{"inline nrW -> nrW", prog.EvNRW, prog.EvNRW, true, false, both, no, both, no},
		{"nlR -> inline nrW", prog.EvNLR, prog.EvNRW, false, true, both, no, both, no},
	} {
		code := func(i, o bool) int {
			n := 0
			if i {
				n |= 1
			}
			if o {
				n |= 2
			}
			return n
		}
		for _, q := range []struct {
			remote, want, seed int
		}{{1, tc.same, tc.seedSame}, {2, tc.other, tc.seed}} {
			if got := code(PPO(ev(tc.a, 0, 1, tc.aInline), ev(tc.b, 1, q.remote, tc.bInl))); got != q.want {
				t.Errorf("%s (queue pair %d): %d, want %d", tc.name, q.remote, got, q.want)
			}
			if got := code(PPO(ev(tc.a, 0, 1, false), ev(tc.b, 1, q.remote, false))); got != q.seed {
				t.Errorf("%s unmarked (queue pair %d): %d, want the seed's %d", tc.name, q.remote, got, q.seed)
			}
		}
	}
	// A fence flag between an earlier get and an inline read does not order
	// them (the copy is made at the post); it does order the put's write.
	get := &Event{Event: prog.Event{Kind: prog.EvNLW, Thread: 0, Remote: 1}, Index: 0}
	read := &Event{Event: prog.Event{Kind: prog.EvNLR, Thread: 0, Remote: 1}, Index: 1, Inline: true, Fenced: true, Fences: 1}
	write := &Event{Event: prog.Event{Kind: prog.EvNRW, Thread: 0, Remote: 1}, Index: 2, Inline: true, Fenced: true, Fences: 1}
	if i, o := PPO(get, read); i || o {
		t.Errorf("nlW -> fenced inline nlR: ippo %v oppo %v, want neither", i, o)
	}
	if i, o := PPO(get, write); !i || !o {
		t.Errorf("nlW -> fenced inline nrW: ippo %v oppo %v, want both", i, o)
	}
}
