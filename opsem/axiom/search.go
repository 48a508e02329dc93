package axiom

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"rdmasim/opsem/prog"
)

// problem holds what is shared by every event set of one program: the
// per-thread label-sequence tries.
type problem struct {
	p       *prog.Program
	opt     Options
	maxEv   int
	trees   []*threadTree
	bounded bool
	// regs lists, per thread, its registers kept at run time (their
	// locations, in order): the values of a complete sequence's
	// tnode.finals.
	regs [][]int
	// initW is, per location, the id of its initial write (initialWrites),
	// -1 for a register kept at run time, which has none.
	initW []int
	// nInit counts the initial writes: the first events of every trace.
	nInit int
}

// initialWrites returns, per location of p, the id of its initial write
// in every trace, and their number. Initial writes come first, one per
// memory location in location order; a register kept at run time has
// none (-1): it is thread state, not memory, and makes no event, so a
// write or a read of it never orders against one (its initial value is
// the start of the valuation the trie carries, registers.go).
func initialWrites(p *prog.Program) (initW []int, n int) {
	initW = make([]int, len(p.Locs))
	for l := range p.Locs {
		initW[l] = -1
		if !p.Locs[l].Reg {
			initW[l] = n
			n++
		}
	}
	return initW, n
}

func newProblem(p *prog.Program, opt Options) (*problem, error) {
	opt.InOrder = opt.InOrder || p.InOrder // the file's placement line
	if err := checkRegisterUse(p); err != nil {
		return nil, fmt.Errorf("axiom: %w", err)
	}
	maxEv := opt.MaxEvents
	if maxEv == 0 {
		maxEv = MaxEvents
	}
	if maxEv < 0 || maxEv > MaxEvents {
		return nil, fmt.Errorf("axiom: MaxEvents %d out of range 0..%d", opt.MaxEvents, MaxEvents)
	}
	if opt.Unroll < 0 {
		return nil, fmt.Errorf("axiom: negative Unroll %d", opt.Unroll)
	}
	initW, nInit := initialWrites(p)
	if nInit > maxEv {
		return nil, eventLimit(p, opt.Unroll, maxEv, nil)
	}
	pr := &problem{p: p, opt: opt, maxEv: maxEv, regs: make([][]int, len(p.Threads)), initW: initW, nInit: nInit}
	for l := range p.Locs {
		if p.Locs[l].Reg {
			pr.regs[p.Locs[l].Owner] = append(pr.regs[p.Locs[l].Owner], l)
		}
	}
	trees, bounded, vals, err := buildTrees(p, opt.Unroll, maxEv-nInit)
	if err == errTooLong {
		return nil, eventLimit(p, opt.Unroll, maxEv, vals)
	}
	var limit *LimitError
	if errors.As(err, &limit) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("axiom: %w", err)
	}
	pr.trees, pr.bounded = trees, bounded
	total := nInit
	for _, tr := range trees {
		total += tr.longest()
	}
	if total > maxEv {
		return nil, &LimitError{Program: p.Name, What: LimitEvents, N: total, Limit: maxEv, Unroll: opt.Unroll}
	}
	return pr, nil
}

// longest returns the number of events of the trie's longest sequence.
func (tr *threadTree) longest() int {
	m := 0
	for i := range tr.nodes {
		m = max(m, tr.nodes[i].depth)
	}
	return m
}

// eventLimit returns the LimitError of a program whose traces have more
// than maxEv events, with their number measured: the memory locations (one
// initial write each, initialWrites) plus each thread's longest label sequence, its trie
// now built without a length limit (only the limit of its size, past which
// the number is reported as a lower bound), its loads branching over vals
// (buildTrees). It runs only on the way to an error, so the cost of a trie
// longer than usual does not matter.
func eventLimit(p *prog.Program, unroll, maxEv int, vals values) error {
	_, nInit := initialWrites(p)
	e := &LimitError{Program: p.Name, What: LimitEvents, N: nInit, Limit: maxEv, Unroll: unroll}
	if vals == nil && prog.HasRegisters(p) {
		vals = initialValues(p) // too many locations to build the tries
	}
	for t := range p.Threads {
		tr, _, err := buildTree(p, t, unroll, math.MaxInt, vals)
		if err != nil {
			e.N, e.AtLeast = max(e.N, maxEv+1), true
			return e
		}
		e.N += tr.longest()
	}
	return e
}

