package promela

import (
	"fmt"
	"slices"
	"strings"

	"rdmasim/opsem/prog"
)

// Registers kept at run time in the robustness model, as opsem/instr runs
// them (opsem/instr/registers.go): a register is its thread's local state,
// kept in the thread's slot of M1 whichever part of tau the thread's
// events join, so the model holds it in one global byte r_NAME, beside the
// thread's pc, with no tau2 copy, boundary guess or target check. Only
// registers something reads (an expression, a switch) are stored; instr's
// machine forgets the others' values.
//
//   - OpLoad R := Y is the thread's lR of Y, in tau1 or tau2 with the value
//     that part gives it (the options of an assume's read): it stores the
//     value in r_R, or goes to the error point when the value leaves R's
//     range (or blocks, where the load has none).
//   - OpEval X := E into an ordinary location is the lW of E's value (the
//     options of a write), or a silent step to the error point when E
//     fails (a division by zero, a value outside X's range).
//   - OpEval into a register, OpIf and a switch on a register make no
//     step: they run within the d_step that reached them (settle, shared
//     with the machines' export as localRun), and the thread's pc and its
//     queue pairs' bookkeeping are canonicalised where it stops.

// robustRegisters prepares the registers of g's program: their
// expressions in Promela, the threads' first pcs and the registers' first
// values after each thread's initial register-only run. It refuses, with a
// *prog.RegistersError, what the model does not cover: an expression that
// reads an ordinary location (the lowering's read only registers), and an
// assume on a register that is not an alternative of a switch (the
// lowering's tests of registers are ifs and switches).
func (g *robustGen) robustRegisters() error {
	p := g.p
	g.exprs = make([][]*pexpr, len(p.Threads))
	for t := range p.Threads {
		th := &p.Threads[t]
		g.exprs[t] = make([]*pexpr, len(th.Code))
		alt := map[int]bool{} // the alternatives of switches on registers
		for _, in := range th.Code {
			if in.Op == prog.OpSwitch && p.Locs[in.X].Reg {
				for _, a := range in.Alts {
					alt[a] = true
				}
			}
		}
		for pc := range th.Code {
			in := &th.Code[pc]
			switch {
			case in.Op == prog.OpEval || in.Op == prog.OpIf:
				for _, l := range in.E.Locs() {
					if !p.Locs[l].Reg {
						return g.refuse(t, l, "an expression that reads an ordinary location")
					}
				}
				x, err := translateExpr(in.E, g.reg, func(l int) string { return p.Locs[l].Name })
				if err != nil {
					return fmt.Errorf("thread %s, instruction %d: %w", th.Name, pc, err)
				}
				g.exprs[t][pc] = x
			case (in.Op == prog.OpAssumeEq || in.Op == prog.OpAssumeNe) && p.Locs[in.X].Reg && !alt[pc]:
				return g.refuse(t, in.X, "an assume on a register outside a switch")
			}
		}
	}
	g.initial()
	return nil
}

// refuse returns the model's refusal of construct, in thread t, on
// register reg.
func (g *robustGen) refuse(t, reg int, construct string) error {
	return &prog.RegistersError{What: "the Promela robustness model", Thread: g.p.Threads[t].Name, Register: g.p.Locs[reg].Name, Construct: construct}
}

// reg is the model's variable of register l.
func (g *robustGen) reg(l int) string { return "r_" + g.lname(l) }

// stored reports whether the model keeps register l: something reads it.
func (g *robustGen) stored(l int) bool { return g.m.IsRead(l) }

// isLocal reports whether instruction pc of thread t runs within the step
// that reaches it, as instr's settle runs it: an OpIf, an OpEval into a
// register, a switch on a register (where the thread stops when no
// alternative holds).
func (g *robustGen) isLocal(t, pc int) bool {
	in := &g.p.Threads[t].Code[pc]
	switch in.Op {
	case prog.OpIf:
		return true
	case prog.OpEval, prog.OpSwitch:
		return g.p.Locs[in.X].Reg
	}
	return false
}

