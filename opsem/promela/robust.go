package promela

import (
	"fmt"
	"io"
	"strings"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
)

// This file writes the instrumented program of the seed paper's section 6,
// the machine of package opsem/instr, as a Promela model: the paper's own
// pipeline (instrument, then check SC reachability with SPIN), for
// cross-checking the decider of package opsem/decide.

// RobustOptions configure WriteRobustness.
type RobustOptions struct {
	// MaxCounter bounds the poll counters of a queue pair that its thread
	// can poll without bound (a poll in a loop): a NIC write that would
	// raise such a counter beyond MaxCounter is blocked, and the model
	// prints "CUT max-counter" (CutPrefix). 1..254; 0 means
	// DefaultMaxCounter. Elsewhere a counter is capped exactly by the polls
	// still possible, as in opsem/instr, and needs no bound.
	MaxCounter int
	// AllowAtomics instruments remote atomics (rcas, rfaa) as opsem/instr
	// does under instr.Options.AllowAtomics (robust_atomics.go) instead of
	// refusing them with an *AtomicsError: EXPERIMENTAL, as the decider's
	// instrumentation is (SEMANTICS-ATOMICS.md section 5.4). SPIN's verdict
	// on such a model is the experimental decider's, whose "robust" rests
	// on a normal form not proved for atomics.
	AllowAtomics bool
}

// DefaultMaxCounter is the default RobustOptions.MaxCounter.
const DefaultMaxCounter = 3

// CutMaxCounter is the bound a "CUT" line of a robustness model names.
const CutMaxCounter = "max-counter"

// MaxCounterBound is RobustOptions.MaxCounter's bound: a counter is a byte
// of the model.
var MaxCounterBound = machine.Bound{Name: CutMaxCounter, Lo: 1, Hi: 254}

// WriteRobustness writes the Promela model of p's instrumented program
// under opt to w: an SC program whose assertion can fail exactly when p is
// not robust (within the counter bound).
//
// The model is opsem/instr's machine with options{NoReduction: true}, lazy
// guessing, transition for transition (see the header it writes for the
// encoding): one global variable per component of instr's state, one
// proctype per thread looping over one d_step per transition of its
// instruction graph, and a process target whose d_step asserts, in every
// state where the boundary guesses equal τ1's memory and an SC-cycle edge
// was recorded, that the edges form no cycle. SPIN's search (pan) reports
// "assertion violated" iff a target state is reachable: the program is not
// robust. Poll counters are bounded as RobustOptions.MaxCounter says; a
// "CUT max-counter" line means that the bound blocked a step, and a search
// that finds no violation is then complete only up to the bound (a
// violation is always real).
//
// Registers kept at run time are run as instr runs them
// (robust_registers.go): each a global byte beside its thread's pc, a load
// the options of the thread's read storing into it, an eval into a
// location those of a write of the expression's value, and the
// register-only instructions (evals into registers, ifs, switches on
// registers) inside the d_step that reached them. What of them the model
// does not cover it refuses with a *prog.RegistersError naming it (an
// expression reading an ordinary location, an assume on a register outside
// a switch: the lowering makes neither).
//
// Remote atomics (rcas, rfaa) are refused with an *AtomicsError, as the
// decider refuses them, unless opt.AllowAtomics: then they are run as
// instr's EXPERIMENTAL instrumentation of them runs them
// (robust_atomics.go; the model's header says so), and SPIN's verdict is
// that of the decider with decide.Options.AllowAtomics.
//
// Each pan state is one of instr's states before instr's canonicalisation
// forgets the bookkeeping no future step consults (instr's canon: dead
// memory, guesses, exit and entry classes; the model forgets only the
// queue-pair bookkeeping and caps the counters as instr does): with spin
// -o2 (keep write-only variables) pan stores at least the states
// opsem/explore finds in instr's machine with NoReduction, often many
// times more, and the same states up to that canonicalisation.
func WriteRobustness(w io.Writer, p *prog.Program, opt RobustOptions) error {
	if err := prog.CheckRanges(p, "the Promela robustness model"); err != nil {
		return err
	}
	g, err := newRobustGen(p, opt)
	if err != nil {
		return fmt.Errorf("promela robustness model of %s: %w", p.Name, err)
	}
	g.model()
	if _, err := io.WriteString(w, g.b.String()); err != nil {
		return fmt.Errorf("writing the promela robustness model of %s: %w", p.Name, err)
	}
	return nil
}

