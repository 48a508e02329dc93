package promela

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"rdmasim/opsem/prog"
)

// This file writes the registers a lowering keeps at run time
// (docs/DESIGN-PROTOCOLS.md, "Registers at run time"): locations marked
// prog.Loc.Reg, which only their thread names and which make no events.
//
// Each register is a global byte r_NAME, declared with its thread's pc. Only
// its thread's proctype names it, but a local would not do: a program
// without a condition shows every location, its registers too
// (verdict.ShownLocations), and the process outcome, whose d_step reads the
// shown locations, could name another process's local only by a remote
// reference, which SPIN forbids in a d_step. OpLoad (r := y) is
// one step reading m_y; OpEval into an ordinary location is one step
// writing it; OpEval into a register and OpIf are no steps of their own:
// as machine.runLocal does, they run within the d_step that reached them,
// down to the instruction where the thread stops (one another thread could
// see, or an error point), and the polls are canonicalised there. A switch
// on a register is a switch as on any location.

// A pexpr is a prog.Expr written in Promela: its value (an int expression)
// and the conditions under which prog.Expr.Eval fails (a division by zero,
// an operand of a product past 2^20), in evaluation order: each is safe to
// evaluate once the ones before it are false, as Promela's || does.
type pexpr struct {
	val   string
	fails []string
	// lo..hi bounds the value: the range check of an OpEval is left out
	// where it cannot fail.
	lo, hi int64
}

// mulLimit is prog's bound on the operands of a product.
const mulLimit = 1 << 20

// expr translates e, whose registers hold bytes, into Promela. Promela
// computes in 32-bit ints where prog.Expr.Eval computes in 64 bits: an
// expression some intermediate value of which may pass 32 bits is refused,
// rather than written with a different meaning. (The lowering's
// expressions compute over bytes and small constants; none comes near.)
func (g *gen) expr(e prog.Expr) (*pexpr, error) { return translateExpr(e, g.loc, g.locName) }

// translateExpr translates e into Promela, each location l it reads a byte
// variable named v(l); name(l) is l's name in the program, for errors.
func translateExpr(e prog.Expr, v, name func(l int) string) (*pexpr, error) {
	type part struct {
		s      string
		lo, hi int64
	}
	var st []part
	var fails []string
	for _, term := range e {
		var r part
		switch term.Kind {
		case prog.TConst:
			r = part{fmt.Sprint(term.Val), term.Val, term.Val}
			if term.Val < 0 {
				r.s = "(" + r.s + ")"
			}
		case prog.TLoc:
			r = part{v(int(term.Val)), 0, 255}
		case prog.TNeg:
			a := st[len(st)-1]
			st = st[:len(st)-1]
			r = part{"(-" + a.s + ")", -a.hi, -a.lo}
		case prog.TNot:
			a := st[len(st)-1]
			st = st[:len(st)-1]
			r = part{"(!" + a.s + ")", 0, 1}
		default:
			a, b := st[len(st)-2], st[len(st)-1]
			st = st[:len(st)-2]
			op, lo, hi, f := binary(term.Kind, a.s, a.lo, a.hi, b.s, b.lo, b.hi)
			if op == "" {
				return nil, fmt.Errorf("unknown operator %d in %s", term.Kind, e.Format(name))
			}
			fails = append(fails, f...)
			r = part{"(" + a.s + " " + op + " " + b.s + ")", lo, hi}
		}
		if r.lo < math.MinInt32 || r.hi > math.MaxInt32 {
			return nil, fmt.Errorf("%s: a value may pass 32 bits, Promela's int", e.Format(name))
		}
		st = append(st, r)
	}
	if len(st) != 1 {
		return nil, fmt.Errorf("malformed expression %s", e.Format(name))
	}
	return &pexpr{val: st[0].s, fails: fails, lo: st[0].lo, hi: st[0].hi}, nil
}

