package parse

// Registers kept at run time (docs/DESIGN-PROTOCOLS.md, "registers at run
// time"). Specialising a thread on its registers' valuations multiplies
// its code by the valuations its registers can take together; a register
// that holds a value read from memory declared 0..255 takes 256. Such a
// register is better kept at run time: a location of the thread's node that
// makes no events (prog.Loc.Reg), set by prog.OpLoad and prog.OpEval,
// tested by prog.OpIf, its arithmetic a prog.Expr. Reads of memory stay
// what they are (switches over the location's domain), so the code grows
// with the domains of what a statement reads, never with their product
// with the registers'.
//
// A register whose value must be a constant of the code stays specialised
// (static): one that indexes a location or names a node (a queue pair
// carries no values, and an address is a location), an operand of a cas or
// a remote atomic, and one tested on the left of && or || whose right side
// reads memory (the read happens only when the left side says so, which
// the lowering must know); and one assigned to a specialised register.

import (
	"fmt"
	"slices"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
)

// RegisterMode says where the lowering keeps a protocol's registers.
type RegisterMode uint8

const (
	// RegistersAuto specialises them, unless a thread then passes the
	// instruction limit (prog.MaxCode): the file is lowered again with
	// RegistersRuntime.
	RegistersAuto RegisterMode = iota
	// RegistersStatic always specialises them.
	RegistersStatic
	// RegistersRuntime keeps at run time every register that need not be
	// static.
	RegistersRuntime
)

// regLoc returns the location of register r of the thread specialised,
// -1 when r is specialised.
func (sp *specialiser) regLoc(r int) int {
	if sp.ti >= len(sp.lw.regLocs) || r >= len(sp.lw.regLocs[sp.ti]) {
		return -1 // specialised, or the declaration failed (reported)
	}
	return sp.lw.regLocs[sp.ti][r]
}

// declareRuntimeRegisters gives every register of ts that need not be
// static its location, named thread.register, on the thread's node.
func (lw *Lowerer) declareRuntimeRegisters(ts []*IRThread) {
	p := lw.P
	lw.regLocs = make([][]int, len(ts))
	for ti, t := range ts {
		static := staticRegisters(lw, t)
		lw.regLocs[ti] = make([]int, len(t.Regs))
		for r, d := range t.Regs {
			lw.regLocs[ti][r] = -1
			if static[r] {
				continue
			}
			if len(p.Locs) == prog.MaxLocs {
				lw.errorf(d.pos, "too many locations with the registers kept at run time (the limit is %d)", prog.MaxLocs)
				return
			}
			lw.regLocs[ti][r] = len(p.Locs)
			p.Locs = append(p.Locs, prog.Loc{Name: t.Name + "." + d.Name, Node: t.node, Init: uint8(d.Init), Pos: d.pos,
				Reg: true, Owner: ti})
			lw.Ranges = append(lw.Ranges, d.Rng)
		}
	}
}

// staticRegisters returns which registers of t must stay specialised (see
// above).
func staticRegisters(lw *Lowerer, t *IRThread) []bool {
	idx := map[string]int{}
	for i, r := range t.Regs {
		idx[r.Name] = i
	}
	static := make([]bool, len(t.Regs))
	// mark marks every register x names.
	var mark func(x *syntax.Expr)
	mark = func(x *syntax.Expr) {
		if x == nil {
			return
		}
		if x.Kind == syntax.ExprName && len(x.Idx) == 0 {
			if r, ok := idx[x.Name.Text]; ok {
				static[r] = true
			}
		}
		for _, ix := range x.Idx {
			mark(ix)
		}
		mark(x.L)
		mark(x.R)
	}
	// readsMemory reports whether x names a location.
	var readsMemory func(x *syntax.Expr) bool
	readsMemory = func(x *syntax.Expr) bool {
		if x == nil {
			return false
		}
		if x.Kind == syntax.ExprName {
			if _, ok := lw.Arrays[x.Name.Text]; ok && (len(x.Idx) > 0 || !isReg(idx, x.Name.Text)) {
				return true
			}
		}
		for _, ix := range x.Idx {
			if readsMemory(ix) {
				return true
			}
		}
		return readsMemory(x.L) || readsMemory(x.R)
	}
	// walk marks what x's indices and short-circuit tests need.
	var walk func(x *syntax.Expr)
	walk = func(x *syntax.Expr) {
		if x == nil {
			return
		}
		for _, ix := range x.Idx {
			mark(ix)
		}
		if x.Kind == syntax.ExprBinary && (x.Op == syntax.TokAndAnd || x.Op == syntax.TokOrOr) && readsMemory(x.R) {
			mark(x.L)
		}
		walk(x.L)
		walk(x.R)
	}
	for _, in := range t.code {
		s := in.s
		if s == nil {
			continue
		}
		walk(s.Cond)
		walk(s.LhsE)
		walk(s.RhsE)
		walk(s.CasZ)
		mark(s.NodeE)
		mark(s.CasA)
		mark(s.CasB)
	}
	// A specialised register takes constants only: what it is assigned
	// is specialised too.
	for changed := true; changed; {
		changed = false
		for _, in := range t.code {
			s := in.s
			if s == nil || s.LhsE == nil || !s.LhsE.SimpleName() {
				continue
			}
			if r, ok := idx[s.LhsE.Name.Text]; ok && static[r] {
				before := slices.Clone(static)
				mark(s.RhsE)
				changed = changed || !slices.Equal(before, static)
			}
		}
	}
	return static
}