// access is a class of memory event for the SC-cycle bookkeeping: its
// location, and whether it reads and writes it (instr's rec without part).
type access struct {
	loc  int
	r, w bool
}

// linkedTo reports whether an exit of class x and an entry of class e can be
// joined by rf, mo or rb: one location, one of them writes.
func (x access) linkedTo(e access) bool { return x.loc == e.loc && (x.w || e.w) }

type robustGen struct {
	p       *prog.Program
	k       int
	m       *instr.Machine // value domains of the guesses, markable and read locations, oppo classes
	forbid  [6]uint8       // forbid[b]: classes a with a ->oppo b on one queue pair
	counted []bool         // per queue pair: it has polls (counters c1, c2)
	qpsOf   [][]int        // queue pairs of each thread
	acc     [][]access     // per thread: the classes of its markable events
	edge    [][]bool       // edge[u][t]: an SC-cycle edge u -> t is possible
	b       strings.Builder
	options int  // d_step options written so far
	fenced  bool // a fenced operation: the queue pairs have a held bit (robust_verbs.go)
	// atomPCs[t][y]: the pcs of thread t's remote atomics on y, when the
	// model instruments atomics (robust_atomics.go); atomLocs: the
	// locations of the program's atomics, in order.
	atomPCs  []map[int][]int
	atomLocs []int
	// exprs[t][pc] is the expression of instruction pc of thread t in
	// Promela (an OpEval or OpIf; nil elsewhere); initPC and initMem the
	// threads' first pcs and the registers' first values, after each
	// thread's initial register-only run (robust_registers.go).
	exprs   [][]*pexpr
	initPC  []int
	initMem []byte
}

func newRobustGen(p *prog.Program, opt RobustOptions) (*robustGen, error) {
	if s := prog.FirstVerbs(p); s != nil {
		return nil, &FeatureError{Pos: s.Pos, Stmt: p.SourceString(s), Feature: prog.VerbsFeature(s)}
	}
	if s := prog.FirstAtomic(p); s != nil && !opt.AllowAtomics {
		return nil, &AtomicsError{Pos: s.Pos, Stmt: p.SourceString(s)}
	}
	if opt.MaxCounter == 0 {
		opt.MaxCounter = DefaultMaxCounter
	}
	if err := MaxCounterBound.Check(opt.MaxCounter); err != nil {
		return nil, err
	}
	m, err := instr.New(p, instr.Options{NoReduction: true, AllowAtomics: opt.AllowAtomics})
	if err != nil {
		return nil, err
	}
	g := &robustGen{p: p, k: opt.MaxCounter, m: m}
	g.fenced = g.anyFenced()
	g.atomics()
	if err := g.robustRegisters(); err != nil {
		return nil, err
	}
	g.forbid = m.Forbid()
	g.counted = make([]bool, len(p.QPs))
	g.qpsOf = make([][]int, len(p.Threads))
	for q, qp := range p.QPs {
		g.qpsOf[qp.Thread] = append(g.qpsOf[qp.Thread], q)
	}
	g.acc = make([][]access, len(p.Threads))
	for t := range p.Threads {
		for pc := range p.Threads[t].Code {
			in := &p.Threads[t].Code[pc]
			if in.Op == prog.OpPoll {
				g.counted[in.QP] = true
			}
			for _, a := range instrAccesses(p, in) {
				if g.m.Markable(a.loc) && !containsAccess(g.acc[t], a) {
					g.acc[t] = append(g.acc[t], a)
				}
			}
		}
	}
	nt := len(p.Threads)
	g.edge = make([][]bool, nt)
	for u := range g.edge {
		g.edge[u] = make([]bool, nt)
		for t := range g.edge[u] {
			for _, x := range g.acc[u] {
				for _, e := range g.acc[t] {
					if x.linkedTo(e) {
						g.edge[u][t] = true
					}
				}
			}
			// A pending atomic of t is an entry linked from every other
			// exit on its location (linkPending).
			for _, x := range g.acc[u] {
				if u != t && g.pendableOn(t, x.loc) {
					g.edge[u][t] = true
				}
			}
		}
	}
	return g, nil
}

func containsAccess(s []access, a access) bool {
	for _, x := range s {
		if x == a {
			return true
		}
	}
	return false
}

