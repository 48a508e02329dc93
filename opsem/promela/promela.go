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
	// Semantics is the machine: verdict.RDMA or verdict.SC.
	Semantics verdict.Semantics
	// MaxInflight bounds the operations in the buffers of one queue pair
	// (RDMA) and, where a thread may poll without bound, its unpolled
	// operations (both machines); 1..250, 0 means the default (8).
	MaxInflight int
	// Unroll bounds the iterations of each loop per entry; 0: no bound.
	Unroll int
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
// outcome shows, are not stored, as in rdmasim); L_NAME is its index. Each
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

// qpInfo is what the generator knows statically about one queue pair.
type qpInfo struct {
	name                      string // "q0"
	puts, gets, fences, polls int    // instructions of each kind on it
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
}

func newGen(p *prog.Program, opt Options) (*gen, error) {
	if opt.MaxInflight == 0 {
		opt.MaxInflight = machine.DefaultOptions().MaxInflight
	}
	if opt.MaxInflight < 1 || opt.MaxInflight > 250 {
		return nil, fmt.Errorf("max-inflight %d: must be 1..250", opt.MaxInflight)
	}
	if opt.Unroll < 0 || opt.Unroll > 254 {
		return nil, fmt.Errorf("unroll %d: must be 0..254", opt.Unroll)
	}
	if opt.Semantics != verdict.RDMA && opt.Semantics != verdict.SC {
		return nil, fmt.Errorf("unknown semantics %d", opt.Semantics)
	}
	g := &gen{p: p, opt: opt, sc: opt.Semantics == verdict.SC, k: opt.MaxInflight}
	g.shown = verdict.ShownLocations(p)
	g.dead = machine.DeadLocations(p, g.shown)
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
		q.dropRW = q.gets == 0
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
		q.before = countBefore(th, on(prog.OpPut, prog.OpGet, prog.OpRFence))
		q.issued = countBefore(th, on(prog.OpPut, prog.OpGet))
		for pc := range th.Code {
			if on(prog.OpPut, prog.OpGet, prog.OpRFence)(&th.Code[pc]) && q.before[pc] >= g.k {
				q.bounded = true
			}
		}
		if !g.sc {
			// Every buffer holds at most max-inflight entries (see
			// machine's qstate.inflight), and at most one per operation
			// that can reach it.
			size := func(count func(*prog.Instr) bool) int { return min(g.k, total(th, count)) }
			q.cap1 = size(on(prog.OpPut, prog.OpGet, prog.OpRFence))
			q.cap2 = size(on(prog.OpPut, prog.OpGet))
			q.cap3 = q.cap2
			q.capRW = size(keptRW)
			q.capLW = size(on(prog.OpGet))
		}
	}
	return g, nil
}

