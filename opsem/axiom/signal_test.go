package axiom

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestPFUnsignaled checks pf over a batch (SEMANTICS-VERBS.md 2, as the
// machines match polls, machine/signal.go): on every complete trace of
// each program, a poll polls from the NIC writes of the next signalled
// operation of its queue pair and of every operation before it that no
// earlier poll polled from; an unsignaled operation after the last
// signalled one is polled from by no poll; a poll with no signalled
// operation left gives no complete trace; and every trace is well formed.
// want lists, per poll in program order, the statements (by index in T's
// code of puts, gets and atomics, from 0) it polls from.
func TestPFUnsignaled(t *testing.T) {
	for _, tc := range []struct {
		code string
		want [][]int // nil: no complete trace
	}{
		{"r := x unsignaled; s := y; poll(B)", [][]int{{0, 1}}},
		{"r := x; s := y unsignaled; poll(B)", [][]int{{0}}},
		{"r := x unsignaled; s := y unsignaled; c := rfaa(y, 1); poll(B)", [][]int{{0, 1, 2}}},
		{"r := x; s := y unsignaled; c := x; poll(B); poll(B)", [][]int{{0}, {1, 2}}},
		{"r := x unsignaled; s := y; poll(B); poll(B)", nil},
		{"y := a unsignaled; (r, s) := (x, y); poll(B)", [][]int{{0, 1}}},
	} {
		t.Run(tc.code, func(t *testing.T) {
			src := fmt.Sprintf("node A { r = 0; s = 0; c = 0; a = 1 }\nnode B { x = 1; y = 1 }\nthread T on A { %s }\nexists true\n", tc.code)
			p, err := parse.Parse("pf.rdma", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			complete := 0
			_, err = Enumerate(context.Background(), p, Options{Prune: PruneNone}, false, func(tr *Trace, rdma, sc bool) bool {
				if err := tr.WellFormed(); err != nil {
					t.Fatalf("ill-formed trace: %v", err)
				}
				complete++
				// The operation of each NIC write: its rank among T's
				// puts, gets and atomics, in program order.
				op := map[int]int{}
				n, last := -1, -1
				for i, e := range tr.Events {
					if e.Thread != 0 || e.QP < 0 || e.Kind == prog.EvPoll {
						continue
					}
					if e.Kind == prog.EvNLR || e.Kind == prog.EvNRR || e.Kind == prog.EvNAR {
						if e.WR == 0 || e.WR != last {
							n++
						}
						last = e.WR
					}
					op[i] = n
				}
				var got [][]int
				for i, e := range tr.Events {
					if e.Kind != prog.EvPoll {
						continue
					}
					var from []int
					for _, f := range tr.PF {
						if f[1] == i && !slices.Contains(from, op[f[0]]) {
							from = append(from, op[f[0]])
						}
					}
					slices.Sort(from)
					got = append(got, from)
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Errorf("polls poll from the operations %v, want %v", got, tc.want)
					return false
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if (complete > 0) != (tc.want != nil) {
				t.Errorf("%d complete traces, want some: %v", complete, tc.want != nil)
			}
		})
	}
}
