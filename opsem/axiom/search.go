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
}

func newProblem(p *prog.Program, opt Options) (*problem, error) {
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
	nlocs := len(p.Locs)
	if nlocs > maxEv {
		return nil, eventLimit(p, opt.Unroll, maxEv)
	}
	pr := &problem{p: p, opt: opt, maxEv: maxEv}
	total := nlocs
	for t := range p.Threads {
		tr, b, err := buildTree(p, t, opt.Unroll, maxEv-nlocs)
		if err == errTooLong {
			return nil, eventLimit(p, opt.Unroll, maxEv)
		}
		var limit *LimitError
		if errors.As(err, &limit) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("axiom: %w", err)
		}
		pr.trees = append(pr.trees, tr)
		pr.bounded = pr.bounded || b
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
// than maxEv events, with their number measured: the locations (one
// initial write each) plus each thread's longest label sequence, its trie
// now built without a length limit (only the limit of its size, past which
// the number is reported as a lower bound). It runs only on the way to an
// error, so the cost of a trie longer than usual does not matter.
func eventLimit(p *prog.Program, unroll, maxEv int) error {
	e := &LimitError{Program: p.Name, What: LimitEvents, N: len(p.Locs), Limit: maxEv, Unroll: unroll}
	for t := range p.Threads {
		tr, _, err := buildTree(p, t, unroll, math.MaxInt)
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
	out := make([][]int, len(pr.trees))
	for t, tr := range pr.trees {
		for i := range tr.nodes {
			if partial || tr.nodes[i].end {
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
	ch := pr.choices(partial)
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
	pr   *problem
	ctx  context.Context
	mode Prune
	nfo  bool // enumerate nfo orientations (else: follow sc at the leaf)
	// violations restricts the search to RDMA-consistent, SC-inconsistent
	// traces (Robust): branches where ob already contains po are skipped.
	violations bool

	n        int
	complete bool
	ev       []Event
	cons     []consKind
	consA    []uint8
	depW     []int   // depW[r] = the write of r's instruction copying r's value, or -1
	wconst   []int16 // value of a constant write, -1 otherwise
	reads    []int
	writesOf [][]int  // per location, initial write first
	locW     []uint64 // per location, its writes
	moLocs   []int    // locations with more than one write
	inst     uint64
	pairs    [][2]int // nfo pairs (a po-before b)
	nInit    int      // initial writes (the first events)
	poRow    []uint64 // po successors of each event
	nicW     [][]int  // per queue pair, its NIC writes (for pf)
	polls    []int    // per queue pair, polls seen (for pf)
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
	e.stack = make([]state, 1)
	return e
}

func (e *engine) pruned(st *state) bool {
	if e.violations && e.poCovered(st) {
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
	p := e.pr.p
	nlocs := len(p.Locs)
	e.ev = e.ev[:0]
	e.cons = e.cons[:0]
	e.consA = e.consA[:0]
	e.depW = e.depW[:0]
	e.wconst = e.wconst[:0]
	e.complete = true
	st := &e.stack[0]
	*st = state{}
	for l := range p.Locs {
		e.ev = append(e.ev, Event{Event: prog.Event{Kind: prog.EvLW, Thread: -1, Loc: l, Val: p.Locs[l].Init, Remote: -1},
			ID: l, Index: -1, QP: -1, PC: -1})
		e.cons = append(e.cons, consNone)
		e.consA = append(e.consA, 0)
		e.depW = append(e.depW, -1)
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
				ID: id, Index: i, QP: s.qp, PC: s.pc})
			e.cons = append(e.cons, s.cons)
			e.consA = append(e.consA, s.a)
			e.depW = append(e.depW, -1)
			wc := int16(-1)
			if isWrite(s.kind) && s.dep < 0 {
				wc = int16(s.val) // constant write; for a CAS the new value b
			}
			e.wconst = append(e.wconst, wc)
			if s.dep >= 0 {
				e.depW[first+s.dep] = id
			}
		}
	}
	n := len(e.ev)
	e.n = n
	if n > e.pr.maxEv {
		e.err = &LimitError{Program: e.pr.p.Name, What: LimitEvents, N: n, Limit: e.pr.maxEv, Unroll: e.pr.opt.Unroll}
		e.stop = true
		return
	}
	// values known from the start
	e.reads = e.reads[:0]
	e.writesOf = resize(e.writesOf, nlocs)
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
	// pf: the k-th poll of a queue pair polls from its k-th NIC write
	e.pf = e.pf[:0]
	e.pairs = e.pairs[:0]
	e.nicW = resize(e.nicW, len(p.QPs))
	e.polls = zeroed(e.polls, len(p.QPs))
	for i := nlocs; i < n; i++ {
		ev := &e.ev[i]
		switch {
		case ev.IsNICWrite():
			e.nicW[ev.QP] = append(e.nicW[ev.QP], i)
		case ev.Kind == prog.EvPoll:
			k := e.polls[ev.QP]
			e.polls[ev.QP]++
			e.pf = append(e.pf, [2]int{e.nicW[ev.QP][k], i})
		}
	}
	// nfo pairs: nlR/nlW and nrR/nrW of one queue pair
	for a := nlocs; a < n; a++ {
		for b := a + 1; b < n; b++ {
			ea, eb := &e.ev[a], &e.ev[b]
			if ea.Thread != eb.Thread || ea.QP != eb.QP || ea.QP < 0 {
				continue
			}
			ka, kb := ea.Kind, eb.Kind
			if ka == prog.EvNLR && kb == prog.EvNLW || ka == prog.EvNLW && kb == prog.EvNLR ||
				ka == prog.EvNRR && kb == prog.EvNRW || ka == prog.EvNRW && kb == prog.EvNRR {
				e.pairs = append(e.pairs, [2]int{a, b})
			}
		}
	}
	e.nfoDir = zeroed(e.nfoDir, len(e.pairs))

	e.nInit = nlocs
	e.poRow = zeroed(e.poRow, n)
	// static relations: ib ⊇ ippo ∪ pf, ob ⊇ oppo ∪ [nlW];pf ∪ [Inst];ib, sc ⊇ po
	for a := nlocs; a < n; a++ {
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
	st.ib.warshall(n)
	for m := e.inst; m != 0; m &= m - 1 {
		x := bits.TrailingZeros64(m)
		st.ob[x] |= st.ib[x]
	}
	st.ob.warshall(n)
	st.ibCyc, st.obCyc, st.scCyc = st.ib.reflexive(n), st.ob.reflexive(n), st.sc.reflexive(n)
	if e.pruned(st) {
		return
	}
	// mo bookkeeping
	e.moLocs = e.moLocs[:0]
	e.moRev = resize(e.moRev, nlocs)
	e.locW = e.locW[:0]
	e.moRem = e.moRem[:0]
	for l := 0; l < nlocs; l++ {
		var rem uint64
		for _, w := range e.writesOf[l][1:] {
			rem |= 1 << uint(w)
		}
		e.moRem = append(e.moRem, rem)
		e.locW = append(e.locW, rem|1<<uint(l))
		if len(e.writesOf[l]) > 1 {
			e.moLocs = append(e.moLocs, l)
		}
	}
	depth := len(e.reads) + len(e.pairs) + 2
	for _, l := range e.moLocs {
		depth += len(e.writesOf[l]) + 1
	}
	if len(e.stack) < depth {
		e.stack = append(e.stack, make([]state, depth-len(e.stack))...)
	}
	if e.lastFirst {
		e.moStep(0, 0)
	} else {
		e.rfStep(0, 0)
	}
	e.cut = false
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

// setRV fixes the value read by r and propagates it; false when a
// constraint fails.
func (e *engine) setRV(st *state, r int, v int16) bool {
	switch e.cons[r] {
	case consEq:
		if v != int16(e.consA[r]) {
			return false
		}
	case consNe:
		if v == int16(e.consA[r]) {
			return false
		}
	}
	st.rv[r] = v
	if w := e.depW[r]; w >= 0 {
		return e.setWV(st, w, v)
	}
	return true
}

// setWV fixes the value written by w and propagates it to the reads already
// reading from w.
func (e *engine) setWV(st *state, w int, v int16) bool {
	st.wv[w] = v
	for _, r := range e.reads {
		if int(st.rf[r]) == w && st.rv[r] < 0 {
			if !e.setRV(st, r, v) {
				return false
			}
		}
	}
	return true
}

// addIB adds the base edge a -> b of ib (rf or nfo, which are in ob too) and
// lifts the new ib pairs from instantaneous events into ob.
func (e *engine) addIBOB(st *state, a, b int) {
	n := e.n
	S := st.ib.preds(n, a)
	R := st.ib[b] | 1<<uint(b)
	if st.ib.addSet(n, 1<<uint(a), 1<<uint(b)) {
		st.ibCyc = true
	}
	if st.ob.addSet(n, 1<<uint(a), 1<<uint(b)) {
		st.obCyc = true
	}
	if X := S & e.inst; X != 0 {
		if st.ob.addSet(n, X, R) {
			st.obCyc = true
		}
	}
}

// rfStep chooses the write read by each read in turn.
func (e *engine) rfStep(i, d int) {
	if e.stop || e.cut {
		return
	}
	if i == len(e.reads) {
		cur := &e.stack[d]
		for _, r := range e.reads {
			if cur.rv[r] < 0 {
				return // values only a thin-air cycle could supply: never consistent
			}
		}
		if e.lastFirst {
			e.moFill(0, d)
		} else {
			e.moStep(0, d)
		}
		return
	}
	r := e.reads[i]
	l := e.ev[r].Loc
	for _, w := range e.writesOf[l] {
		cur := &e.stack[d]
		if cur.wv[w] >= 0 {
			if c := e.cons[r]; c == consEq && cur.wv[w] != int16(e.consA[r]) || c == consNe && cur.wv[w] == int16(e.consA[r]) {
				continue
			}
		}
		next := &e.stack[d+1]
		*next = *cur
		next.rf[r] = int8(w)
		if next.wv[w] >= 0 && !e.setRV(next, r, next.wv[w]) {
			continue
		}
		e.addIBOB(next, w, r)
		if next.sc.addSet(e.n, 1<<uint(w), 1<<uint(r)) {
			next.scCyc = true
		}
		// rb edges already implied by what is known of mo: everything
		// follows the initial write; with lastFirst, the chosen mo-last
		// write follows every other.
		var after uint64
		switch {
		case w == l:
			after = e.locW[l] &^ (1 << uint(l))
		case e.lastFirst && len(e.moRev[l]) > 0 && e.moRev[l][0] != w:
			after = 1 << uint(e.moRev[l][0])
		}
		if after &^= 1 << uint(r); after != 0 {
			e.addOBSC(next, 1<<uint(r), after)
		}
		if e.mode != PruneNone {
			e.saturate(next)
		}
		if e.pruned(next) {
			continue
		}
		if e.onMemory != nil && !e.memKnown(cur) && e.memKnown(next) {
			// the final memory is fixed from here on
			if e.onMemory(e, next) {
				e.rfStep(i+1, d+1)
			}
			e.cut = false
		} else {
			e.rfStep(i+1, d+1)
		}
		if e.stop || e.cut {
			return
		}
	}
}

// memKnown reports whether the final memory is fixed in st: every location's
// mo-last write is chosen and its value known.
func (e *engine) memKnown(st *state) bool {
	if !e.lastFirst {
		return false
	}
	for l, rev := range e.moRev {
		last := l
		if len(rev) > 0 {
			last = rev[0]
		}
		if st.wv[last] < 0 {
			return false
		}
	}
	return true
}

// saturate adds to ob and to sc the edges that every consistent completion
// of the current rf must have (coherence). For a read r of w and another
// write u of the same location, with G the relation (ob or sc):
//   - w G u: mo must order w before u, so r ->rb u;
//   - u G r: u must be mo-before w (else r ->rb u closes a cycle);
//   - r G u: w must be mo-before u (else u ->mo w ->rf r closes a cycle).
//
// An added edge that is not in some completion's mo or rb makes that
// completion cyclic anyway, so the consistency flags stay exact; the edges
// only make cycles show up before mo is enumerated.
func (e *engine) saturate(st *state) {
	for changed := true; changed; {
		changed = false
		for _, r := range e.reads {
			w := int(st.rf[r])
			if w < 0 {
				continue
			}
			U := e.locW[e.ev[r].Loc] &^ (1<<uint(w) | 1<<uint(r))
			if U == 0 {
				continue
			}
			if e.mode != PruneSC && !st.obCyc && e.forced(&st.ob, &st.obCyc, r, w, U) {
				changed = true
			}
			if e.mode != PruneRDMA && !st.scCyc && e.forced(&st.sc, &st.scCyc, r, w, U) {
				changed = true
			}
		}
	}
}

// forced adds the coherence edges of read r reading w, against the other
// writes U of the location, to the closed relation g; it reports whether g
// grew.
func (e *engine) forced(g *closure, cyc *bool, r, w int, U uint64) bool {
	n := e.n
	rb := uint64(1) << uint(r)
	wb := uint64(1) << uint(w)
	grew := false
	if R := g[w] & U &^ g[r]; R != 0 { // r ->rb u
		if g.addSet(n, rb, R) {
			*cyc = true
		}
		grew = true
	}
	var before uint64 // u G r, not yet u G w
	for m := U; m != 0; m &= m - 1 {
		u := bits.TrailingZeros64(m)
		if g[u]&rb != 0 && g[u]&wb == 0 {
			before |= 1 << uint(u)
		}
	}
	if before != 0 {
		if g.addSet(n, before, wb) {
			*cyc = true
		}
		grew = true
	}
	if R := g[r] & U &^ g[w]; R != 0 { // w ->mo u
		if g.addSet(n, wb, R) {
			*cyc = true
		}
		grew = true
	}
	return grew
}

// moStep fixes mo, building each location's order from its end. It first
// picks the mo-last write of every location, then moFill completes the
// orders. With lastFirst, moStep runs before rf (so the final memory is known
// as soon as the values of the mo-last writes are, and onMemory may cut the
// branch there); otherwise after it. Placing w
// as the latest of the unplaced writes fixes, by totality, u ->mo w for every
// other unplaced u and r ->rb w for each read r of those u (rb = rf⁻¹;mo
// minus identity); these edges are added at once, so that a wrong choice
// closes its cycle immediately. Edges from the initial write (first by
// definition) and its reads are added when the location is entered.
func (e *engine) moStep(li, d int) {
	if e.stop || e.cut {
		return
	}
	if li == len(e.moLocs) {
		switch {
		case e.lastFirst && e.onMemory != nil && e.memKnown(&e.stack[d]):
			if e.onMemory(e, &e.stack[d]) {
				e.rfStep(0, d)
			}
			e.cut = false
		case e.lastFirst:
			e.rfStep(0, d)
		default:
			e.moFill(0, d)
		}
		return
	}
	l := e.moLocs[li]
	next := &e.stack[d+1]
	*next = e.stack[d]
	e.initEdges(next, l)
	if e.pruned(next) {
		return
	}
	e.moChoose(li, d+1, true)
}

// moFill completes the mo of every location, latest write first.
func (e *engine) moFill(li, d int) {
	if e.stop || e.cut {
		return
	}
	if li == len(e.moLocs) {
		e.nfoStep(0, d)
		return
	}
	if e.moRem[e.moLocs[li]] == 0 {
		e.moFill(li+1, d)
		return
	}
	e.moChoose(li, d, false)
}

// moChoose places each unplaced write of location moLocs[li] in turn as the
// latest unplaced one, then continues with moStep (first, when choosing the
// mo-last write) or moFill.
func (e *engine) moChoose(li, d int, first bool) {
	l := e.moLocs[li]
	rem := e.moRem[l]
	rev := e.moRev[l]
	for m := rem; m != 0; m &= m - 1 {
		w := bits.TrailingZeros64(m)
		next := &e.stack[d+1]
		*next = e.stack[d]
		e.moRem[l] = rem &^ (1 << uint(w))
		e.placeLast(next, l, w)
		if !e.pruned(next) {
			e.moRev[l] = append(rev, w)
			if first {
				e.moStep(li+1, d+1)
			} else {
				e.moFill(li, d+1)
			}
			e.moRev[l] = rev
		}
		e.moRem[l] = rem
		if e.stop || e.cut {
			return
		}
	}
}

// readersOf returns the reads of st reading from a write in ws.
func (e *engine) readersOf(st *state, ws uint64) uint64 {
	var out uint64
	for _, r := range e.reads {
		if f := st.rf[r]; f >= 0 && ws>>uint(f)&1 != 0 {
			out |= 1 << uint(r)
		}
	}
	return out
}

// initEdges adds init ->mo w and r ->rb w for the reads r of the initial
// write of l, for every other write w of l.
func (e *engine) initEdges(st *state, l int) {
	N := e.moRem[l]
	X := uint64(1) << uint(l)
	rd := e.readersOf(st, X)
	for m := rd & N; m != 0; m &= m - 1 { // a CAS reading init: no rb to itself
		r := bits.TrailingZeros64(m)
		if R := N &^ (1 << uint(r)); R != 0 {
			e.addOBSC(st, 1<<uint(r), R)
		}
	}
	e.addOBSC(st, X|rd&^N, N)
}

// placeLast adds the edges that make w (just removed from e.moRem[l]) later
// in mo than every write still unplaced.
func (e *engine) placeLast(st *state, l, w int) {
	rem := e.moRem[l]
	X := (rem | e.readersOf(st, rem)) &^ (1 << uint(w))
	if X != 0 {
		e.addOBSC(st, X, 1<<uint(w))
	}
}

// addOBSC adds X × R to ob and sc (mo and rb are in both).
func (e *engine) addOBSC(st *state, X, R uint64) {
	if st.ob.addSet(e.n, X, R) {
		st.obCyc = true
	}
	if st.sc.addSet(e.n, X, R) {
		st.scCyc = true
	}
}

func (e *engine) nfoStep(i, d int) {
	if e.stop {
		return
	}
	if !e.nfo {
		e.scNFO(d)
		return
	}
	if e.cut {
		return
	}
	if i == len(e.pairs) {
		e.leafStep(&e.stack[d])
		return
	}
	a, b := e.pairs[i][0], e.pairs[i][1]
	for _, fwd := range [2]bool{true, false} {
		next := &e.stack[d+1]
		*next = e.stack[d]
		if fwd {
			e.addIBOB(next, a, b)
		} else {
			e.addIBOB(next, b, a)
		}
		if e.pruned(next) {
			continue
		}
		e.nfoDir[i] = fwd
		e.nfoStep(i+1, d+1)
		if e.stop || e.cut {
			return
		}
	}
}

// scNFO orients every nfo pair along a linear extension of sc (the number of
// sc-predecessors grows strictly along an acyclic closed relation) and
// reports the trace.
func (e *engine) scNFO(d int) {
	cur := &e.stack[d]
	next := &e.stack[d+1]
	*next = *cur
	var npred [MaxEvents]int
	for x := 0; x < e.n; x++ {
		for m := cur.sc[x]; m != 0; m &= m - 1 {
			npred[bits.TrailingZeros64(m)]++
		}
	}
	for i, pr := range e.pairs {
		a, b := pr[0], pr[1]
		fwd := npred[a] < npred[b] || npred[a] == npred[b] && a < b
		e.nfoDir[i] = fwd
		if fwd {
			e.addIBOB(next, a, b)
		} else {
			e.addIBOB(next, b, a)
		}
	}
	e.leafStep(next)
}

func (e *engine) leafStep(st *state) {
	if !e.tick() {
		return
	}
	if !e.leaf(e, st) {
		e.stop = true
	}
}

// writeVal returns the value written by w in the leaf state st.
func (e *engine) writeVal(st *state, w int) uint8 { return uint8(st.wv[w]) }

// memory returns the final memory of the leaf: the value of each location's
// mo-last write.
func (e *engine) memory(st *state) []uint8 {
	mem := make([]uint8, len(e.moRev))
	for l, rev := range e.moRev {
		last := l // the initial write
		if len(rev) > 0 {
			last = rev[0]
		}
		mem[l] = e.writeVal(st, last)
	}
	return mem
}

// trace builds the Trace of the leaf state st.
func (e *engine) trace(st *state) *Trace {
	t := &Trace{Events: make([]Event, e.n), RF: make([]int, e.n), Complete: e.complete}
	copy(t.Events, e.ev)
	for i := range t.Events {
		ev := &t.Events[i]
		t.RF[i] = -1
		switch {
		case ev.Kind == prog.EvCAS:
			ev.Val = uint8(st.rv[i])
			ev.New = uint8(st.wv[i])
		case isRead(ev.Kind):
			ev.Val = uint8(st.rv[i])
		case isWrite(ev.Kind):
			ev.Val = uint8(st.wv[i])
		}
		if isRead(ev.Kind) {
			t.RF[i] = int(st.rf[i])
		}
	}
	t.MO = make([][]int, len(e.moRev))
	for l, rev := range e.moRev {
		o := make([]int, 0, len(rev)+1)
		o = append(o, l)
		for i := len(rev) - 1; i >= 0; i-- {
			o = append(o, rev[i])
		}
		t.MO[l] = o
	}
	for i, pr := range e.pairs {
		if e.nfoDir[i] {
			t.NFO = append(t.NFO, pr)
		} else {
			t.NFO = append(t.NFO, [2]int{pr[1], pr[0]})
		}
	}
	t.PF = append([][2]int(nil), e.pf...)
	return t
}

// flags returns the consistency of the leaf state.
func (e *engine) flags(st *state) (rdma, sc bool) {
	return !st.obCyc && !st.ibCyc, !st.scCyc
}
