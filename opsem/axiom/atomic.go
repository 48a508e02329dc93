package axiom

import "rdmasim/opsem/prog"

// Remote atomics (rcas, rfaa; SEMANTICS-ATOMICS.md). An atomic contributes
// naR (its read at the target) and, when it writes, naW right after it in
// program order, then the nlW that lands the old value. Two axioms beyond
// the seed's are checked on complete traces and on prefixes (at the
// search's leaves, and in Relations):
//
//   - atomicity (RDMA): for a writing atomic A (reads with rA, writes with
//     wA) and any other atomic B on the same location, B's last event eB (its
//     naW, or its naR when it does not write) that is mo- or rb-before wA
//     must be ob-before rA: the edges at = {(eB, rA)} are added to ob, which
//     must stay acyclic. This is the machine's lock: an atomic that writes
//     holds its location between its two steps, and no other atomic reads
//     it meanwhile. It implies the classical axiom (no other atomic's write
//     between rf(rA) and wA in mo).
//   - pending atomics (RDMA, prefixes): a prefix may end between a writing
//     atomic's naR and its naW (the machine's ATOMR(v locked) entry). Such
//     an atomic P holds the lock to the end of the prefix: its write is
//     read as if it came mo-last, so every other atomic B on the location
//     is before it, and the axiom above gives eB -at-> rP for every such B.
//     P's own naR stands for no write of its own: it is never an eB.
//   - SC: an atomic is one step, so sc is checked with each rA, wA
//     contracted: every sc edge into wA also enters rA. A pending atomic's
//     write, mo-last, has an edge from every other access of its location,
//     so every such access enters its read: an SC run performs the pending
//     atomic after them. (Then every SC-consistent prefix is RDMA-consistent,
//     as on complete traces: at ⊆ sc.)

// atomPair is a writing atomic: its read and write events.
type atomPair struct{ r, w int }

// atomicEdges returns the at edges of a trace (as pairs), given its events,
// rf (per event, -1 if none) and a test of mo order between two writes of
// one location.
func atomicEdges(ev []Event, rf []int, moBefore func(a, b int) bool) [][2]int {
	var out [][2]int
	for _, a := range atomPairs(ev) {
		for b := range ev {
			if !ev[b].Kind.IsAtomic() || ev[b].Loc != ev[a.w].Loc || b == a.r || b == a.w {
				continue
			}
			switch {
			case ev[b].Kind == prog.EvNAW:
				if moBefore(b, a.w) {
					out = append(out, [2]int{b, a.r})
				}
			case writing(ev, b):
				// a writing atomic's read: its write stands for it, or,
				// pending, comes mo-last, never before wA
			case rf[b] >= 0 && moBefore(rf[b], a.w):
				out = append(out, [2]int{b, a.r}) // a failing rcas, rb-before wA
			}
		}
	}
	for _, p := range pendingAtomics(ev) {
		for b := range ev {
			if b == p || !ev[b].Kind.IsAtomic() || ev[b].Loc != ev[p].Loc {
				continue
			}
			if ev[b].Kind == prog.EvNAW || !writing(ev, b) || pending(ev, b) {
				// B's last event: its write, the read of a failing rcas,
				// or the read of another pending atomic (two pending
				// atomics on one location order each before the other:
				// no prefix holds both, as no machine state has two
				// atomics holding one lock)
				out = append(out, [2]int{b, p})
			}
		}
	}
	return out
}

// atomPairs returns the writing atomics of ev: each naW with the naR just
// before it.
func atomPairs(ev []Event) []atomPair {
	var out []atomPair
	for w := 1; w < len(ev); w++ {
		if ev[w].Kind == prog.EvNAW && ev[w-1].Kind == prog.EvNAR && ev[w-1].Thread == ev[w].Thread {
			out = append(out, atomPair{w - 1, w})
		}
	}
	return out
}

