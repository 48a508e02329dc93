package parse

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
)

// Specialisation turns a thread's surface graph into a core control-flow
// graph whose instructions are pairs (surface statement, register
// valuation), generated from the initial valuation as the thread can reach
// them: a counter declared 0..255 that the thread takes through four values
// costs four copies of the statements it passes, not 256.
//
// A statement reads the locations it needs one at a time, left to right,
// each once, when the evaluation first needs it (&& and || do not read what
// they do not need). A read becomes a branch over the values the location
// can hold (its domain, below), each alternative an assume(x == v) — one
// local read event — that goes on with the statement's evaluation knowing
// x = v; alternatives with the same future are merged (assume(x != v) where
// all values but one agree). Tests on registers are decided here and cost
// nothing.
//
// The domain of a location over-approximates the values it can hold: its
// declared range, or else its initial value and every value written to it
// (by a store, a cas, or a NIC write copying a domain), to a fixpoint over
// all threads. A write the lowering cannot check (a NIC write, a cas's
// landing) of a value outside the location's range stops the run where it
// happens (prog.Range, checked by the semantics), so a domain never leaves
// its declared range. An under-approximation would filter runs silently, so a
// specialisation that finds a new value repeats.
//
// Errors a run can reach — an assertion that fails, a value leaving the
// range of its register or location, an index out of its array, a division
// by zero — become error points (prog.OpFail) that name the error and its
// position: reaching one is what `rdmasim check` reports.

// edge records the copy of from's values into to by the current statement.
func (sp *specialiser) edge(from, to int) {
	sp.dom.edges = append(sp.dom.edges, domEdge{from: from, to: to, w: sp.writer()})
}

// writer is the current statement as a prog.Writer.
func (sp *specialiser) writer() prog.Writer {
	return prog.Writer{Thread: sp.ti, Pos: sp.cur.s.Pos, Text: sp.src.Text}
}

// specialiseAll specialises every thread, repeating while the domains grow,
// and finishes the program (query, expect lines).
func (lw *Lowerer) specialiseAll(ts []*IRThread, f *syntax.File) {
	p := lw.P
	if lw.mode == RegistersRuntime {
		lw.declareRuntimeRegisters(ts)
	}
	dom := &domains{vals: make([][prog.MaxValue + 1]bool, len(p.Locs)), ranges: lw.Ranges, budget: -1}
	// Within the hop budget (budget.go) the domains keep to the values a
	// run can reach, and nothing is widened.
	lw.budget = lw.newHopBudget(ts)
	if lw.budget.on {
		dom.budget = 0
		dom.depth = make([][prog.MaxValue + 1]uint8, len(p.Locs))
		for l := range dom.depth {
			for v := range dom.depth[l] {
				dom.depth[l][v] = noDepth
			}
		}
	}
	for l := range p.Locs {
		dom.add(l, int(p.Locs[l].Init))
		if rng := lw.Ranges[l]; rng != (ValRange{0, prog.MaxValue}) {
			for v := rng.Lo; v <= rng.Hi; v++ {
				dom.add(l, v)
			}
		}
	}
	growing := make([]int, len(p.Locs)) // consecutive rounds each domain grew
	before := make([][prog.MaxValue + 1]bool, len(p.Locs))
	for round := 0; ; round++ {
		lw.rounds++
		dom.grew = false
		copy(before, dom.vals)
		dom.edges, dom.adds = dom.edges[:0], dom.adds[:0]
		p.Threads = p.Threads[:0]
		for ti, t := range ts {
			lw.thread = t.Name
			if lw.stop() {
				return
			}
			sp := &specialiser{lw: lw, t: t, ti: ti, dom: dom, keys: map[string]int{}, fails: map[string]int{}, resets: map[[2]int]int{},
				regIdx: map[string]int{}}
			th := sp.run()
			if lw.Errs != nil || lw.interrupted != nil {
				return
			}
			p.Threads = append(p.Threads, th)
		}
		dom.close()
		lw.budget.update(dom)
		if !dom.grew {
			break
		}
		if dom.budget < 0 {
			dom.widen(before, growing, lw.widenAfter)
		}
		if round > 4*(prog.MaxValue+1) {
			lw.errorf(prog.Pos{Line: 1, Col: 1}, "the values of the locations did not settle")
			return
		}
	}
	lw.rangeChecks(dom)
	lw.finish(f)
}