// instrAccesses returns the classes of the memory events an instruction
// of p can generate (a CAS: the CAS or the read of z that fails, and the
// write of x; a load: the read of y; an eval into an ordinary location:
// its write).
func instrAccesses(p *prog.Program, in *prog.Instr) []access {
	switch in.Op {
	case prog.OpLoad:
		return []access{{in.Y, true, false}}
	case prog.OpEval:
		if !p.Locs[in.X].Reg {
			return []access{{in.X, false, true}}
		}
	case prog.OpWrite:
		return []access{{in.X, false, true}}
	case prog.OpAssumeEq, prog.OpAssumeNe:
		return []access{{in.X, true, false}}
	case prog.OpCAS:
		return []access{{in.Z, true, true}, {in.Z, true, false}, {in.X, false, true}}
	case prog.OpGet:
		return []access{{in.Y, true, false}, {in.X, false, true}}
	case prog.OpPut:
		return []access{{in.X, true, false}, {in.Y, false, true}}
	case prog.OpRCAS, prog.OpRFAA:
		// whole: naR and naW as one access (naR alone when an rcas
		// fails); pending: naR alone; then the nlW of x
		return []access{{in.Y, true, true}, {in.Y, true, false}, {in.X, false, true}}
	}
	return nil
}

func (g *robustGen) f(format string, args ...any) { fmt.Fprintf(&g.b, format, args...) }

// Names of the model's variables.
func (g *robustGen) lname(l int) string          { return ident(g.p.Locs[l].Name) }
func (g *robustGen) v(what string, l int) string { return what + "_" + g.lname(l) }
func qn(q int) string                            { return fmt.Sprintf("q%d", q) }
func (g *robustGen) ent(t, l int, w bool) string {
	if w {
		return fmt.Sprintf("ent%d_%s_w", t, g.lname(l))
	}
	return fmt.Sprintf("ent%d_%s_r", t, g.lname(l))
}
func edgeVar(u, t int) string { return fmt.Sprintf("e%d_%d", u, t) }

// hasAccess reports whether thread t has a markable event on l that
// writes (w) or reads (!w).
func (g *robustGen) hasAccess(t, l int, w bool) bool {
	for _, a := range g.acc[t] {
		if a.loc == l && (w && a.w || !w && a.r) {
			return true
		}
	}
	return false
}

// classMacro is the model's name of ppo class c in bit masks: the class's
// name in capitals ("NLR", "NRW", ...).
func classMacro(c axiom.Class) string { return strings.ToUpper(c.String()) }

func classMask(mask uint8) string {
	var s []string
	for c := axiom.ClassNLR; c <= axiom.ClassNF; c++ {
		if mask&(1<<c) != 0 {
			s = append(s, classMacro(c))
		}
	}
	return strings.Join(s, "|")
}

// exitCode is the value of exitT for an exit event of class a in part.
func exitCode(a access, part int) int {
	c := 1 + 8*a.loc
	if a.r {
		c += 4
	}
	if a.w {
		c += 2
	}
	if part == 2 {
		c++
	}
	return c
}

func (g *robustGen) model() {
	g.header()
	g.declarations()
	for t := range g.p.Threads {
		g.thread(t)
	}
	g.target()
}