// writing reports whether the event r of ev is the naR of an atomic that
// writes: its naW follows it, or it is marked Writes (pending in a prefix).
func writing(ev []Event, r int) bool {
	if ev[r].Kind != prog.EvNAR {
		return false
	}
	w := r + 1
	return ev[r].Writes || w < len(ev) && ev[w].Kind == prog.EvNAW && ev[w].Thread == ev[r].Thread
}

// pending reports whether the event r of ev is the naR of a writing atomic
// whose naW is not in ev (the trace is a prefix that ends between them).
func pending(ev []Event, r int) bool {
	if ev[r].Kind != prog.EvNAR || !ev[r].Writes {
		return false
	}
	w := r + 1
	return w >= len(ev) || ev[w].Kind != prog.EvNAW || ev[w].Thread != ev[r].Thread
}

// pendingAtomics returns the naR of every pending atomic of ev.
func pendingAtomics(ev []Event) []int {
	var out []int
	for r := range ev {
		if pending(ev, r) {
			out = append(out, r)
		}
	}
	return out
}

// atomicFlags refines the consistency of the leaf st with the atomics'
// axioms: rdma false when ob ∪ at is cyclic, sc false when sc with every
// atomic contracted is.
func (e *engine) atomicFlags(st *state, rdma, sc bool) (bool, bool) {
	pairs, pend := atomPairs(e.ev), pendingAtomics(e.ev)
	if len(pairs) == 0 && len(pend) == 0 {
		return rdma, sc
	}
	n := e.n
	if rdma {
		pos := make([]int, n)
		for l, rev := range e.moRev {
			if init := e.pr.initW[l]; init >= 0 {
				pos[init] = -1 // the initial write, first
			}
			for k, w := range rev {
				pos[w] = len(rev) - k // mo-last has the largest position
			}
		}
		rf := make([]int, n)
		for i := range rf {
			rf[i] = -1
			if isRead(e.ev[i].Kind) {
				rf[i] = int(st.rf[i])
			}
		}
		ob := st.ob
		for _, ed := range atomicEdges(e.ev, rf, func(a, b int) bool { return pos[a] < pos[b] }) {
			if ob.addSet(n, 1<<uint(ed[0]), 1<<uint(ed[1])) {
				rdma = false
				break
			}
		}
	}
	if sc {
		g := st.sc
		for _, r := range pend {
			if g.addSet(n, accesses(e.ev, e.ev[r].Loc)&^(1<<uint(r)), 1<<uint(r)) {
				sc = false
			}
		}
		for changed := true; changed && sc; {
			changed = false
			for _, a := range pairs {
				X := g.preds(n, a.w) &^ g.preds(n, a.r)
				X &^= 1<<uint(a.w) | 1<<uint(a.r)
				if X == 0 {
					continue
				}
				changed = true
				if g.addSet(n, X, 1<<uint(a.r)) {
					sc = false
					break
				}
			}
		}
	}
	return rdma, sc
}

// accesses returns the events of ev that read or write location l, as a
// bitset.
func accesses(ev []Event, l int) uint64 {
	var s uint64
	for i := range ev {
		if ev[i].Loc == l && (isRead(ev[i].Kind) || isWrite(ev[i].Kind)) {
			s |= 1 << uint(i)
		}
	}
	return s
}

// contractAtomics adds to the base relation sc, for every edge x -> wA of a
// writing atomic, the edge x -> rA (sc with each atomic contracted). A
// pending atomic's write, mo-last, would have an edge from every other
// access of its location (mo from the writes, rb from the reads): those
// edges enter its read.
func contractAtomics(ev []Event, sc Rel) {
	for _, r := range pendingAtomics(ev) {
		for x := range ev {
			if x != r && ev[x].Loc == ev[r].Loc && (isRead(ev[x].Kind) || isWrite(ev[x].Kind)) {
				sc.Add(x, r)
			}
		}
	}
	for _, a := range atomPairs(ev) {
		for x := range ev {
			if x != a.r && sc.Has(x, a.w) {
				sc.Add(x, a.r)
			}
		}
	}
}
