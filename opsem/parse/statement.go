package parse

// The specialisation of one statement of the protocol language at one
// register valuation: the core instructions it emits.

import (
	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
	"strconv"
)

// statement specialises an assignment, assume, assert, rfence or poll at
// valuation regs, and returns the pc of its code (-1 after a mistake,
// which is reported).
func (sp *specialiser) statement(in *irInstr, regs []uint8) int {
	s := in.s
	// then specialises what follows the statement, registers unchanged.
	then := func() int { return sp.core(in.next, regs) }
	switch s.Kind {
	case syntax.StmtAssume, syntax.StmtAssumeE, syntax.StmtAssert:
		return sp.test(s, then)
	case syntax.StmtRFence, syntax.StmtPoll:
		return sp.fence(s, then)
	case syntax.StmtQuiet:
		// No operands: the core's quiet, whatever the registers.
		in := coreInstr(prog.OpQuiet, sp.stmt(prog.SQuiet), then())
		in.Remote = -1
		return sp.emit(in)
	}
	// An assignment.
	if r := sp.lhsRegister(s); r >= 0 {
		return sp.setRegister(in, r, regs)
	}
	if sp.constOperands(s) {
		return -1
	}
	root, _ := sp.decide(nil, func(e *evalCtx) int { return sp.assign(e, s, then) })
	return root
}

// coreInstr is the core instruction op of statement st, followed by next.
func coreInstr(op prog.Op, st *prog.Stmt, next int) prog.Instr {
	return prog.Instr{Op: op, X: st.X, Y: st.Y, Z: st.Z, A: st.A, B: st.B, Remote: st.Remote, QP: -1, Loop: -1, Next: next, Stmt: st, Fenced: st.Fenced, Inline: st.Inline, Words: st.Words, Unsignaled: st.Unsignaled}
}

// onOwnNode reports whether location l is on the node of the thread
// specialised.
func (sp *specialiser) onOwnNode(l int) bool { return sp.lw.P.Locs[l].Node == sp.t.node }

// test specialises assume(c) or assert(c): on each valuation of the
// locations c reads, what follows when c holds, an error point when an
// assertion fails, and nothing (the run filtered out) when an assume does.
func (sp *specialiser) test(s *syntax.Stmt, then func() int) int {
	root, l := sp.decide(nil, func(e *evalCtx) int {
		v := e.eval(s.Cond)
		switch {
		case v.stop():
			return v.pc
		case v.sym != nil:
			no := -1
			if s.Kind == syntax.StmtAssert {
				no = sp.fail(s.Pos, "assertion "+s.Cond.String()+" failed")
			}
			return sp.ifInstr(e, s.Cond, v.sym, then(), no)
		case v.v != 0:
			return then()
		case s.Kind == syntax.StmtAssert:
			return sp.fail(s.Pos, "assertion "+s.Cond.String()+" failed")
		}
		return -1
	})
	if root < 0 && sp.lw.Errs == nil {
		return sp.neverHolds(s, l)
	}
	return root
}

// neverHolds specialises an assume that fails on this path whatever memory
// holds (a test of registers): the run is filtered out here, as at a core
// assume that never holds. The core has no such assume without a
// location, so it waits on l, the location the assume read, or else one
// of the thread's node.
func (sp *specialiser) neverHolds(s *syntax.Stmt, l int) int {
	p := sp.lw.P
	if l < 0 {
		for i := range p.Locs {
			if p.Locs[i].Node == sp.t.node {
				l = i
				break
			}
		}
	}
	if l < 0 {
		sp.lw.errorf(s.Pos, "assume(%s) never holds here, and node %s has no location for the thread to wait on: declare one", s.Cond, p.Nodes[sp.t.node].Name)
		return -1
	}
	return sp.block(l)
}

// fence specialises rfence(n) or poll(n) at each value of the node
// expression n, which must name another node than the thread's.
func (sp *specialiser) fence(s *syntax.Stmt, then func() int) int {
	p := sp.lw.P
	root, _ := sp.decide(nil, func(e *evalCtx) int {
		n, v := e.node(s.NodeE)
		if v.stop() {
			return v.pc
		}
		if n == sp.t.node {
			e.compileErr(s.NodeE.Pos, "%s(%s): %s is the thread's own node; it names the remote node of a queue pair", StmtKeyword(s), p.Nodes[n].Name, p.Nodes[n].Name)
			return -1
		}
		st := sp.stmt(prog.SRFence)
		op := prog.OpRFence
		if s.Kind == syntax.StmtPoll {
			st.Kind, op = prog.SPoll, prog.OpPoll
		}
		st.Remote = n
		return sp.emit(coreInstr(op, st, then()))
	})
	return root
}