// rangeChecks gives every location that a write of unknown value (dom's
// edges and adds) may take out of its declared range its prog.Range, with
// the statements that may: the semantics check those writes when they
// happen (see prog.Range).
func (lw *Lowerer) rangeChecks(dom *domains) {
	p := lw.P
	out := func(to, v int) bool { return !lw.Ranges[to].Has(v) }
	add := func(to int, w prog.Writer) {
		l := &p.Locs[to]
		if l.Check == nil {
			rng := lw.Ranges[to]
			l.Check = &prog.Range{Lo: uint8(rng.Lo), Hi: uint8(rng.Hi)}
		}
		for _, o := range l.Check.Writers {
			if o == w {
				return
			}
		}
		l.Check.Writers = append(l.Check.Writers, w)
	}
	for _, e := range dom.edges {
		for v, ok := range dom.vals[e.from] {
			if ok && out(e.to, v) {
				add(e.to, e.w)
				break
			}
		}
	}
	for _, a := range dom.adds {
		for v, ok := range dom.vals[a.from] {
			if ok && out(a.from, (v+a.d)%(prog.MaxValue+1)) {
				add(a.from, a.w)
				break
			}
		}
	}
}

// specialiser specialises one thread.
type specialiser struct {
	lw     *Lowerer
	t      *IRThread
	ti     int
	ir     int // the surface statement being specialised
	dom    *domains
	regIdx map[string]int
	live   liveness // the registers live at each surface statement
	// resetAt lists, for each surface statement, the run-time registers
	// reset to their initial values on every edge into it (runtime.go);
	// resets caches the chains of resets built, by target.
	resetAt [][]int
	resets  map[[2]int]int

	code   []prog.Instr
	jump   []bool      // code[i] is a jump of the lowering, compiled away
	heads  map[int]int // provisional loop heads: core pc -> 1 if it has a body alternative
	keys   map[string]int
	fails  map[string]int
	labels []prog.Label
	end    int
	work   []item

	// The statement being specialised.
	cur     *irInstr
	curRegs []uint8
	src     *prog.Source
}

// item is a (surface statement, register valuation) to specialise, and the
// core instruction that stands for it.
type item struct {
	ir   int
	regs string
	pc   int
}

func (sp *specialiser) emit(in prog.Instr) int {
	sp.code = append(sp.code, in)
	sp.jump = append(sp.jump, false)
	return len(sp.code) - 1
}

// jumpTo emits a jump of the lowering to pc.
func (sp *specialiser) jumpTo(pc int) int {
	i := sp.emit(prog.Instr{Op: prog.OpSkip, Next: pc, Loop: -1, QP: -1, Remote: -1})
	sp.jump[i] = true
	return i
}

// core returns the core instruction of surface statement ir at valuation
// regs, queueing it if it is new.
func (sp *specialiser) core(ir int, regs []uint8) int {
	if sp.t.code[ir].kind == iEnd {
		return sp.resetBefore(ir, sp.end)
	}
	regs = sp.forget(ir, regs)
	key := fmt.Sprintf("%d:%s", ir, regs)
	if pc, ok := sp.keys[key]; ok {
		return sp.resetBefore(ir, pc)
	}
	pc := sp.jumpTo(-1) // a placeholder, filled when the item is specialised
	sp.keys[key] = pc
	sp.work = append(sp.work, item{ir: ir, regs: string(regs), pc: pc})
	return sp.resetBefore(ir, pc)
}

// stmt returns the core statement of an instruction at the current surface
// statement.
func (sp *specialiser) stmt(kind prog.StmtKind) *prog.Stmt {
	return &prog.Stmt{Kind: kind, Pos: sp.cur.s.Pos, Src: sp.src}
}

// fail returns the error point for msg at pos.
func (sp *specialiser) fail(pos prog.Pos, msg string) int {
	key := pos.String() + " " + msg + " " + sp.src.Regs
	if pc, ok := sp.fails[key]; ok {
		return pc
	}
	pc := sp.emit(prog.Instr{Op: prog.OpFail, Loop: -1, QP: -1, Remote: -1,
		Stmt: &prog.Stmt{Kind: prog.SFail, Pos: pos, Src: &prog.Source{Text: msg, Regs: sp.src.Regs}}})
	sp.code[pc].Next = pc
	sp.fails[key] = pc
	return pc
}

