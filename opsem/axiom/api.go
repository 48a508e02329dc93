package axiom

import (
	"bytes"
	"context"
	"sort"

	"rdmasim/opsem/prog"
)

// Enumerate calls yield for every well-formed candidate trace of p that
// survives the pruning of opt.Prune (by default, every trace that is
// RDMA-consistent or SC-consistent), with flags saying whether it is
// RDMA-consistent and SC-consistent. With partial, traces of partial
// executions (each thread's events a proper or complete prefix of a label
// sequence) are included; otherwise only complete traces. yield returns false
// to stop. Candidates whose values only a cycle of rf and data dependencies
// could supply are never reported (they are ob- and sc-cyclic).
func Enumerate(ctx context.Context, p *prog.Program, opt Options, partial bool, yield func(t *Trace, rdma, sc bool) bool) (Stats, error) {
	var st Stats
	pr, err := newProblem(p, opt)
	if err != nil {
		return st, err
	}
	st.Bounded = pr.bounded
	e := newEngine(ctx, pr, opt.Prune)
	e.leaf = func(e *engine, s *state) bool {
		rdma, sc := e.flags(s)
		switch opt.Prune {
		case PruneRDMA, PruneSC, PruneInconsistent:
			// Only the remote atomics' axioms, checked at the leaf, can
			// make a leaf of a pruned search inconsistent: as pruning
			// would have, it is not reported.
			if opt.Prune == PruneRDMA && !rdma || opt.Prune == PruneSC && !sc || !rdma && !sc {
				return true
			}
		}
		st.Candidates++
		if rdma {
			st.RDMA++
		}
		if sc {
			st.SC++
		}
		return yield(e.trace(s), rdma, sc)
	}
	pr.eachSet(partial, false, func(sel []int) bool {
		st.Skeletons++
		e.run(sel)
		return !e.stop
	})
	return st, e.err
}

// outOfRange reports whether a write of the leaf st writes a value outside
// its location's checked range (prog.Range): the machines stop the run at
// that write, so the trace has no final memory.
func (e *engine) outOfRange(st *state) bool {
	locs := e.pr.p.Locs
	for i := range e.ev {
		ev := &e.ev[i]
		if !ev.IsWrite() || ev.Loc < 0 || locs[ev.Loc].Check == nil || st.wv[i] < 0 {
			continue
		}
		if r, v := locs[ev.Loc].Check, uint8(st.wv[i]); v < r.Lo || v > r.Hi {
			return true
		}
	}
	return false
}

// memSet collects distinct memories.
type memSet map[string]bool

func (m memSet) sorted() [][]uint8 {
	out := make([][]uint8, 0, len(m))
	for k := range m {
		out = append(out, []uint8(k))
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i], out[j]) < 0 })
	return out
}

// Outcomes returns the final memories (all locations, one []uint8 per
// distinct memory, sorted) of the complete RDMA-consistent traces and of the
// complete SC-consistent traces. The two sets come from two searches (one
// pruned on ob, one on sc without nfo), each stopping at one trace per
// distinct memory; st adds up their counts, with RDMA counted in the first and
// SC in the second.
func Outcomes(ctx context.Context, p *prog.Program, opt Options) (rdma, sc [][]uint8, st Stats, err error) {
	pr, err := newProblem(p, opt)
	if err != nil {
		return nil, nil, st, err
	}
	st.Bounded = pr.bounded
	for _, mode := range []Prune{PruneRDMA, PruneSC} {
		mems := memSet{}
		e := newEngine(ctx, pr, mode)
		// Only the set of final memories matters: the mo-last writes are
		// chosen first, so the memory is known as soon as their values are;
		// a memory already found prunes the branch, and a new one needs a
		// single consistent completion (the leaf cuts back to that point).
		e.lastFirst = true
		e.onMemory = func(e *engine, s *state) bool {
			for _, m := range e.finalMemories(s) {
				if !mems[m] {
					return true
				}
			}
			return false
		}
		e.leaf = func(e *engine, s *state) bool {
			st.Candidates++
			r, c := e.flags(s)
			if mode == PruneRDMA && !r || mode == PruneSC && !c {
				return true // only remote atomics' axioms, checked here, fail
			}
			if e.outOfRange(s) {
				// The run stops at the write out of its range: it is
				// an error point, not a final outcome (prog.Range).
				return true
			}
			if mode == PruneRDMA && r {
				st.RDMA++
			}
			if mode == PruneSC && c {
				st.SC++
			}
			for _, m := range e.finalMemories(s) {
				mems[m] = true
			}
			e.cut = true
			return true
		}
		pr.eachSet(false, false, func(sel []int) bool {
			st.Skeletons++
			e.run(sel)
			return !e.stop
		})
		if e.err != nil {
			return nil, nil, st, e.err
		}
		if mode == PruneRDMA {
			rdma = mems.sorted()
		} else {
			sc = mems.sorted()
		}
	}
	return rdma, sc, st, nil
}

// Robust reports whether every RDMA-consistent trace of p, partial ones
// included, is SC-consistent. When not, it returns a violating trace
// (RDMA-consistent with an sc cycle) with the fewest events: event sets are
// searched by increasing size and the search stops at the first violation.
// A "robust" answer holds for the loops unrolled Options.Unroll times
// (st.Bounded tells whether the bound cut a path). Branches whose ob already
// contains po are skipped (sc ⊆ ob there), so st counts only the traces
// reached otherwise.
func Robust(ctx context.Context, p *prog.Program, opt Options) (robust bool, witness *Trace, st Stats, err error) {
	pr, err := newProblem(p, opt)
	if err != nil {
		return false, nil, st, err
	}
	st.Bounded = pr.bounded
	e := newEngine(ctx, pr, PruneRDMA)
	e.violations = true
	e.leaf = func(e *engine, s *state) bool {
		st.Candidates++
		r, c := e.flags(s)
		if r {
			st.RDMA++
		}
		if c {
			st.SC++
		}
		if r && !c {
			witness = e.trace(s)
			return false
		}
		return true
	}
	pr.eachSet(true, true, func(sel []int) bool {
		st.Skeletons++
		e.run(sel)
		return !e.stop
	})
	if witness != nil {
		return false, witness, st, nil
	}
	if e.err != nil {
		return false, nil, st, e.err
	}
	return true, nil, st, nil
}
