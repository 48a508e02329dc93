package axiom

import (
	"fmt"
	"math/bits"
	"slices"

	"rdmasim/opsem/prog"
)

// Registers kept at run time (docs/DESIGN-PROTOCOLS.md, "Registers at run
// time"). A register is a location of its thread's node whose accesses make
// no events: the machines keep its value in memory and run prog.OpLoad
// (R := Y, one lR of Y), prog.OpEval (X := E: no event for a register X,
// one lW for a location), prog.OpIf and a prog.OpSwitch on it (no event).
// It is thread state, not memory: it has no initial write either
// (initialWrites), so registers cost a trace no event at all.
//
// The model runs them by specialising each path of a thread's trie on its
// register valuation, as the lowering's static registers specialise the
// code: the trie builder carries the valuation (treeGen.mem); an OpLoad is
// a choice of the value read, one branch per value v that Y may hold, each
// an lR of Y constrained to v (as the assume of a switch's alternative)
// that sets R := v; an OpEval of a register, an OpIf, and an assume or a
// switch on a register are evaluated on the valuation, making no event; an
// OpEval of a location is an lW of the value computed. A path of the trie
// is then exactly a run of the specialised program, and the model's
// traces over the trie are the traces of the specialised program, whose
// agreement with the machines is the model's: the registers' values are
// a function of the path's reads.
//
// The values a read of Y may return (vals) are computed, not taken from
// Y's declared range, to keep the tries small. They prune the assumes too
// (a switch's alternatives: the lowering reads memory inside expressions
// by switches over the location's whole range): in a program with
// registers, an assume(Y == v) with v outside them ends its path, as no
// run reads v there. V_0 holds each location's initial value, the tries
// T_i are built with V_i, and V_{i+1} adds to V_i every value a write
// event of T_i can write (a constant, or the value its instruction's read
// takes in V_i, plus an rfaa's addend). The rounds stop at a fixpoint or
// at the first round R whose tries have at most R non-initial writes in
// any choice of one path per thread (maxWrites).
//
// That is sound. Call the depth of a write 1 + the largest depth of the
// writes read by the OpLoads and assumes before it in its thread and by
// its own instruction's read (0 for an initial write). A write of depth d
// exists in T_{d-1} (every OpLoad and assume before it read a value of
// V_{d-1}) and writes a value of V_d. In a run, the first read to return
// a value outside V_R reads a write whose chain of depths goes back in
// time (each read executes before the writes that depend on it) through
// distinct writes of the run so far, whose paths lie in T_R: at most
// maxWrites(T_R) <= R of them, so its value is in V_R after all. Values
// in V_R that no run writes only add branches whose constrained read no
// trace satisfies.

// valueSet is a set of values 0..255, one bit each.
type valueSet [4]uint64

// add adds v and reports whether it was new.
func (s *valueSet) add(v uint8) bool {
	w, b := v>>6, uint64(1)<<(v&63)
	if s[w]&b != 0 {
		return false
	}
	s[w] |= b
	return true
}

// has reports whether v is in s.
func (s *valueSet) has(v uint8) bool { return s[v>>6]>>(v&63)&1 != 0 }

// each calls fn with every value of s, in increasing order.
func (s *valueSet) each(fn func(v uint8)) {
	for w, m := range s {
		for ; m != 0; m &= m - 1 {
			fn(uint8(w<<6 | bits.TrailingZeros64(m)))
		}
	}
}

// values holds, per location, the values a read of it may return.
type values []valueSet

// checkRegisterUse returns an error when an instruction of p other than
// the register instructions (and an assume on a register, a switch's
// alternative) names a register location: its events would be a register's,
// which the model does not carry.
func checkRegisterUse(p *prog.Program) error {
	reg := func(l int) bool { return l >= 0 && l < len(p.Locs) && p.Locs[l].Reg }
	for t := range p.Threads {
		for pc, in := range p.Threads[t].Code {
			var named []int
			switch in.Op {
			case prog.OpWrite, prog.OpGet, prog.OpPut, prog.OpRCAS, prog.OpRFAA:
				named = []int{in.X, in.Y}
			case prog.OpCAS:
				named = []int{in.X, in.Z}
			}
			for _, l := range named {
				if reg(l) {
					return fmt.Errorf("thread %s: instruction %d (%v) names register %s, which only the register instructions may", p.Threads[t].Name, pc, in.Op, p.Locs[l].Name)
				}
			}
		}
	}
	return nil
}

