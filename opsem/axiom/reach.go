package axiom

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sort"

	"rdmasim/opsem/prog"
)

// This file answers what the machines find in the middle of runs: reach
// conditions, error points and deadlocks, from consistent trace prefixes.
//
// A configuration of a machine is what a run has executed so far. Its
// events are not always a po-prefix of each thread (under RDMA the CPU runs
// ahead of the puts and gets it issued), but they are always a downward
// closed set D (under G: ob for RDMA, sc for SC) of a consistent trace
// prefix P: the one that completes the operations the run has issued and
// not yet executed. Conversely, executing a linear extension of G that
// starts with D runs the machine through a configuration whose memory holds,
// per location, the mo-last write of D. So:
//
//   - a memory is reached iff it is the memory of such a D of some
//     consistent prefix P; D contains every CPU event of P (lW, lR, CAS,
//     poll: the CPU executed them), and leaves out NIC writes still in
//     flight together with everything G-after them (which must be NIC
//     events too);
//   - the machines stop the run at a write out of its location's checked
//     range (prog.Range): D may contain at most one such write, G-maximal
//     in D (the run's last step); the error point "location l holds v" is
//     reached iff some P holds a write of v out of l's range that no other
//     write out of range precedes in G;
//   - a thread stops at an OpFail: it is reached iff some P has the thread's
//     prefix right before it and no write out of range G-precedes (or is)
//     one of the thread's CPU events;
//   - a deadlock is a P in which every thread has ended or waits at a poll
//     with nothing to poll from, with no write out of range.
//
// A thread's control point in such a configuration is one of the
// instructions it may be at with exactly its events of P issued (the trie
// records them, tnode.at), or, inside an instruction the machine executes
// in two steps, that instruction, mid-way (positions).

// ErrorPoint is an error point a run may stop at: a thread at an OpFail
// instruction (an assertion that failed, a value the lowering found out of
// range), or a write of a value outside its location's checked range.
type ErrorPoint struct {
	Thread int   // the thread at an OpFail, or -1 for a range error
	PC     int   // the OpFail instruction, or -1
	Loc    int   // the location written out of its range, or -1
	Val    uint8 // the value written out of range
}

// Describe says what e is as the machines' reports do (verdict.ErrorAt):
// "T at line 7: assert d == 1", or prog.Program.RangeError's sentence.
func (e ErrorPoint) Describe(p *prog.Program) string {
	if e.Thread < 0 {
		return p.RangeError(e.Loc, e.Val)
	}
	in := &p.Threads[e.Thread].Code[e.PC]
	return fmt.Sprintf("%s at line %d: %s", p.Threads[e.Thread].Name, in.Stmt.Pos.Line, in.Stmt.Src.Text)
}

// ReachQuery says what Reach looks for.
type ReachQuery struct {
	// Cond is a reach condition over memory, or nil. Locs are the
	// locations its distinct memories are counted by (Reached.Positive,
	// Negative); they must include every location Cond mentions.
	Cond *prog.Cond
	Locs []int
	// Errors: collect the error points; Deadlocks: count deadlocks.
	Errors, Deadlocks bool
}

// Reached is what the consistent trace prefixes of one semantics reach.
type Reached struct {
	// Cond: some reachable configuration satisfies ReachQuery.Cond.
	Cond bool
	// Positive and Negative count the distinct memories (over
	// ReachQuery.Locs) of reachable configurations that satisfy the
	// condition and that do not.
	Positive, Negative uint64
	// Errors are the error points reached, sorted (thread errors first,
	// by thread and instruction, then range errors by location and value).
	Errors []ErrorPoint
	// Deadlocks counts the distinct final memories of deadlocked traces.
	Deadlocks uint64
}

// RefusedError says that the model does not answer a query, and why.
type RefusedError struct {
	Program string
	Why     string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s: the declarative model does not answer this: %s", e.Program, e.Why)
}

// maxPending bounds the NIC writes a configuration may leave in flight
// within one trace prefix (Reach enumerates their subsets).
const maxPending = 16

// cpuKind reports whether events of kind k are executed by the CPU step
// of their instruction (the others by the NIC, later).
func cpuKind(k prog.EventKind) bool {
	return k == prog.EvLW || k == prog.EvLR || k == prog.EvCAS || k == prog.EvPoll || k == prog.EvQuiet
}

