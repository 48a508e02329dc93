package parse

import "rdmasim/opsem/syntax"

// The hop budget: domains that keep to the values a run can reach.
//
// The domain fixpoint (specialiseAll) follows no control flow, so a
// counter kept in memory — d := D; v := d + 1; D := v, or x := rfaa(N, 1)
// — gains one value per round until its range ends, and the widening then
// jumps to the whole range: a two-client ticket lock whose counters are
// declared without a range got 256 values for each, and 2,066 core
// instructions per client where three values can ever occur.
//
// A *hop* is a write to a location whose value the lowering computes from
// what it read (a local write v := d + 1, a local copy between two
// locations of the thread's node, a cas or rcas whose new value is not a
// constant) or an rfaa. Every other write of a location is a constant or a
// copy the NIC makes (a put, a get, the old value an atomic lands). A hop
// statement that lies on no cycle of its thread's surface graph (for loops
// unrolled, procedures inlined) executes at most once in a run; when no
// hop statement met lies on a cycle, a run executes at most K hops, K the
// hop statements met.
//
// The domains then keep, per location and value, a depth: the least
// number of hops found to produce it — 0 for an initial value, a declared
// range or a constant, a copy's source's, one more than the deepest value
// a hop read (an rfaa: than the value it adds to). In a run, a value's
// depth is at most the number of hops the run executed up to its write (by
// induction along the run: a hop's inputs were written before it), so at
// most K: the domains hold only the values of depth K or less (the others
// are kept aside, and join when more hop statements are met). A round
// repeats while a value within K is new or reached by fewer hops, so the
// last round computed every depth from its inputs' final depths. At the
// end every value a run can hold is in its domain: the first one that was
// not would be written by a step the last round specialised (its inputs
// were in their domains), at a depth within K. No widening is needed.
//
// The depth of a value a register holds is not followed (a register takes
// its values within one thread's specialisation): a hop whose value reads
// a register, a hop on a cycle (the counter may climb through its range),
// more than maxHops hops, or registers kept at run time turn the budget
// off, and the fixpoint with its widening goes on as before.

// maxHops bounds the hop budget: past it, the domains would hold about
// as much as the widening gives.
const maxHops = 64

// noDepth is the depth of a value not found (domains.depth).
const noDepth = 255

// hopBudget is the state of the budget across the rounds of specialiseAll.
type hopBudget struct {
	on     bool            // the budget applies (else: fixpoint and widening)
	cycles [][]bool        // per thread, the surface statements on a cycle
	hops   map[[2]int]bool // the hop statements met: (thread, surface statement)
	blind  bool            // a hop met computes its value from a register
}

// newHopBudget returns the budget for the threads ts: off when a statement
// that is a hop whatever its operands lie on a cycle (an rfaa, an
// operator's result written), so that such programs lower as they did
// before the budget existed; else on until the rounds meet a hop on a
// cycle.
func (lw *Lowerer) newHopBudget(ts []*IRThread) *hopBudget {
	b := &hopBudget{hops: map[[2]int]bool{}}
	if lw.mode == RegistersRuntime || lw.noBudget {
		return b
	}
	for _, t := range ts {
		cyc := surfaceCycles(t.code)
		b.cycles = append(b.cycles, cyc)
		for i := range t.code {
			if in := &t.code[i]; cyc[i] && in.kind == iStmt && lw.alwaysHop(in.s, in.env) {
				return b
			}
		}
	}
	b.on = true
	return b
}

// alwaysHop reports whether s is a hop whatever its locations turn out to
// be (see hop).
func (lw *Lowerer) alwaysHop(s *syntax.Stmt, env map[string]int) bool {
	if s == nil || s.Kind != syntax.StmtAssign {
		return false
	}
	switch {
	case s.Atomic == "rfaa":
		return true
	case s.CasZ != nil || s.Atomic != "":
		return !lw.isConst(s.CasB, env)
	}
	return s.RhsE != nil && s.RhsE.Kind != syntax.ExprName && !lw.isConst(s.RhsE, env)
}

// isConst reports whether e is a constant: numbers, params and the
// constants in scope env (a family's index, a for loop's variable).
func (lw *Lowerer) isConst(e *syntax.Expr, env map[string]int) bool {
	if e == nil {
		return false
	}
	_, err := EvalConst(e, func(n string) (int, bool) {
		if v, ok := env[n]; ok {
			return v, true
		}
		v, ok := lw.Params[n]
		return v, ok
	})
	return err == nil
}

// hop records that the statement being specialised writes a value
// computed from val (nil: not a constant) and returns the value's depth:
// one more than the deepest value the statement read (a lower bound of
// the hops in its history: a register's value counts as no hop), 0 for a
// constant.
func (sp *specialiser) hop(e *evalCtx, val *syntax.Expr) int {
	if sp.lw.isConst(val, sp.cur.env) || sp.dom.budget < 0 {
		return 0
	}
	sp.lw.budget.hops[[2]int{sp.ti, sp.ir}] = true
	if sp.readsRegister(val) {
		// The depth of a register's value is not followed: a value
		// computed from one could climb the range one round at a time
		// at the same depth.
		sp.lw.budget.blind = true
	}
	depth := 0
	for l, v := range e.mem {
		if d := sp.dom.depth[l][v]; d != noDepth && int(d) > depth {
			depth = int(d)
		}
	}
	return depth + 1
}

// update sets dom's budget after a round: the number of hop statements
// met, the values within it joining the domains; or, when a hop met lies
// on a cycle or there are more than maxHops, no budget, every value found
// joining the domains (the fixpoint and its widening take over).
func (b *hopBudget) update(dom *domains) {
	if !b.on {
		return
	}
	k := len(b.hops)
	if b.blind {
		k = maxHops + 1
	}
	for h := range b.hops {
		if b.cycles[h[0]][h[1]] {
			k = maxHops + 1
		}
	}
	if k > maxHops {
		b.on = false
		k = maxHops + 1
	}
	if k > dom.budget {
		for l := range dom.depth {
			for v, d := range dom.depth[l] {
				if int(d) <= k && !dom.vals[l][v] {
					dom.vals[l][v] = true
					dom.grew = true
				}
			}
		}
		dom.budget = k
	}
	if !b.on {
		dom.budget = -1
	}
}

// readsRegister reports whether e (nil: none) names a register of the
// thread being specialised.
func (sp *specialiser) readsRegister(e *syntax.Expr) bool {
	if e == nil {
		return false
	}
	if e.Kind == syntax.ExprName {
		if _, ok := sp.regIdx[e.Name.Text]; ok {
			return true
		}
	}
	for _, x := range e.Idx {
		if sp.readsRegister(x) {
			return true
		}
	}
	return sp.readsRegister(e.L) || sp.readsRegister(e.R)
}

// surfaceCycles marks the statements of a thread's surface graph that lie
// on a cycle of it (every edge, next and alternatives, followed).
func surfaceCycles(code []irInstr) []bool {
	succ := func(i int) []int {
		in := &code[i]
		out := append([]int(nil), in.alts...)
		if in.next >= 0 && in.kind != iEnd {
			out = append(out, in.next)
		}
		return out
	}
	on := make([]bool, len(code))
	seen := make([]bool, len(code))
	var stack []int
	for i := range code {
		clear(seen)
		stack = append(stack[:0], succ(i)...)
		for len(stack) > 0 && !seen[i] {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if j < 0 || j >= len(code) || seen[j] {
				continue
			}
			seen[j] = true
			stack = append(stack, succ(j)...)
		}
		on[i] = seen[i]
	}
	return on
}