// buildTrees returns the trie of every thread of p (buildTree) and whether
// the loop bound cut a path. For a program with registers it computes the
// values each load branches over (and each assume may expect) by rounds of
// tries (see the top of this file); vals are those of the last round
// built, which eventLimit needs to measure tries that were too long.
func buildTrees(p *prog.Program, unroll, maxLen int) (trees []*threadTree, bounded bool, vals values, err error) {
	regs := prog.HasRegisters(p)
	if regs {
		vals = initialValues(p)
	}
	for round := 0; ; round++ {
		trees, bounded = trees[:0], false
		for t := range p.Threads {
			tr, b, err := buildTree(p, t, unroll, maxLen, vals)
			if err != nil {
				return nil, false, vals, err
			}
			trees = append(trees, tr)
			bounded = bounded || b
		}
		if !regs {
			return trees, bounded, nil, nil
		}
		next, grew := vals.written(trees)
		if !grew || round >= maxWrites(trees) {
			return trees, bounded, vals, nil
		}
		vals = next
	}
}

// initialValues returns V_0: each location's initial value.
func initialValues(p *prog.Program) values {
	vals := make(values, len(p.Locs))
	for l := range p.Locs {
		vals[l].add(p.Locs[l].Init)
	}
	return vals
}

// written returns vals with every value a write event of the tries may
// write added, given that each read returns a value of vals (that
// satisfies its constraint), and whether a value was added.
func (vals values) written(trees []*threadTree) (values, bool) {
	next := slices.Clone(vals)
	grew := false
	for _, tr := range trees {
		for i := 1; i < len(tr.nodes); i++ {
			ev := &tr.nodes[i].ev
			if !isWrite(ev.kind) {
				continue
			}
			if ev.dep < 0 {
				grew = next[ev.loc].add(ev.val) || grew
				continue
			}
			r := i
			for tr.nodes[r].depth > ev.dep+1 {
				r = tr.nodes[r].parent
			}
			rd := &tr.nodes[r].ev
			vals[rd.loc].each(func(v uint8) {
				if rd.cons == consEq && v != rd.a || rd.cons == consNe && v == rd.a {
					return
				}
				grew = next[ev.loc].add(v+ev.add) || grew
			})
		}
	}
	return next, grew
}

// maxWrites returns the most non-initial write events a choice of one
// prefix per trie can have.
func maxWrites(trees []*threadTree) int {
	total := 0
	for _, tr := range trees {
		w := make([]int, len(tr.nodes))
		most := 0
		for i := 1; i < len(tr.nodes); i++ { // parents come first
			w[i] = w[tr.nodes[i].parent]
			if isWrite(tr.nodes[i].ev.kind) {
				w[i]++
			}
			most = max(most, w[i])
		}
		total += most
	}
	return total
}

// initRegisters sets up the walk of a thread of a program with registers:
// the valuation starts at the registers' initial values.
func (g *treeGen) initRegisters(vals values) {
	if !prog.HasRegisters(g.p) {
		return
	}
	g.mem = make([]byte, len(g.p.Locs))
	for l := range g.p.Locs {
		if loc := &g.p.Locs[l]; loc.Reg {
			g.mem[l] = loc.Init
			if loc.Owner == g.t {
				g.regs = append(g.regs, l)
			}
		}
	}
	g.vals = vals
}