// Reach answers q over the consistent trace prefixes of p, under RDMA (ob
// and ib acyclic) and under SC (sc acyclic); see the comment at the top of
// reach.go for what reaching means. A condition on control points is
// refused with a RefusedError.
func Reach(ctx context.Context, p *prog.Program, opt Options, q ReachQuery) (rdma, sc Reached, st Stats, err error) {
	pr, err := newProblem(p, opt)
	if err != nil {
		return rdma, sc, st, err
	}
	st.Bounded = pr.bounded
	hasRange := prog.HasRangeChecks(p)
	for _, mode := range []Prune{PruneRDMA, PruneSC} {
		var out Reached
		found := map[ErrorPoint]bool{}
		pos, neg, dead := map[string]bool{}, map[string]bool{}, map[string]bool{}
		e := newEngine(ctx, pr, mode)
		var sel []int
		e.leaf = func(e *engine, s *state) bool {
			st.Candidates++
			r, c := e.flags(s)
			if mode == PruneRDMA && !r || mode == PruneSC && !c {
				return true // only remote atomics' axioms, checked here, fail
			}
			if mode == PruneSC && e.pr.insideWR(sel) {
				// The SC machine performs a multi-word put or get in
				// one step: a prefix that stops inside one is no
				// configuration of it (SEMANTICS-VERBS.md 1).
				return true
			}
			if mode == PruneRDMA {
				st.RDMA++
			} else {
				st.SC++
			}
			g := &s.ob
			if mode == PruneSC {
				g = &s.sc
			}
			bad := e.outOfRangeSet(s)
			if q.Errors {
				e.errorPoints(s, g, bad, sel, found)
			}
			if q.Deadlocks && bad == 0 && e.pr.deadlocked(sel) {
				dead[string(e.memory(s))] = true
			}
			if q.Cond != nil {
				if err := e.memories(mode, s, g, bad, sel, q, pos, neg); err != nil {
					e.err = err
					return false
				}
			}
			return true
		}
		ch := pr.choices(true)
		if q.Cond == nil && !q.Errors {
			// Deadlocks only: every thread at its end or at a dead poll.
			ch = pr.choicesBy(func(_ int, n *tnode) bool { return n.end || n.deadPoll })
		}
		pr.eachChoice(ch, false, func(s []int) bool {
			if !pr.useful(s, q, hasRange, found) {
				return true
			}
			sel = s
			st.Skeletons++
			e.run(s)
			return !e.stop
		})
		if e.err != nil {
			return rdma, sc, st, e.err
		}
		for ep := range found {
			out.Errors = append(out.Errors, ep)
		}
		sortErrors(out.Errors)
		out.Positive, out.Negative, out.Deadlocks = uint64(len(pos)), uint64(len(neg)), uint64(len(dead))
		out.Cond = out.Positive > 0
		if mode == PruneRDMA {
			rdma = out
		} else {
			sc = out
		}
	}
	return rdma, sc, st, nil
}

// sortErrors sorts error points: thread errors by thread and instruction,
// then range errors by location and value.
func sortErrors(es []ErrorPoint) {
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if (a.Thread < 0) != (b.Thread < 0) {
			return a.Thread >= 0
		}
		if a.Thread != b.Thread {
			return a.Thread < b.Thread
		}
		if a.PC != b.PC {
			return a.PC < b.PC
		}
		if a.Loc != b.Loc {
			return a.Loc < b.Loc
		}
		return a.Val < b.Val
	})
}

// useful reports whether the event set sel can tell Reach anything new: a
// reach condition needs every set; error points only sets where a thread
// stops at an OpFail not yet found, or (with checked ranges) any set;
// deadlocks only sets where every thread has ended or waits at a dead poll.
func (pr *problem) useful(sel []int, q ReachQuery, hasRange bool, found map[ErrorPoint]bool) bool {
	if q.Cond != nil {
		return true
	}
	if q.Deadlocks && pr.deadlocked(sel) {
		return true
	}
	if !q.Errors {
		return false
	}
	if hasRange {
		return true
	}
	for t, node := range sel {
		for _, pc := range pr.trees[t].nodes[node].fails {
			if !found[ErrorPoint{Thread: t, PC: pc, Loc: -1}] {
				return true
			}
		}
	}
	return false
}

// deadlocked reports whether every thread of sel has ended or waits at a
// poll with nothing to poll from, and one waits.
func (pr *problem) deadlocked(sel []int) bool {
	waits := false
	for t, node := range sel {
		n := &pr.trees[t].nodes[node]
		switch {
		case n.deadPoll:
			waits = true
		case !n.end:
			return false
		}
	}
	return waits
}