func isReg(idx map[string]int, name string) bool {
	_, ok := idx[name]
	return ok
}

// expr returns v as an expression.
func (v value) expr() prog.Expr {
	if v.sym != nil {
		return v.sym
	}
	return prog.Expr{{Kind: prog.TConst, Val: int64(v.v)}}
}

// symUnary applies op to v, an expression.
func symUnary(op syntax.Tok, v value) value {
	k := prog.TNot
	if op == syntax.TokMinus {
		k = prog.TNeg
	}
	return value{sym: append(append(prog.Expr(nil), v.sym...), prog.Term{Kind: k})}
}

// A guard is a division by an expression known at run time only: where it
// is zero, the statement stops at the error point of x, as the division
// of constants does.
type guard struct {
	divisor prog.Expr
	x       *syntax.Expr
}

// symBinary applies x's operator to l and r, one of them an expression;
// a division by an expression that may be zero gets its guard, one by a
// constant zero is the error point of x.
func (e *evalCtx) symBinary(x *syntax.Expr, l, r value) value {
	op := x.Op
	if op == syntax.TokSlash || op == syntax.TokPercent {
		switch {
		case r.sym == nil && r.v == 0:
			return e.failAt(x.Pos, "%s: division by zero", x)
		case r.sym != nil:
			if lo, hi, _, _ := r.sym.Interval(e.sp.regRange); lo <= 0 && hi >= 0 {
				e.guards = append(e.guards, guard{divisor: r.sym, x: x})
			}
		}
	}
	k, ok := map[syntax.Tok]prog.TermKind{syntax.TokPlus: prog.TAdd, syntax.TokMinus: prog.TSub, syntax.TokStar: prog.TMul,
		syntax.TokSlash: prog.TDiv, syntax.TokPercent: prog.TMod, syntax.TokEqEq: prog.TEq, syntax.TokNe: prog.TNe,
		syntax.TokLt: prog.TLt, syntax.TokLe: prog.TLe, syntax.TokGt: prog.TGt, syntax.TokGe: prog.TGe,
		syntax.TokAndAnd: prog.TAnd, syntax.TokOrOr: prog.TOr}[op]
	if !ok {
		panic(fmt.Sprintf("parse: operator %v in an expression", op))
	}
	ex := append(append(append(prog.Expr(nil), l.expr()...), r.expr()...), prog.Term{Kind: k})
	return value{sym: ex}
}

// evalInstr emits X := E (prog.OpEval) of statement s, X a register location
// or a location of the thread's node, with the range rng of what it
// assigns (named what); its error point says that E divides by zero or
// leaves rng.
//
// The statement's divisions were guarded before (guarded): the error point
// is a range's, or a product's too large.
func (sp *specialiser) evalInstr(ec *evalCtx, s *syntax.Stmt, x int, e prog.Expr, rng ValRange, what string, next int) int {
	st := sp.stmt(prog.SWrite)
	st.X = x
	fail := -1
	if lo, hi, mul, _ := e.Interval(sp.regRange); mul || lo < int64(rng.Lo) || hi > int64(rng.Hi) {
		fail = sp.fail(s.Pos, fmt.Sprintf("%s: a product too large, or a value outside the range %s of %s", s.RhsE, rng, what))
	}
	return sp.guarded(ec, sp.emit(prog.Instr{Op: prog.OpEval, X: x, E: e, Lo: uint8(rng.Lo), Hi: uint8(rng.Hi), Fail: fail, Next: next,
		QP: -1, Loop: -1, Remote: -1, Stmt: st}))
}