// binary returns the Promela operator of the binary term kind k applied to
// a and b (with their bounds), the bounds of its value, and the conditions
// under which it fails. Promela's operators are C's, as prog.Expr's are
// Go's: / truncates and % takes the dividend's sign in both; comparisons,
// ! , && and || give 0 or 1.
func binary(k prog.TermKind, a string, alo, ahi int64, b string, blo, bhi int64) (op string, lo, hi int64, fails []string) {
	switch k {
	case prog.TAdd:
		return "+", alo + blo, ahi + bhi, nil
	case prog.TSub:
		return "-", alo - bhi, ahi - blo, nil
	case prog.TMul:
		for _, x := range []struct {
			s      string
			lo, hi int64
		}{{a, alo, ahi}, {b, blo, bhi}} {
			if x.lo < -mulLimit || x.hi > mulLimit {
				fails = append(fails, fmt.Sprintf("%s < %d || %s > %d", x.s, -mulLimit, x.s, mulLimit))
			}
		}
		// Past the limit the product is never computed.
		alo, ahi = max(alo, -mulLimit), min(ahi, mulLimit)
		blo, bhi = max(blo, -mulLimit), min(bhi, mulLimit)
		ps := []int64{alo * blo, alo * bhi, ahi * blo, ahi * bhi}
		return "*", slices.Min(ps), slices.Max(ps), fails
	case prog.TDiv, prog.TMod:
		if blo <= 0 && bhi >= 0 {
			fails = append(fails, b+" == 0")
		}
		m := max(-alo, ahi)
		if k == prog.TDiv {
			return "/", -m, m, fails
		}
		return "%", -m, m, fails
	}
	ops := map[prog.TermKind]string{prog.TEq: "==", prog.TNe: "!=", prog.TLt: "<", prog.TLe: "<=",
		prog.TGt: ">", prog.TGe: ">=", prog.TAnd: "&&", prog.TOr: "||"}
	if op, ok := ops[k]; ok {
		return op, 0, 1, nil
	}
	return "", 0, 0, nil
}

// failsOf returns the condition under which instruction in, a register
// instruction with expression x, goes to its error point: x fails, or the
// value leaves in.Lo..in.Hi (an OpEval). It is "" when in cannot fail: it
// has no error point (the lowering proved it safe) or its bounds exclude
// every failure.
func failsOf(in *prog.Instr, x *pexpr) string {
	if in.Fail < 0 {
		return ""
	}
	fails := slices.Clone(x.fails)
	if in.Op == prog.OpEval {
		fails = append(fails, outside(x.val, x.lo, x.hi, int64(in.Lo), int64(in.Hi))...)
	}
	return strings.Join(fails, " || ")
}

// outside returns the conditions under which val, a value in lo..hi, is
// outside rlo..rhi: none where lo..hi lies within.
func outside(val string, lo, hi, rlo, rhi int64) []string {
	var c []string
	if lo < rlo {
		c = append(c, fmt.Sprintf("%s < %d", val, rlo))
	}
	if hi > rhi {
		c = append(c, fmt.Sprintf("%s > %d", val, rhi))
	}
	return c
}

// cond returns x as the condition x != 0: x itself where its value is 0 or
// 1 (a comparison, a logical operator).
func (x *pexpr) cond() string {
	if x.lo >= 0 && x.hi <= 1 {
		return x.val
	}
	return x.val + " != 0"
}

// isLocal reports whether instruction pc of thread t runs within the step
// that reaches it (machine.runLocal): an OpIf, or an OpEval into a
// register.
func (g *gen) isLocal(t, pc int) bool {
	in := &g.p.Threads[t].Code[pc]
	return in.Op == prog.OpIf || in.Op == prog.OpEval && g.p.Locs[in.X].Reg
}

// initial runs every thread from its entry through its register-only
// instructions in the initial memory, as machine.Initial does: the
// threads' first pcs and the registers' first values.
func (g *gen) initial() {
	g.initPC, g.initMem = settleInitial(g.p, g.isLocal, g.dead)
}