// choices returns, per thread, the trie nodes a trace may stop at: the
// complete sequences, or every prefix when partial.
func (pr *problem) choices(partial bool) [][]int {
	return pr.choicesBy(func(_ int, n *tnode) bool { return partial || n.end })
}

// choicesBy returns, per thread, the trie nodes that keep accepts.
func (pr *problem) choicesBy(keep func(t int, n *tnode) bool) [][]int {
	out := make([][]int, len(pr.trees))
	for t, tr := range pr.trees {
		for i := range tr.nodes {
			if keep(t, &tr.nodes[i]) {
				out[t] = append(out[t], i)
			}
		}
	}
	return out
}

// eachSet calls fn with one trie node per thread, for every combination of
// the choices; bySize visits them by increasing number of events. fn returns
// false to stop; eachSet reports whether it ran to the end.
func (pr *problem) eachSet(partial, bySize bool, fn func(sel []int) bool) bool {
	return pr.eachChoice(pr.choices(partial), bySize, fn)
}

// eachChoice is eachSet over the per-thread choices ch.
func (pr *problem) eachChoice(ch [][]int, bySize bool, fn func(sel []int) bool) bool {
	sel := make([]int, len(ch))
	if !bySize {
		var rec func(t int) bool
		rec = func(t int) bool {
			if t == len(ch) {
				return fn(sel)
			}
			for _, c := range ch[t] {
				sel[t] = c
				if !rec(t + 1) {
					return false
				}
			}
			return true
		}
		return rec(0)
	}
	// suffix bounds on the events the remaining threads can contribute
	lo := make([]int, len(ch)+1)
	hi := make([]int, len(ch)+1)
	for t := len(ch) - 1; t >= 0; t-- {
		mn, mx := -1, 0
		for _, c := range ch[t] {
			d := pr.trees[t].nodes[c].depth
			if mn < 0 || d < mn {
				mn = d
			}
			mx = max(mx, d)
		}
		if mn < 0 {
			return true // a thread with no choice: no event set at all
		}
		lo[t], hi[t] = lo[t+1]+mn, hi[t+1]+mx
	}
	var rec func(t, budget int) bool
	rec = func(t, budget int) bool {
		if t == len(ch) {
			if budget != 0 {
				return true
			}
			return fn(sel)
		}
		if budget < lo[t] || budget > hi[t] {
			return true
		}
		for _, c := range ch[t] {
			d := pr.trees[t].nodes[c].depth
			if d > budget {
				continue
			}
			sel[t] = c
			if !rec(t+1, budget-d) {
				return false
			}
		}
		return true
	}
	for size := lo[0]; size <= hi[0]; size++ {
		if !rec(0, size) {
			return false
		}
	}
	return true
}

// state is the part of the search that changes with each decision; it is
// copied to go one decision deeper.
type state struct {
	ib, ob, sc          closure
	ibCyc, obCyc, scCyc bool
	rf                  [MaxEvents]int8  // write read by each read, -1 while undecided
	rv, wv              [MaxEvents]int16 // read value / written value, -1 while unknown
}

// engine searches the traces of one event set.
type engine struct {
	grp  contraction // the groups of multi-word operations (groups.go)
	pr   *problem
	ctx  context.Context
	mode Prune
	nfo  bool // enumerate nfo orientations (else: follow sc at the leaf)
	// violations restricts the search to RDMA-consistent, SC-inconsistent
	// traces (Robust): branches where ob already contains po are skipped.
	violations bool
	// atomics: the program has remote atomics, whose axioms flags checks
	// at the leaves (see atomic.go); ob containing po then no longer rules
	// a violation out (an event between an atomic's two is allowed in ob,
	// not in sc), so poCovered does not prune.
	atomics bool

	n        int
	complete bool
	sel      []int // the event set: one trie node per thread
	ev       []Event
	cons     []consKind
	consA    []uint8
	depW     []int   // depW[r] = the write of r's instruction copying r's value, or -1
	depW2    []int   // depW2[r] = a second such write (an rfaa's naW and nlW), or -1
	wadd     []uint8 // wadd[w] = what a dependent write adds to the value it copies (rfaa)
	wconst   []int16 // value of a constant write, -1 otherwise
	reads    []int
	writesOf [][]int  // per location, initial write first
	locW     []uint64 // per location, its writes
	moLocs   []int    // locations with more than one write
	inst     uint64
	pairs    [][2]int // nfo pairs (a po-before b)
	nInit    int      // initial writes (the first events; problem.nInit)
	poRow    []uint64 // po successors of each event
	nicW     [][]int  // per queue pair, its NIC writes (for pf)
	polls    []int    // per queue pair, its NIC writes polled from so far (for pf)
	pf       [][2]int

	moRev     [][]int                         // per location, the writes placed so far, mo-last first
	moRem     []uint64                        // per location, the non-initial writes not yet placed
	lastFirst bool                            // choose the mo-last writes before rf (Outcomes)
	onMemory  func(e *engine, st *state) bool // lastFirst: called once the final memory is fixed; false prunes
	cut       bool                            // unwind to the onMemory call
	nfoDir    []bool                          // true: pairs[i][0] -> pairs[i][1]
	stack     []state

	leaf  func(e *engine, st *state) bool
	stop  bool
	err   error
	ticks uint64
}

