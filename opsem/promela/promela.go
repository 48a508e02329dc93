// Package promela writes the operational semantics of a program as a
// Promela model for the SPIN model checker: the RDMA queue-pair machine
// (rules N1..N8, F1, F2 of shared/spec/SEMANTICS.md, section 3) or the SC
// machine (section 4), transition for transition as package opsem/machine
// implements them, so that SPIN's exhaustive search reaches exactly the
// final outcomes that rdmasim reports.
//
// The model (see Write for its layout) prints one line "OUTCOME x=1 y=0"
// per final configuration it reaches; Run compiles and runs it with SPIN and
// collects those lines.
package promela

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// Options select the machine and its bounds. They mean what the fields of
// machine.Options of the same names mean, so that a model and rdmasim's
// exploration with equal options reach the same outcomes.
type Options struct {
	// Semantics is the machine: machine.RDMA or machine.SC.
	Semantics machine.Semantics
	// MaxInflight bounds the operations in the buffers of one queue pair
	// (RDMA) and, where a thread may poll without bound, its unpolled
	// operations (both machines); 1..250, 0 means the default (8).
	MaxInflight int
	// Unroll bounds the iterations of each loop per entry; 0: no bound.
	Unroll int
	// Placement is the order in which the words of a multi-word put or
	// get reach memory (RDMA; SEMANTICS-VERBS.md 1); a program's
	// placement in-order line holds whatever it says, as for the machine.
	Placement machine.Placement
}

// Lines the model prints (under pan -DPRINTF).
const (
	// OutcomePrefix starts the line printed in each final configuration,
	// followed by " loc=value" for every shown location
	// (verdict.ShownLocations, in that order).
	OutcomePrefix = "OUTCOME"
	// CutPrefix starts the line printed where a bound blocks a step
	// ("CUT max-inflight", "CUT unroll"): rdmasim's PrunedInflight and
	// PrunedUnroll, after which outcomes are complete only within bounds.
	CutPrefix = "CUT"
)

// Sentinels of the model.
const (
	noRank = 255 // machine's noRank: no future poll can wait for the operation
)

// Write writes the Promela model of p's machine under opt to w.
//
// Layout: every location the machine tracks is a global byte m_NAME (the
// locations machine.DeadLocations finds dead, which nothing reads and no
// outcome shows, are not stored, as in rdmasim); L_NAME is its index. A
// register kept at run time is a global byte r_NAME, and its thread's
// evals into registers and ifs run inside the d_step that reaches them, as
// machine.runLocal runs them (see registers.go). Each
// thread is a proctype looping over one d_step per transition of its
// instruction graph, selected by its global pc (pcN, plus midN/regN between
// the two steps of a CAS, or of a put or get under SC). Under RDMA each queue
// pair qN has the five FIFO buffers as arrays qN_b1, qN_b2, qN_b3, qN_rw,
// qN_lw of entries {kind, a, b, rank} with their lengths, and the count of
// unpolled operations qN_npend; the process nic has one d_step per NIC rule
// and queue pair (N6 once per B3 slot).
//
// Every d_step is one transition of rdmasim's machine and leaves the
// variables exactly as the machine's configuration (freed slots are zeroed,
// scratch variables are hidden, ranks no future poll can reach are
// forgotten as machine.canonPolls does), so SPIN's states are rdmasim's, one
// to one. The process outcome prints the outcome of each final
// configuration, and a step that a bound blocks prints a CUT line, both in
// steps that change nothing.
func Write(w io.Writer, p *prog.Program, opt Options) error {
	if err := prog.CheckRanges(p, "the Promela model of the machines"); err != nil {
		return err
	}
	if s := FirstInlineWords(p); s != nil {
		return fmt.Errorf("promela model of %s: %w", p.Name, &InlineWordsError{Pos: s.Pos, Stmt: p.SourceString(s)})
	}
	g, err := newGen(p, opt)
	if err != nil {
		return fmt.Errorf("promela model of %s: %w", p.Name, err)
	}
	g.model()
	if _, err := io.WriteString(w, g.b.String()); err != nil {
		return fmt.Errorf("writing the promela model of %s: %w", p.Name, err)
	}
	return nil
}

// AtomicsError refuses a program with remote atomics (rcas, rfaa) where a
// model does not cover them: the robustness model without
// RobustOptions.AllowAtomics (the instrumentation, which the decider
// refuses them for too without its experimental option). An export that
// left them out would be a different program.
type AtomicsError struct {
	Pos  prog.Pos
	Stmt string
}

