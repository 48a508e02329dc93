package promela

import (
	"fmt"
	"slices"
	"strings"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
)

// option writes one d_step option of a proctype.
func (g *robustGen) option(guard []string, comment string, effects []string) {
	if len(guard) == 0 {
		guard = []string{"true"}
	}
	if len(effects) == 0 {
		effects = []string{"skip"}
	}
	g.options++
	g.f("\t:: d_step { %s ->\t/* %s */\n", strings.Join(guard, " && "), comment)
	g.f("\t\t%s }\n", strings.Join(effects, ";\n\t\t"))
}

func (g *robustGen) thread(t int) {
	th := &g.p.Threads[t]
	g.f("active proctype thread_%s() {\n\tdo\n", ident(th.Name))
	n := g.options
	for pc := range th.Code {
		g.instr(t, pc)
	}
	if g.options == n {
		g.f("\t:: false\t/* no instructions */\n")
	}
	g.f("\tod\n}\n\n")
}

// step is one event step of a thread being generated.
type step struct {
	t, pc   int
	guard   []string // the instruction's guard and the read's
	pre     []string // first effects: the guess, the value read
	kind    prog.EventKind
	loc     int    // -1 for fences and polls
	qp      int    // -1 for CPU accesses
	wval    string // the value written
	part    int
	fromMid bool // the step is the second event of its instruction
	toMid   bool // the step is the first event of a two-event instruction
	next    int
	what    string
	// A remote atomic's naR (robust_atomics.go): aw, its naW comes in the
	// same step (a whole atomic that writes); pending, its naW never
	// comes and the thread stops.
	aw, pending bool
}

func (s *step) reads() bool {
	switch s.kind {
	case prog.EvLR, prog.EvCAS, prog.EvNLR, prog.EvNRR, prog.EvNAR:
		return true
	}
	return false
}

func (s *step) writes() bool {
	switch s.kind {
	case prog.EvLW, prog.EvCAS, prog.EvNLW, prog.EvNRW:
		return true
	case prog.EvNAR:
		return s.aw
	}
	return false
}

var kindName = map[prog.EventKind]string{
	prog.EvLW: "lW", prog.EvLR: "lR", prog.EvCAS: "CAS", prog.EvNLR: "nlR", prog.EvNRW: "nrW",
	prog.EvNRR: "nrR", prog.EvNLW: "nlW", prog.EvNF: "nF", prog.EvPoll: "poll", prog.EvNAR: "naR",
	prog.EvQuiet: "quiet",
}

