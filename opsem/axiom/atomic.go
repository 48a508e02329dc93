package axiom

import "rdmasim/opsem/prog"

// Remote atomics (rcas, rfaa; SEMANTICS-ATOMICS.md). An atomic contributes
// naR (its read at the target) and, when it writes, naW right after it in
// program order, then the nlW that lands the old value. Two axioms beyond
// the seed's are checked on complete traces (at the search's leaves, and in
// Relations):
//
//   - atomicity (RDMA): for a writing atomic A (reads with rA, writes with
//     wA) and any other atomic B on the same location, B's last event eB (its
//     naW, or its naR when it does not write) that is mo- or rb-before wA
//     must be ob-before rA: the edges at = {(eB, rA)} are added to ob, which
//     must stay acyclic. This is the machine's lock: an atomic that writes
//     holds its location between its two steps, and no other atomic reads
//     it meanwhile. It implies the classical axiom (no other atomic's write
//     between rf(rA) and wA in mo).
//   - SC: an atomic is one step, so sc is checked with each rA, wA
//     contracted: every sc edge into wA also enters rA.

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
			case b+1 < len(ev) && ev[b+1].Kind == prog.EvNAW && ev[b+1].Thread == ev[b].Thread:
				// a writing atomic's read: its write stands for it
			case rf[b] >= 0 && moBefore(rf[b], a.w):
				out = append(out, [2]int{b, a.r}) // a failing rcas, rb-before wA
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

// atomicFlags refines the consistency of the leaf st with the atomics'
// axioms: rdma false when ob ∪ at is cyclic, sc false when sc with every
// atomic contracted is.
func (e *engine) atomicFlags(st *state, rdma, sc bool) (bool, bool) {
	pairs := atomPairs(e.ev)
	if len(pairs) == 0 {
		return rdma, sc
	}
	n := e.n
	if rdma {
		pos := make([]int, n)
		for l, rev := range e.moRev {
			pos[l] = -1 // the initial write, first
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

// contractAtomics adds to the base relation sc, for every edge x -> wA of a
// writing atomic, the edge x -> rA (sc with each atomic contracted).
func contractAtomics(ev []Event, sc Rel) {
	for _, a := range atomPairs(ev) {
		for x := range ev {
			if x != a.r && sc.Has(x, a.w) {
				sc.Add(x, a.r)
			}
		}
	}
}
