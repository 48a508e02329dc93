package instr

import "rdmasim/opsem/prog"

// The values of registers, per instruction.
//
// A location's domain (the values a boundary guess ranges over) takes the
// values an OpEval may store into it, computed from the values its
// registers may hold at that instruction. Those come from a forward
// analysis of the thread's control flow, one value set per register and
// instruction (non-relational): a load takes the values its location may
// hold, an eval into a register the values its expression may take at the
// instruction (evalValues), an if keeps on each branch the values of the
// registers it tests for which some valuation of the others takes that
// branch (a loop's guard bounds its counter, as the static lowering's
// specialisation does), and every other instruction passes them on. The
// least fixpoint over-approximates what a run can hold, which is all a
// guess needs.

// regFlow is the analysis of one thread: regs lists its registers
// (locations), at[pc][i] the values regs[i] may hold when the thread is at
// pc (nil where it never is; an empty slice at a reached pc of a thread
// without registers).
type regFlow struct {
	regs []int
	idx  map[int]int // location -> index in regs
	at   [][]valset
}

// list returns the values of v, ascending.
func (v *valset) list() []uint8 {
	var out []uint8
	for x := 0; x < 256; x++ {
		if v.has(uint8(x)) {
			out = append(out, uint8(x))
		}
	}
	return out
}

// registerFlows returns the analysis of every thread of p, the ordinary
// locations holding the values of has.
func registerFlows(p *prog.Program, has [][256]bool) []*regFlow {
	flows := make([]*regFlow, len(p.Threads))
	for t := range flows {
		flows[t] = &regFlow{idx: map[int]int{}}
	}
	for l := range p.Locs {
		if loc := &p.Locs[l]; loc.Reg {
			f := flows[loc.Owner]
			f.idx[l] = len(f.regs)
			f.regs = append(f.regs, l)
		}
	}
	for t, f := range flows {
		f.run(p, t, has)
	}
	return flows
}

// usesRegisters reports whether p has registers kept at run time or
// instructions of theirs.
func usesRegisters(p *prog.Program) bool {
	for t := range p.Threads {
		for _, in := range p.Threads[t].Code {
			if in.Op.IsRegisterOp() {
				return true
			}
		}
	}
	return prog.HasRegisters(p)
}

// run computes f.at for thread t: a worklist over its instructions.
func (f *regFlow) run(p *prog.Program, t int, has [][256]bool) {
	code := p.Threads[t].Code
	f.at = make([][]valset, len(code))
	var work []int
	join := func(pc int, s []valset) {
		if f.at[pc] == nil {
			f.at[pc] = append(make([]valset, 0, len(s)), s...) // not nil: reached
			work = append(work, pc)
			return
		}
		changed := false
		for i := range s {
			changed = f.at[pc][i].or(&s[i]) || changed
		}
		if changed {
			work = append(work, pc)
		}
	}
	entry := make([]valset, len(f.regs))
	for i, l := range f.regs {
		entry[i].add(p.Locs[l].Init)
	}
	join(p.Threads[t].Entry, entry)
	out := make([]valset, len(f.regs))
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		in := &code[pc]
		copy(out, f.at[pc])
		i, reg := f.idx[in.X]
		switch {
		case in.Op == prog.OpLoad:
			out[i] = valset{}
			for v := int(in.Lo); v <= int(in.Hi); v++ {
				if has[in.Y][v] {
					out[i].add(uint8(v))
				}
			}
			join(in.Next, out)
		case in.Op == prog.OpEval && reg:
			out[i] = evalValues(in, len(p.Locs), f.valuesAt(pc))
			join(in.Next, out)
		case in.Op == prog.OpIf:
			join(in.Alts[0], f.filter(in.E, len(p.Locs), pc, true))
			join(in.Alts[1], f.filter(in.E, len(p.Locs), pc, false))
		case (in.Op == prog.OpAssumeEq || in.Op == prog.OpAssumeNe) && reg:
			// an alternative of a switch on a register
			keep := out[i].has(in.A)
			out[i] = valset{}
			if in.Op == prog.OpAssumeEq && keep {
				out[i].add(in.A)
			} else if in.Op == prog.OpAssumeNe {
				out[i] = f.at[pc][i]
				out[i][in.A/64] &^= 1 << (in.A % 64)
			}
			join(in.Next, out)
		default:
			for _, s := range in.Succ() {
				if code[s].Op != prog.OpFail { // an error point passes nothing on
					join(s, out)
				}
			}
		}
	}
}

// valuesAt returns the values the registers may hold at pc, as
// evalValues takes them.
func (f *regFlow) valuesAt(pc int) func(l int) []uint8 {
	return func(l int) []uint8 { return f.at[pc][f.idx[l]].list() }
}

// filter returns the register values at pc for which some valuation (of
// at most evalEnumLimit) makes e nonzero (yes) or zero (!yes): the values
// on that branch of an if. With more valuations it returns them unfiltered.
func (f *regFlow) filter(e prog.Expr, nl int, pc int, yes bool) []valset {
	cur := f.at[pc]
	regs := e.Locs()
	vals := make([][]uint8, len(regs))
	n := 1
	for i, l := range regs {
		vals[i] = cur[f.idx[l]].list()
		if n *= len(vals[i]); n > evalEnumLimit {
			return append([]valset(nil), cur...)
		}
	}
	out := append([]valset(nil), cur...)
	for _, l := range regs {
		out[f.idx[l]] = valset{}
	}
	if n == 0 {
		return out
	}
	mem := make([]byte, nl)
	idx := make([]int, len(regs))
	for {
		for i, l := range regs {
			mem[l] = vals[i][idx[i]]
		}
		if x, ok := e.Eval(mem); ok && (x != 0) == yes {
			for i, l := range regs {
				out[f.idx[l]].add(vals[i][idx[i]])
			}
		}
		i := 0
		for ; i < len(regs); i++ {
			if idx[i]++; idx[i] < len(vals[i]) {
				break
			}
			idx[i] = 0
		}
		if i == len(regs) {
			return out
		}
	}
}