// runsThrough reports whether the thread runs through in within the step
// that reached it, so that it is never a control point: an OpIf, an OpEval
// of a register, or a switch on a register with an alternative for its
// value (the machines' runLocal, the decider's settle, SPIN's d_step). A
// switch on a register with none is where the thread waits for ever.
func (g *treeGen) runsThrough(in *prog.Instr) bool {
	if g.mem == nil {
		return false
	}
	switch in.Op {
	case prog.OpIf:
		return true
	case prog.OpEval:
		return g.p.Locs[in.X].Reg
	case prog.OpSwitch:
		return g.p.Locs[in.X].Reg && in.SwitchAlt(g.mem[in.X]) >= 0
	}
	return false
}

// recordFinal adds the path's register valuation to the finals of node, a
// complete sequence.
func (g *treeGen) recordFinal(node int) {
	if len(g.regs) == 0 {
		return
	}
	b := make([]byte, len(g.regs))
	for i, l := range g.regs {
		b[i] = g.mem[l]
	}
	if n := &g.tree.nodes[node]; !slices.Contains(n.finals, string(b)) {
		n.finals = append(n.finals, string(b))
	}
}

// assumeRegister walks an assume on a register (a switch's alternative):
// no event; the path goes on when the valuation satisfies it, and stops
// (the thread waits, as at an assume that fails) otherwise.
func (g *treeGen) assumeRegister(node int, in *prog.Instr) {
	if (g.mem[in.X] == in.A) == (in.Op == prog.OpAssumeEq) {
		g.walk(node, in.Next)
	}
}

// walkRegister extends the trie from node with the sequences of the
// register instruction in (OpLoad, OpEval, OpIf) and what follows it; base
// is the skeleton of its events. An instruction that fails goes to its
// error point (in.Fail) with the events it made.
func (g *treeGen) walkRegister(node int, in *prog.Instr, base skel) {
	switch in.Op {
	case prog.OpLoad:
		// One branch per value of Y: lR(Y, v), then R := v, or the error
		// point when v is outside R's range (the lowering leaves Fail -1
		// when no value of Y's range is: then no run reads v).
		g.vals[in.Y].each(func(v uint8) {
			ok := v >= in.Lo && v <= in.Hi
			if g.err != nil || !ok && in.Fail < 0 {
				return
			}
			e := base
			e.kind, e.loc, e.cons, e.a = prog.EvLR, in.Y, consEq, v
			n := g.emit(node, e)
			if !ok {
				g.walk(n, in.Fail)
				return
			}
			old := g.mem[in.X]
			g.mem[in.X] = v
			g.walk(n, in.Next)
			g.mem[in.X] = old
		})
	case prog.OpEval, prog.OpIf:
		next, v, write := in.Local(g.mem)
		switch {
		case next < 0:
			// Fail -1: the lowering found that no valuation fails.
			if g.err == nil {
				g.err = fmt.Errorf("thread %s: instruction %v fails with no error point", g.p.Threads[g.t].Name, in.Op)
			}
		case !write:
			g.walk(node, next)
		case g.p.Locs[in.X].Reg:
			old := g.mem[in.X]
			g.mem[in.X] = v
			g.walk(node, next)
			g.mem[in.X] = old
		default:
			e := base
			e.kind, e.loc, e.val = prog.EvLW, in.X, v
			g.walk(g.emit(node, e), next)
		}
	}
}

// finalMemories returns the final memories of the leaf st of a search of
// complete traces: its memory (engine.memory), with the registers of each
// thread set to each valuation its sequence may end with (tnode.finals),
// one memory per combination. Without registers it is the memory alone.
func (e *engine) finalMemories(st *state) []string {
	out := []string{string(e.memory(st))}
	for t, node := range e.sel {
		fs := e.pr.trees[t].nodes[node].finals
		if len(fs) == 0 {
			continue
		}
		regs := e.pr.regs[t]
		next := make([]string, 0, len(out)*len(fs))
		for _, m := range out {
			b := []byte(m)
			for _, f := range fs {
				for i, l := range regs {
					b[l] = f[i]
				}
				next = append(next, string(b))
			}
		}
		out = next
	}
	return out
}
