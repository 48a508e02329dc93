package parse

import (
	"fmt"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
)

// evalCtx evaluates the expressions of one statement at one register
// valuation, knowing the values of the locations read so far (mem). When
// the evaluation needs a location not read yet, it stops and names it
// (need); specialiser.decide then branches over its values and evaluates
// again.
type evalCtx struct {
	sp   *specialiser
	mem  map[int]int
	need int
}

// value is an evaluation's result: a value, or a stop — the evaluation
// needs a location (evalCtx.need), hit an error point (pc), or found a
// mistake in the program (reported, pc -1).
type value struct {
	v    int
	halt bool
	pc   int
}

func (v value) stop() bool { return v.halt }

func halted(pc int) value { return value{halt: true, pc: pc} }

// compileErr reports a mistake of the program at pos and stops.
func (e *evalCtx) compileErr(pos prog.Pos, format string, args ...any) value {
	e.sp.lw.errorf(pos, format, args...)
	return halted(-1)
}

// failAt stops at the error point msg of the current statement.
func (e *evalCtx) failAt(pos prog.Pos, format string, args ...any) value {
	return halted(e.sp.fail(pos, fmt.Sprintf(format, args...)))
}

// register returns the index of register name, or -1.
func (e *evalCtx) register(name string) int {
	if i, ok := e.sp.regIdx[name]; ok {
		return i
	}
	return -1
}

// constant looks a name up among the constants in scope.
func (e *evalCtx) constant(name string) (int, bool) {
	if v, ok := e.sp.cur.env[name]; ok {
		return v, true
	}
	v, ok := e.sp.lw.Params[name]
	return v, ok
}

func (e *evalCtx) eval(x *syntax.Expr) value {
	switch x.Kind {
	case syntax.ExprInt:
		v, ok := syntax.IntValue(x)
		if !ok {
			return e.compileErr(x.Pos, "number %s is too large", x.Name.Text)
		}
		return value{v: v}
	case syntax.ExprBool:
		return value{v: b2i(x.Name.Text == "true")}
	case syntax.ExprName:
		if len(x.Idx) == 0 {
			if r := e.register(x.Name.Text); r >= 0 {
				return value{v: int(e.sp.curRegs[r])}
			}
			if v, ok := e.constant(x.Name.Text); ok {
				return value{v: v}
			}
		}
		l, v := e.locRef(x)
		if v.stop() {
			return v
		}
		return e.read(x, l)
	case syntax.ExprUnary:
		v := e.eval(x.L)
		if v.stop() {
			return v
		}
		return value{v: unary(x.Op, v.v)}
	}
	l := e.eval(x.L)
	if l.stop() {
		return l
	}
	switch {
	case x.Op == syntax.TokAndAnd && l.v == 0:
		return value{v: 0}
	case x.Op == syntax.TokOrOr && l.v != 0:
		return value{v: 1}
	}
	r := e.eval(x.R)
	if r.stop() {
		return r
	}
	v, msg := binary(x.Op, l.v, r.v)
	if msg != "" {
		return e.failAt(x.Pos, "%s: %s", x, msg)
	}
	return value{v: v}
}

// read returns the value of location l, which x names, or asks for it. A
// value outside l's declared range is an error point (PROTOCOLS.md: "as is
// a load of one").
func (e *evalCtx) read(x *syntax.Expr, l int) value {
	p := e.sp.lw.P
	if node := p.Locs[l].Node; node != e.sp.t.node {
		return e.compileErr(x.Pos, "%s is on node %s: thread %s reads only the memory of its own node %s (get it into a location of %s first: l := %s)",
			p.Locs[l].Name, p.Nodes[node].Name, e.sp.t.Name, p.Nodes[e.sp.t.node].Name, p.Nodes[e.sp.t.node].Name, p.Locs[l].Name)
	}
	if v, ok := e.mem[l]; ok {
		// A NIC write (or a cas's copy) may have put there a value
		// outside the location's range: loading it is an error point.
		if rng := e.sp.lw.Ranges[l]; v < rng.Lo || v > rng.Hi {
			return e.failAt(x.Pos, "the value %d of %s is outside its range %s", v, p.Locs[l].Name, rng)
		}
		return value{v: v}
	}
	e.need = l
	return halted(-1)
}

