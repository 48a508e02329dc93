package instr

import (
	"testing"

	"rdmasim/opsem/prog"
)

// switchRegisterProgram is a thread W that writes x := 1 and a thread T
// with a run-time register r:
//
//	r := x; r := r * m; switch r { 2: y := r + 1 | else: skip }
//
// the switch on the register (an OpSwitch of r, making no event) as the
// lowering could emit one.
func switchRegisterProgram(t *testing.T, m int64) *prog.Program {
	t.Helper()
	const x, y, r = 0, 1, 2
	loc := func(l int64) prog.Term { return prog.Term{Kind: prog.TLoc, Val: l} }
	num := func(v int64) prog.Term { return prog.Term{Kind: prog.TConst, Val: v} }
	op := func(k prog.TermKind) prog.Term { return prog.Term{Kind: k} }
	in := func(i prog.Instr) prog.Instr {
		i.Loop, i.QP, i.Remote = -1, -1, -1
		return i
	}
	cases := make([]int16, prog.MaxValue+1)
	for v := range cases {
		cases[v] = 1
	}
	cases[2] = 0
	stmt := &prog.Stmt{Kind: prog.SSkip}
	fail := &prog.Stmt{Kind: prog.SFail, Src: &prog.Source{Text: "r left its range"}}
	p := &prog.Program{
		Name:  "switch-register",
		Nodes: []prog.Node{{Name: "A"}},
		Locs:  []prog.Loc{{Name: "x", Node: 0}, {Name: "y", Node: 0}, {Name: "T.r", Node: 0, Reg: true, Owner: 1}},
		Threads: []prog.Thread{
			{Name: "W", Node: 0, Lowered: true, Code: []prog.Instr{
				in(prog.Instr{Op: prog.OpWrite, X: x, A: 1, Next: 1, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpEnd}),
			}},
			{Name: "T", Node: 0, Lowered: true, Code: []prog.Instr{
				in(prog.Instr{Op: prog.OpLoad, X: r, Y: x, Lo: 0, Hi: 3, Next: 1, Fail: 6, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpEval, X: r, E: prog.Expr{loc(r), num(m), op(prog.TMul)}, Lo: 0, Hi: 3, Next: 2, Fail: 6, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpSwitch, X: r, Alts: []int{3, 4}, Case: cases, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpAssumeEq, X: r, A: 2, Next: 5, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpAssumeNe, X: r, A: 2, Next: 7, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpEval, X: y, E: prog.Expr{loc(r), num(1), op(prog.TAdd)}, Lo: 0, Hi: prog.MaxValue, Next: 7, Fail: 6, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpFail, Next: 6, Stmt: fail}),
				in(prog.Instr{Op: prog.OpEnd}),
			}},
		},
	}
	if err := prog.Compile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRegistersSettled explores the instrumented machine of
// switchRegisterProgram: a load is T's lR of x, the eval into y its lW of
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
		p := switchRegisterProgram(t, tc.m)
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