// outOfRangeSet returns the writes of the leaf s whose value is outside
// their location's checked range (prog.Range).
func (e *engine) outOfRangeSet(s *state) uint64 {
	locs := e.pr.p.Locs
	var bad uint64
	for i := range e.ev {
		ev := &e.ev[i]
		if !ev.IsWrite() || ev.Loc < 0 || locs[ev.Loc].Check == nil || s.wv[i] < 0 {
			continue
		}
		if r, v := locs[ev.Loc].Check, uint8(s.wv[i]); v < r.Lo || v > r.Hi {
			bad |= 1 << uint(i)
		}
	}
	return bad
}

// errorPoints adds to found the error points the leaf s (event set sel,
// execution order g) reaches: each write out of range that no other one
// precedes in g, and each OpFail a thread stops at whose CPU events no
// write out of range precedes in g (nor is).
func (e *engine) errorPoints(s *state, g *closure, bad uint64, sel []int, found map[ErrorPoint]bool) {
	for m := bad; m != 0; m &= m - 1 {
		w := bits.TrailingZeros64(m)
		first := true
		for o := bad &^ (1 << uint(w)); o != 0; o &= o - 1 {
			if g[bits.TrailingZeros64(o)]>>uint(w)&1 != 0 {
				first = false
				break
			}
		}
		if first {
			found[ErrorPoint{Thread: -1, PC: -1, Loc: e.ev[w].Loc, Val: uint8(s.wv[w])}] = true
		}
	}
	for t, node := range sel {
		fails := e.pr.trees[t].nodes[node].fails
		if len(fails) == 0 {
			continue
		}
		var cpu uint64
		for i := e.nInit; i < e.n; i++ {
			if e.ev[i].Thread == t && cpuKind(e.ev[i].Kind) {
				cpu |= 1 << uint(i)
			}
		}
		down := cpu
		for x := 0; x < e.n; x++ {
			if g[x]&cpu != 0 {
				down |= 1 << uint(x)
			}
		}
		if down&bad != 0 {
			continue // the run stopped at that write before the thread got here
		}
		for _, pc := range fails {
			found[ErrorPoint{Thread: t, PC: pc, Loc: -1}] = true
		}
	}
}

// reachConfig is a configuration for prog.Cond.Eval: a memory and each
// thread's control point.
type reachConfig struct {
	mem []uint8
	pc  []int
	mid []bool
}

func (c *reachConfig) Mem(l int) uint8      { return c.mem[l] }
func (c *reachConfig) PC(t int) (int, bool) { return c.pc[t], c.mid[t] }

// position is a control point of a thread: the instruction it executes
// next, and whether it is in the middle of it.
type position struct {
	pc  int
	mid bool
}

// positions returns the control points of thread t whose events are the
// prefix node, under the semantics of mode: the instructions the thread
// may be at with exactly these events issued (tnode.at), or, when the
// prefix stops inside an instruction, that instruction, mid, if the
// machine has a configuration there — between the two CPU events of a
// cas; under SC also between the two steps of a put, a get or a remote
// atomic. Under RDMA the CPU issues a put, get or atomic in one step (its
// NIC events then happen later): a prefix that stops inside one is no
// control point; the configurations with the operation in flight come
// from the longer prefix with its NIC writes left out (memories).
func (e *engine) positions(mode Prune, t, node int) []position {
	tr := e.pr.trees[t]
	n := &tr.nodes[node]
	var out []position
	for _, pc := range n.at {
		out = append(out, position{pc: pc})
	}
	if len(out) > 0 || node == 0 {
		return out
	}
	ev := n.ev
	in := &e.pr.p.Threads[t].Code[ev.pc]
	mid := false
	switch in.Op {
	case prog.OpCAS:
		mid = ev.kind == prog.EvCAS || ev.kind == prog.EvLR
	case prog.OpPut, prog.OpGet:
		// SC performs a multi-word one in one step: no position inside.
		mid = mode == PruneSC && in.Words <= 1 && (ev.kind == prog.EvNLR || ev.kind == prog.EvNRR)
	case prog.OpRCAS, prog.OpRFAA:
		// SC: one step reads and writes the target (naR, naW, or a
		// failing rcas's naR alone), a second lands the old value.
		mid = mode == PruneSC && (ev.kind == prog.EvNAW || ev.kind == prog.EvNAR && ev.cons == consNe)
	}
	if mid {
		out = append(out, position{pc: ev.pc, mid: true})
	}
	return out
}