// countBefore returns, per instruction of th, the most instructions that
// count can have executed on a path from the entry to it, or prog.Unbounded
// where a path can go round a loop through one.
func countBefore(th *prog.Thread, count func(*prog.Instr) bool) []int {
	n := len(th.Code)
	succ := func(pc int) []int {
		in := &th.Code[pc]
		switch in.Op {
		case prog.OpEnd:
			return nil
		case prog.OpBranch:
			return in.Alts
		}
		return []int{in.Next}
	}
	// Counted instructions on a cycle make everything after them unbounded.
	reach := func(from int) []bool { // instructions reachable from from's successors
		seen := make([]bool, n)
		stack := append([]int(nil), succ(from)...)
		for len(stack) > 0 {
			pc := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !seen[pc] {
				seen[pc] = true
				stack = append(stack, succ(pc)...)
			}
		}
		return seen
	}
	out := make([]int, n)
	for pc := range th.Code {
		if count(&th.Code[pc]) {
			if r := reach(pc); r[pc] {
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
			for _, s := range succ(pc) {
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

func (g *gen) loc(l int) string   { return "m_" + g.p.Locs[l].Name }
func (g *gen) locID(l int) string { return "L_" + g.p.Locs[l].Name }

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
	g.f(" (max-inflight %d, unroll %d).\n", g.k, g.opt.Unroll)
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

// memory declares the locations and the accessors the NIC rules use.
func (g *gen) memory() {
	if g.sc {
		g.f("/* Locations: m_NAME is the value of NAME. */\n")
	} else {
		g.f("/* Locations: m_NAME is the value of NAME, L_NAME its index in buffer entries. */\n")
		for l := range g.p.Locs {
			g.f("#define %s %d\n", g.locID(l), l)
		}
	}
	for l, loc := range g.p.Locs {
		node := g.p.Nodes[loc.Node].Name
		if g.dead[l] {
			g.f("/* %s on %s: dead (nothing reads it, no outcome shows it), not stored */\n", loc.Name, node)
			continue
		}
		g.f("byte %s = %d;\t/* on %s */\n", g.loc(l), loc.Init, node)
	}
	g.f("\n")
	if g.sc {
		return
	}
	// The NIC rules read and write locations named by buffer entries.
	var loads, stores []int
	for t := range g.p.Threads {
		for _, in := range g.p.Threads[t].Code {
			switch in.Op {
			case prog.OpPut:
				loads = appendOnce(loads, in.X)
				if !g.dead[in.Y] {
					stores = appendOnce(stores, in.Y)
				}
			case prog.OpGet:
				loads = appendOnce(loads, in.Y)
				if !g.dead[in.X] {
					stores = appendOnce(stores, in.X)
				}
			}
		}
	}
	if len(loads) > 0 {
		g.f("/* val = the value of location loc (for the NIC's reads). */\n")
		g.f("inline load(loc, val) {\n\tif\n")
		for _, l := range loads {
			g.f("\t:: loc == %s -> val = %s\n", g.locID(l), g.loc(l))
		}
		g.f("\tfi\n}\n\n")
	}
	if len(loads)+len(stores) > 0 {
		g.f("/* location loc := val (for the NIC's writes; dead locations stay unchanged). */\n")
		g.f("inline store(loc, val) {\n\tif\n")
		for _, l := range stores {
			g.f("\t:: loc == %s -> %s = val\n", g.locID(l), g.loc(l))
		}
		g.f("\t:: else\n\tfi\n}\n\n")
	}
}

// bufNames are the five buffers of a queue pair, in pipeline order.
var bufNames = [...]string{"b1", "b2", "b3", "rw", "lw"}

// countAcks reports whether the model keeps the number of ACKs in B3, for
// the in-flight count of the max-inflight bound.
func (q *qpInfo) countAcks() bool { return q.bounded && q.capRW > 0 }

func (q *qpInfo) caps() [5]int { return [5]int{q.cap1, q.cap2, q.cap3, q.capRW, q.capLW} }

// buffers declares the entry type, the buffer helpers and every queue pair.
func (g *gen) buffers() {
	if len(g.qps) == 0 {
		return
	}
	g.f(`/*
 * Buffer entries (E). B1: PUT(a=y, b=x), GET(a=x, b=y), FENCE. B2: PUTV(a=y,
 * b=value), GETREQ(a=x, b=y). RW and LW (kind 0): a NIC write of location
 * a := b. B3 (E3): ACK, GETR(a=x, b=y) not read yet, GETRV(a=x, b=y, v=value).
 * rank: the operation's position among its queue pair's unpolled puts and
 * gets, NORANK when no future poll can wait for it (fences, and operations
 * past the polls left).
 */
mtype = { PUT, GET, FENCE, PUTV, GETREQ, ACK, GETR, GETRV };
typedef E { mtype kind; byte a; byte b; byte rank }
typedef E3 { mtype kind; byte a; byte b; byte v; byte rank }
#define NORANK %d
hidden byte i, ta, tb, tr;	/* scratch of d_steps, not part of the state */

/* Append an entry to buffer buf of length n. */
#define push(buf, n, k, x, y, rk) buf[n].kind = k; buf[n].a = x; buf[n].b = y; buf[n].rank = rk; n++
#define push3(buf, n, k, x, y, rk) push(buf, n, k, x, y, rk)	/* v of a free slot is 0 */
/* Remove the head of buf, shift, and zero the freed slot. */
#define pop(buf, n) \
	i = 1; \
	do \
	:: i < n -> buf[i-1].kind = buf[i].kind; buf[i-1].a = buf[i].a; buf[i-1].b = buf[i].b; buf[i-1].rank = buf[i].rank; i++ \
	:: else -> break \
	od; \
	n--; buf[n].kind = 0; buf[n].a = 0; buf[n].b = 0; buf[n].rank = 0
#define pop3(buf, n) \
	i = 1; \
	do \
	:: i < n -> buf[i-1].kind = buf[i].kind; buf[i-1].a = buf[i].a; buf[i-1].b = buf[i].b; buf[i-1].v = buf[i].v; buf[i-1].rank = buf[i].rank; i++ \
	:: else -> break \
	od; \
	n--; buf[n].kind = 0; buf[n].a = 0; buf[n].b = 0; buf[n].v = 0; buf[n].rank = 0
/*
 * A poll: every ranked entry moves one place closer to the next poll.
 * (decr and forget end in i = 0: a d_step must not end in a loop, whose
 * break SPIN 6.5.2 would compile to a missing label.)
 */
#define decr(buf, n) \
	i = 0; \
	do \
	:: i < n -> if :: buf[i].rank != NORANK && buf[i].rank > 0 -> buf[i].rank-- :: else fi; i++ \
	:: else -> break \
	od; \
	i = 0
/* At most left polls remain: entries of rank >= left lose their rank. */
#define forget(buf, n, left) \
	i = 0; \
	do \
	:: i < n -> if :: buf[i].rank != NORANK && buf[i].rank >= left -> buf[i].rank = NORANK :: else fi; i++ \
	:: else -> break \
	od; \
	i = 0

`, noRank)
	for qi := range g.qps {
		q := &g.qps[qi]
		g.f("/* Queue pair %s: %s (%s, %s, %s, %s). */\n", q.name, g.qpString(qi),
			plural(q.puts, "put"), plural(q.gets, "get"), plural(q.fences, "fence"), plural(q.polls, "poll"))
		for b, c := range q.caps() {
			if c > 0 {
				typ := "E"
				if b == 2 {
					typ = "E3"
				}
				g.f("%s %s_%s[%d]; byte %s_n%s;\n", typ, q.name, bufNames[b], c, q.name, bufNames[b])
			}
		}
		if q.countAcks() {
			g.f("byte %s_acks;\t/* ACKs in B3 (derived, for the in-flight count) */\n", q.name)
		}
		g.f("byte %s_npend;\t/* puts and gets submitted and not yet polled */\n", q.name)
		var terms []string
		for b, c := range q.caps() {
			if c > 0 {
				terms = append(terms, fmt.Sprintf("%s_n%s", q.name, bufNames[b]))
			}
		}
		if q.bounded {
			// machine's qstate.inflight: a put past N4 may sit in RW and
			// as an ACK in B3 at once; it is counted once.
			infl := strings.Join(terms, " + ")
			if q.countAcks() {
				infl += fmt.Sprintf(" - (%s_acks < %s_nrw -> %s_acks : %s_nrw)", q.name, q.name, q.name, q.name)
			}
			g.f("#define %s_inflight (%s)\n", q.name, infl)
		}
		if q.polls > 0 {
			// machine's qstate.oldestPending: the oldest unpolled operation is
			// still in B1, B2, B3 or LW.
			var pend []string
			for _, b := range []int{0, 1, 2, 4} {
				for s := 0; s < q.caps()[b]; s++ {
					pend = append(pend, fmt.Sprintf("%s_n%s > %d && %s_%s[%d].rank == 0", q.name, bufNames[b], s, q.name, bufNames[b], s))
				}
			}
			if len(pend) == 0 {
				pend = append(pend, "false") // a poll without puts or gets blocks
			}
			g.f("#define %s_pending (%s)\n", q.name, strings.Join(pend, " || "))
		}
		g.f("\n")
	}
}

// threadVars reports whether thread t needs mid/reg (a two-step
// instruction) and the type of its pc.
func (g *gen) threadVars(t int) (mid bool, pcType string) {
	th := &g.p.Threads[t]
	for _, in := range th.Code {
		if in.Op == prog.OpCAS || g.sc && (in.Op == prog.OpPut || in.Op == prog.OpGet) {
			mid = true
		}
	}
	pcType = "byte"
	if th.End() > 255 {
		pcType = "short"
	}
	return mid, pcType
}

// thread writes the variables and the proctype of thread t.
func (g *gen) thread(t int) {
	th := &g.p.Threads[t]
	mid, pcType := g.threadVars(t)
	g.f("/* Thread %s on %s. */\n", th.Name, g.p.Nodes[th.Node].Name)
	g.f("%s pc%d = %d;\t/* next instruction; %d = end */\n", pcType, t, th.Entry, th.End())
	if mid {
		g.f("bit mid%d;\t/* between the two steps of an instruction */\n", t)
		g.f("byte reg%d;\t/* the value carried between them */\n", t)
	}
	if g.opt.Unroll > 0 {
		for l := 0; l < th.Loops; l++ {
			g.f("byte ctr%d_%d;\t/* iterations of loop %d in this entry */\n", t, l, l)
		}
	}
	g.f("\nactive proctype thread_%s() {\n\tdo\n", th.Name)
	for pc := range th.Code {
		g.instr(t, pc)
	}
	if len(th.Code) == 1 {
		g.f("\t:: false\t/* no instructions */\n")
	}
	g.f("\tod\n}\n\n")
}

// step writes one d_step option: guard, comment, effects.
func (g *gen) step(guard, comment string, effects []string) {
	if len(effects) == 0 {
		effects = []string{"skip"} // the iteration of an empty loop body
	}
	g.f("\t:: d_step { %s ->\t/* %s */\n", guard, comment)
	g.f("\t\t%s }\n", strings.Join(effects, "; "))
}

// cut writes the option that reports a bound blocking a step.
func (g *gen) cut(guard, bound string) {
	g.f("\t:: d_step { %s -> printf(\"%s %s\\n\") }\n", guard, CutPrefix, bound)
}

// moveTo returns the effects of moving thread t from instruction pc to
// next: the assignment and machine.canonPolls where it can change anything.
// After each step, on each queue pair of t, the unpolled operations number
// at most the polls left and ranks are below it; a step breaks that only
// where the polls left drop (other than by the poll the step did on queue
// pair polled) or where it counts a new operation on queue pair added
// (-1: none), and only when more operations than the polls left may have
// been submitted.
func (g *gen) moveTo(t, pc, next, added, polled int) []string {
	th := &g.p.Threads[t]
	var out []string
	if next != pc {
		out = append(out, fmt.Sprintf("pc%d = %d", t, next))
	}
	for qi, qp := range g.p.QPs {
		if qp.Thread != t {
			continue
		}
		k := qp.Local
		left, prev := th.Code[next].PollsLeft[k], th.Code[pc].PollsLeft[k]
		if qi == polled && prev != prog.Unbounded {
			prev--
		}
		if left == prog.Unbounded || left >= prev && qi != added || left >= g.qps[qi].issued[next] {
			continue
		}
		q := &g.qps[qi]
		out = append(out, fmt.Sprintf("if :: %s_npend > %d -> %s_npend = %d :: else fi", q.name, left, q.name, left))
		if !g.sc {
			for _, b := range []int{0, 1, 2, 4} {
				if q.caps()[b] > 0 {
					out = append(out, fmt.Sprintf("forget(%s_%s, %s_n%s, %d)", q.name, bufNames[b], q.name, bufNames[b], left))
				}
			}
		}
	}
	return out
}

// instr writes the options of instruction pc of thread t.
func (g *gen) instr(t, pc int) {
	th := &g.p.Threads[t]
	in := &th.Code[pc]
	at := fmt.Sprintf("pc%d == %d", t, pc)
	var text string
	if in.Stmt != nil {
		text = fmt.Sprintf("%s (line %d)", g.p.StmtString(in.Stmt), in.Stmt.Pos.Line)
	}
	write := func(l int, v string) []string {
		if g.dead[l] {
			return nil
		}
		return []string{fmt.Sprintf("%s = %s", g.loc(l), v)}
	}
	switch in.Op {
	case prog.OpEnd:
		return
	case prog.OpSkip:
		g.step(at, text, g.moveTo(t, pc, in.Next, -1, -1))
	case prog.OpBranch:
		for i, alt := range in.Alts {
			guard := at
			var eff []string
			what := fmt.Sprintf("choose: branch %d", i+1)
			if in.Loop >= 0 {
				what = "loop: iterate"
				if i == 1 {
					what = "loop: exit"
				}
				if g.opt.Unroll > 0 {
					ctr := fmt.Sprintf("ctr%d_%d", t, in.Loop)
					if i == 0 {
						guard += fmt.Sprintf(" && %s < %d", ctr, g.opt.Unroll)
						eff = append(eff, ctr+"++")
						g.cut(fmt.Sprintf("%s && %s >= %d", at, ctr, g.opt.Unroll), "unroll")
					} else {
						eff = append(eff, ctr+" = 0")
					}
				}
			}
			g.step(guard, fmt.Sprintf("%s (line %d)", what, in.Stmt.Pos.Line), append(eff, g.moveTo(t, pc, alt, -1, -1)...))
		}
	case prog.OpWrite:
		g.step(at, text, append(write(in.X, fmt.Sprint(in.A)), g.moveTo(t, pc, in.Next, -1, -1)...))
	case prog.OpAssumeEq, prog.OpAssumeNe:
		op := "=="
		if in.Op == prog.OpAssumeNe {
			op = "!="
		}
		g.step(fmt.Sprintf("%s && %s %s %d", at, g.loc(in.X), op, in.A), text, g.moveTo(t, pc, in.Next, -1, -1))
	case prog.OpCAS:
		reg := fmt.Sprintf("reg%d", t)
		eff := []string{fmt.Sprintf("%s = %s", reg, g.loc(in.Z)),
			fmt.Sprintf("if :: %s == %d -> %s = %d :: else fi", reg, in.A, g.loc(in.Z), in.B),
			fmt.Sprintf("mid%d = 1", t)}
		g.step(fmt.Sprintf("%s && !mid%d", at, t), text+": compare and swap", eff)
		eff = append(write(in.X, reg), fmt.Sprintf("mid%d = 0", t), reg+" = 0")
		g.step(fmt.Sprintf("%s && mid%d", at, t), text+": write result", append(eff, g.moveTo(t, pc, in.Next, -1, -1)...))
	case prog.OpGet, prog.OpPut, prog.OpRFence:
		if g.sc {
			g.scRemote(t, pc, text)
		} else {
			g.submit(t, pc, text)
		}
	case prog.OpPoll:
		q := &g.qps[in.QP]
		guard := fmt.Sprintf("%s && %s_npend > 0", at, q.name)
		eff := []string{q.name + "_npend--"}
		if !g.sc {
			guard += fmt.Sprintf(" && !%s_pending", q.name)
			for _, b := range []int{0, 1, 2, 4} {
				if q.caps()[b] > 0 {
					eff = append(eff, fmt.Sprintf("decr(%s_%s, %s_n%s)", q.name, bufNames[b], q.name, bufNames[b]))
				}
			}
		}
		g.step(guard, text, append(eff, g.moveTo(t, pc, in.Next, -1, in.QP)...))
	}
}

// npendBound returns the guard of machine.enabledCPU's bound on unpolled
// operations (puts and gets where polls are unbounded), or "".
// (It can block only after max-inflight puts and gets.)
func (g *gen) npendBound(in *prog.Instr, pc int) string {
	if in.Op == prog.OpRFence || in.PollsLeft[g.p.QPs[in.QP].Local] != prog.Unbounded || g.qps[in.QP].issued[pc] < g.k {
		return ""
	}
	return fmt.Sprintf("%s_npend < %d", g.qps[in.QP].name, g.k)
}

// npendBounded reports whether npendBound can block a step on queue pair
// qi.
func (g *gen) npendBounded(qi int) bool {
	code := g.p.Threads[g.p.QPs[qi].Thread].Code
	for pc := range code {
		if in := &code[pc]; in.QP == qi && (in.Op == prog.OpPut || in.Op == prog.OpGet) && g.npendBound(in, pc) != "" {
			return true
		}
	}
	return false
}

// submit writes the RDMA CPU step of a put, get or rfence: append the
// request to B1.
func (g *gen) submit(t, pc int, text string) {
	in := &g.p.Threads[t].Code[pc]
	q := &g.qps[in.QP]
	at := fmt.Sprintf("pc%d == %d", t, pc)
	var bound []string
	if q.before[pc] >= g.k {
		bound = append(bound, fmt.Sprintf("%s_inflight < %d", q.name, g.k))
	}
	if b := g.npendBound(in, pc); b != "" {
		bound = append(bound, b)
	}
	var eff []string
	added := -1
	// The operation's rank: the unpolled operations before it. Where no
	// poll is left (npend is then 0), machine.canonPolls would forget it
	// at once.
	rank, count := q.name+"_npend", []string{q.name + "_npend++"}
	if in.PollsLeft[g.p.QPs[in.QP].Local] == 0 {
		rank, count = "NORANK", nil
	}
	switch in.Op {
	case prog.OpPut:
		eff = append(eff, fmt.Sprintf("push(%s_b1, %s_nb1, PUT, %s, %s, %s)", q.name, q.name, g.locID(in.Y), g.locID(in.X), rank))
		eff = append(eff, count...)
	case prog.OpGet:
		eff = append(eff, fmt.Sprintf("push(%s_b1, %s_nb1, GET, %s, %s, %s)", q.name, q.name, g.locID(in.X), g.locID(in.Y), rank))
		eff = append(eff, count...)
	default:
		eff = append(eff, fmt.Sprintf("push(%s_b1, %s_nb1, FENCE, 0, 0, NORANK)", q.name, q.name))
	}
	if count != nil {
		added = in.QP
	}
	guard := at
	if len(bound) > 0 {
		guard += " && " + strings.Join(bound, " && ")
		g.cut(fmt.Sprintf("%s && !(%s)", at, strings.Join(bound, " && ")), "max-inflight")
	}
	g.step(guard, text+": submit", append(eff, g.moveTo(t, pc, in.Next, added, -1)...))
}

// scRemote writes the SC steps of a put or get (read, then write) or an
// rfence (one silent step), as machine.scRemote.
func (g *gen) scRemote(t, pc int, text string) {
	in := &g.p.Threads[t].Code[pc]
	at := fmt.Sprintf("pc%d == %d", t, pc)
	if in.Op == prog.OpRFence {
		g.step(at, text, g.moveTo(t, pc, in.Next, -1, -1))
		return
	}
	q := &g.qps[in.QP]
	src, dst := in.X, in.Y // put: nlR(x), nrW(y)
	if in.Op == prog.OpGet {
		src, dst = in.Y, in.X // get: nrR(y), nlW(x)
	}
	reg := fmt.Sprintf("reg%d", t)
	guard := fmt.Sprintf("%s && !mid%d", at, t)
	if b := g.npendBound(in, pc); b != "" {
		guard += " && " + b
		g.cut(fmt.Sprintf("%s && !mid%d && !(%s)", at, t, b), "max-inflight")
	}
	g.step(guard, text+": read", []string{fmt.Sprintf("%s = %s", reg, g.loc(src)), fmt.Sprintf("mid%d = 1", t)})
	var eff []string
	guard = fmt.Sprintf("%s && mid%d", at, t)
	if !g.dead[dst] {
		eff = append(eff, fmt.Sprintf("%s = %s", g.loc(dst), reg))
	} else {
		// Nothing else reads reg, but rdmasim's configurations hold it:
		// the comparison, always true, keeps SPIN from hiding it.
		guard += fmt.Sprintf(" && %s <= 255", reg)
	}
	eff = append(eff, fmt.Sprintf("mid%d = 0", t), reg+" = 0")
	added := -1
	if in.PollsLeft[g.p.QPs[in.QP].Local] > 0 { // else canonPolls would undo the count at once
		eff = append(eff, q.name+"_npend++")
		added = in.QP
	}
	g.step(guard, text+": write", append(eff, g.moveTo(t, pc, in.Next, added, -1)...))
}

// hasNIC reports whether some queue pair has NIC rules (puts, gets or
// fences).
func (g *gen) hasNIC() bool {
	for qi := range g.qps {
		if g.qps[qi].cap1 > 0 {
			return true
		}
	}
	return false
}

// nic writes the process of the NIC rules of every queue pair.
func (g *gen) nic() {
	g.f("/* The NIC rules of every queue pair, one d_step each (machine.enabledNIC). */\n")
	g.f("active proctype nic() {\n\tdo\n")
	for qi := range g.qps {
		q := &g.qps[qi]
		n := q.name
		g.f("\t/* %s: %s */\n", n, g.qpString(qi))
		head := func(b, kind string) string { return fmt.Sprintf("%s_n%s > 0 && %s_%s[0].kind == %s", n, b, n, b, kind) }
		take := func(b string) string {
			val, rank, pop := "b", fmt.Sprintf(" tr = %s_%s[0].rank;", n, b), "pop"
			switch b {
			case "rw":
				rank = ""
			case "b3":
				val, pop = "v", "pop3"
			}
			return fmt.Sprintf("ta = %s_%s[0].a; tb = %s_%s[0].%s;%s %s(%s_%s, %s_n%s)", n, b, n, b, val, rank, pop, n, b, n, b)
		}
		if q.puts > 0 {
			guard := head("b1", "PUT")
			if q.capLW > 0 {
				guard += fmt.Sprintf(" && %s_nlw == 0", n)
			}
			g.step(guard, "N1 put reads its source (B1 -> B2)", []string{take("b1"), "load(tb, tb)", fmt.Sprintf("push(%s_b2, %s_nb2, PUTV, ta, tb, tr)", n, n)})
		}
		if q.gets > 0 {
			g.step(head("b1", "GET"), "N2 get request leaves (B1 -> B2)", []string{take("b1"), fmt.Sprintf("push(%s_b2, %s_nb2, GETREQ, ta, tb, tr)", n, n)})
		}
		if q.fences > 0 {
			guard := head("b1", "FENCE")
			if q.cap2 > 0 {
				guard += fmt.Sprintf(" && %s_nb2 == 0 && %s_nb3 == 0", n, n)
			}
			g.step(guard, "N3 fence", []string{fmt.Sprintf("pop(%s_b1, %s_nb1)", n, n)})
		}
		if q.puts > 0 {
			eff := []string{take("b2")}
			if q.capRW > 0 {
				push := fmt.Sprintf("push(%s_rw, %s_nrw, 0, ta, tb, 0)", n, n)
				if len(q.deadDsts) > 0 {
					var c []string
					for _, l := range q.deadDsts {
						c = append(c, "ta != "+g.locID(l))
					}
					// machine.applyNIC drops dead remote writes on queue pairs without gets.
					push = fmt.Sprintf("if :: %s -> %s :: else fi", strings.Join(c, " && "), push)
				}
				eff = append(eff, push)
			}
			if q.countAcks() {
				eff = append(eff, n+"_acks++")
			}
			eff = append(eff, fmt.Sprintf("push3(%s_b3, %s_nb3, ACK, 0, 0, tr)", n, n))
			g.step(head("b2", "PUTV"), "N4 put arrives (B2 -> RW, ACK -> B3)", eff)
		}
		if q.gets > 0 {
			g.step(head("b2", "GETREQ"), "N5 get request arrives (B2 -> B3)", []string{take("b2"), fmt.Sprintf("push3(%s_b3, %s_nb3, GETR, ta, tb, tr)", n, n)})
			for s := 0; s < q.cap3; s++ {
				guard := fmt.Sprintf("%s_nb3 > %d && %s_b3[%d].kind == GETR", n, s, n, s)
				if q.capRW > 0 {
					guard += fmt.Sprintf(" && %s_nrw == 0", n)
				}
				g.step(guard, fmt.Sprintf("N6 get reads remote memory (B3 slot %d)", s),
					[]string{fmt.Sprintf("%s_b3[%d].kind = GETRV", n, s), fmt.Sprintf("load(%s_b3[%d].b, %s_b3[%d].v)", n, s, n, s)})
			}
		}
		if q.puts > 0 {
			eff := []string{fmt.Sprintf("pop3(%s_b3, %s_nb3)", n, n)}
			if q.countAcks() {
				eff = append(eff, n+"_acks--")
			}
			g.step(head("b3", "ACK"), "N7 put acknowledged (complete)", eff)
		}
		if q.gets > 0 {
			g.step(head("b3", "GETRV"), "N8 get returns (B3 -> LW)", []string{take("b3"), fmt.Sprintf("push(%s_lw, %s_nlw, 0, ta, tb, tr)", n, n)})
		}
		if q.capRW > 0 {
			g.step(fmt.Sprintf("%s_nrw > 0", n), "F1 remote write reaches memory", []string{take("rw"), "store(ta, tb)"})
		}
		if q.gets > 0 {
			g.step(fmt.Sprintf("%s_nlw > 0", n), "F2 local write of a get reaches memory (complete)", []string{take("lw"), "store(ta, tb)"})
		}
	}
	g.f("\tod\n}\n\n")
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
