package axiom

import (
	"math/bits"

	"rdmasim/opsem/prog"
)

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
	if w := e.depW[r]; w >= 0 && !e.setWV(st, w, int16(uint8(v)+e.wadd[w])) {
		return false
	}
	if w := e.depW2[r]; w >= 0 {
		return e.setWV(st, w, int16(uint8(v)+e.wadd[w]))
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
	if e.grp.add(&st.ib, relIB, n, 1<<uint(a), 1<<uint(b)) {
		st.ibCyc = true
	}
	R := st.ib[b] | 1<<uint(b) // a's new ib successors (with a multi-word group's, contracted)
	if l := e.grp.lead[relIB]; e.grp.any && l[b] >= 0 {
		R |= st.ib[l[b]] | 1<<uint(l[b])
	}
	if e.grp.add(&st.ob, relOB, n, 1<<uint(a), 1<<uint(b)) {
		st.obCyc = true
	}
	if X := S & e.inst; X != 0 {
		if e.grp.add(&st.ob, relOB, n, X, R) {
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
		if e.grp.add(&next.sc, relSC, e.n, 1<<uint(w), 1<<uint(r)) {
			next.scCyc = true
		}
		// rb edges already implied by what is known of mo: everything
		// follows the initial write; with lastFirst, the chosen mo-last
		// write follows every other.
		var after uint64
		switch init := e.pr.initW[l]; {
		case w == init:
			after = e.locW[l] &^ (1 << uint(init))
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
		last := e.pr.initW[l]
		if len(rev) > 0 {
			last = rev[0]
		}
		if last >= 0 && st.wv[last] < 0 { // a register (-1) keeps its initial value
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
			if e.mode != PruneSC && !st.obCyc && e.forced(&st.ob, relOB, &st.obCyc, r, w, U) {
				changed = true
			}
			if e.mode != PruneRDMA && !st.scCyc && e.forced(&st.sc, relSC, &st.scCyc, r, w, U) {
				changed = true
			}
		}
	}
}

// forced adds the coherence edges of read r reading w, against the other
// writes U of the location, to the closed relation g; it reports whether g
// grew. rel is g's relation (ob or sc), whose groups it contracts.
func (e *engine) forced(g *closure, rel int, cyc *bool, r, w int, U uint64) bool {
	n := e.n
	rb := uint64(1) << uint(r)
	wb := uint64(1) << uint(w)
	grew := false
	if R := g[w] & U &^ g[r]; R != 0 { // r ->rb u
		if e.grp.add(g, rel, n, rb, R) {
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
		if e.grp.add(g, rel, n, before, wb) {
			*cyc = true
		}
		grew = true
	}
	if R := g[r] & U &^ g[w]; R != 0 { // w ->mo u
		if e.grp.add(g, rel, n, wb, R) {
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
	X := uint64(1) << uint(e.pr.initW[l])
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
	if e.grp.add(&st.ob, relOB, e.n, X, R) {
		st.obCyc = true
	}
	if e.grp.add(&st.sc, relSC, e.n, X, R) {
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
// mo-last write; a register, which has no write, holds its initial value
// (finalMemories sets the values the thread's sequence ends with).
func (e *engine) memory(st *state) []uint8 {
	mem := make([]uint8, len(e.moRev))
	for l, rev := range e.moRev {
		last := e.pr.initW[l]
		if len(rev) > 0 {
			last = rev[0]
		}
		if last < 0 {
			mem[l] = e.pr.p.Locs[l].Init
			continue
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
		init := e.pr.initW[l]
		if init < 0 {
			continue // a register: no write
		}
		o := make([]int, 0, len(rev)+1)
		o = append(o, init)
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
	rdma, sc = !st.obCyc && !st.ibCyc, !st.scCyc
	if e.atomics {
		rdma, sc = e.atomicFlags(st, rdma, sc)
	}
	return rdma, sc
}