// lhsRegister returns the register that assignment s assigns, -1 when it
// assigns a location.
func (sp *specialiser) lhsRegister(s *syntax.Stmt) int {
	if !s.LhsE.SimpleName() {
		return -1
	}
	return (&evalCtx{sp: sp}).register(s.LhsE.Name.Text)
}

// setRegister specialises the assignment of register r (in.s): no code of
// its own, what follows at the valuation regs with r set, for each value
// of the right side (which must lie in r's range). An atomic's or a cas's
// old value goes to a location, never to a register.
func (sp *specialiser) setRegister(in *irInstr, r int, regs []uint8) int {
	s, lw := in.s, sp.lw
	name := s.LhsE.Name.Text
	if s.Atomic != "" {
		lw.errorf(s.Pos, "%s writes the old value to a location of the thread's node (x := %s(y, ...)), not to register %s; read x afterwards", s.Atomic, s.Atomic, name)
		return -1
	}
	if s.CasZ != nil {
		lw.errorf(s.Pos, "cas writes the old value to a location of the thread's node (x := cas(z, a, b)), not to register %s; read x afterwards", name)
		return -1
	}
	if l := sp.regLoc(r); l >= 0 {
		return sp.setRuntimeRegister(in, r, l, regs)
	}
	root, _ := sp.decide(nil, func(e *evalCtx) int {
		v := e.eval(s.RhsE)
		if v.stop() {
			return v.pc
		}
		if v = e.inRange(s.Pos, "register "+name, v.v, sp.t.Regs[r].Rng); v.stop() {
			return v.pc
		}
		nr := append([]uint8(nil), regs...)
		nr[r] = uint8(v.v)
		return sp.core(in.next, nr)
	})
	return root
}

// assign specialises the assignment s to a location at one valuation of
// the locations e has read: a remote atomic, a cas, a copy between
// locations (a put, a get, or a local read and write) or the write of a
// value.
func (sp *specialiser) assign(e *evalCtx, s *syntax.Stmt, then func() int) int {
	p := sp.lw.P
	if s.LhsHi != nil || s.LhsWords != nil {
		return sp.words(e, s, then)
	}
	x, v := e.locRef(s.LhsE)
	if v.stop() {
		return v.pc
	}
	switch {
	case s.Inline && (s.Atomic != "" || s.CasZ != nil || !e.isLoc(s.RhsE)):
		return e.compileErr(s.InlinePos, "%s", inlineMisplaced(stmtText(s))).pc
	case s.Atomic != "":
		return sp.remoteAtomic(e, s, x, then)
	case s.Fenced && (s.CasZ != nil || !e.isLoc(s.RhsE)):
		return e.compileErr(s.FencedPos, "fenced marks a put, a get or a remote atomic (the fence flag of its work request), not %s", stmtText(s)).pc
	case s.Unsignaled && (s.CasZ != nil || !e.isLoc(s.RhsE)):
		return e.compileErr(s.UnsignaledPos, unsignaledMisuse, stmtText(s)).pc
	case s.CasZ != nil:
		return sp.cas(e, s, x, then)
	case e.isLoc(s.RhsE):
		return sp.copyLoc(e, s, x, then)
	}
	w := e.eval(s.RhsE)
	if w.stop() {
		return w.pc
	}
	if !sp.onOwnNode(x) {
		xname := p.Locs[x].Name
		e.compileErr(s.Pos, "%s is on node %s: a value goes to another node only by a put from a location of %s (l := %s; %s := l)", xname, p.Nodes[p.Locs[x].Node].Name, p.Nodes[sp.t.node].Name, s.RhsE, xname)
		return -1
	}
	if w.sym != nil {
		// Known at run time only: any value of x's range.
		sp.anyValue(x)
		return sp.evalInstr(e, s, x, w.sym, sp.lw.Ranges[x], p.Locs[x].Name, then())
	}
	return sp.write(e, s, x, w.v, then())
}