func newEngine(ctx context.Context, pr *problem, mode Prune) *engine {
	e := &engine{pr: pr, ctx: ctx, mode: mode, nfo: mode != PruneSC}
	for t := range pr.p.Threads {
		for _, in := range pr.p.Threads[t].Code {
			e.atomics = e.atomics || in.Op.IsAtomic()
		}
	}
	e.stack = make([]state, 1)
	return e
}

func (e *engine) pruned(st *state) bool {
	// With multi-word operations sc also contracts each work request,
	// which ob does not (its writes are placed one by one): po ⊆ ob no
	// longer gives sc ⊆ ob.
	if e.violations && !e.atomics && !e.grp.any && e.poCovered(st) {
		return true
	}
	switch e.mode {
	case PruneNone:
		return false
	case PruneRDMA:
		return st.obCyc || st.ibCyc
	case PruneSC:
		return st.scCyc
	}
	return (st.obCyc || st.ibCyc) && st.scCyc
}

// poCovered reports whether ob already contains po. Then sc ⊆ ob in every
// completion (rf, rb and mo are in ob), so none is RDMA-consistent and
// SC-inconsistent: a search for violations can skip the branch.
func (e *engine) poCovered(st *state) bool {
	for a := e.nInit; a < e.n; a++ {
		if e.poRow[a]&^st.ob[a] != 0 {
			return false
		}
	}
	return true
}

// tick checks for cancellation now and then.
func (e *engine) tick() bool {
	e.ticks++
	if e.ticks&255 == 0 {
		if err := e.ctx.Err(); err != nil {
			e.err = err
			e.stop = true
		}
	}
	return !e.stop
}

// run searches the traces of the event set sel (one trie node per thread).
func (e *engine) run(sel []int) {
	if !e.tick() {
		return
	}
	e.layOut(sel)
	if n := len(e.ev); n > e.pr.maxEv {
		e.err = &LimitError{Program: e.pr.p.Name, What: LimitEvents, N: n, Limit: e.pr.maxEv, Unroll: e.pr.opt.Unroll}
		e.stop = true
		return
	}
	st := &e.stack[0]
	e.index(st)
	e.nicOrders()
	e.staticRelations(st)
	if e.pruned(st) {
		return
	}
	e.moBookkeeping()
	e.growStack()
	if e.lastFirst {
		e.moStep(0, 0)
	} else {
		e.rfStep(0, 0)
	}
	e.cut = false
}