// ifInstr emits the test of cond, an expression (prog.OpIf): yes when it
// holds, no (-1: the run filtered out, as at an assume that fails) when it
// does not.
func (sp *specialiser) ifInstr(ec *evalCtx, cond *syntax.Expr, e prog.Expr, yes, no int) int {
	if no < 0 {
		no = sp.neverHolds(&syntax.Stmt{Pos: cond.Pos, Cond: cond}, -1)
	}
	if yes < 0 {
		yes = sp.neverHolds(&syntax.Stmt{Pos: cond.Pos, Cond: cond}, -1)
	}
	if yes < 0 || no < 0 {
		return -1
	}
	st := sp.stmt(prog.SAssume)
	fail := -1
	if _, _, mul, _ := e.Interval(sp.regRange); mul {
		fail = sp.fail(cond.Pos, fmt.Sprintf("%s: a product too large", cond))
	}
	return sp.guarded(ec, sp.emit(prog.Instr{Op: prog.OpIf, E: e, Alts: []int{yes, no}, Fail: fail, Next: -1,
		QP: -1, Loop: -1, Remote: -1, Stmt: st}))
}

// loadInstr emits r := y (prog.OpLoad) of statement s: y a location of the
// thread's node, r register reg's location; the value must lie in both
// ranges.
func (sp *specialiser) loadInstr(s *syntax.Stmt, reg, r, y int, next int) int {
	lw := sp.lw
	rng := lw.Ranges[r]
	yr := lw.Ranges[y]
	lo, hi := max(rng.Lo, yr.Lo), min(rng.Hi, yr.Hi)
	st := sp.stmt(prog.SWrite)
	st.X = r
	fail := -1
	if lo > yr.Lo || hi < yr.Hi {
		fail = sp.fail(s.Pos, fmt.Sprintf("the value of %s is outside the range %s of register %s", lw.P.Locs[y].Name, rng, sp.t.Regs[reg].Name))
	}
	if lo > hi {
		return fail
	}
	return sp.emit(prog.Instr{Op: prog.OpLoad, X: r, Y: y, Lo: uint8(lo), Hi: uint8(hi), Fail: fail, Next: next,
		QP: -1, Loop: -1, Remote: -1, Stmt: st})
}

// anyValue puts every value of l's range in its domain: a write of a value
// known only at run time.
func (sp *specialiser) anyValue(l int) {
	rng := sp.lw.Ranges[l]
	for v := rng.Lo; v <= rng.Hi; v++ {
		sp.dom.add(l, v)
	}
}

// setRuntimeRegister specialises r := e, register r kept at run time at
// location l: a load when e is a location of the thread's node, else the
// evaluation of e at each valuation of the locations it reads; what
// follows at the valuation regs (r is not in it).
func (sp *specialiser) setRuntimeRegister(in *irInstr, r, l int, regs []uint8) int {
	s := in.s
	then := func() int { return sp.core(in.next, regs) }
	probe := &evalCtx{sp: sp, need: -1}
	if probe.isLoc(s.RhsE) {
		root, _ := sp.decide(nil, func(e *evalCtx) int {
			y, v := e.locRef(s.RhsE)
			if v.stop() {
				return v.pc
			}
			if !sp.onOwnNode(y) {
				return e.compileErr(s.RhsE.Pos, "%s is on node %s: thread %s reads only the memory of its own node (get it into a location of %s first)",
					sp.lw.P.Locs[y].Name, sp.lw.P.Nodes[sp.lw.P.Locs[y].Node].Name, sp.t.Name, sp.lw.P.Nodes[sp.t.node].Name).pc
			}
			return sp.loadInstr(s, r, l, y, then())
		})
		return root
	}
	root, _ := sp.decide(nil, func(e *evalCtx) int {
		v := e.eval(s.RhsE)
		if v.stop() {
			return v.pc
		}
		if v.sym == nil {
			if v = e.inRange(s.Pos, "register "+sp.t.Regs[r].Name, v.v, sp.t.Regs[r].Rng); v.stop() {
				return v.pc
			}
		}
		return sp.evalInstr(e, s, l, v.expr(), sp.t.Regs[r].Rng, "register "+sp.t.Regs[r].Name, then())
	})
	return root
}