func (e *AtomicsError) Error() string {
	return fmt.Sprintf("%s: the Promela robustness model covers remote atomics (%s) only with the decider's experimental instrumentation of them (--atomics-experimental)", e.Pos, e.Stmt)
}

// FeatureError refuses a program that uses a verbs feature (SEMANTICS-VERBS.md)
// in the robustness model, which is the decider's instrumentation and does
// not cover it either (instr.FeatureError): today quiet.
type FeatureError struct {
	Pos     prog.Pos
	Stmt    string
	Feature string // the feature's keyword: "quiet"
}

func (e *FeatureError) Error() string {
	what := e.Feature
	if e.Stmt != e.Feature {
		what += " (" + e.Stmt + ")"
	}
	return fmt.Sprintf("%s: the Promela robustness model does not cover %s: it is the decider's instrumentation, which does not either (SEMANTICS-VERBS.md)", e.Pos, what)
}

// qpInfo is what the generator knows statically about one queue pair.
type qpInfo struct {
	name                      string // "q0"
	puts, gets, fences, polls int    // instructions of each kind on it
	atoms                     []int  // its remote atomics, as indices into gen.atoms
	cap1, cap2, cap3          int    // array sizes of B1, B2, B3 (0: absent)
	capRW, capLW              int    // array sizes of RW and LW
	// before[pc]: the most puts, gets and fences its thread can have
	// submitted on it before instruction pc (prog.Unbounded when a loop
	// can submit them); its in-flight count never exceeds it.
	before []int
	// issued[pc]: the same for puts and gets only; its count of unpolled
	// operations never exceeds it.
	issued   []int
	bounded  bool  // the max-inflight bound can block some submission
	dropRW   bool  // machine's dropRW: no gets, dead remote writes are dropped
	deadDsts []int // dead destinations of its puts, when dropRW
	words    int   // the most words of its puts and gets (wordsQP)
}

type gen struct {
	p     *prog.Program
	opt   Options
	sc    bool
	k     int // max-inflight
	dead  []bool
	shown []int
	qps   []qpInfo
	b     strings.Builder
	// atoms are the program's remote atomics, numbered as the machine
	// numbers them (threads in order, then instructions): buffer entries
	// carry the number.
	atoms []*prog.Instr
	// initPC and initMem are the threads' pcs and the memory (registers
	// included) of the initial configuration, after each thread's first
	// register-only run (see initial).
	initPC  []int
	initMem []byte
	// exprs[t][pc] is the expression of instruction pc of thread t in
	// Promela (an OpEval or OpIf; nil elsewhere).
	exprs [][]*pexpr
	// treeMax bounds the paths of a register-only run written as nested
	// ifs (maxTree; tests lower it).
	treeMax int
}

func newGen(p *prog.Program, opt Options) (*gen, error) {
	if opt.MaxInflight == 0 {
		opt.MaxInflight = machine.DefaultOptions().MaxInflight
	}
	if err := machine.InflightBound.Check(opt.MaxInflight); err != nil {
		return nil, err
	}
	if err := machine.UnrollBound.Check(opt.Unroll); err != nil {
		return nil, err
	}
	if opt.Semantics != machine.RDMA && opt.Semantics != machine.SC {
		return nil, fmt.Errorf("unknown semantics %d", opt.Semantics)
	}
	g := &gen{p: p, opt: opt, sc: opt.Semantics == machine.SC, k: opt.MaxInflight, treeMax: maxTree}
	g.shown = verdict.ShownLocations(p)
	g.dead = machine.DeadLocations(p, g.shown)
	if err := g.translate(); err != nil {
		return nil, err
	}
	g.initial()
	for t := range p.Threads {
		for pc := range p.Threads[t].Code {
			if p.Threads[t].Code[pc].Op.IsAtomic() {
				g.atoms = append(g.atoms, &p.Threads[t].Code[pc])
			}
		}
	}
	g.qps = make([]qpInfo, len(p.QPs))
	for qi, qp := range p.QPs {
		q := &g.qps[qi]
		q.name = fmt.Sprintf("q%d", qi)
		th := &p.Threads[qp.Thread]
		for _, in := range th.Code {
			if in.QP != qi {
				continue
			}
			switch in.Op {
			case prog.OpPut:
				q.puts++
			case prog.OpGet:
				q.gets++
			case prog.OpRFence:
				q.fences++
			case prog.OpPoll:
				q.polls++
			}
		}
		for k, in := range g.atoms {
			if in.QP == qi {
				q.atoms = append(q.atoms, k)
			}
		}
		q.dropRW = q.gets == 0 && len(q.atoms) == 0
		on := func(ops ...prog.Op) func(in *prog.Instr) bool {
			return func(in *prog.Instr) bool { return in.QP == qi && slices.Contains(ops, in.Op) }
		}
		keptRW := func(in *prog.Instr) bool { // puts whose remote write goes through RW
			return on(prog.OpPut)(in) && !(q.dropRW && g.dead[in.Y])
		}
		for _, in := range th.Code {
			if on(prog.OpPut)(&in) && !keptRW(&in) {
				q.deadDsts = appendOnce(q.deadDsts, in.Y)
			}
		}
		q.before = countBefore(th, on(prog.OpPut, prog.OpGet, prog.OpRFence, prog.OpRCAS, prog.OpRFAA))
		q.issued = countBefore(th, on(prog.OpPut, prog.OpGet, prog.OpRCAS, prog.OpRFAA))
		for pc := range th.Code {
			if on(prog.OpPut, prog.OpGet, prog.OpRFence, prog.OpRCAS, prog.OpRFAA)(&th.Code[pc]) && q.before[pc] >= g.k {
				q.bounded = true
			}
		}
		if !g.sc {
			// Every buffer holds at most max-inflight entries (see
			// machine's qstate.inflight), and at most one per operation
			// that can reach it.
			size := func(count func(*prog.Instr) bool) int { return min(g.k, total(th, count)) }
			q.cap1 = size(on(prog.OpPut, prog.OpGet, prog.OpRFence, prog.OpRCAS, prog.OpRFAA))
			q.cap2 = size(on(prog.OpPut, prog.OpGet, prog.OpRCAS, prog.OpRFAA))
			q.cap3 = q.cap2
			q.capRW = size(keptRW)
			q.capLW = size(on(prog.OpGet, prog.OpRCAS, prog.OpRFAA))
		}
		g.wordsQP(qi)
	}
	return g, nil
}