// instr writes the options of instruction pc of thread t.
func (g *robustGen) instr(t, pc int) {
	th := &g.p.Threads[t]
	in := &th.Code[pc]
	at := fmt.Sprintf("pc%d == %d", t, pc)
	text := ""
	if in.Stmt != nil {
		text = fmt.Sprintf("%s: %s (line %d)", th.Name, g.p.RegisterOpString(in), in.Stmt.Pos.Line)
	}
	switch in.Op {
	case prog.OpEnd:
		return
	case prog.OpSkip:
		g.option([]string{at}, text, g.moveTo(t, pc, in.Next, false, -1))
	case prog.OpBranch:
		for i, alt := range in.Alts {
			what := fmt.Sprintf("choose branch %d", i+1)
			if in.Loop >= 0 {
				what = "loop: iterate"
				if i == 1 {
					what = "loop: exit"
				}
			}
			g.option([]string{at}, fmt.Sprintf("%s: %s (line %d)", th.Name, what, in.Stmt.Pos.Line), g.moveTo(t, pc, alt, false, -1))
		}
	case prog.OpWrite:
		g.events(&step{t: t, pc: pc, guard: g.notMid(t, at), kind: prog.EvLW, loc: in.X, qp: -1, wval: fmt.Sprint(in.A), next: in.Next, what: text})
	case prog.OpRFence:
		g.events(&step{t: t, pc: pc, guard: g.notMid(t, at), kind: prog.EvNF, loc: -1, qp: in.QP, next: in.Next, what: text})
	case prog.OpPoll:
		g.events(&step{t: t, pc: pc, guard: g.notMid(t, at), kind: prog.EvPoll, loc: -1, qp: in.QP, next: in.Next, what: text})
	case prog.OpQuiet:
		g.events(&step{t: t, pc: pc, guard: g.notMid(t, at), kind: prog.EvQuiet, loc: -1, qp: -1, next: in.Next, what: text})
	case prog.OpIf:
		// runs within the step that reached it (moveTo)
	case prog.OpEval:
		if !g.p.Locs[in.X].Reg { // else it runs within the step that reached it
			g.eval(t, pc, at, text)
		}
	case prog.OpLoad:
		g.read(t, pc, pc, at, text)
	case prog.OpSwitch:
		if g.p.Locs[in.X].Reg {
			return // it runs within the step that reached it; a thread stopped here is blocked
		}
		// One read of X: the assume of each alternative, taken from here.
		for _, a := range in.Alts {
			alt := &th.Code[a]
			g.read(t, a, pc, at, fmt.Sprintf("%s: %s (line %d)", th.Name, g.p.StmtString(alt.Stmt), alt.Stmt.Pos.Line))
		}
	case prog.OpAssumeEq, prog.OpAssumeNe, prog.OpCAS, prog.OpGet, prog.OpPut, prog.OpRCAS, prog.OpRFAA:
		if (in.Op == prog.OpAssumeEq || in.Op == prog.OpAssumeNe) && g.p.Locs[in.X].Reg {
			return // an alternative of a switch on a register, which moveTo runs
		}
		if in.Op.IsAtomic() {
			g.atomic(t, pc, at, text) // robust_atomics.go
		} else {
			g.read(t, pc, pc, at, text)
		}
		if in.Op != prog.OpAssumeEq && in.Op != prog.OpAssumeNe {
			// The second event writes the value read.
			s := &step{t: t, pc: pc, guard: []string{at, fmt.Sprintf("mid%d", t)}, kind: prog.EvLW, loc: in.X, qp: -1,
				wval: fmt.Sprintf("val%d", t), fromMid: true, next: in.Next, what: text + ", second event"}
			switch in.Op {
			case prog.OpGet, prog.OpRCAS, prog.OpRFAA:
				s.kind, s.qp = prog.EvNLW, in.QP
			case prog.OpPut:
				s.kind, s.loc, s.qp = prog.EvNRW, in.Y, in.QP
			}
			g.events(s)
		}
	}
}

// notMid is the guard of a single-event instruction.
func (g *robustGen) notMid(t int, at string) []string {
	if g.hasMid(t) {
		return []string{at, fmt.Sprintf("!mid%d", t)}
	}
	return []string{at}
}

// read writes the options of the first event of an instruction that reads
// location l: in tau1 it reads m1; in tau2 it reads m2 where tau2 wrote,
// else the boundary guess, guessing it (one option per value of the
// location's domain) where it is not fixed yet.
//
// from is the thread's instruction when it is not pc: a switch, whose
// alternative pc is.
func (g *robustGen) read(t, pc, from int, at, text string) {
	in := &g.p.Threads[t].Code[pc]
	l, kind, mid, qp := in.X, prog.EvLR, false, -1
	switch in.Op {
	case prog.OpCAS:
		l, mid = in.Z, true
	case prog.OpGet:
		l, kind, mid, qp = in.Y, prog.EvNRR, true, in.QP
	case prog.OpPut:
		kind, mid, qp = prog.EvNLR, true, in.QP
	case prog.OpLoad:
		l = in.Y
	}
	m1, m2, gv, w2, gs := g.v("m1", l), g.v("m2", l), g.v("g", l), g.v("w2", l), g.v("gs", l)
	for part := 1; part <= 2; part++ {
		srcs := []readSource{{val: m1, konst: -1, what: "reads tau1's memory"}}
		if part == 2 {
			srcs = g.tau2Sources(l, m2, gv, w2, gs)
		}
		for _, src := range srcs {
			cond := src.cond
			base := g.notMid(t, at)
			if src.guard != "" {
				base = append(base, src.guard)
			}
			s := step{t: t, pc: from, kind: kind, loc: l, qp: qp, part: part, toMid: mid, next: in.Next, pre: src.pre}
			if mid {
				s.pre = append(append([]string(nil), src.pre...), fmt.Sprintf("val%d = %s", t, src.val))
			}
			switch in.Op {
			case prog.OpLoad:
				s.what = fmt.Sprintf("%s: lR(%s) %s", text, g.lname(l), src.what)
				g.loadOptions(s, in, base, src.val, src.konst)
			case prog.OpAssumeEq, prog.OpAssumeNe:
				op := "=="
				if in.Op == prog.OpAssumeNe {
					op = "!="
				}
				c, ok := cond(op, in.A)
				if !ok {
					continue
				}
				s.guard = appendNonEmpty(base, c)
				s.what = fmt.Sprintf("%s: lR(%s) %s", text, g.lname(l), src.what)
				g.eventIn(&s)
			case prog.OpCAS:
				if c, ok := cond("==", in.A); ok {
					cs := s
					cs.guard, cs.kind, cs.wval = appendNonEmpty(base, c), prog.EvCAS, fmt.Sprint(in.B)
					cs.what = fmt.Sprintf("%s: CAS(%s) succeeds, %s", text, g.lname(l), src.what)
					g.eventIn(&cs)
				}
				if c, ok := cond("!=", in.A); ok {
					s.guard = appendNonEmpty(base, c)
					s.what = fmt.Sprintf("%s: lR(%s) (the CAS fails), %s", text, g.lname(l), src.what)
					g.eventIn(&s)
				}
			default:
				s.guard = base
				s.what = fmt.Sprintf("%s: %s(%s) %s", text, kindName[kind], g.lname(l), src.what)
				g.eventIn(&s)
			}
		}
	}
}