// isLoc reports whether x names locations (not a register or a constant).
func (e *evalCtx) isLoc(x *syntax.Expr) bool {
	if x.Kind != syntax.ExprName {
		return false
	}
	if len(x.Idx) == 0 {
		if e.register(x.Name.Text) >= 0 {
			return false
		}
		if _, ok := e.constant(x.Name.Text); ok {
			return false
		}
	}
	_, ok := e.sp.lw.Arrays[x.Name.Text]
	return ok
}

// indices evaluates the indices of x.
func (e *evalCtx) indices(x *syntax.Expr) ([]int, value) {
	idx := make([]int, len(x.Idx))
	for i, ix := range x.Idx {
		v := e.eval(ix)
		if v.stop() {
			return nil, v
		}
		idx[i] = v.v
	}
	return idx, value{}
}

// locRef resolves x, a location or an array element, to its location.
func (e *evalCtx) locRef(x *syntax.Expr) (int, value) {
	lw := e.sp.lw
	if x.Kind != syntax.ExprName {
		return 0, e.compileErr(x.Pos, "expected a location, found %s", x)
	}
	name := x.Name.Text
	if len(x.Idx) == 0 && e.register(name) >= 0 {
		return 0, e.compileErr(x.Pos, "%s is a register, not a location", name)
	}
	dims, ok := lw.Arrays[name]
	if !ok {
		if _, isNode := lw.Nodes[name]; isNode {
			return 0, e.compileErr(x.Pos, "%s is a node, not a value", name)
		}
		if _, isFamily := lw.Nodes[Indexed(name, 0)]; isFamily {
			return 0, e.compileErr(x.Pos, "%s is a family of nodes, not a value", name)
		}
		return 0, e.compileErr(x.Pos, "unknown name %s (declare a register with reg %s, or a location in a node)", name, name)
	}
	if len(x.Idx) != dims {
		return 0, e.compileErr(x.Pos, "%s takes %d indices, not %d", name, dims, len(x.Idx))
	}
	idx, v := e.indices(x)
	if v.stop() {
		return 0, v
	}
	full := Indexed(name, idx...)
	l, ok := lw.Locs[full]
	if !ok {
		return 0, e.failAt(x.Pos, "index out of bounds: %s does not exist", full)
	}
	return l, value{}
}

// node resolves x, a node or a member of a family of nodes.
func (e *evalCtx) node(x *syntax.Expr) (int, value) {
	idx, v := e.indices(x)
	if v.stop() {
		return 0, v
	}
	full := Indexed(x.Name.Text, idx...)
	n, ok := e.sp.lw.Nodes[full]
	if !ok {
		if len(idx) == 0 {
			return 0, e.compileErr(x.Pos, "unknown node %s (declare it with node %s { ... })", full, full)
		}
		return 0, e.failAt(x.Pos, "index out of bounds: there is no node %s", full)
	}
	return n, value{}
}

// inRange checks a value stored into a register or a location.
func (e *evalCtx) inRange(pos prog.Pos, what string, v int, rng ValRange) value {
	if v < rng.Lo || v > rng.Hi {
		return e.failAt(pos, "the value %d leaves the range %s of %s", v, rng, what)
	}
	return value{v: v}
}

