package parse

import (
	"rdmasim/opsem/syntax"
)

// Liveness of registers. A register is live at a statement of the surface
// graph when some path from there reads it before writing it. A dead
// register's value cannot change what the thread does, so the specialiser
// forgets it (sets it to its initial value) before it looks a (statement,
// valuation) pair up: two valuations that differ in dead registers only
// share their code, and a register a loop no longer needs does not copy the
// loop once per value it held (issue 27: a Pilaf-style client lowered to
// 2,195 instructions because of that).
//
// The analysis is the classical backward one, over-approximating reads: a
// statement reads every register named in it (an assignment r := e defines
// r and reads what e names), and its successors are its next statement and
// its alternatives.

// liveness is the set of registers live at each statement of a thread's
// surface graph: live[ir][r].
type liveness [][]bool

// liveRegisters computes the liveness of t's registers (indexed by regIdx).
func liveRegisters(t *IRThread, regIdx map[string]int) liveness {
	n, nr := len(t.code), len(t.Regs)
	uses := make([][]bool, n)
	defs := make([]int, n) // the register a statement assigns, or -1
	for i := range t.code {
		uses[i] = make([]bool, nr)
		defs[i] = -1
		if s := t.code[i].s; s != nil && t.code[i].kind != iJump {
			defs[i] = stmtUses(s, regIdx, uses[i])
		}
	}
	live := make(liveness, n)
	for i := range live {
		live[i] = make([]bool, nr)
	}
	for changed := true; changed; {
		changed = false
		for i := n - 1; i >= 0; i-- {
			in := &t.code[i]
			for r := 0; r < nr; r++ {
				if live[i][r] {
					continue
				}
				l := uses[i][r]
				if !l && defs[i] != r {
					succ := func(j int) bool { return j >= 0 && j < n && live[j][r] }
					l = succ(in.next)
					for _, a := range in.alts {
						l = l || succ(a)
					}
				}
				if l {
					live[i][r], changed = true, true
				}
			}
		}
	}
	return live
}

// stmtUses marks in uses the registers s reads and returns the register it
// assigns (r := e), or -1.
func stmtUses(s *syntax.Stmt, regIdx map[string]int, uses []bool) int {
	def := -1
	mark := func(name string) {
		if r, ok := regIdx[name]; ok {
			uses[r] = true
		}
	}
	var expr func(x *syntax.Expr)
	expr = func(x *syntax.Expr) {
		if x == nil {
			return
		}
		if x.Kind == syntax.ExprName {
			if len(x.Idx) == 0 {
				mark(x.Name.Text)
			}
			for _, i := range x.Idx {
				expr(i)
			}
		}
		expr(x.L)
		expr(x.R)
	}
	if l := s.LhsE; l != nil && l.Kind == syntax.ExprName && len(l.Idx) == 0 && s.Kind == syntax.StmtAssign {
		if r, ok := regIdx[l.Name.Text]; ok {
			def = r
		}
	} else {
		expr(s.LhsE)
	}
	for _, x := range []*syntax.Expr{s.RhsE, s.CasZ, s.CasA, s.CasB, s.Cond, s.NodeE} {
		expr(x)
	}
	for _, tk := range []syntax.Token{s.Lhs, s.Rhs, s.Z, s.A, s.B, s.Node} {
		mark(tk.Text) // the core's forms name no register, but a name is checked anyway
	}
	return def
}

// forget returns regs with the registers dead at ir set to their initial
// values (a new slice when one changes).
func (sp *specialiser) forget(ir int, regs []uint8) []uint8 {
	if sp.live == nil {
		return regs
	}
	out := regs
	for r, live := range sp.live[ir] {
		if init := uint8(sp.t.Regs[r].Init); !live && regs[r] != init {
			if &out[0] == &regs[0] {
				out = append([]uint8(nil), regs...)
			}
			out[r] = init
		}
	}
	return out
}