func (g *robustGen) header() {
	var cut []string
	for q := range g.p.QPs {
		if g.counted[q] && g.counterBounded(q) {
			cut = append(cut, fmt.Sprintf("%s (%s)", qn(q), g.qpString(q)))
		}
	}
	bound := "No queue pair can be polled without bound: the counters need no bound\n * and the search is complete."
	if len(cut) > 0 {
		bound = fmt.Sprintf("Counters bounded by max-counter %d (a NIC write that would exceed it\n * is blocked and prints \"%s %s\") on: %s.", g.k, CutPrefix, CutMaxCounter, strings.Join(cut, ", "))
	}
	regs := ""
	if prog.HasRegisters(g.p) {
		regs = `
 * A register kept at run time (r_R) is its thread's local state, in no
 * part: a load R := Y is the thread's lR of Y storing into r_R, an eval
 * X := E into a location the lW of E's value; evals into registers, ifs
 * and switches on registers run inside the d_step that reached them.`
	}
	if len(g.atomLocs) > 0 {
		regs += `
 *
 * EXPERIMENTAL: the decider's instrumentation of remote atomics (rdmasim's
 * opsem/instr/atomic.go, robust --atomics-experimental), whose normal form
 * is not proved (SEMANTICS-ATOMICS.md section 5.4): SPIN's "robust" is
 * that instrumentation's answer, not a theorem; a violation it finds is one
 * the decider would report (and check by its witness). An atomic's naR and
 * (unless an rcas fails) naW are one step in tau1 or tau2 on that part's
 * memory (whole), or its naR alone, after which the thread stops (pendT:
 * pending, its write mo-last); its nlW follows as a get's. The bookkeeping
 * records naR/naW as nrR. lk_Y: the part of the pending atomic holding Y's
 * lock (0: none), a2_Y: an atomic on Y is in tau2; an atomic joins part p
 * only if lk_Y == 0 or p < lk_Y, a pending one only if lk_Y == 0 and, in
 * tau1, !a2_Y. pendInT: T's pending atomic is its exit, and an entry linked
 * from every other exit on its location.`
	}
	g.f(`/*
 * %s: the instrumented program of the seed paper's section 6 (the machine of
 * rdmasim's opsem/instr, lazy guessing, no partial-order reduction) as a
 * Promela model for SPIN, written by rdmasim export --promela --robustness.
 * An assertion fails iff the program is not robust.
 *
 * The model guesses a violating trace tau = tau1 tau2 in the normal form of
 * section 5: the threads run under SC, one event at a time in program order,
 * and each event joins tau1 or tau2 (one d_step option each). tau1 runs on
 * memory m1_X (from the initial values); tau2 on m2_X, written in tau2 when
 * w2_X, else the boundary memory g_X, guessed (gs_X) when tau2 first reads
 * X. Only locations that something reads are stored.%s
 *
 * RDMA consistency (appendix "Detailed RDMA-Consistency Checks"):
 *   oppo: cpu2_T is set once a CPU event of T is in tau2 (then all of T
 *     stays in tau2); qN_in2 holds the ppo classes of qN's NIC events in
 *     tau2, and an event joins tau1 only if no class in qN_in2 precedes it
 *     in oppo;
 *   [nlW];pf: qN_c2 counts the unpolled NIC writes of qN, qN_c1 those before
 *     the first forcing one (qN_forced): a tau1 poll needs c1 > 0, a tau2
 *     poll c2 > 0; an nlW in tau2 is forcing;
 *   [Inst];ib: qN_fence is set when an nF joins tau1 while an nlW of qN is
 *     in tau2, and keeps nlR out of tau1; an nrW in tau2 after an nlR or nF
 *     of qN in tau2 is forcing.
 * SC cycle (appendix "Detailed SC-Cycle Detection"): exitT is T's guessed
 * exit event, 0 while unmarked, else 1 + 8*loc + 4*reads + 2*writes + inTau2;
 * entT_X_r/w: T has a candidate entry in tau2 reading/writing X; eU_T: an
 * rf/mo/rb edge from U's exit to a candidate entry of T forward in tau.
 * Target (process target): every guess g_X equals m1_X and the eU_T form a
 * cycle.
 *
 * %s
 *
 * Check with
 *   spin -a MODEL.pml
 *   gcc -O1 -DSAFETY -DNOREDUCE -DPRINTF -DVECTORSZ=65536 -o pan pan.c
 *   ./pan -E -n -m1000000
 * "assertion violated" (errors: 1): not robust. "errors: 0": robust, unless a
 * line "%s %s" was printed (then robust only up to the bound). pan must
 * not report "max search depth too small".
 */

`, g.p.Name, regs, bound, CutPrefix, CutMaxCounter)
}

func (g *robustGen) qpString(q int) string {
	qp := g.p.QPs[q]
	return fmt.Sprintf("%s -> %s", g.p.Threads[qp.Thread].Name, g.p.Nodes[qp.Remote].Name)
}

// left returns the polls thread t may still execute on queue pair q from
// instruction pc (0 at its end).
func (g *robustGen) left(q, pc int) int {
	t := g.p.QPs[q].Thread
	in := &g.p.Threads[t].Code[pc]
	if in.Op == prog.OpEnd {
		return 0
	}
	return in.PollsLeft[g.p.QPs[q].Local]
}