// statement specialises an assignment, assume, assert, rfence or poll at
// valuation regs.
func (sp *specialiser) statement(in *irInstr, regs []uint8) int {
	s := in.s
	lw := sp.lw
	p := lw.P
	next := func(r []uint8) int { return sp.core(in.next, r) }
	instr := func(op prog.Op, st *prog.Stmt, nx int) prog.Instr {
		return prog.Instr{Op: op, X: st.X, Y: st.Y, Z: st.Z, A: st.A, B: st.B, Remote: st.Remote, QP: -1, Loop: -1, Next: nx, Stmt: st}
	}
	local := func(l int) bool { return p.Locs[l].Node == sp.t.node }
	switch s.Kind {
	case syntax.StmtAssume, syntax.StmtAssumeE, syntax.StmtAssert:
		root, l := sp.decide(nil, func(e *evalCtx) int {
			v := e.eval(s.Cond)
			switch {
			case v.stop():
				return v.pc
			case v.v != 0:
				return next(regs)
			case s.Kind == syntax.StmtAssert:
				return sp.fail(s.Pos, "assertion "+s.Cond.String()+" failed")
			}
			return -1
		})
		if root < 0 && lw.Errs == nil {
			// The assume fails on this path whatever memory holds (a test
			// of registers): the run is filtered out here, as at a core
			// assume that never holds. The core has no such assume without
			// a location, so it waits on one of the thread's node.
			if l < 0 {
				for i := range p.Locs {
					if p.Locs[i].Node == sp.t.node {
						l = i
						break
					}
				}
			}
			if l < 0 {
				lw.errorf(s.Pos, "assume(%s) never holds here, and node %s has no location for the thread to wait on: declare one", s.Cond, p.Nodes[sp.t.node].Name)
				return -1
			}
			return sp.block(l)
		}
		return root
	case syntax.StmtRFence, syntax.StmtPoll:
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
			return sp.emit(instr(op, st, next(regs)))
		})
		return root
	}
	// An assignment.
	lhs, rhs := s.LhsE, s.RhsE
	if lhs.SimpleName() {
		if r := (&evalCtx{sp: sp}).register(lhs.Name.Text); r >= 0 {
			if s.Atomic != "" {
				lw.errorf(s.Pos, "%s writes the old value to a location of the thread's node (x := %s(y, ...)), not to register %s; read x afterwards", s.Atomic, s.Atomic, lhs.Name.Text)
				return -1
			}
			if s.CasZ != nil {
				lw.errorf(s.Pos, "cas writes the old value to a location of the thread's node (x := cas(z, a, b)), not to register %s; read x afterwards", lhs.Name.Text)
				return -1
			}
			root, _ := sp.decide(nil, func(e *evalCtx) int {
				v := e.eval(rhs)
				if v.stop() {
					return v.pc
				}
				if v = e.inRange(s.Pos, "register "+lhs.Name.Text, v.v, sp.t.Regs[r].Rng); v.stop() {
					return v.pc
				}
				nr := append([]uint8(nil), regs...)
				nr[r] = uint8(v.v)
				return next(nr)
			})
			return root
		}
	}
	if sp.constOperands(s) {
		return -1
	}
	root, _ := sp.decide(nil, func(e *evalCtx) int {
		x, v := e.locRef(lhs)
		if v.stop() {
			return v.pc
		}
		xname := p.Locs[x].Name
		switch {
		case s.Atomic != "":
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
			if !local(x) || local(y) {
				e.compileErr(s.Pos, "%s: the old value of a location %s of another node lands in %s, a location of the thread's own node %s", s.Atomic, p.Locs[y].Name, xname, p.Nodes[sp.t.node].Name)
				return -1
			}
			if a = e.inRange(s.CasA.Pos, "a value", a.v, ValRange{0, prog.MaxValue}); a.stop() {
				return a.pc
			}
			st := sp.stmt(prog.SRFAA)
			op := prog.OpRFAA
			st.X, st.Y, st.A, st.Remote = x, y, uint8(a.v), p.Locs[y].Node
			if s.Atomic == "rcas" {
				if b = e.inRange(s.CasB.Pos, "a value", b.v, ValRange{0, prog.MaxValue}); b.stop() {
					return b.pc
				}
				// The value an rcas may swap in is known here: it is
				// checked against y's range where the rcas is issued,
				// as a cas's is.
				if b = e.inRange(s.CasB.Pos, p.Locs[y].Name, b.v, lw.Ranges[y]); b.stop() {
					return b.pc
				}
				st.Kind, op, st.B = prog.SRCAS, prog.OpRCAS, uint8(b.v)
				sp.dom.add(y, b.v)
			} else {
				sp.dom.adds = append(sp.dom.adds, domEdge{from: y, to: y, d: a.v, w: sp.writer()})
			}
			sp.edge(y, x)
			return sp.emit(instr(op, st, next(regs)))
		case s.CasZ != nil:
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
			if !local(z) || !local(x) {
				e.compileErr(s.Pos, "cas works on the memory of the thread's own node %s: %s and %s must be on it", p.Nodes[sp.t.node].Name, xname, p.Locs[z].Name)
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
			sp.dom.add(z, b.v)
			sp.edge(z, x)
			return sp.emit(instr(prog.OpCAS, st, next(regs)))
		case e.isLoc(rhs):
			y, v := e.locRef(rhs)
			if v.stop() {
				return v.pc
			}
			st := sp.stmt(prog.SGet)
			switch {
			case local(x) && !local(y):
				st.X, st.Y, st.Remote = x, y, p.Locs[y].Node
			case !local(x) && local(y):
				st.Kind, st.X, st.Y, st.Remote = prog.SPut, y, x, p.Locs[x].Node
			case !local(x):
				e.compileErr(s.Pos, "%s := %s copies between two remote locations: one side of := must be on %s, the thread's own node", xname, p.Locs[y].Name, p.Nodes[sp.t.node].Name)
				return -1
			default:
				// A local copy: a read, then a write.
				w := e.read(rhs, y)
				if w.stop() {
					return w.pc
				}
				return sp.write(e, s, x, w.v, next(regs))
			}
			op := prog.OpGet
			if st.Kind == prog.SPut {
				op = prog.OpPut
			}
			sp.edge(y, x)
			return sp.emit(instr(op, st, next(regs)))
		}
		w := e.eval(rhs)
		if w.stop() {
			return w.pc
		}
		if !local(x) {
			e.compileErr(s.Pos, "%s is on node %s: a value goes to another node only by a put from a location of %s (l := %s; %s := l)", xname, p.Nodes[p.Locs[x].Node].Name, p.Nodes[sp.t.node].Name, rhs, xname)
			return -1
		}
		return sp.write(e, s, x, w.v, next(regs))
	})
	return root
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
	sp.dom.add(x, v)
	return sp.emit(prog.Instr{Op: prog.OpWrite, X: x, A: uint8(v), Next: next, QP: -1, Loop: -1, Remote: -1, Stmt: st})
}

