// Package progtest builds small programs by hand, with registers kept at
// run time (prog.Loc.Reg, run by prog.OpLoad, prog.OpEval and prog.OpIf
// over postfix prog.Expr terms, or dispatched on by a prog.OpSwitch), for
// the tests of the rooms that run them: opsem/machine, opsem/instr and
// opsem/axiom. The lowering cannot write some of them (it resets dead
// registers, and it never switches on a register), so the tests build
// them instruction by instruction.
//
// It is a support package for tests: only _test.go files import it, and
// it is no part of rdmasim's library.
package progtest

import (
	"testing"

	"rdmasim/opsem/prog"
)

// The locations of the programs built here: two ordinary locations of
// node A and the register r of thread T (also on node A).
const (
	X = 0 // x, written 1 by thread W
	Y = 1 // y, written by T
	R = 2 // T.r, T's register
)

// Loc is the term that reads location l.
func Loc(l int64) prog.Term { return prog.Term{Kind: prog.TLoc, Val: l} }

// Num is the constant term v.
func Num(v int64) prog.Term { return prog.Term{Kind: prog.TConst, Val: v} }

// Op is the operator term k (prog.TAdd, prog.TMul, prog.TEq, ...).
func Op(k prog.TermKind) prog.Term { return prog.Term{Kind: k} }

// In returns i outside every loop and queue pair (Loop, QP and Remote -1),
// as an instruction built by hand usually is.
func In(i prog.Instr) prog.Instr {
	i.Loop, i.QP, i.Remote = -1, -1, -1
	return i
}

// Registers is a thread W that writes x := 1 and a thread T with a
// run-time register r (a location of its node that makes no events):
//
//	r := x; r := r * m; if (r == 2) { y := r + 1 }
//
// with r declared 0..hi. T's code: 0 the load, 1 the eval into r, 2 the
// if, 3 the eval into y, 4 the error point (r left its range), 5 the end.
// With m = 1 the test is never true; with m = 2 and hi = 3, T ends with
// y = 0 or y = 3; with m = 2 and hi = 1, r := r * 2 leaves r's range when
// T read 1: the error point. Built in code, r keeps its value at the end
// (the lowering resets dead registers).
func Registers(tb testing.TB, m int64, hi uint8) *prog.Program {
	tb.Helper()
	stmt := &prog.Stmt{Kind: prog.SSkip}
	return compile(tb, &prog.Program{
		Name:  "registers",
		Nodes: []prog.Node{{Name: "A"}, {Name: "B"}},
		Locs:  locs(),
		Threads: []prog.Thread{writer(stmt), {Name: "T", Node: 0, Lowered: true, Code: []prog.Instr{
			In(prog.Instr{Op: prog.OpLoad, X: R, Y: X, Lo: 0, Hi: hi, Next: 1, Fail: 4, Stmt: stmt}),
			In(prog.Instr{Op: prog.OpEval, X: R, E: prog.Expr{Loc(R), Num(m), Op(prog.TMul)}, Lo: 0, Hi: hi, Next: 2, Fail: 4, Stmt: stmt}),
			In(prog.Instr{Op: prog.OpIf, E: prog.Expr{Loc(R), Num(2), Op(prog.TEq)}, Alts: []int{3, 5}, Fail: 4, Stmt: stmt}),
			evalY(5, 4, stmt),
			failPoint(4),
			In(prog.Instr{Op: prog.OpEnd}),
		}}},
	})
}

// SwitchRegister is Registers with r declared 0..3 and the if written as a
// switch on the register, an OpSwitch of r (which the lowering never
// emits, but which every semantics must run as the register step it is):
//
//	r := x; r := r * m; switch r { 2: y := r + 1 | else: skip }
//
// T's code: 0 the load, 1 the eval into r, 2 the switch, 3 and 4 its
// alternatives (assume r == 2, assume r != 2), 5 the eval into y, 6 the
// error point, 7 the end. Instructions 1 to 4 touch the register only.
// Without orElse the switch has no else (its one alternative is 3, and 4
// is never reached): T waits at the switch for ever when r != 2, as at an
// assume that fails.
func SwitchRegister(tb testing.TB, m int64, orElse bool) *prog.Program {
	tb.Helper()
	alts, cases := []int{3, 4}, make([]int16, prog.MaxValue+1)
	for v := range cases {
		cases[v] = 1
	}
	if !orElse {
		alts = alts[:1]
		for v := range cases {
			cases[v] = -1
		}
	}
	cases[2] = 0
	stmt := &prog.Stmt{Kind: prog.SSkip}
	return compile(tb, &prog.Program{
		Name:  "switch-register",
		Nodes: []prog.Node{{Name: "A"}},
		Locs:  locs(),
		Threads: []prog.Thread{writer(stmt), {Name: "T", Node: 0, Lowered: true, Code: []prog.Instr{
			In(prog.Instr{Op: prog.OpLoad, X: R, Y: X, Lo: 0, Hi: 3, Next: 1, Fail: 6, Stmt: stmt}),
			In(prog.Instr{Op: prog.OpEval, X: R, E: prog.Expr{Loc(R), Num(m), Op(prog.TMul)}, Lo: 0, Hi: 3, Next: 2, Fail: 6, Stmt: stmt}),
			In(prog.Instr{Op: prog.OpSwitch, X: R, Alts: alts, Case: cases, Stmt: stmt}),
			In(prog.Instr{Op: prog.OpAssumeEq, X: R, A: 2, Next: 5, Stmt: stmt}),
			In(prog.Instr{Op: prog.OpAssumeNe, X: R, A: 2, Next: 7, Stmt: stmt}),
			evalY(7, 6, stmt),
			failPoint(6),
			In(prog.Instr{Op: prog.OpEnd}),
		}}},
	})
}

// locs returns x and y of node A and T's register r.
func locs() []prog.Loc {
	return []prog.Loc{{Name: "x", Node: 0}, {Name: "y", Node: 0}, {Name: "T.r", Node: 0, Reg: true, Owner: 1}}
}

// writer returns thread W: x := 1.
func writer(stmt *prog.Stmt) prog.Thread {
	return prog.Thread{Name: "W", Node: 0, Lowered: true, Code: []prog.Instr{
		In(prog.Instr{Op: prog.OpWrite, X: X, A: 1, Next: 1, Stmt: stmt}),
		In(prog.Instr{Op: prog.OpEnd}),
	}}
}

// evalY returns y := r + 1, going on to next, or to fail past 255.
func evalY(next, fail int, stmt *prog.Stmt) prog.Instr {
	return In(prog.Instr{Op: prog.OpEval, X: Y, E: prog.Expr{Loc(R), Num(1), Op(prog.TAdd)}, Lo: 0, Hi: prog.MaxValue, Next: next, Fail: fail, Stmt: stmt})
}

// failPoint returns the error point of a register that left its range, at
// instruction pc (its Next is itself, as the compiler writes it).
func failPoint(pc int) prog.Instr {
	fail := &prog.Stmt{Kind: prog.SFail, Src: &prog.Source{Text: "r left its range"}}
	return In(prog.Instr{Op: prog.OpFail, Next: pc, Stmt: fail})
}

// compile compiles p (prog.Compile) and fails tb if it is refused.
func compile(tb testing.TB, p *prog.Program) *prog.Program {
	tb.Helper()
	if err := prog.Compile(p); err != nil {
		tb.Fatal(err)
	}
	return p
}