// readSource is one source of the value a read gets: tau1's memory, tau2's
// last write or the boundary guess, or a new guess of a constant.
type readSource struct {
	guard string
	val   string
	konst int // the value when a constant, else -1
	pre   []string
	what  string
}

// cond returns the guard for "value op a", or false if it is statically
// false.
func (src *readSource) cond(op string, a uint8) (string, bool) {
	if src.konst >= 0 {
		return "", op == "==" && src.konst == int(a) || op == "!=" && src.konst != int(a)
	}
	return fmt.Sprintf("%s %s %d", src.val, op, a), true
}

// tau2Sources returns the sources of a tau2 read of l (variables m2, g,
// w2, gs): tau2's last write, else the boundary guess where it is fixed,
// else a guess of each value of l's domain.
func (g *robustGen) tau2Sources(l int, m2, gv, w2, gs string) []readSource {
	srcs := []readSource{{guard: fmt.Sprintf("(%s || %s)", w2, gs), val: fmt.Sprintf("(%s -> %s : %s)", w2, m2, gv), konst: -1,
		what: "reads tau2's last write, else the boundary guess"}}
	for _, v := range g.m.Domain(l) {
		srcs = append(srcs, readSource{guard: fmt.Sprintf("!%s && !%s", w2, gs), val: fmt.Sprint(v), konst: int(v),
			pre: []string{fmt.Sprintf("%s = %d", gv, v), gs + " = 1"}, what: fmt.Sprintf("guesses the boundary value %d", v)})
	}
	return srcs
}

func appendNonEmpty(s []string, x string) []string {
	s = append([]string(nil), s...)
	if x != "" {
		s = append(s, x)
	}
	return s
}

// events writes the options of an event that reads nothing, in both
// parts.
func (g *robustGen) events(s *step) {
	for part := 1; part <= 2; part++ {
		c := *s
		c.part = part
		loc := ""
		if c.loc >= 0 {
			loc = "(" + g.lname(c.loc) + ")"
		}
		c.what = fmt.Sprintf("%s: %s%s", s.what, kindName[c.kind], loc)
		g.eventIn(&c)
	}
}

// eventIn writes the options of event s in its part: the RDMA-consistency
// checks (the guard), the effect on the part's memory and the bookkeeping,
// the move of the thread, and the SC-cycle choices.
func (g *robustGen) eventIn(s *step) {
	cls := bookClass(s.kind)
	q := ""
	if s.qp >= 0 {
		q = qn(s.qp)
	}
	what := fmt.Sprintf("%s in tau%d", s.what, s.part)
	guard := g.consistent(s, cls, q)
	eff := append([]string(nil), s.pre...)
	eff = g.memory(s, eff)
	guard, eff, modified, cut := g.bookkeeping(s, cls, q, guard, eff)
	eff = g.move(s, cls, modified, eff)
	if cut != nil && s.part == 2 {
		// The tau2 event (always allowed but for the bound) is blocked.
		g.options++
		g.f("\t:: d_step { %s -> printf(\"%s %s\\n\") }\t/* the bound blocks it */\n", strings.Join(cut, " && "), CutPrefix, CutMaxCounter)
	}
	if s.loc < 0 || !g.m.Markable(s.loc) {
		g.option(guard, what, eff)
		return
	}
	g.cycleChoices(s, guard, what, eff)
}