// settleInitial runs every thread of p from its entry through the
// instructions local says a step runs within itself (register-only ones),
// in the initial memory, and returns the threads' first pcs and that
// memory. A switch on a register goes on past the alternative its value
// takes, or leaves the thread there (blocked) when none does; a write to a
// location dead says is dead is not kept (dead may be nil).
func settleInitial(p *prog.Program, local func(t, pc int) bool, dead []bool) (pcs []int, mem []byte) {
	mem = make([]byte, len(p.Locs))
	for l := range p.Locs {
		mem[l] = p.Locs[l].Init
	}
	pcs = make([]int, len(p.Threads))
	for t := range p.Threads {
		code := p.Threads[t].Code
		pc := p.Threads[t].Entry
		for local(t, pc) {
			in := &code[pc]
			if in.Op == prog.OpSwitch {
				i := in.SwitchAlt(mem[in.X])
				if i < 0 {
					break // blocked there
				}
				pc = code[in.Alts[i]].Next
				continue
			}
			next, v, write := in.Local(mem)
			if write && (dead == nil || !dead[in.X]) {
				mem[in.X] = v
			}
			pc = next
		}
		pcs[t] = pc
	}
	return pcs, mem
}

// translate writes the expression of every OpEval and OpIf of the program
// in Promela, once (gen.exprs), or returns why one cannot be.
func (g *gen) translate() error {
	g.exprs = make([][]*pexpr, len(g.p.Threads))
	for t := range g.p.Threads {
		th := &g.p.Threads[t]
		g.exprs[t] = make([]*pexpr, len(th.Code))
		for pc := range th.Code {
			if in := &th.Code[pc]; in.Op == prog.OpEval || in.Op == prog.OpIf {
				x, err := g.expr(in.E)
				if err != nil {
					return fmt.Errorf("thread %s, instruction %d: %w", th.Name, pc, err)
				}
				g.exprs[t][pc] = x
			}
		}
	}
	return nil
}

// locName is a location's name in the program, for messages.
func (g *gen) locName(l int) string { return g.p.Locs[l].Name }

// registers declares the registers of thread t, with their values after
// its initial register-only run.
func (g *gen) registers(t int) {
	for l := range g.p.Locs {
		loc := &g.p.Locs[l]
		if !loc.Reg || loc.Owner != t {
			continue
		}
		if g.dead[l] {
			g.f("/* register %s: dead (nothing reads it), not stored */\n", loc.Name)
			continue
		}
		g.f("byte %s = %d;\t/* register %s */\n", g.loc(l), g.initMem[l], loc.Name)
	}
}

// keepRead returns an always true condition reading the registers of e,
// for an expression whose value is thrown away (an OpEval into a dead
// location that cannot fail): rdmasim keeps a register any expression
// reads, and SPIN would hide a variable nothing reads. "" when e reads no
// register.
func (g *gen) keepRead(e prog.Expr) string {
	var c []string
	for _, l := range e.Locs() {
		c = append(c, g.loc(l)+" <= 255")
	}
	return strings.Join(c, " && ")
}

// maxTree bounds the leaves of a register-only run written as nested ifs
// (gen.treeMax); a larger run (conditions one after another, each doubling
// the paths) is written as one guarded statement per instruction, in order.
const maxTree = 16

// moveTo returns the effects of moving thread t from instruction pc to
// next and running its register-only instructions from there, as
// machine.runLocal does, with the polls canonicalised where the thread
// stops (settle).
func (g *gen) moveTo(t, pc, next, added, polled int) []string {
	r := &localRun{
		code:  g.p.Threads[t].Code,
		pcv:   fmt.Sprintf("pc%d", t),
		exprs: g.exprs[t],
		local: func(at int) bool { return g.isLocal(t, at) },
		store: g.evalEffects,
		reg:   g.loc,
		stop:  func(at int) []string { return g.settle(t, pc, at, added, polled) },
		max:   g.treeMax,
	}
	return r.moveTo(next)
}

// A localRun writes, in Promela, the register-only run of one thread from
// the instruction a step reached to the instruction where the thread
// stops, as the step's last effects: the machines' runLocal in the
// Promela export of the machines (gen.moveTo), the instrumented machine's
// settle in the robustness model (robustGen.moveTo). The run is acyclic
// (every cycle of a lowered thread passes a loop head, where a thread
// stops).
type localRun struct {
	code  []prog.Instr
	pcv   string   // the thread's pc variable
	exprs []*pexpr // per instruction, its expression in Promela (OpEval, OpIf)
	// local reports whether instruction at runs within the step that
	// reached it: an OpIf, an OpEval into a register, and in the
	// robustness model a switch on a register (which stops at itself when
	// no alternative holds).
	local func(at int) bool
	// store returns the effects of an OpEval into a register that does
	// not fail.
	store func(in *prog.Instr, x *pexpr) []string
	// reg names a register's variable (a switch's).
	reg func(l int) string
	// stop returns the effects of the thread stopping at instruction at:
	// its pc and the canonicalisation there.
	stop func(at int) []string
	// max bounds the leaves of a run written as nested ifs (tree); a
	// larger one is written in sequence (seq).
	max int
}