// initial runs every thread from its entry through its register-only
// instructions in the initial memory, as instr's Initial settles it: the
// threads' first pcs (initPC) and the registers' first values (initMem).
func (g *robustGen) initial() {
	g.initPC, g.initMem = settleInitial(g.p, g.isLocal, nil)
}

// declareRegisters declares the registers of thread t that the model
// keeps, with their first values.
func (g *robustGen) declareRegisters(t int) {
	for l := range g.p.Locs {
		loc := &g.p.Locs[l]
		if !loc.Reg || loc.Owner != t {
			continue
		}
		if !g.stored(l) {
			g.f("/* register %s: nothing reads it, not stored */\n", loc.Name)
			continue
		}
		g.f("byte %s = %d;\t/* register %s: the thread's slot of tau1's memory, whichever part its events join */\n", g.reg(l), g.initMem[l], loc.Name)
	}
}

// moveTo returns the effects of moving thread t from instruction pc to
// next and running its register-only instructions from there (instr's
// settle), with the thread's pc and bookkeeping canonicalised where it
// stops (canon, with setCPU2 and modified as there).
func (g *robustGen) moveTo(t, pc, next int, setCPU2 bool, modified int) []string {
	r := &localRun{
		code:  g.p.Threads[t].Code,
		pcv:   fmt.Sprintf("pc%d", t),
		exprs: g.exprs[t],
		local: func(at int) bool { return g.isLocal(t, at) },
		store: func(in *prog.Instr, x *pexpr) []string {
			if !g.stored(in.X) {
				return nil
			}
			return []string{fmt.Sprintf("%s = %s", g.reg(in.X), x.val)}
		},
		reg:  g.reg,
		stop: func(at int) []string { return g.canon(t, pc, at, setCPU2, modified) },
		max:  maxTree,
	}
	return r.moveTo(next)
}

// eval writes the options of an OpEval into an ordinary location at
// instruction pc of thread t: a silent step to its error point when its
// expression fails, else its lW of the expression's value in either part.
func (g *robustGen) eval(t, pc int, at, text string) {
	in := &g.p.Threads[t].Code[pc]
	x := g.exprs[t][pc]
	guard := g.notMid(t, at)
	if f := failsOf(in, x); f != "" {
		g.option(append(slices.Clone(guard), "("+f+")"), text+": fails", g.moveTo(t, pc, in.Fail, false, -1))
		guard = append(guard, "!("+f+")")
	}
	g.events(&step{t: t, pc: pc, guard: guard, kind: prog.EvLW, loc: in.X, qp: -1, wval: x.val, next: in.Next, what: text})
}

// loadOptions writes the options of the read of an OpLoad (in, at s's
// instruction) from one source of its value, val (konst >= 0 when the
// value is that constant): within the register's range the value goes to
// the register and the thread on; outside it, to the error point, or the
// load blocks where it has none (instr's read).
func (g *robustGen) loadOptions(s step, in *prog.Instr, base []string, val string, konst int) {
	out := outside(val, 0, 255, int64(in.Lo), int64(in.Hi))
	for _, inRange := range []bool{true, false} {
		c := s
		c.guard = slices.Clone(base)
		switch {
		case konst >= 0:
			if (konst >= int(in.Lo) && konst <= int(in.Hi)) != inRange {
				continue
			}
		case len(out) == 0:
			if !inRange {
				continue
			}
		case inRange:
			c.guard = append(c.guard, fmt.Sprintf("!(%s)", strings.Join(out, " || ")))
		default:
			c.guard = append(c.guard, fmt.Sprintf("(%s)", strings.Join(out, " || ")))
		}
		c.pre = slices.Clone(s.pre)
		if inRange {
			c.next = in.Next
			if g.stored(in.X) {
				c.pre = append(c.pre, fmt.Sprintf("%s = %s", g.reg(in.X), val))
			}
		} else {
			if in.Fail < 0 {
				continue // it blocks
			}
			c.next = in.Fail
			c.what += ", outside the register's range"
		}
		g.eventIn(&c)
	}
}