// consistent returns the guard of event s (class cls, queue pair q): its
// step's guard and the RDMA-consistency checks of its joining its part.
func (g *robustGen) consistent(s *step, cls axiom.Class, q string) []string {
	t := s.t
	guard := append([]string(nil), s.guard...)
	if s.part == 1 {
		guard = append(guard, fmt.Sprintf("!cpu2_%d", t)) // oppo: a CPU event of t is in tau2
		guard = g.verbsGuard(s, cls, q, guard)
		if !cpuLike(cls) {
			if mask := g.forbid[cls]; mask != 0 {
				guard = append(guard, fmt.Sprintf("(%s_in2 & (%s)) == 0", q, classMask(mask))) // oppo
			}
			if cls == axiom.ClassNLR {
				guard = append(guard, "!"+q+"_fence") // [Inst];ib, case nW ->ippo nF
			}
		}
		if s.kind == prog.EvPoll {
			guard = append(guard, q+"_c1 > 0") // [nlW];pf: a write to poll, before the first forcing one
		}
	} else if s.kind == prog.EvPoll {
		guard = append(guard, q+"_c2 > 0") // pf well-formed
	}
	return guard
}

// memory appends to eff the write of event s to its part's memory (and,
// in tau2, that the location was written there), when something reads
// the location.
func (g *robustGen) memory(s *step, eff []string) []string {
	if s.writes() && g.m.IsRead(s.loc) {
		if s.part == 1 {
			eff = append(eff, fmt.Sprintf("%s = %s", g.v("m1", s.loc), s.wval))
		} else {
			eff = append(eff, fmt.Sprintf("%s = %s", g.v("m2", s.loc), s.wval), g.v("w2", s.loc)+" = 1")
		}
	}
	return eff
}

// bookkeeping appends to guard and eff the RDMA bookkeeping of event s
// (class cls) on its queue pair q: the fence flag, the counters of writes
// to poll (bounded by k, when the bound may cut: cut is then the guard of
// the option the bound blocks) and the classes in tau2; and that of its
// thread: cpu2, which resets the queue pairs' bookkeeping. modified is the
// queue pair whose counters the event changes, -1: none.
func (g *robustGen) bookkeeping(s *step, cls axiom.Class, q string, guard, eff []string) (_, _ []string, modified int, cut []string) {
	t := s.t
	modified = -1
	if s.qp >= 0 {
		eff = g.verbsEffects(s, q, eff)
		if s.part == 1 && cls == axiom.ClassNF {
			eff = append(eff, fmt.Sprintf("if :: (%s_in2 & NLW) != 0 -> %s_fence = 1 :: else fi", q, q))
		}
		if g.counted[s.qp] {
			switch s.kind {
			case prog.EvNLW, prog.EvNRW:
				modified = s.qp
				if s.part == 2 {
					if s.kind == prog.EvNLW {
						eff = append(eff, q+"_forced = 1")
					} else {
						eff = append(eff, fmt.Sprintf("if :: (%s_in2 & (NLR|NF)) != 0 -> %s_forced = 1 :: else fi", q, q))
					}
				}
				eff = append(eff, fmt.Sprintf("if :: !%s_forced -> %s_c1++ :: else fi", q, q), q+"_c2++")
				if !exact(g.left(s.qp, s.next)) {
					bound := fmt.Sprintf("%s_c2 < %d", q, g.k)
					guard = append(guard, bound)
					cut = append(append([]string(nil), s.guard...), fmt.Sprintf("%s_c2 >= %d", q, g.k))
				}
			case prog.EvPoll:
				modified = s.qp
				if s.part == 1 {
					eff = append(eff, q+"_c1--", q+"_c2--")
				} else {
					eff = append(eff, fmt.Sprintf("if :: %s_c1 > 0 -> %s_c1-- :: else fi", q, q), q+"_c2--")
				}
			}
		}
		if s.part == 2 && cls != axiom.ClassCPU {
			eff = append(eff, fmt.Sprintf("%s_in2 = %s_in2 | %s", q, q, classMacro(cls)))
		}
	}
	if s.part == 2 && cpuLike(cls) {
		eff = append(eff, fmt.Sprintf("cpu2_%d = 1", t))
	}
	if s.part == 2 && !cpuLike(cls) {
		// instr's canon: a thread with cpu2 keeps no bookkeeping of its
		// queue pairs but c2.
		reset := append([]string{q + "_in2 = 0"}, g.heldReset(q)...)
		if g.counted[s.qp] {
			reset = append(reset, q+"_c1 = 0", q+"_forced = 0")
		}
		eff = append(eff, fmt.Sprintf("if :: cpu2_%d -> %s :: else fi", t, strings.Join(reset, "; ")))
	}
	return guard, eff, modified, cut
}

