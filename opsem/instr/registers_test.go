package instr

import (
	"testing"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/prog/progtest"
)

// TestRegistersSettled explores the instrumented machine of
// progtest.SwitchRegister: a load is T's lR of x, the eval into y its lW of
// the value computed, and no state has T at an instruction of registers
// only (an eval into r, the switch on r or its alternatives): they run
// within the step that reached them. With m = 2, y := r + 1 writes 3 (T
// read 1); with m = 1 the switch never takes it; the domain of y follows.
func TestRegistersSettled(t *testing.T) {
	for _, tc := range []struct {
		m      int64
		writes bool  // the lW(y, 3) happens
		domY   []int // y's domain
	}{{2, true, []int{0, 3}}, {1, false, []int{0}}} {
		p := progtest.SwitchRegister(t, tc.m, true)
		m, err := New(p, Options{NoReduction: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Domain(1); len(got) != len(tc.domY) || int(got[len(got)-1]) != tc.domY[len(tc.domY)-1] {
			t.Errorf("m = %d: domain of y %v, want %v", tc.m, got, tc.domY)
		}
		load, write := false, false
		seen := map[string]bool{}
		queue := [][]byte{m.Initial(nil)}
		st := m.NewState()
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			if seen[string(s)] {
				continue
			}
			seen[string(s)] = true
			m.Decode(s, st)
			if pc := st.th[1].pc; pc >= 1 && pc <= 4 {
				t.Errorf("m = %d: a state has T at instruction %d, which settle runs", tc.m, pc)
			}
			var labels []uint64
			m.Successors(s, func(l uint64, next []byte) {
				labels = append(labels, l)
				queue = append(queue, append([]byte(nil), next...))
			})
			for _, l := range labels {
				step, err := m.Transition(s, l)
				if err != nil {
					t.Fatal(err)
				}
				ev := step.Event
				load = load || ev.Kind == prog.EvLR && ev.Thread == 1 && ev.Loc == 0
				write = write || ev.Kind == prog.EvLW && ev.Thread == 1 && ev.Loc == 1 && ev.Val == 3
				if ev.Kind != prog.EvNone && ev.Loc == 2 {
					t.Errorf("m = %d: an event on the register: %+v", tc.m, ev)
				}
			}
		}
		if !load || write != tc.writes {
			t.Errorf("m = %d: lR(x) %v, lW(y,3) %v, want true, %v", tc.m, load, write, tc.writes)
		}
	}
}