func (sp *specialiser) run() prog.Thread {
	t := sp.t
	for i, r := range t.Regs {
		sp.regIdx[r.Name] = i
	}
	sp.live = liveRegisters(t, sp.regIdx)
	sp.resetAt = sp.deadRuntimeRegisters()
	sp.end = sp.emit(prog.Instr{Op: prog.OpEnd, Loop: -1, QP: -1, Remote: -1})
	sp.heads = map[int]int{}
	init := make([]uint8, len(t.Regs))
	for i, r := range t.Regs {
		init[i] = uint8(r.Init)
	}
	entry := sp.core(t.entry, init)
	for len(sp.work) > 0 && sp.lw.Errs == nil && !sp.lw.stop() {
		it := sp.work[len(sp.work)-1]
		sp.work = sp.work[:len(sp.work)-1]
		sp.item(it)
		if len(sp.code) > 4*prog.MaxCode {
			sp.lw.overLimit = true
			sp.lw.errorf(t.pos, "thread %s lowers to more than %d instructions (narrow the ranges of its registers, or lower its params)", t.Name, prog.MaxCode)
			break
		}
	}
	th := prog.Thread{Name: t.Name, Node: t.node, Pos: t.pos, Lowered: true}
	if sp.lw.Errs != nil || sp.lw.interrupted != nil {
		return th
	}
	sp.finishGraph(&th, entry)
	if len(th.Code) > prog.MaxCode {
		sp.lw.overLimit = true
		sp.lw.errorf(t.pos, "thread %s lowers to %d instructions, more than the limit of %d (narrow the ranges of its registers, or lower its params)", t.Name, len(th.Code), prog.MaxCode)
	}
	return th
}