// exact reports whether a count of left polls caps a counter exactly (no
// max-counter bound needed).
func exact(left int) bool { return left != prog.Unbounded && left <= MaxCounterBound.Hi }

// counterBounded reports whether max-counter can block a NIC write of q.
func (g *robustGen) counterBounded(q int) bool {
	code := g.p.Threads[g.p.QPs[q].Thread].Code
	for pc := range code {
		in := &code[pc]
		if in.QP == q && (in.Op == prog.OpPut || in.Op == prog.OpGet || in.Op.IsAtomic()) && !exact(g.left(q, in.Next)) {
			return true
		}
	}
	return false
}

func (g *robustGen) declarations() {
	g.f("/* ppo classes of NIC events (bits of qN_in2). */\n")
	for c := axiom.ClassNLR; c <= axiom.ClassNF; c++ {
		g.f("#define %s %d\n", classMacro(c), 1<<c)
	}
	g.f("/* Fields of an exit code x != 0. */\n")
	g.f("#define XLOC(x) (((x) - 1) / 8)\n#define XW(x) ((((x) - 1) / 2) %% 2)\n#define X2(x) (((x) - 1) %% 2)\n\n")

	g.f("/* Memories of the locations something reads: tau1's, tau2's, the guessed boundary. */\n")
	for l, loc := range g.p.Locs {
		if loc.Reg {
			continue // declared with its thread
		}
		if !g.m.IsRead(l) {
			g.f("/* %s: nothing reads it, not stored */\n", loc.Name)
			continue
		}
		mark := ""
		if g.m.Markable(l) {
			mark = ", on SC cycles"
		}
		g.f("byte %s = %d; byte %s; byte %s; bit %s; bit %s;\t/* on %s%s */\n",
			g.v("m1", l), loc.Init, g.v("m2", l), g.v("g", l), g.v("w2", l), g.v("gs", l), g.p.Nodes[loc.Node].Name, mark)
	}
	g.f("\n")
	g.atomicDeclarations()
	if len(g.p.QPs) > 0 {
		g.f("/* Queue pairs. */\n")
	}
	for q := range g.p.QPs {
		n := qn(q)
		g.f("byte %s_in2; bit %s_fence;", n, n)
		if d := g.heldDeclaration(n); d != "" {
			g.f(" %s", d)
		}
		if g.counted[q] {
			g.f(" bit %s_forced; byte %s_c1; byte %s_c2;", n, n, n)
		}
		g.f("\t/* %s */\n", g.qpString(q))
	}
	if len(g.p.QPs) > 0 {
		g.f("\n")
	}
	for t := range g.p.Threads {
		th := &g.p.Threads[t]
		pcType := "byte"
		if th.End() > 255 {
			pcType = "short"
		}
		g.f("/* Thread %s on %s. */\n", th.Name, g.p.Nodes[th.Node].Name)
		g.f("%s pc%d = %d;\t/* next instruction; %d = end */\n", pcType, t, g.initPC[t], th.End())
		g.declareRegisters(t)
		if g.hasMid(t) {
			g.f("bit mid%d; byte val%d;\t/* between the two events of an instruction; the value read */\n", t, t)
		}
		g.f("bit cpu2_%d;\t/* a CPU event of the thread is in tau2 */\n", t)
		g.threadAtomicDeclarations(t)
		if len(g.acc[t]) > 0 {
			g.f("short exit%d;\t/* SC-cycle exit */\n", t)
			var ents []string
			for l := range g.p.Locs {
				for _, w := range []bool{false, true} {
					if g.hasAccess(t, l, w) {
						ents = append(ents, g.ent(t, l, w))
					}
				}
			}
			g.f("bit %s;\t/* candidate entries in tau2 */\n", strings.Join(ents, ", "))
		}
		var edges []string
		for u := range g.p.Threads {
			if g.edge[t][u] {
				edges = append(edges, edgeVar(t, u))
			}
		}
		if len(edges) > 0 {
			g.f("bit %s;\t/* SC-cycle edges from its exit */\n", strings.Join(edges, ", "))
		}
		g.f("\n")
	}
}

// hasMid reports whether thread t has two-event instructions.
func (g *robustGen) hasMid(t int) bool {
	for _, in := range g.p.Threads[t].Code {
		if in.Op == prog.OpCAS || in.Op == prog.OpGet || in.Op == prog.OpPut || in.Op.IsAtomic() {
			return true
		}
	}
	return false
}

