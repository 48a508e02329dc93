package parse

import (
	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
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

// Inline replaces the body of every call in stmts by the procedure's body
// with the arguments in place (in the call's branches[0]), recursively.
func (lw *Lowerer) Inline(stmts []*syntax.Stmt, procs map[string]*syntax.Proc, depth int) {
	for _, s := range stmts {
		if s.Kind == syntax.StmtCall {
			pr := procs[s.Lhs.Text]
			switch {
			case pr == nil:
				lw.errorf(s.Lhs.Pos, "unknown procedure %s", s.Lhs.Text)
				continue
			case len(s.Args) != len(pr.Params):
				lw.errorf(s.Lhs.Pos, "%s takes %d arguments, not %d", pr.Name.Text, len(pr.Params), len(s.Args))
				continue
			case depth >= maxInline:
				lw.errorf(s.Lhs.Pos, "calls nested more than %d deep: does %s call itself?", maxInline, pr.Name.Text)
				return
			}
			bind := map[string]*syntax.Expr{}
			for i, prm := range pr.Params {
				bind[prm.Text] = s.Args[i]
			}
			s.Branches = [][]*syntax.Stmt{SubstStmts(pr.Body, bind)}
		}
		for _, b := range s.Branches {
			lw.Inline(b, procs, depth+btoi(s.Kind == syntax.StmtCall))
			if lw.Errs != nil {
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

// SubstStmts copies stmts with the parameters of bind replaced.
func SubstStmts(stmts []*syntax.Stmt, bind map[string]*syntax.Expr) []*syntax.Stmt {
	out := make([]*syntax.Stmt, len(stmts))
	for i, s := range stmts {
		c := *s
		c.LhsE, c.RhsE = subst(s.LhsE, bind), subst(s.RhsE, bind)
		c.LhsHi, c.RhsHi = subst(s.LhsHi, bind), subst(s.RhsHi, bind)
		c.CasZ, c.CasA, c.CasB = subst(s.CasZ, bind), subst(s.CasA, bind), subst(s.CasB, bind)
		c.Cond, c.NodeE = subst(s.Cond, bind), subst(s.NodeE, bind)
		c.RegLo, c.RegHi, c.RegInit = subst(s.RegLo, bind), subst(s.RegHi, bind), subst(s.RegInit, bind)
		c.Args = make([]*syntax.Expr, len(s.Args))
		for j, a := range s.Args {
			c.Args[j] = subst(a, bind)
		}
		c.Branches = make([][]*syntax.Stmt, len(s.Branches))
		for j, b := range s.Branches {
			c.Branches[j] = SubstStmts(b, bind)
		}
		if s.Kind == syntax.StmtCall {
			c.Branches = nil // inlined afresh, with the substituted arguments
		}
		out[i] = &c
	}
	return out
}

// subst copies e with the parameters of bind replaced by their arguments.
func subst(e *syntax.Expr, bind map[string]*syntax.Expr) *syntax.Expr {
	if e == nil {
		return nil
	}
	c := *e
	switch e.Kind {
	case syntax.ExprName:
		c.Idx = make([]*syntax.Expr, len(e.Idx))
		for i, x := range e.Idx {
			c.Idx[i] = subst(x, bind)
		}
		a, ok := bind[e.Name.Text]
		if !ok {
			return &c
		}
		if len(e.Idx) == 0 {
			cp := *a
			return &cp
		}
		if a.Kind != syntax.ExprName {
			// b[k] with b bound to a value: report it at the use.
			bad := c
			bad.Name = syntax.Token{Kind: syntax.TokIdent, Pos: e.Pos, Text: a.String()}
			return &bad
		}
		return &syntax.Expr{Pos: e.Pos, Kind: syntax.ExprName, Name: a.Name, Idx: append(append([]*syntax.Expr(nil), a.Idx...), c.Idx...)}
	case syntax.ExprUnary, syntax.ExprBinary:
		c.L, c.R = subst(e.L, bind), subst(e.R, bind)
	}
	return &c
}

// ProcMap indexes the procedures of f, reporting duplicates.
func (lw *Lowerer) ProcMap(f *syntax.File) map[string]*syntax.Proc {
	m := map[string]*syntax.Proc{}
	for _, pr := range f.Procs {
		if first, dup := m[pr.Name.Text]; dup {
			lw.errorf(pr.Name.Pos, "procedure %s declared twice (first at %s)", pr.Name.Text, first.Name.Pos)
			continue
		}
		seen := map[string]prog.Pos{}
		for _, prm := range pr.Params {
			if first, dup := seen[prm.Text]; dup {
				lw.errorf(prm.Pos, "parameter %s of %s declared twice (first at %s)", prm.Text, pr.Name.Text, first)
			}
			seen[prm.Text] = prm.Pos
		}
		m[pr.Name.Text] = pr
	}
	return m
}