// countBefore returns, per instruction of th, the most instructions that
// count can have executed on a path from the entry to it, or prog.Unbounded
// where a path can go round a loop through one.
func countBefore(th *prog.Thread, count func(*prog.Instr) bool) []int {
	n := len(th.Code)
	// Counted instructions on a cycle make everything after them unbounded.
	reach := prog.NewReach(th.Code)
	out := make([]int, n)
	for pc := range th.Code {
		if count(&th.Code[pc]) {
			if r := reach.From(pc); r[pc] {
				for q := range r {
					if r[q] {
						out[q] = prog.Unbounded
					}
				}
			}
		}
	}
	// Elsewhere cycles count nothing: the longest count is reached by
	// relaxation within (counted instructions + 1) * n rounds.
	for changed := true; changed; {
		changed = false
		for pc := range th.Code {
			if out[pc] == prog.Unbounded {
				continue
			}
			v := out[pc]
			if count(&th.Code[pc]) {
				v++
			}
			for _, s := range th.Code[pc].Succ() {
				if out[s] != prog.Unbounded && v > out[s] {
					out[s] = v
					changed = true
				}
			}
		}
	}
	return out
}

// total returns the most instructions that count can execute in a run of
// th (prog.Unbounded if a loop can execute them).
func total(th *prog.Thread, count func(*prog.Instr) bool) int {
	before := countBefore(th, count)
	most := 0
	for pc := range th.Code {
		v := before[pc]
		if v != prog.Unbounded && count(&th.Code[pc]) {
			v++
		}
		most = max(most, v)
	}
	return most
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func appendOnce(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func (g *gen) f(format string, args ...any) { fmt.Fprintf(&g.b, format, args...) }

// loc is the Promela variable of location l: m_NAME, or r_NAME for a
// register (client[0].my: r_client__0_my).
func (g *gen) loc(l int) string {
	if g.p.Locs[l].Reg {
		return "r_" + ident(g.p.Locs[l].Name)
	}
	return "m_" + ident(g.p.Locs[l].Name)
}

func (g *gen) locID(l int) string { return "L_" + ident(g.p.Locs[l].Name) }

// ident turns a name of the program into a Promela identifier: an element
// of an array or a member of a family, buf[1], becomes buf__1, and a
// register, client[0].my, client__0_my.
func ident(name string) string {
	return strings.NewReplacer("[", "__", "]", "", ".", "_").Replace(name)
}

// model writes the whole model.
func (g *gen) model() {
	g.header()
	g.memory()
	if !g.sc {
		g.buffers()
	} else if len(g.qps) > 0 {
		g.f("/* Per queue pair: puts and gets done and not yet polled. */\n")
		for qi := range g.qps {
			g.f("byte %s_npend;\t/* %s */\n", g.qps[qi].name, g.qpString(qi))
		}
		g.f("\n")
	}
	for t := range g.p.Threads {
		g.thread(t)
	}
	if !g.sc && g.hasNIC() {
		g.nic()
	}
	g.outcome()
}

func (g *gen) header() {
	machine := "the RDMA queue-pair machine (rules N1..N8, F1, F2 of\n * SEMANTICS.md, section 3) as"
	if g.sc {
		machine = "the SC machine (SEMANTICS.md, section 4)\n * as"
	}
	g.f("/*\n * %s: %s a Promela model for SPIN, written by\n", g.p.Name, machine)
	g.f(" * rdmasim export --promela")
	g.f(" (max-inflight %d, unroll %d%s).\n", g.k, g.opt.Unroll, g.wordsHeader())
	var cuts []string
	for qi := range g.qps {
		if g.qps[qi].bounded || g.sc && g.npendBounded(qi) {
			cuts = append(cuts, fmt.Sprintf("max-inflight on %s (%s)", g.qps[qi].name, g.qpString(qi)))
		}
	}
	if g.opt.Unroll > 0 {
		for t := range g.p.Threads {
			if g.p.Threads[t].Loops > 0 {
				cuts = append(cuts, "unroll on the loops of "+g.p.Threads[t].Name)
			}
		}
	}
	if len(cuts) == 0 {
		g.f(" * No bound can block a step: the search is complete.\n *\n")
	} else {
		g.f(" * Bounds that can block steps: %s.\n *\n", strings.Join(cuts, ", "))
	}
	if prog.HasRegisters(g.p) {
		g.f(" * The registers kept at run time are r_NAME; a thread's evals into them and its\n")
		g.f(" * ifs run inside the d_step that reaches them, as in rdmasim, and are no steps.\n *\n")
	}
	g.f(` * Each transition of rdmasim's machine is one d_step, and SPIN's states are
 * the machine's configurations. In each final configuration (every thread
 * ended, every buffer empty) the process outcome prints
 *   %s`, OutcomePrefix)
	for _, l := range g.shown {
		g.f(" %s=V", g.p.Locs[l].Name)
	}
	g.f(`
 * with the final values of the shown locations. Collect the distinct lines
 * of a complete search with
 *   spin -a MODEL.pml
 *   gcc -O1 -DSAFETY -DNOREDUCE -DPRINTF -DVECTORSZ=65536 -o pan pan.c
 *   ./pan -E -n -m1000000
 * (or spin -run -DSAFETY -DNOREDUCE -DPRINTF -E -n -m1000000 MODEL.pml);
 * pan must report "errors: 0" and not "max search depth too small". A line
 * "%s max-inflight" or "%s unroll" means that a bound blocked a step: the
 * outcomes are then complete only within the bounds, as rdmasim reports.
 */

`, CutPrefix, CutPrefix)
}

func (g *gen) qpString(qi int) string {
	qp := g.p.QPs[qi]
	return fmt.Sprintf("%s -> %s", g.p.Threads[qp.Thread].Name, g.p.Nodes[qp.Remote].Name)
}

// outcome writes the process that prints the outcome of each final
// configuration.
func (g *gen) outcome() {
	var final []string
	for t := range g.p.Threads {
		final = append(final, fmt.Sprintf("pc%d == %d", t, g.p.Threads[t].End()))
	}
	if !g.sc {
		for qi := range g.qps {
			q := &g.qps[qi]
			for b, c := range q.caps() {
				if c > 0 {
					final = append(final, fmt.Sprintf("%s_n%s == 0", q.name, bufNames[b]))
				}
			}
		}
	}
	// SPIN hides variables that only printf reads: it would merge final
	// configurations that differ only in a location nothing else reads.
	// These always true comparisons make it keep them.
	for _, l := range g.shown {
		final = append(final, g.loc(l)+" <= 255")
	}
	if len(final) == 0 {
		final = append(final, "true")
	}
	g.f("/*\n * In a final configuration, print its outcome. The step changes nothing:\n")
	g.f(" * SPIN's states stay rdmasim's. (The comparisons <= 255, always true, keep\n")
	g.f(" * SPIN from hiding locations that only printf reads.)\n */\n")
	g.f("active proctype outcome() {\n\tdo\n\t:: d_step {\n\t\t%s ->\n", strings.Join(final, " &&\n\t\t"))
	g.f("\t\tprintf(\"%s\");\n", OutcomePrefix)
	for _, l := range g.shown {
		g.f("\t\tprintf(\" %s=%%d\", %s);\n", g.p.Locs[l].Name, g.loc(l))
	}
	g.f("\t\tprintf(\"\\n\")\n\t}\n\tod\n}\n")
}
