package parse

import (
	"fmt"
	"strings"

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
	// guards are the divisors known at run time only that the statement
	// divides by, in the order it does (see runtime.go).
	guards []guard
}

// value is an evaluation's result: a value, or a stop — the evaluation
// needs a location (evalCtx.need), hit an error point (pc), or found a
// mistake in the program (reported, pc -1).
type value struct {
	v    int
	halt bool
	pc   int
	// sym, when not nil, is the value as an expression over registers
	// kept at run time (see runtime.go): known only when the thread runs.
	sym prog.Expr
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
				if l := e.sp.regLoc(r); l >= 0 {
					return value{sym: prog.Expr{{Kind: prog.TLoc, Val: int64(l)}}}
				}
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
		if v.sym != nil {
			return symUnary(x.Op, v)
		}
		return value{v: unary(x.Op, v.v)}
	}
	l := e.eval(x.L)
	if l.stop() {
		return l
	}
	if l.sym != nil {
		// Both sides, whatever the left one's value: the right one
		// reads no memory (a register on the left of && and || whose
		// right side reads memory stays specialised, see static).
		r := e.eval(x.R)
		if r.stop() {
			return r
		}
		return e.symBinary(x, l, r)
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
	if r.sym != nil {
		return e.symBinary(x, l, r)
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
		if v.sym != nil {
			return nil, e.compileErr(ix.Pos, "the index %s depends on a register kept at run time", ix)
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
	case syntax.StmtQuiet:
		return "quiet"
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
		if s.LhsHi != nil {
			return fmt.Sprintf("%s := %s", wordRange(s.LhsE, s.LhsHi), wordRange(s.RhsE, s.RhsHi))
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

// wordRange prints the word range whose first word is first and whose last
// index is hi: buf[i][lo..hi].
func wordRange(first, hi *syntax.Expr) string {
	if hi == nil {
		return first.String()
	}
	s := first.String()
	return strings.TrimSuffix(s, "]") + ".." + hi.String() + "]"
}