// canon returns the effects of moving thread t from instruction pc to next
// (pc itself when the thread stops between two events), with instr's canon:
// a thread with cpu2 (set by this step when setCPU2) or ended keeps no
// queue-pair bookkeeping but its counters, and counters are capped by the
// polls left. modified is the queue pair whose counters the step changed,
// or -1.
func (g *robustGen) canon(t, pc, next int, setCPU2 bool, modified int) []string {
	var out []string
	if next != pc {
		out = append(out, fmt.Sprintf("pc%d = %d", t, next))
	}
	op := g.p.Threads[t].Code[next].Op
	ended := next != pc && (op == prog.OpEnd || op == prog.OpFail)
	for _, q := range g.qpsOf[t] {
		n := qn(q)
		if setCPU2 || ended {
			out = append(out, n+"_in2 = 0", n+"_fence = 0")
			out = append(out, g.heldReset(n)...)
		}
		if !g.counted[q] {
			continue
		}
		after, before := g.left(q, next), g.left(q, pc)
		if after == 0 {
			if q == modified || before != 0 || setCPU2 {
				out = append(out, n+"_c1 = 0", n+"_c2 = 0", n+"_forced = 0")
			}
			continue
		}
		if setCPU2 {
			out = append(out, n+"_c1 = 0", n+"_forced = 0")
		}
		if exact(after) && (q == modified || !exact(before) || after < before) {
			out = append(out, fmt.Sprintf("if :: %s_c1 > %d -> %s_c1 = %d :: else fi", n, after, n, after),
				fmt.Sprintf("if :: %s_c2 > %d -> %s_c2 = %d :: else fi", n, after, n, after))
		}
	}
	return out
}

// target writes the process that checks the target (the paper's steps 4 to
// 6): at any moment, if every guess equals tau1's memory and the SC-cycle
// edges form a cycle, the assertion fails.
func (g *robustGen) target() {
	nt := len(g.p.Threads)
	var edges []string
	for u := 0; u < nt; u++ {
		for t := 0; t < nt; t++ {
			if g.edge[u][t] {
				edges = append(edges, edgeVar(u, t))
			}
		}
	}
	if len(edges) == 0 {
		g.f("/* No two accesses can be on an SC cycle: the program is robust, and no target is reachable. */\n")
		return
	}
	guard := []string{"(" + strings.Join(edges, " || ") + ")"}
	for l := range g.p.Locs {
		if g.m.IsRead(l) && !g.p.Locs[l].Reg {
			guard = append(guard, fmt.Sprintf("(!%s || %s == %s)", g.v("gs", l), g.v("g", l), g.v("m1", l)))
		}
	}
	g.f(`/*
 * The target (the paper's steps 4 to 6): the simulation may stop at any
 * moment. If then every fixed boundary guess equals tau1's memory and an
 * edge was recorded, compute the transitive closure of the edges (scratch
 * variables, not part of the state) and assert that no thread reaches
 * itself. The step changes no state.
 */
#define NT %d
hidden byte reach[NT*NT];
hidden byte ci, cj, ck;
hidden byte cyc;

active proctype target() {
	do
	:: d_step { %s ->
		ci = 0;
		do
		:: ci < NT*NT -> reach[ci] = 0; ci++
		:: else -> break
		od;
`, nt, strings.Join(guard, " &&\n\t\t"))
	for u := 0; u < nt; u++ {
		for t := 0; t < nt; t++ {
			if g.edge[u][t] {
				g.f("\t\treach[%d] = %s;\n", u*nt+t, edgeVar(u, t))
			}
		}
	}
	g.f(`		ck = 0;
		do
		:: ck < NT ->
			ci = 0;
			do
			:: ci < NT ->
				if
				:: reach[ci*NT + ck] ->
					cj = 0;
					do
					:: cj < NT -> reach[ci*NT + cj] = reach[ci*NT + cj] || reach[ck*NT + cj]; cj++
					:: else -> break
					od
				:: else
				fi;
				ci++
			:: else -> break
			od;
			ck++
		:: else -> break
		od;
		cyc = 0;
		ci = 0;
		do
		:: ci < NT -> cyc = cyc || reach[ci*NT + ci]; ci++
		:: else -> break
		od;
		assert(!cyc)
	}
	od
}
`)
}
