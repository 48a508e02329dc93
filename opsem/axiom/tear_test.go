package axiom

import (
	"fmt"
	"testing"

	"rdmasim/opsem/prog"
)

// TestWordsPPOTear: the ppo rows between the events of one two-word put or
// get (SEMANTICS-VERBS.md 1, as built): the machine reads the words one
// per step in any order (machine/tear.go), so two reads are ordered in
// neither ippo nor oppo; it issues the writes only after every read, so a
// read precedes every write in both; the writes are issued together (ippo)
// and placed in address order only under in-order placement (oppo). And
// the contraction: no group in ob, the writes (not the reads) one node of
// ib, the whole work request one node of sc.
func TestWordsPPOTear(t *testing.T) {
	for _, kinds := range [][2]prog.EventKind{{prog.EvNLR, prog.EvNRW}, {prog.EvNRR, prog.EvNLW}} {
		for _, inOrder := range []bool{false, true} {
			ev := make([]Event, 4)
			for i := range ev {
				k := kinds[i/2]
				ev[i] = Event{Event: prog.Event{Kind: k, Thread: 0, Loc: i % 2, Remote: 1}, Index: i, WR: 1, InOrder: inOrder && isWrite(k)}
			}
			want := map[[2]int][2]bool{
				{0, 1}: {false, false},
				{0, 2}: {true, true}, {0, 3}: {true, true},
				{1, 2}: {true, true}, {1, 3}: {true, true},
				{2, 3}: {true, inOrder},
			}
			for pair, w := range want {
				i, o := PPO(&ev[pair[0]], &ev[pair[1]])
				if [2]bool{i, o} != w {
					t.Errorf("%v, in-order %v: PPO(%v, %v) = (ippo %v, oppo %v), want %v", kinds, inOrder, ev[pair[0]].Kind, ev[pair[1]].Kind, i, o, w)
				}
			}
			var c contraction
			c.build(ev)
			got := fmt.Sprint(c.lead[relIB], c.lead[relOB], c.lead[relSC])
			if want := "[-1 -1 -1 2] [-1 -1 -1 -1] [-1 0 0 0]"; got != want {
				t.Errorf("%v: leaders (ib, ob, sc) %s, want %s", kinds, got, want)
			}
		}
	}
}