// remoteAtomic specialises x := rcas(y, a, b) or x := rfaa(y, a): y on
// another node, x on the thread's; the values in range, the one an rcas
// swaps in checked against y's range where it is issued, as a cas's is.
func (sp *specialiser) remoteAtomic(e *evalCtx, s *syntax.Stmt, x int, then func() int) int {
	p, lw := sp.lw.P, sp.lw
	y, v := e.locRef(s.CasZ)
	if v.stop() {
		return v.pc
	}
	a := e.eval(s.CasA)
	if a.stop() {
		return a.pc
	}
	b := a
	if s.CasB != nil {
		if b = e.eval(s.CasB); b.stop() {
			return b.pc
		}
	}
	if a.sym != nil || b.sym != nil {
		return e.compileErr(s.Pos, "%s: an operand depends on a register kept at run time", s.Atomic).pc
	}
	if !sp.onOwnNode(x) || sp.onOwnNode(y) {
		e.compileErr(s.Pos, "%s: the old value of a location %s of another node lands in %s, a location of the thread's own node %s", s.Atomic, p.Locs[y].Name, p.Locs[x].Name, p.Nodes[sp.t.node].Name)
		return -1
	}
	if a = e.inRange(s.CasA.Pos, "a value", a.v, ValRange{0, prog.MaxValue}); a.stop() {
		return a.pc
	}
	st := sp.stmt(prog.SRFAA)
	op := prog.OpRFAA
	st.X, st.Y, st.A, st.Remote, st.Fenced = x, y, uint8(a.v), p.Locs[y].Node, s.Fenced
	st.Unsignaled = s.Unsignaled
	if s.Atomic == "rcas" {
		if b = e.inRange(s.CasB.Pos, "a value", b.v, ValRange{0, prog.MaxValue}); b.stop() {
			return b.pc
		}
		if b = e.inRange(s.CasB.Pos, p.Locs[y].Name, b.v, lw.Ranges[y]); b.stop() {
			return b.pc
		}
		st.Kind, op, st.B = prog.SRCAS, prog.OpRCAS, uint8(b.v)
		sp.dom.addAt(y, b.v, sp.hop(e, s.CasB))
	} else {
		sp.hop(e, nil)
		sp.dom.adds = append(sp.dom.adds, domEdge{from: y, to: y, d: a.v, w: sp.writer()})
	}
	sp.edge(y, x)
	return sp.emit(coreInstr(op, st, then()))
}

// cas specialises x := cas(z, a, b): x and z on the thread's node, the
// value swapped in checked against z's range.
func (sp *specialiser) cas(e *evalCtx, s *syntax.Stmt, x int, then func() int) int {
	p, lw := sp.lw.P, sp.lw
	z, v := e.locRef(s.CasZ)
	if v.stop() {
		return v.pc
	}
	a := e.eval(s.CasA)
	if a.stop() {
		return a.pc
	}
	b := e.eval(s.CasB)
	if b.stop() {
		return b.pc
	}
	if a.sym != nil || b.sym != nil {
		return e.compileErr(s.Pos, "cas: an operand depends on a register kept at run time").pc
	}
	if !sp.onOwnNode(z) || !sp.onOwnNode(x) {
		e.compileErr(s.Pos, "cas works on the memory of the thread's own node %s: %s and %s must be on it", p.Nodes[sp.t.node].Name, p.Locs[x].Name, p.Locs[z].Name)
		return -1
	}
	if a = e.inRange(s.CasA.Pos, "a value", a.v, ValRange{0, prog.MaxValue}); a.stop() {
		return a.pc
	}
	if b = e.inRange(s.CasB.Pos, p.Locs[z].Name, b.v, lw.Ranges[z]); b.stop() {
		return b.pc
	}
	st := sp.stmt(prog.SCAS)
	st.X, st.Z, st.A, st.B = x, z, uint8(a.v), uint8(b.v)
	sp.dom.addAt(z, b.v, sp.hop(e, s.CasB))
	sp.edge(z, x)
	return sp.emit(coreInstr(prog.OpCAS, st, then()))
}