// regsText prints a valuation at surface statement ir: "r=1 s=_", where _
// stands for a register dead there (its value cannot matter any more).
func (sp *specialiser) regsText(ir int, regs []uint8) string {
	var b strings.Builder
	for i, r := range sp.t.Regs {
		if sp.regLoc(i) >= 0 {
			continue // in memory, where a configuration shows it
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if sp.live != nil && !sp.live[ir][i] {
			fmt.Fprintf(&b, "%s=_", r.Name)
			continue
		}
		fmt.Fprintf(&b, "%s=%d", r.Name, regs[i])
	}
	return b.String()
}

// item specialises one surface statement at one valuation into the code
// that starts at it.pc.
func (sp *specialiser) item(it item) {
	in := &sp.t.code[it.ir]
	sp.ir = it.ir
	regs := []uint8(it.regs)
	sp.cur, sp.curRegs = in, regs
	sp.src = &prog.Source{Regs: sp.regsText(it.ir, regs)}
	if in.s != nil {
		sp.src.Text = markedText(in.s)
	}
	if in.label != "" {
		sp.labels = append(sp.labels, prog.Label{Name: in.label, PC: it.pc})
	}
	root := -1
	switch in.kind {
	case iJump:
		root = sp.core(in.next, regs)
	case iSkip:
		root = sp.emit(prog.Instr{Op: prog.OpSkip, Next: sp.core(in.next, regs), Loop: -1, QP: -1, Remote: -1, Stmt: sp.stmt(prog.SSkip)})
	case iChoose:
		br := prog.Instr{Op: prog.OpBranch, Next: -1, Loop: -1, QP: -1, Remote: -1, Stmt: sp.stmt(prog.SChoose)}
		for _, a := range in.alts {
			br.Alts = append(br.Alts, sp.core(a, regs))
		}
		root = sp.emit(br)
	case iLoop:
		sp.head(it.pc, sp.core(in.alts[0], regs), sp.core(in.alts[1], regs))
		return
	case iWhile:
		cond := in.s.Cond
		enter, _ := sp.decide(nil, func(e *evalCtx) int {
			v := e.eval(cond)
			if v.stop() {
				return v.pc
			}
			if v.sym != nil {
				// Decided at run time: the body's entry tests it,
				// and goes on to the exit when it fails.
				return sp.ifInstr(e, cond, v.sym, sp.core(in.alts[0], regs), sp.core(in.alts[1], regs))
			}
			if v.v != 0 {
				return sp.core(in.alts[0], regs)
			}
			return -1
		})
		exit, _ := sp.decide(nil, func(e *evalCtx) int {
			v := e.eval(cond)
			if v.stop() {
				return v.pc
			}
			if v.sym != nil {
				return -1 // the entry's test takes the exit
			}
			if v.v == 0 {
				return sp.core(in.alts[1], regs)
			}
			return -1
		})
		sp.head(it.pc, enter, exit)
		return
	case iIf:
		root, _ = sp.decide(nil, func(e *evalCtx) int {
			v := e.eval(in.s.Cond)
			if v.stop() {
				return v.pc
			}
			if v.sym != nil {
				return sp.ifInstr(e, in.s.Cond, v.sym, sp.core(in.alts[0], regs), sp.core(in.alts[1], regs))
			}
			if v.v != 0 {
				return sp.core(in.alts[0], regs)
			}
			return sp.core(in.alts[1], regs)
		})
	case iStmt:
		root = sp.statement(in, regs)
	}
	if root < 0 {
		return // an error was reported
	}
	sp.code[it.pc].Next = root
}

// head makes pc a provisional loop head with a body alternative enter and
// an exit alternative exit (either -1 when it cannot be taken).
func (sp *specialiser) head(pc, enter, exit int) {
	in := prog.Instr{Op: prog.OpBranch, Next: -1, Loop: -1, QP: -1, Remote: -1, Stmt: sp.stmt(prog.SLoop)}
	body := 0
	if enter >= 0 {
		in.Alts = append(in.Alts, enter)
		body = 1
	}
	if exit >= 0 {
		in.Alts = append(in.Alts, exit)
	}
	sp.code[pc] = in
	sp.jump[pc] = false
	sp.heads[pc] = body
	if len(in.Alts) == 0 && sp.lw.Errs == nil {
		// Without another error first: a test that could not be
		// compiled (a remote read) leaves no alternative either, and
		// its error says why.
		sp.lw.errorf(sp.cur.s.Pos, "this loop can neither run nor end")
	}
}

// decide builds the code that evaluates a statement: it calls step with
// what the statement has read so far; step returns the core instruction
// to go on with (-1 for none: the run cannot go on that way), or asks for
// a location to read first (evalCtx.need). It returns the first
// instruction, or -1 when no way goes on, with the first location read.
func (sp *specialiser) decide(mem map[int]int, step func(*evalCtx) int) (int, int) {
	if sp.lw.stop() {
		return -1, -1
	}
	e := &evalCtx{sp: sp, mem: mem, need: -1}
	pc := step(e)
	if e.need < 0 {
		return pc, -1
	}
	l := e.need
	vals := sp.dom.list(l)
	var targets []int
	for _, v := range vals {
		m := make(map[int]int, len(mem)+1)
		for k, x := range mem {
			m[k] = x
		}
		m[l] = v
		t, _ := sp.decide(m, step)
		targets = append(targets, t)
	}
	// Group the values by target, in the order of first appearance.
	var order []int
	group := map[int][]int{}
	for i, t := range targets {
		if t < 0 {
			continue
		}
		if _, ok := group[t]; !ok {
			order = append(order, t)
		}
		group[t] = append(group[t], vals[i])
	}
	assume := func(v int, ne bool, next int) int {
		op := prog.OpAssumeEq
		if ne {
			op = prog.OpAssumeNe
		}
		s := sp.stmt(prog.SAssume)
		s.X, s.A, s.Ne = l, uint8(v), ne
		return sp.emit(prog.Instr{Op: op, X: l, A: uint8(v), Next: next, Loop: -1, QP: -1, Remote: -1, Stmt: s})
	}
	var alts []int
	for _, t := range order {
		g := group[t]
		switch {
		case len(g) == len(vals)-1 && len(vals) > 2:
			for _, v := range vals {
				if !contains(g, v) {
					alts = append(alts, assume(v, true, t))
				}
			}
		default:
			for _, v := range g {
				alts = append(alts, assume(v, false, t))
			}
		}
	}
	switch len(alts) {
	case 0:
		return -1, l
	case 1:
		return alts[0], l
	}
	return sp.emit(prog.Instr{Op: prog.OpBranch, Next: -1, Alts: alts, Loop: -1, QP: -1, Remote: -1, Stmt: sp.stmt(prog.SChoose)}), l
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// block returns an instruction at which the thread waits for ever, as at an
// assume that never holds: reading l, which never holds a value outside its
// domain.
func (sp *specialiser) block(l int) int {
	s := sp.stmt(prog.SAssume)
	s.X = l
	for v := 0; v <= prog.MaxValue; v++ {
		if !sp.dom.vals[l][v] {
			s.A = uint8(v)
			return sp.emit(prog.Instr{Op: prog.OpAssumeEq, X: l, A: uint8(v), Next: sp.end, Loop: -1, QP: -1, Remote: -1, Stmt: s})
		}
	}
	s2 := *s
	s2.Ne = true
	second := sp.emit(prog.Instr{Op: prog.OpAssumeNe, X: l, Next: sp.end, Loop: -1, QP: -1, Remote: -1, Stmt: &s2})
	return sp.emit(prog.Instr{Op: prog.OpAssumeEq, X: l, Next: second, Loop: -1, QP: -1, Remote: -1, Stmt: s})
}

// finishGraph decides the loop heads, compiles the jumps away, drops what is
// unreachable and numbers the rest with OpEnd last.
func (sp *specialiser) finishGraph(th *prog.Thread, entry int) {
	code := sp.code
	// Jumps are followed to what they stand for.
	resolve := func(pc int) int {
		for n := 0; pc >= 0 && sp.jump[pc]; n++ {
			if n > len(code) {
				return pc // a cycle of jumps: cannot happen, every cycle passes a head
			}
			pc = code[pc].Next
		}
		return pc
	}
	for pc := range code {
		in := &code[pc]
		switch in.Op {
		case prog.OpBranch, prog.OpIf:
			for i, a := range in.Alts {
				in.Alts[i] = resolve(a)
			}
		case prog.OpEnd, prog.OpFail:
		default:
			in.Next = resolve(in.Next)
		}
		switch in.Op {
		case prog.OpLoad, prog.OpEval, prog.OpIf:
			in.Fail = resolve(in.Fail)
		}
	}
	entry = resolve(entry)
	// A provisional head on a cycle with a body alternative is a loop
	// head; one with two alternatives off cycles a choose; one with one a
	// jump (compiled away below by the renumbering).
	onCycle := prog.OnCycle(code)
	alias := map[int]int{}
	// Loops are numbered in the order of their heads' pcs, so that a
	// lowering is a function of its input (a map's order is not).
	for _, pc := range slices.Sorted(maps.Keys(sp.heads)) {
		body := sp.heads[pc]
		in := &code[pc]
		switch {
		case onCycle[pc] && body == 1:
			in.Loop = th.Loops
			th.Loops++
		case len(in.Alts) == 2:
			in.Stmt = &prog.Stmt{Kind: prog.SChoose, Pos: in.Stmt.Pos, Src: in.Stmt.Src}
		default:
			alias[pc] = in.Alts[0]
		}
	}
	follow := func(pc int) int {
		for n := 0; n <= len(code); n++ {
			a, ok := alias[pc]
			if !ok {
				return pc
			}
			pc = a
		}
		return pc
	}
	// Number the reachable instructions depth first from the entry, OpEnd
	// last.
	newIdx := make([]int, len(code))
	for i := range newIdx {
		newIdx[i] = -1
	}
	var order []int
	stack := []int{follow(entry)}
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if newIdx[pc] >= 0 || pc == sp.end {
			continue
		}
		newIdx[pc] = len(order)
		order = append(order, pc)
		succ := code[pc].Succ()
		for i := len(succ) - 1; i >= 0; i-- {
			stack = append(stack, follow(succ[i]))
		}
	}
	newIdx[sp.end] = len(order)
	order = append(order, sp.end)
	out := make([]prog.Instr, len(order))
	for i, pc := range order {
		in := code[pc]
		switch in.Op {
		case prog.OpBranch, prog.OpIf:
			alts := make([]int, len(in.Alts))
			for j, a := range in.Alts {
				alts[j] = newIdx[follow(a)]
			}
			in.Alts = alts
		case prog.OpEnd:
		case prog.OpFail:
			in.Next = i
		default:
			in.Next = newIdx[follow(in.Next)]
		}
		if in.Op.IsRegisterOp() && in.Fail >= 0 {
			in.Fail = newIdx[follow(in.Fail)]
		}
		out[i] = in
	}
	th.Code = out
	th.Entry = newIdx[follow(entry)]
	for _, l := range sp.labels {
		if pc := newIdx[follow(resolve(l.PC))]; pc >= 0 {
			th.Labels = append(th.Labels, prog.Label{Name: l.Name, PC: pc})
		}
	}
}