// StmtKeyword is the keyword of s for messages: poll or rfence.
func StmtKeyword(s *syntax.Stmt) string {
	if s.Kind == syntax.StmtPoll {
		return "poll"
	}
	return "rfence"
}

// stmtText prints a surface statement on one line, as the user wrote it
// (without its nested blocks).
func stmtText(s *syntax.Stmt) string {
	switch s.Kind {
	case syntax.StmtSkip:
		return "skip"
	case syntax.StmtAssume, syntax.StmtAssumeE:
		return "assume(" + s.Cond.String() + ")"
	case syntax.StmtAssert:
		return "assert(" + s.Cond.String() + ")"
	case syntax.StmtRFence, syntax.StmtPoll:
		return StmtKeyword(s) + "(" + s.NodeE.String() + ")"
	case syntax.StmtAssignValue, syntax.StmtAssignLoc, syntax.StmtAssignCAS, syntax.StmtAssignAtomic, syntax.StmtAssign:
		if s.Atomic == "rfaa" {
			return fmt.Sprintf("%s := rfaa(%s, %s)", s.LhsE, s.CasZ, s.CasA)
		}
		if s.Atomic == "rcas" {
			return fmt.Sprintf("%s := rcas(%s, %s, %s)", s.LhsE, s.CasZ, s.CasA, s.CasB)
		}
		if s.CasZ != nil {
			return fmt.Sprintf("%s := cas(%s, %s, %s)", s.LhsE, s.CasZ, s.CasA, s.CasB)
		}
		return fmt.Sprintf("%s := %s", s.LhsE, s.RhsE)
	case syntax.StmtIf:
		return "if (" + s.Cond.String() + ")"
	case syntax.StmtWhile:
		return "while (" + s.Cond.String() + ")"
	case syntax.StmtChoose:
		return "choose"
	case syntax.StmtLoop:
		return "loop"
	case syntax.StmtReg:
		return "reg " + s.Reg.Text
	case syntax.StmtBreak:
		return "break"
	}
	return "?"
}