// copyLoc specialises x := y between two locations: a get when y is on
// another node, a put when x is, a read then a write when both are the
// thread's; never between two remote locations.
func (sp *specialiser) copyLoc(e *evalCtx, s *syntax.Stmt, x int, then func() int) int {
	p := sp.lw.P
	y, v := e.locRef(s.RhsE)
	if v.stop() {
		return v.pc
	}
	st := sp.stmt(prog.SGet)
	switch {
	case sp.onOwnNode(x) && !sp.onOwnNode(y):
		st.X, st.Y, st.Remote = x, y, p.Locs[y].Node
	case !sp.onOwnNode(x) && sp.onOwnNode(y):
		st.Kind, st.X, st.Y, st.Remote = prog.SPut, y, x, p.Locs[x].Node
	case !sp.onOwnNode(x):
		e.compileErr(s.Pos, "%s := %s copies between two remote locations: one side of := must be on %s, the thread's own node", p.Locs[x].Name, p.Locs[y].Name, p.Nodes[sp.t.node].Name)
		return -1
	case s.Fenced:
		return e.compileErr(s.FencedPos, "fenced marks a put, a get or a remote atomic (the fence flag of its work request), not the local copy %s := %s", p.Locs[x].Name, p.Locs[y].Name).pc
	case s.Unsignaled:
		return e.compileErr(s.UnsignaledPos, unsignaledMisuse, "the local copy "+p.Locs[x].Name+" := "+p.Locs[y].Name).pc
	case s.Inline:
		return e.compileErr(s.InlinePos, "%s", inlineMisplaced("the local copy "+p.Locs[x].Name+" := "+p.Locs[y].Name)).pc
	default:
		// A local copy: a read, then a write.
		w := e.read(s.RhsE, y)
		if w.stop() {
			return w.pc
		}
		return sp.write(e, s, x, w.v, then())
	}
	if s.Inline && st.Kind == prog.SGet {
		return e.compileErr(s.InlinePos, "%s", inlineMisplaced("the get "+p.Locs[x].Name+" := "+p.Locs[y].Name)).pc
	}
	op := prog.OpGet
	if st.Kind == prog.SPut {
		op = prog.OpPut
	}
	st.Fenced, st.Unsignaled, st.Inline = s.Fenced, s.Unsignaled, s.Inline
	sp.edge(y, x)
	return sp.emit(coreInstr(op, st, then()))
}

// constOperands reports each operand of a cas, an rcas or an rfaa in s
// that is a constant (numbers and params) outside 0..255 as a mistake at
// its position, as the core format does (docs/FORMAT-ATOMICS.md): no run
// could use it, so it is no error point. It reports whether there was one.
func (sp *specialiser) constOperands(s *syntax.Stmt) bool {
	op := s.Atomic
	if op == "" {
		if s.CasZ == nil {
			return false
		}
		op = "cas"
	}
	names := [2]string{"the value compared", "the value swapped in"}
	if op == "rfaa" {
		names[0] = "the value added"
	}
	bad := false
	for i, x := range []*syntax.Expr{s.CasA, s.CasB} {
		if x == nil {
			continue
		}
		v, err := EvalConst(x, func(n string) (int, bool) {
			v, ok := sp.lw.Params[n]
			return v, ok
		})
		if err == nil && (v < 0 || v > prog.MaxValue) {
			sp.lw.errorf(x.Pos, "%s: %s, %d, is outside 0..%d, the values a location holds", op, names[i], v, prog.MaxValue)
			bad = true
		}
	}
	return bad
}

// write emits the local write x := v, checking v against x's range.
func (sp *specialiser) write(e *evalCtx, s *syntax.Stmt, x, v, next int) int {
	if w := e.inRange(s.Pos, sp.lw.P.Locs[x].Name, v, sp.lw.Ranges[x]); w.stop() {
		return w.pc
	}
	st := sp.stmt(prog.SWrite)
	st.X, st.A = x, uint8(v)
	sp.dom.addAt(x, v, sp.hop(e, s.RhsE))
	return sp.emit(prog.Instr{Op: prog.OpWrite, X: x, A: uint8(v), Next: next, QP: -1, Loop: -1, Remote: -1, Stmt: st})
}

