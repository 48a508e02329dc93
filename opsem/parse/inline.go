package parse

import (
	"rdmasim/opsem/prog"
)

// Procedures are inlined where they are called: a call `send(buf[i], B)` is
// the procedure's body with each parameter replaced by its argument, an
// expression (a value, a register, a location, an array element or a node:
// `send(d, n) { d := src; poll(n) }`). A parameter used with indices, `b[k]`,
// takes an argument that is a name, with or without indices of its own. The
// body runs in the caller's thread: its registers are the thread's (a `reg`
// in a procedure declares one register however often it is called).

// maxInline bounds the nesting of calls: deeper means a procedure calls
// itself.
const maxInline = 50

// inline replaces the body of every call in stmts by the procedure's body
// with the arguments in place (in the call's branches[0]), recursively.
func (lw *lowerer) inline(stmts []*rawStmt, procs map[string]*rawProc, depth int) {
	for _, s := range stmts {
		if s.kind == rCall {
			pr := procs[s.lhs.text]
			switch {
			case pr == nil:
				lw.errorf(s.lhs.pos, "unknown procedure %s", s.lhs.text)
				continue
			case len(s.args) != len(pr.params):
				lw.errorf(s.lhs.pos, "%s takes %d arguments, not %d", pr.name.text, len(pr.params), len(s.args))
				continue
			case depth >= maxInline:
				lw.errorf(s.lhs.pos, "calls nested more than %d deep: does %s call itself?", maxInline, pr.name.text)
				return
			}
			bind := map[string]*rawExpr{}
			for i, prm := range pr.params {
				bind[prm.text] = s.args[i]
			}
			s.branches = [][]*rawStmt{substStmts(pr.body, bind)}
		}
		for _, b := range s.branches {
			lw.inline(b, procs, depth+btoi(s.kind == rCall))
			if lw.errs != nil {
				return
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// substStmts copies stmts with the parameters of bind replaced.
func substStmts(stmts []*rawStmt, bind map[string]*rawExpr) []*rawStmt {
	out := make([]*rawStmt, len(stmts))
	for i, s := range stmts {
		c := *s
		c.lhsE, c.rhsE = subst(s.lhsE, bind), subst(s.rhsE, bind)
		c.casZ, c.casA, c.casB = subst(s.casZ, bind), subst(s.casA, bind), subst(s.casB, bind)
		c.cond, c.nodeE = subst(s.cond, bind), subst(s.nodeE, bind)
		c.regLo, c.regHi, c.regInit = subst(s.regLo, bind), subst(s.regHi, bind), subst(s.regInit, bind)
		c.args = make([]*rawExpr, len(s.args))
		for j, a := range s.args {
			c.args[j] = subst(a, bind)
		}
		c.branches = make([][]*rawStmt, len(s.branches))
		for j, b := range s.branches {
			c.branches[j] = substStmts(b, bind)
		}
		if s.kind == rCall {
			c.branches = nil // inlined afresh, with the substituted arguments
		}
		out[i] = &c
	}
	return out
}

// subst copies e with the parameters of bind replaced by their arguments.
func subst(e *rawExpr, bind map[string]*rawExpr) *rawExpr {
	if e == nil {
		return nil
	}
	c := *e
	switch e.kind {
	case eName:
		c.idx = make([]*rawExpr, len(e.idx))
		for i, x := range e.idx {
			c.idx[i] = subst(x, bind)
		}
		a, ok := bind[e.name.text]
		if !ok {
			return &c
		}
		if len(e.idx) == 0 {
			cp := *a
			return &cp
		}
		if a.kind != eName {
			// b[k] with b bound to a value: report it at the use.
			bad := c
			bad.name = token{kind: tIdent, pos: e.pos, text: a.String()}
			return &bad
		}
		return &rawExpr{pos: e.pos, kind: eName, name: a.name, idx: append(append([]*rawExpr(nil), a.idx...), c.idx...)}
	case eUnary, eBinary:
		c.l, c.r = subst(e.l, bind), subst(e.r, bind)
	}
	return &c
}

// procMap indexes the procedures of f, reporting duplicates.
func (lw *lowerer) procMap(f *rawFile) map[string]*rawProc {
	m := map[string]*rawProc{}
	for _, pr := range f.procs {
		if first, dup := m[pr.name.text]; dup {
			lw.errorf(pr.name.pos, "procedure %s declared twice (first at %s)", pr.name.text, first.name.pos)
			continue
		}
		seen := map[string]prog.Pos{}
		for _, prm := range pr.params {
			if first, dup := seen[prm.text]; dup {
				lw.errorf(prm.pos, "parameter %s of %s declared twice (first at %s)", prm.text, pr.name.text, first)
			}
			seen[prm.text] = prm.pos
		}
		m[pr.name.text] = pr
	}
	return m
}