// regRange returns the range of register location l.
func (sp *specialiser) regRange(l int) (lo, hi int64) {
	r := sp.lw.Ranges[l]
	return int64(r.Lo), int64(r.Hi)
}

// guarded returns next preceded by the statement's guards (evalCtx.guards),
// in order: each an OpIf that goes on where its divisor is not zero, and
// to the division's error point where it is.
func (sp *specialiser) guarded(e *evalCtx, next int) int {
	for i := len(e.guards) - 1; i >= 0 && next >= 0; i-- {
		g := e.guards[i]
		fail := sp.fail(g.x.Pos, fmt.Sprintf("%s: division by zero", g.x))
		st := sp.stmt(prog.SAssume)
		next = sp.emit(prog.Instr{Op: prog.OpIf, E: g.divisor, Alts: []int{next, fail}, Fail: -1, Next: -1,
			QP: -1, Loop: -1, Remote: -1, Stmt: st})
	}
	return next
}

// Dead registers kept at run time are reset to their initial values where
// they die, so that a value no path will read again never splits
// configurations (the machines store a register's value as a location's).
// A register dies on the edges into a statement where it is dead (live.go)
// from one where it was live or assigned: there, and only there, may it
// hold a value other than its initial one while dead. Each such edge goes
// through one OpEval R := init per dying register, a register-only step
// every semantics runs within the step before it, never a configuration of
// its own. Specialised registers need no such step: forget drops their
// dead values from the valuation that keys the code.

// deadRuntimeRegisters returns, for each surface statement of the thread,
// the locations of the run-time registers that die on the edges into it.
func (sp *specialiser) deadRuntimeRegisters() [][]int {
	t := sp.t
	n := len(t.code)
	var regs []int // the registers kept at run time
	for r := range t.Regs {
		if sp.regLoc(r) >= 0 {
			regs = append(regs, r)
		}
	}
	if len(regs) == 0 || sp.live == nil {
		return nil
	}
	// set[i][r]: register r may hold a value other than its initial one,
	// dead or not, right after statement i (live before it, or assigned
	// by it).
	set := make([][]bool, n)
	for i := range t.code {
		set[i] = slices.Clone(sp.live[i])
		if s := t.code[i].s; s != nil && t.code[i].kind != iJump {
			if d := stmtUses(s, sp.regIdx, make([]bool, len(t.Regs))); d >= 0 {
				set[i][d] = true
			}
		}
	}
	reset := make([][]int, n)
	seen := make([][]bool, n)
	for i, in := range t.code {
		succs := append([]int{in.next}, in.alts...)
		for _, j := range succs {
			if j < 0 || j >= n {
				continue
			}
			if seen[j] == nil {
				seen[j] = make([]bool, len(t.Regs))
			}
			for _, r := range regs {
				if set[i][r] && !sp.live[j][r] && !seen[j][r] {
					seen[j][r] = true
					reset[j] = append(reset[j], r)
				}
			}
		}
	}
	for j := range reset {
		slices.Sort(reset[j])
	}
	return reset
}

// resetBefore returns the code that resets the run-time registers dying
// on the edges into surface statement ir, then goes on at pc; pc itself
// when none dies there.
func (sp *specialiser) resetBefore(ir, pc int) int {
	if ir >= len(sp.resetAt) || len(sp.resetAt[ir]) == 0 {
		return pc
	}
	key := [2]int{ir, pc}
	if c, ok := sp.resets[key]; ok {
		return c
	}
	next := pc
	for k := len(sp.resetAt[ir]) - 1; k >= 0; k-- {
		r := sp.resetAt[ir][k]
		d := sp.t.Regs[r]
		l := sp.regLoc(r)
		st := &prog.Stmt{Kind: prog.SWrite, X: l, Pos: d.pos,
			Src: &prog.Source{Text: fmt.Sprintf("%s := %d (dead from here)", d.Name, d.Init)}}
		next = sp.emit(prog.Instr{Op: prog.OpEval, X: l, E: prog.Expr{{Kind: prog.TConst, Val: int64(d.Init)}},
			Lo: uint8(d.Rng.Lo), Hi: uint8(d.Rng.Hi), Fail: -1, Next: next, QP: -1, Loop: -1, Remote: -1, Stmt: st})
	}
	sp.resets[key] = next
	return next
}