// layOut sets the events of sel: an initial write per memory location
// (its id problem.initW's; none for a register), then each thread's events up to its trie node, with what
// the trie knows of their values (a constant written, a CAS's or an
// atomic's operands, the event a read's value flows to); e.n is their
// number, e.complete whether every thread ends. The search's first state
// is reset.
func (e *engine) layOut(sel []int) {
	p := e.pr.p
	e.ev = e.ev[:0]
	e.cons = e.cons[:0]
	e.consA = e.consA[:0]
	e.depW = e.depW[:0]
	e.depW2 = e.depW2[:0]
	e.wadd = e.wadd[:0]
	e.wconst = e.wconst[:0]
	e.complete = true
	e.sel = sel
	e.stack[0] = state{}
	e.nInit = e.pr.nInit
	for l, id := range e.pr.initW {
		if id < 0 {
			continue // a register: thread state, no event
		}
		e.ev = append(e.ev, Event{Event: prog.Event{Kind: prog.EvLW, Thread: -1, Loc: l, Val: p.Locs[l].Init, Remote: -1},
			ID: id, Index: -1, QP: -1, PC: -1})
		e.cons = append(e.cons, consNone)
		e.consA = append(e.consA, 0)
		e.depW = append(e.depW, -1)
		e.depW2 = append(e.depW2, -1)
		e.wadd = append(e.wadd, 0)
		e.wconst = append(e.wconst, int16(p.Locs[l].Init))
	}
	for t, node := range sel {
		tr := e.pr.trees[t]
		if !tr.nodes[node].end {
			e.complete = false
		}
		first := len(e.ev)
		for i, s := range tr.events(node) {
			id := len(e.ev)
			e.ev = append(e.ev, Event{Event: prog.Event{Kind: s.kind, Thread: t, Loc: s.loc, Remote: s.remote},
				ID: id, Index: i, QP: s.qp, PC: s.pc, Writes: s.kind == prog.EvNAR && s.cons != consNe, Fenced: s.fenced, Unsignaled: s.unsig, Inline: s.inline,
				WR: s.wr, InOrder: s.wr > 0 && isWrite(s.kind) && e.pr.opt.InOrder})
			e.cons = append(e.cons, s.cons)
			e.consA = append(e.consA, s.a)
			e.depW = append(e.depW, -1)
			e.depW2 = append(e.depW2, -1)
			e.wadd = append(e.wadd, s.add)
			wc := int16(-1)
			if isWrite(s.kind) && s.dep < 0 {
				wc = int16(s.val) // constant write; for a CAS the new value b
			}
			e.wconst = append(e.wconst, wc)
			if s.dep >= 0 {
				if e.depW[first+s.dep] >= 0 {
					e.depW2[first+s.dep] = id
				} else {
					e.depW[first+s.dep] = id
				}
			}
		}
	}
	NumberFences(e.ev)
	e.n = len(e.ev)
	e.grp.build(e.ev)
}

// index lists the reads, the writes of each location and the events of
// instructions (all but the NIC's writes), and sets in st the values known
// from the start: the constants written; no read reads from anything yet.
func (e *engine) index(st *state) {
	e.reads = e.reads[:0]
	e.writesOf = resize(e.writesOf, len(e.pr.p.Locs))
	e.inst = 0
	for i := range e.ev {
		ev := &e.ev[i]
		st.rf[i], st.rv[i], st.wv[i] = -1, -1, -1
		if isRead(ev.Kind) {
			e.reads = append(e.reads, i)
		}
		if isWrite(ev.Kind) {
			e.writesOf[ev.Loc] = append(e.writesOf[ev.Loc], i)
		}
		if !ev.IsNICWrite() {
			e.inst |= 1 << uint(i)
		}
	}
	for i := range e.ev {
		if e.wconst[i] >= 0 {
			st.wv[i] = e.wconst[i]
		}
	}
}

// nicOrders sets pf, which is fixed (the k-th poll of a queue pair polls
// from its k-th NIC write), and the pairs whose nfo the search chooses:
// nlR/nlW, nrR/nrW and naR/nrW of one queue pair.
func (e *engine) nicOrders() {
	p, nInit, n := e.pr.p, e.nInit, e.n
	e.pf = e.pf[:0]
	e.pairs = e.pairs[:0]
	e.nicW = resize(e.nicW, len(p.QPs))
	e.polls = zeroed(e.polls, len(p.QPs))
	for i := nInit; i < n; i++ {
		ev := &e.ev[i]
		switch {
		case ev.IsNICWrite() && (ev.WR == 0 || e.ev[i-1].Kind != ev.Kind):
			// One completion per work request: a multi-word
			// operation's first write stands for its writes.
			e.nicW[ev.QP] = append(e.nicW[ev.QP], i)
		case ev.Kind == prog.EvPoll:
			// The next signalled operation, and the unsignaled ones
			// before it that no poll covered (signal.go).
			k := e.polls[ev.QP]
			last := nextSignalled(e.ev, e.nicW[ev.QP], k)
			if last == len(e.nicW[ev.QP]) {
				break // never: the label sequences stop before such a poll (paths.go)
			}
			e.polls[ev.QP] = last + 1
			for _, w := range e.nicW[ev.QP][k : last+1] {
				for j := w; j == w || j < n && e.ev[j].WR > 0 && e.ev[j].WR == e.ev[w].WR && e.ev[j].Thread == e.ev[w].Thread; j++ {
					e.pf = append(e.pf, [2]int{j, i}) // the poll waits for every word
				}
			}
		}
	}
	for a := nInit; a < n; a++ {
		for b := a + 1; b < n; b++ {
			ea, eb := &e.ev[a], &e.ev[b]
			if ea.Thread != eb.Thread || ea.QP != eb.QP || ea.QP < 0 {
				continue
			}
			ka, kb := ea.Kind, eb.Kind
			if inlineRead(ea) || inlineRead(eb) {
				continue // a CPU-side read: no NIC flush (inline.go)
			}
			if ka == prog.EvNLR && kb == prog.EvNLW || ka == prog.EvNLW && kb == prog.EvNLR ||
				ka == prog.EvNRR && kb == prog.EvNRW || ka == prog.EvNRW && kb == prog.EvNRR ||
				ka == prog.EvNAR && kb == prog.EvNRW || ka == prog.EvNRW && kb == prog.EvNAR {
				e.pairs = append(e.pairs, [2]int{a, b})
			}
		}
	}
	e.nfoDir = zeroed(e.nfoDir, len(e.pairs))
}