// moveTo returns the effects of moving the thread to next and running its
// register-only instructions from there.
func (r *localRun) moveTo(next int) []string {
	if !r.local(next) {
		return r.stop(next)
	}
	if r.leaves(next, r.max+1) <= r.max {
		return []string{r.tree(next)}
	}
	return r.seq(next)
}

// leaves counts the paths of the register-only run from instruction at
// (a register-only one), up to limit.
func (r *localRun) leaves(at, limit int) int {
	if !r.local(at) {
		return 1
	}
	in := &r.code[at]
	n := 0
	var next []int
	switch in.Op {
	case prog.OpSwitch:
		n++ // no alternative holds: it stops there
		for _, a := range in.Alts {
			next = append(next, r.code[a].Next)
		}
	case prog.OpIf:
		next = in.Alts
	default:
		next = []int{in.Next}
	}
	if in.Op != prog.OpSwitch && failsOf(in, r.exprs[at]) != "" {
		n++
	}
	for _, s := range next {
		if n > limit {
			break
		}
		n += r.leaves(s, limit-n)
	}
	return n
}

// switchCond returns the condition under which the switch on a register
// in takes its alternative a (an assume on the register).
func switchCond(alt *prog.Instr, reg string) string {
	op := "=="
	if alt.Op == prog.OpAssumeNe {
		op = "!="
	}
	return fmt.Sprintf("%s %s %d", reg, op, alt.A)
}

// tree writes the register-only run from instruction at as nested ifs
// whose leaves stop the thread.
func (r *localRun) tree(at int) string {
	in := &r.code[at]
	if in.Op == prog.OpSwitch {
		var opts []string
		for _, a := range in.Alts {
			alt := &r.code[a]
			opts = append(opts, fmt.Sprintf(":: %s -> %s", switchCond(alt, r.reg(in.X)), effects(r.moveTo(alt.Next))))
		}
		return fmt.Sprintf("if %s :: else -> %s fi", strings.Join(opts, " "), effects(r.stop(at)))
	}
	x := r.exprs[at]
	var body string
	if in.Op == prog.OpIf {
		body = fmt.Sprintf("if :: %s -> %s :: else -> %s fi", x.cond(), effects(r.moveTo(in.Alts[0])), effects(r.moveTo(in.Alts[1])))
	} else {
		body = effects(append(r.store(in, x), r.moveTo(in.Next)...))
	}
	if f := failsOf(in, x); f != "" {
		return fmt.Sprintf("if :: %s -> %s :: else -> %s fi", f, effects(r.moveTo(in.Fail)), body)
	}
	return body
}

// seq writes the register-only run from instruction next as one statement
// per register-only instruction it can reach, in an order where each comes
// after those that lead to it (the run is acyclic), each acting when the
// thread is there; then stops the thread where it stopped.
func (r *localRun) seq(next int) []string {
	var order, ends []int
	seen := map[int]bool{}
	var visit func(at int)
	visit = func(at int) { // depth first, postorder: reversed, a topological order
		if seen[at] {
			return
		}
		seen[at] = true
		if !r.local(at) {
			ends = append(ends, at)
			return
		}
		in := &r.code[at]
		var succ []int
		switch in.Op {
		case prog.OpSwitch:
			ends = append(ends, at) // no alternative holds
			for _, a := range in.Alts {
				succ = append(succ, r.code[a].Next)
			}
		case prog.OpIf:
			succ = slices.Clone(in.Alts)
		default:
			succ = []int{in.Next}
		}
		if in.Fail >= 0 {
			succ = append(succ, in.Fail)
		}
		for _, s := range succ {
			visit(s)
		}
		order = append(order, at)
	}
	visit(next)
	slices.Reverse(order)
	slices.Sort(ends)
	out := []string{fmt.Sprintf("%s = %d", r.pcv, next)}
	for _, at := range order {
		out = append(out, fmt.Sprintf("if :: %s == %d -> %s :: else fi", r.pcv, at, r.seqStep(at)))
	}
	var opts []string
	for _, e := range ends {
		opts = append(opts, fmt.Sprintf(":: %s == %d -> %s", r.pcv, e, effects(r.stop(e))))
	}
	return append(out, "if "+strings.Join(opts, " ")+" fi")
}

