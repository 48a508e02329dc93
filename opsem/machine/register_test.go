package machine

import (
	"slices"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// registerProgram is a thread W that writes x := 1 and a thread T with a
// run-time register r (a location of its node that makes no events):
//
//	r := x; r := r * m; if (r == 2) { y := r + 1 }
//
// with r declared 0..hi. With m = 1 the test is never true; with m = 2 and
// hi = 3, T ends with y = 0 or y = 3; with m = 2 and hi = 1, r := r * 2
// leaves r's range when T read 1: an error point.
func registerProgram(t *testing.T, m int64, hi uint8) *prog.Program {
	t.Helper()
	const x, y, r = 0, 1, 2
	loc := func(l int64) prog.Term { return prog.Term{Kind: prog.TLoc, Val: l} }
	num := func(v int64) prog.Term { return prog.Term{Kind: prog.TConst, Val: v} }
	op := func(k prog.TermKind) prog.Term { return prog.Term{Kind: k} }
	in := func(i prog.Instr) prog.Instr {
		i.Loop, i.QP, i.Remote = -1, -1, -1
		return i
	}
	stmt := &prog.Stmt{Kind: prog.SSkip}
	fail := &prog.Stmt{Kind: prog.SFail, Src: &prog.Source{Text: "r left its range"}}
	p := &prog.Program{
		Name:  "registers",
		Nodes: []prog.Node{{Name: "A"}, {Name: "B"}},
		Locs:  []prog.Loc{{Name: "x", Node: 0}, {Name: "y", Node: 0}, {Name: "T.r", Node: 0, Reg: true, Owner: 1}},
		Threads: []prog.Thread{
			{Name: "W", Node: 0, Lowered: true, Code: []prog.Instr{
				in(prog.Instr{Op: prog.OpWrite, X: x, A: 1, Next: 1, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpEnd}),
			}},
			{Name: "T", Node: 0, Lowered: true, Code: []prog.Instr{
				in(prog.Instr{Op: prog.OpLoad, X: r, Y: x, Lo: 0, Hi: hi, Next: 1, Fail: 4, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpEval, X: r, E: prog.Expr{loc(r), num(m), op(prog.TMul)}, Lo: 0, Hi: hi, Next: 2, Fail: 4, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpIf, E: prog.Expr{loc(r), num(2), op(prog.TEq)}, Alts: []int{3, 5}, Fail: 4, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpEval, X: y, E: prog.Expr{loc(r), num(1), op(prog.TAdd)}, Lo: 0, Hi: prog.MaxValue, Next: 5, Fail: 4, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpFail, Next: 4, Stmt: fail}),
				in(prog.Instr{Op: prog.OpEnd}),
			}},
		},
	}
	if err := prog.Compile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRegisterOps runs the run-time register instructions on the SC and
// RDMA machines and compares the final memories (x, y, r) and the error
// points reached with what the program does by hand.
func TestRegisterOps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		m      int64
		hi     uint8
		finals [][3]byte // x, y, r
		fails  int       // configurations with T at its error point
	}{
		{"not taken", 1, 3, [][3]byte{{1, 0, 0}, {1, 0, 1}}, 0},
		{"taken", 2, 3, [][3]byte{{1, 0, 0}, {1, 3, 2}}, 0},
		{"out of range", 2, 1, [][3]byte{{1, 0, 0}}, 1},
	} {
		for _, sem := range []Semantics{SC, RDMA} {
			m, err := New(registerProgram(t, tc.m, tc.hi), sem, Options{MaxInflight: 2})
			if err != nil {
				t.Fatal(err)
			}
			e, complete := exploreAll(m, 1000)
			if !complete {
				t.Fatalf("%s: more than 1000 configurations", tc.name)
			}
			var finals [][3]byte
			for s := range e.finals {
				f := [3]byte{s[0], s[1], s[2]}
				if !slices.Contains(finals, f) {
					finals = append(finals, f)
				}
			}
			slices.SortFunc(finals, func(a, b [3]byte) int { return slices.Compare(a[:], b[:]) })
			if !slices.Equal(finals, tc.finals) {
				t.Errorf("%s on %v: final (x, y, r) %v, want %v", tc.name, sem, finals, tc.finals)
			}
			fails := 0
			for s := range e.states {
				if pc, _ := m.pcOf([]byte(s), 1); pc == 4 {
					fails++
				}
			}
			if fails != tc.fails {
				t.Errorf("%s on %v: %d configurations at the error point, want %d", tc.name, sem, fails, tc.fails)
			}
		}
	}
}

// TestLoadBlocked: a load without an error point (Fail -1) whose location
// holds a value outside its Lo..Hi, which a NIC write brings once the
// range checks are dropped (prog.WithoutRangeChecks, as robustness does),
// blocks: the run is filtered out there, as at the specialised lowering's
// switch with no alternative for the value. Every machine (the byte-level
// step, the structured one under event graphs, the reduced one) takes no
// step there, and StuckEncoded says Filtered, not Deadlock.
func TestLoadBlocked(t *testing.T) {
	const src = `litmus blocked
registers runtime
node a { x : 0..1 = 0 }
node b { y = 5 }
thread t on a {
  reg r
  x := y
  poll(b)
  r := x
  assert(r < 2)
}
`
	p, err := parse.Parse("blocked.rdma", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	q, dropped := prog.WithoutRangeChecks(p)
	if dropped == "" {
		t.Fatal("the program has no range check to drop")
	}
	load := -1
	for pc, in := range q.Threads[0].Code {
		if in.Op == prog.OpLoad {
			load = pc
			if in.Fail >= 0 || in.Hi != 1 {
				t.Fatalf("load %v: want Fail -1 and Hi 1", in)
			}
		}
	}
	if load < 0 {
		t.Fatal("no load in the lowering")
	}
	for _, tc := range []struct {
		sem Semantics
		opt Options
	}{
		{SC, Options{MaxInflight: 2}},
		{RDMA, Options{MaxInflight: 2}},
		{RDMA, Options{MaxInflight: 2, Reduce: true}},
		{RDMA, Options{MaxInflight: 2, Graph: true, Unroll: 1}},
	} {
		m, err := New(q, tc.sem, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		e, complete := exploreAll(m, 1000)
		if !complete || len(e.finals) != 0 || len(e.deadlocks) != 0 {
			t.Errorf("%v %+v: complete %v, %d final, %d deadlocked configurations; want none (the load blocks)", tc.sem, tc.opt, complete, len(e.finals), len(e.deadlocks))
		}
		blocked := 0
		for s := range e.states {
			if pc, _ := m.pcOf([]byte(s), 0); pc == load {
				blocked++
				if k := m.StuckEncoded([]byte(s)); k != Filtered {
					t.Errorf("%v %+v: at the load, StuckEncoded %v, want Filtered", tc.sem, tc.opt, k)
				}
			}
		}
		if blocked == 0 {
			t.Errorf("%v %+v: no configuration at the load", tc.sem, tc.opt)
		}
	}
}