// staticRelations sets in st what every trace of the events has: ib ⊇
// ippo ∪ pf, ob ⊇ oppo ∪ [nlW];pf ∪ [Inst];ib, sc ⊇ po (and po itself,
// e.poRow), closed, and whether each is already cyclic.
func (e *engine) staticRelations(st *state) {
	n := e.n
	e.poRow = zeroed(e.poRow, n)
	for a := e.nInit; a < n; a++ {
		for b := a + 1; b < n && e.ev[b].Thread == e.ev[a].Thread; b++ {
			i, o := PPO(&e.ev[a], &e.ev[b])
			if i {
				st.ib[a] |= 1 << uint(b)
			}
			if o {
				st.ob[a] |= 1 << uint(b)
			}
			st.sc[a] |= 1 << uint(b) // po (already transitive)
			e.poRow[a] |= 1 << uint(b)
		}
	}
	for _, f := range e.pf {
		st.ib[f[0]] |= 1 << uint(f[1])
		if e.ev[f[0]].Kind == prog.EvNLW {
			st.ob[f[0]] |= 1 << uint(f[1])
		}
	}
	e.grp.rows(st.ib[:n], relIB)
	e.grp.rows(st.sc[:n], relSC)
	st.ib.warshall(n)
	for m := e.inst; m != 0; m &= m - 1 {
		x := bits.TrailingZeros64(m)
		st.ob[x] |= st.ib[x]
	}
	e.grp.rows(st.ob[:n], relOB)
	st.ob.warshall(n)
	st.sc.warshall(n)
	st.ibCyc, st.obCyc, st.scCyc = st.ib.reflexive(n), st.ob.reflexive(n), st.sc.reflexive(n)
}

// moBookkeeping sets what the search of mo needs per location: the writes
// still to place (moRem), all its writes with the initial one (locW), and
// the locations with a write to order (moLocs). A register has no write
// at all.
func (e *engine) moBookkeeping() {
	nlocs := len(e.pr.p.Locs)
	e.moLocs = e.moLocs[:0]
	e.moRev = resize(e.moRev, nlocs)
	e.locW = e.locW[:0]
	e.moRem = e.moRem[:0]
	for l := 0; l < nlocs; l++ {
		init := e.pr.initW[l]
		if init < 0 {
			e.moRem = append(e.moRem, 0)
			e.locW = append(e.locW, 0)
			continue
		}
		var rem uint64
		for _, w := range e.writesOf[l][1:] {
			rem |= 1 << uint(w)
		}
		e.moRem = append(e.moRem, rem)
		e.locW = append(e.locW, rem|1<<uint(init))
		if len(e.writesOf[l]) > 1 {
			e.moLocs = append(e.moLocs, l)
		}
	}
}

// growStack makes room for a state per decision of the search: one per
// read, nfo pair and write placed in mo, and a few more.
func (e *engine) growStack() {
	depth := len(e.reads) + len(e.pairs) + 2
	for _, l := range e.moLocs {
		depth += len(e.writesOf[l]) + 1
	}
	if len(e.stack) < depth {
		e.stack = append(e.stack, make([]state, depth-len(e.stack))...)
	}
}

// resize returns s with n empty rows, keeping the rows' storage.
func resize(s [][]int, n int) [][]int {
	for len(s) < n {
		s = append(s, nil)
	}
	s = s[:n]
	for i := range s {
		s[i] = s[i][:0]
	}
	return s
}

// zeroed returns s resized to n elements, all zero, reusing its storage.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