// controlThreads returns the threads whose control point c mentions.
func controlThreads(c *prog.Cond, dst []int) []int {
	if c == nil {
		return dst
	}
	switch c.Op {
	case prog.CAt, prog.CEnd, prog.CFail:
		if !slices.Contains(dst, c.Thread) {
			dst = append(dst, c.Thread)
		}
	case prog.CNot:
		return controlThreads(c.L, dst)
	case prog.CAnd, prog.COr:
		return controlThreads(c.R, controlThreads(c.L, dst))
	}
	return dst
}

// memories adds to pos or neg the memory (over q.Locs) of every
// configuration the leaf s (event set sel, execution order g, writes out
// of range bad) stands for (see reach.go's top comment): under RDMA, s's
// events minus NIC writes still in flight and what follows them in g;
// under SC (where a put's or get's write happens in its CPU step, and
// prefixes already stop between the two) s's events. Each thread the
// condition names a control point of is at one of its positions.
func (e *engine) memories(mode Prune, s *state, g *closure, bad uint64, sel []int, q ReachQuery, pos, neg map[string]bool) error {
	nt := len(e.pr.p.Threads)
	cfg := &reachConfig{mem: make([]uint8, len(e.pr.p.Locs)), pc: make([]int, nt), mid: make([]bool, nt)}
	ctl := controlThreads(q.Cond, nil)
	choices := make([][]position, len(ctl))
	for i, t := range ctl {
		choices[i] = e.positions(mode, t, sel[t])
		if len(choices[i]) == 0 {
			return nil // no configuration has the thread with exactly these events
		}
	}
	var cpu uint64
	for i := 0; i < e.n; i++ {
		if i < e.nInit || cpuKind(e.ev[i].Kind) {
			cpu |= 1 << uint(i)
		}
	}
	var pending []int // NIC writes that may be in flight: nothing of the CPU follows them
	if mode != PruneSC {
		for i := e.nInit; i < e.n; i++ {
			if e.ev[i].IsWrite() && !cpuKind(e.ev[i].Kind) && g[i]&cpu == 0 {
				pending = append(pending, i)
			}
		}
	}
	if len(pending) > maxPending {
		return &RefusedError{Program: e.pr.p.Name, Why: fmt.Sprintf("a trace with %d NIC writes that may be in flight at once (more than %d)", len(pending), maxPending)}
	}
	all := uint64(1)<<uint(e.n) - 1
	if e.n == 64 {
		all = ^uint64(0)
	}
	key := make([]byte, len(q.Locs))
	for sub := 0; sub < 1<<len(pending); sub++ {
		var out uint64
		for i, w := range pending {
			if sub>>i&1 != 0 {
				out |= 1<<uint(w) | g[w]
			}
		}
		d := all &^ out
		if b := bad & d; b != 0 {
			if b&(b-1) != 0 {
				continue // the run stopped at the first of them
			}
			if g[bits.TrailingZeros64(b)]&d != 0 {
				continue // the run stopped there, before what follows it
			}
		}
		for l := range cfg.mem {
			last := e.pr.initW[l]
			for _, w := range e.moRev[l] { // mo-last first
				if d>>uint(w)&1 != 0 {
					last = w
					break
				}
			}
			if last < 0 {
				cfg.mem[l] = e.pr.p.Locs[l].Init // a register: no write
				continue
			}
			cfg.mem[l] = uint8(s.wv[last])
		}
		for i, l := range q.Locs {
			key[i] = cfg.mem[l]
		}
		var rec func(i int)
		rec = func(i int) {
			if i == len(ctl) {
				if q.Cond.Eval(e.pr.p, cfg) {
					pos[string(key)] = true
				} else {
					neg[string(key)] = true
				}
				return
			}
			for _, ps := range choices[i] {
				cfg.pc[ctl[i]], cfg.mid[ctl[i]] = ps.pc, ps.mid
				rec(i + 1)
			}
		}
		rec(0)
	}
	return nil
}

// insideWR reports whether the prefix sel (a trie node per thread) stops
// some thread inside a multi-word put or get: its last event belongs to one
// whose next event is in the trie below it.
func (pr *problem) insideWR(sel []int) bool {
	for t, node := range sel {
		nodes := pr.trees[t].nodes
		n := &nodes[node]
		if n.ev.wr == 0 || node == 0 {
			continue
		}
		for _, c := range n.children {
			if nodes[c].ev.wr == n.ev.wr {
				return true
			}
		}
	}
	return false
}