// words specialises y[lo..hi] := x[lo..hi], a multi-word put or get
// (SEMANTICS-VERBS.md 1): as many words on each side, 2 to prog.MaxWords,
// consecutive elements of one array each, one side on the thread's node
// and the other on another node. The last bound of a range may not name a
// register (its value is fixed when the statement is lowered; a register
// there would escape the analysis of dead registers).
func (sp *specialiser) words(e *evalCtx, s *syntax.Stmt, then func() int) int {
	p := sp.lw.P
	side := func(ref, hi *syntax.Expr) (first, k int, v value) {
		if reg := mentionsRegister(e, hi); reg != "" {
			return 0, 0, e.compileErr(hi.Pos, "the word range %s[..%s] ends at a register, %s: its bounds are constants", ref.Name.Text, hi, reg)
		}
		h := e.eval(hi)
		if h.stop() {
			return 0, 0, h
		}
		lo := ref.Idx[len(ref.Idx)-1]
		l := e.eval(lo)
		if l.stop() {
			return 0, 0, l
		}
		if l.sym != nil || h.sym != nil {
			return 0, 0, e.compileErr(lo.Pos, "the word range %s[%s..%s] depends on a register kept at run time", ref.Name.Text, lo, hi)
		}
		k = h.v - l.v + 1
		if k < 2 || k > prog.MaxWords {
			return 0, 0, e.compileErr(lo.Pos, "the word range %s[%s..%s] has %d words: a multi-word put or get moves 2 to %d", ref.Name.Text, lo, hi, k, prog.MaxWords)
		}
		for i := 0; i < k; i++ {
			w := *ref
			w.Idx = append(append([]*syntax.Expr(nil), ref.Idx[:len(ref.Idx)-1]...),
				&syntax.Expr{Pos: lo.Pos, Kind: syntax.ExprInt, Name: syntax.Token{Kind: syntax.TokInt, Pos: lo.Pos, Text: strconv.Itoa(l.v + i)}})
			loc, v := e.locRef(&w)
			if v.stop() {
				return 0, 0, v
			}
			if i == 0 {
				first = loc
			} else if loc != first+i {
				return 0, 0, e.compileErr(ref.Pos, "the words of %s[%s..%s] are not consecutive locations", ref.Name.Text, lo, hi)
			}
		}
		return first, k, value{}
	}
	// The core format's word lists (y0, y1) in a file that is lowered.
	list := func(ts []syntax.Token) (first, k int, v value) {
		for i, t := range ts {
			loc, v := e.locRef(&syntax.Expr{Pos: t.Pos, Kind: syntax.ExprName, Name: t})
			if v.stop() {
				return 0, 0, v
			}
			if i == 0 {
				first = loc
			} else if loc != first+i || p.Locs[loc].Node != p.Locs[first].Node {
				return 0, 0, e.compileErr(t.Pos, "%s is not the location declared after %s on node %s: the words of one put or get are consecutive locations of one node", t.Text, ts[i-1].Text, p.Nodes[p.Locs[first].Node].Name)
			}
		}
		if len(ts) > prog.MaxWords {
			return 0, 0, e.compileErr(ts[0].Pos, "%d words: a multi-word put or get moves 2 to %d", len(ts), prog.MaxWords)
		}
		return first, len(ts), value{}
	}
	var x, kx, y, ky int
	var v value
	if s.LhsWords != nil {
		if x, kx, v = list(s.LhsWords); v.stop() {
			return v.pc
		}
		if y, ky, v = list(s.RhsWords); v.stop() {
			return v.pc
		}
	} else {
		if x, kx, v = side(s.LhsE, s.LhsHi); v.stop() {
			return v.pc
		}
		if y, ky, v = side(s.RhsE, s.RhsHi); v.stop() {
			return v.pc
		}
	}
	if kx != ky {
		if s.LhsWords != nil {
			return e.compileErr(s.Pos, "%d words := %d words: a multi-word put or get copies as many words as it reads", kx, ky).pc
		}
		return e.compileErr(s.Pos, "%s[..%s] := %s[..%s]: %d words from %d (a multi-word put or get copies as many words as it reads)", s.LhsE.Name.Text, s.LhsHi, s.RhsE.Name.Text, s.RhsHi, kx, ky).pc
	}
	st := sp.stmt(prog.SGet)
	switch {
	case sp.onOwnNode(x) && !sp.onOwnNode(y):
		st.X, st.Y, st.Remote = x, y, p.Locs[y].Node
	case !sp.onOwnNode(x) && sp.onOwnNode(y):
		st.Kind, st.X, st.Y, st.Remote = prog.SPut, y, x, p.Locs[x].Node
	default:
		return e.compileErr(s.Pos, "%s := %s copies words with one work request: one side must be on %s, the thread's own node, the other on another node",
			p.WordsString(x, kx), p.WordsString(y, kx), p.Nodes[sp.t.node].Name).pc
	}
	st.Words, st.Fenced, st.Unsignaled, st.Inline = kx, s.Fenced, s.Unsignaled, s.Inline
	if s.Inline && st.Kind != prog.SPut {
		return e.compileErr(s.InlinePos, "%s", inlineMisplaced("the get "+p.WordsString(x, kx)+" := "+p.WordsString(y, kx))).pc
	}
	op := prog.OpGet
	if st.Kind == prog.SPut {
		op = prog.OpPut
	}
	for i := 0; i < kx; i++ {
		sp.edge(y+i, x+i)
	}
	return sp.emit(coreInstr(op, st, then()))
}

// mentionsRegister returns the name of a register that x names, or "".
func mentionsRegister(e *evalCtx, x *syntax.Expr) string {
	if x == nil {
		return ""
	}
	if x.Kind == syntax.ExprName && len(x.Idx) == 0 && e.register(x.Name.Text) >= 0 {
		return x.Name.Text
	}
	for _, c := range append([]*syntax.Expr{x.L, x.R}, x.Idx...) {
		if r := mentionsRegister(e, c); r != "" {
			return r
		}
	}
	return ""
}