// move appends to eff the move of event s's thread: into the middle of
// its instruction, or out of it to the next, through the register-only
// instructions from there, in canonical form where it stops (moveTo).
func (g *robustGen) move(s *step, cls axiom.Class, modified int, eff []string) []string {
	t := s.t
	if s.pending {
		return append(eff, g.stopPending(t)...)
	}
	if s.toMid {
		eff = append(eff, fmt.Sprintf("mid%d = 1", t))
		return append(eff, g.canon(t, s.pc, s.pc, s.part == 2 && cpuLike(cls), modified)...)
	}
	if s.fromMid {
		eff = append(eff, fmt.Sprintf("mid%d = 0", t), fmt.Sprintf("val%d = 0", t))
	}
	return append(eff, g.moveTo(t, s.pc, s.next, s.part == 2 && cpuLike(cls), modified)...)
}

// cycleChoices writes the options of event s, an access to a location an
// SC cycle may go through, with guard and effects eff: after its thread's
// exit; as a candidate entry (edges from the exits of the threads before
// it in tau); and as its thread's exit (edges to the candidate entries of
// tau2 generated before it, the exit in tau1).
func (g *robustGen) cycleChoices(s *step, guard []string, what string, eff []string) {
	t := s.t
	a := access{loc: s.loc, r: s.reads(), w: s.writes()}
	exit := fmt.Sprintf("exit%d", t)
	g.option(append(guard, exit+" != 0"), what+", after the exit", eff)
	cand := append([]string(nil), eff...)
	for u := range g.p.Threads {
		if u == t || !g.edge[u][t] {
			continue
		}
		linked := false
		for _, x := range g.acc[u] {
			linked = linked || x.linkedTo(a)
		}
		if !linked {
			continue
		}
		ex := fmt.Sprintf("exit%d", u)
		c := []string{ex + " != 0", fmt.Sprintf("XLOC(%s) == %d", ex, a.loc)}
		if !a.w {
			c = append(c, fmt.Sprintf("XW(%s)", ex))
		}
		if s.part == 1 {
			c = append(c, fmt.Sprintf("!X2(%s)", ex)) // exit before entry in tau: the exit in tau1 or the entry in tau2
		}
		cand = append(cand, fmt.Sprintf("if :: %s -> %s = 1 :: else fi", strings.Join(c, " && "), edgeVar(u, t)))
	}
	if s.part == 2 {
		if a.r {
			cand = append(cand, g.ent(t, a.loc, false)+" = 1")
		}
		if a.w {
			cand = append(cand, g.ent(t, a.loc, true)+" = 1")
		}
	}
	g.option(append(guard, exit+" == 0"), what+", a candidate entry", cand)
	mark := append(slices.Clone(cand), fmt.Sprintf("%s = %d", exit, exitCode(a, s.part)))
	if s.part == 1 {
		for u := range g.p.Threads {
			var c []string
			if g.hasAccess(u, a.loc, true) {
				c = append(c, g.ent(u, a.loc, true))
			}
			if a.w && g.hasAccess(u, a.loc, false) {
				c = append(c, g.ent(u, a.loc, false))
			}
			if len(c) > 0 {
				mark = append(mark, fmt.Sprintf("if :: %s -> %s = 1 :: else fi", strings.Join(c, " || "), edgeVar(t, u)))
			}
		}
	}
	mark = append(mark, g.linkPending(s, a)...)
	g.option(append(guard, exit+" == 0"), what+", the thread's exit", mark)
}