// seqStep returns the statement of seq for the register-only instruction
// at: its effect and the thread's move to the instruction after it.
func (r *localRun) seqStep(at int) string {
	in := &r.code[at]
	x := r.exprs[at]
	if in.Op == prog.OpSwitch {
		var opts []string
		for _, a := range in.Alts {
			alt := &r.code[a]
			opts = append(opts, fmt.Sprintf(":: %s -> %s = %d", switchCond(alt, r.reg(in.X)), r.pcv, alt.Next))
		}
		return fmt.Sprintf("if %s :: else fi", strings.Join(opts, " "))
	}
	var body string
	if in.Op == prog.OpIf {
		body = fmt.Sprintf("if :: %s -> %s = %d :: else -> %s = %d fi", x.cond(), r.pcv, in.Alts[0], r.pcv, in.Alts[1])
	} else {
		body = effects(append(r.store(in, x), fmt.Sprintf("%s = %d", r.pcv, in.Next)))
	}
	if f := failsOf(in, x); f != "" {
		body = fmt.Sprintf("if :: %s -> %s = %d :: else -> %s fi", f, r.pcv, in.Fail, body)
	}
	return body
}

// evalEffects returns the effects of an OpEval that does not fail: the
// store of x's value into in.X, or, when in.X is dead, an always true
// reading of its registers (keepRead).
func (g *gen) evalEffects(in *prog.Instr, x *pexpr) []string {
	if !g.dead[in.X] {
		return []string{fmt.Sprintf("%s = %s", g.loc(in.X), x.val)}
	}
	if k := g.keepRead(in.E); k != "" {
		return []string{"(" + k + ")"}
	}
	return nil
}

// effects joins statements into a sequence ("skip" when there are none).
func effects(s []string) string {
	if len(s) == 0 {
		return "skip"
	}
	return strings.Join(s, "; ")
}

// registerStep writes the option of a register instruction that is a step
// of its own: an OpLoad (one read of an ordinary location) or an OpEval
// into an ordinary location (one write). OpIf and OpEval into a register
// run within the step that reaches them (moveTo) and are never where a
// thread waits: they have no option.
func (g *gen) registerStep(t, pc int, at string) {
	in := &g.p.Threads[t].Code[pc]
	guard := at
	var fail string
	var eff []string
	switch {
	case in.Op == prog.OpLoad:
		if in.Fail >= 0 {
			fail = strings.Join(outside(g.loc(in.Y), 0, 255, int64(in.Lo), int64(in.Hi)), " || ")
		}
		if !g.dead[in.X] {
			eff = append(eff, fmt.Sprintf("%s = %s", g.loc(in.X), g.loc(in.Y)))
		} else if fail == "" {
			// rdmasim keeps y, which the load reads: SPIN must not hide it.
			guard += fmt.Sprintf(" && %s <= 255", g.loc(in.Y))
		}
	case in.Op == prog.OpEval && !g.p.Locs[in.X].Reg:
		x := g.exprs[t][pc]
		fail = failsOf(in, x)
		eff = g.evalEffects(in, x)
	default:
		return
	}
	text := g.p.RegisterOpString(in)
	if in.Stmt != nil {
		text += fmt.Sprintf(" (line %d)", in.Stmt.Pos.Line)
	}
	eff = append(eff, g.moveTo(t, pc, in.Next, -1, -1)...)
	if fail != "" {
		eff = []string{fmt.Sprintf("if :: %s -> %s :: else -> %s fi", fail, effects(g.moveTo(t, pc, in.Fail, -1, -1)), effects(eff))}
	}
	g.step(guard, text, eff)
}
