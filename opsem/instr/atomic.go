package instr

import (
	"fmt"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
)

// Remote atomics (rcas, rfaa), behind Options.AllowAtomics: EXPERIMENTAL.
//
// The reduction of the package comment rests on the paper's normal form,
// which SEMANTICS-ATOMICS.md section 5 does not prove once atomics exist
// ((B1) an rcas whose comparison flips, (B2) a maximal event that is an
// atomic's write). This file instruments the normal form that section 5.2
// (B3) describes, so that `rdmasim fuzz --atomics --atomics-decider` can
// compare it with both enumerations and look for a counterexample. A
// violation it finds is a real one (the witness is checked against the
// declarative model and replayed on the RDMA machine, as every witness);
// an answer "robust" is only as good as that comparison.
//
// What the machine guesses for an atomic A = x := rcas/rfaa(y, …) of thread
// t on queue pair q:
//
//   - Whole: its naR and (unless an rcas's comparison fails) its naW are one
//     SC step, in τ1 or in τ2, on that part's memory, as a local CAS; its
//     nlW follows as a get's second event. Both events are instantaneous and
//     have the ppo row and column of a get's nrR (section 3 of
//     SEMANTICS-ATOMICS.md; New checks this against axiom.PPO), so the
//     queue-pair bookkeeping records them as nrR (bookClass). The atomicity
//     axiom's edges at = {(e_B, r_A)} are forward in τ by construction: e_B
//     is mo- or rb-before w_A, so before w_A in τ, and r_A comes just
//     before w_A.
//   - Pending: a writing atomic's naR, whose naW never comes (the model's
//     prefixes, section 4: a pending atomic is its thread's last event, so
//     the thread stops). It holds y's lock to the end of τ: its write is
//     read as mo-last, so at gives e_B → r_A for every other atomic B on
//     y, and these must be forward: no atomic on y may come after r_A in τ.
//     The machine keeps per location the part of the pending atomic that
//     holds the lock (lk) and whether an atomic on y is in τ2 (a2), and
//     allows an atomic in part p only where it comes before the lock in τ
//     (lockFree). In the SC cycle the pending atomic is one node: out of
//     it go r_A's rb edges (it is a read exit), into it come edges from
//     every other access of y (into w_A, mo-last: mo from every write, rb
//     from every read), whatever their place in τ (pendIn, linkPending).
//
// Not instrumented: an atomic split by the τ1/τ2 boundary (read in τ1,
// write in τ2), which section 5.2 leaves open.

// bookClass returns the ppo class under which the queue-pair bookkeeping
// (in2, forbid) records an event of kind k: its own, except a remote
// atomic's naR and naW, which have a get's nrR row and column (checked by
// New, see checkAtomicClasses).
func bookClass(k prog.EventKind) axiom.Class {
	if k.IsAtomic() {
		return axiom.ClassNRR
	}
	return axiom.ClassOf(k)
}

// checkAtomicClasses verifies what bookClass assumes: for every class c of
// the table, naR and naW are ordered with c (both ways, in ippo and in oppo,
// on one queue pair) exactly as nrR is.
func checkAtomicClasses() error {
	ev := func(k prog.EventKind, i int) axiom.Event {
		return axiom.Event{Event: prog.Event{Kind: k, Remote: 0}, Index: i}
	}
	for _, a := range []prog.EventKind{prog.EvNAR, prog.EvNAW} {
		for c := axiom.ClassCPU; c <= axiom.ClassNF; c++ {
			for _, first := range []bool{true, false} {
				x, y, rx, ry := ev(a, 0), ev(c.Kind(), 1), ev(prog.EvNRR, 0), ev(c.Kind(), 1)
				if !first {
					x, y, rx, ry = ev(c.Kind(), 0), ev(a, 1), ev(c.Kind(), 0), ev(prog.EvNRR, 1)
				}
				i1, o1 := axiom.PPO(&x, &y)
				i2, o2 := axiom.PPO(&rx, &ry)
				if i1 != i2 || o1 != o2 {
					return fmt.Errorf("instr: ppo of %s and %s differs from nrR's", axiom.ClassOf(a), c)
				}
			}
		}
	}
	return nil
}

// atomic generates the first step of remote atomic in of thread t: whole or
// pending, in each part, with each value the part's memory (or a fresh
// guess) gives.
func (m *Machine) atomic(t int, in *prog.Instr) {
	st := m.st
	y := in.Y
	for part := 1; part <= 2; part++ {
		var vals []uint8
		guess := false
		switch {
		case part == 1:
			vals = st.m1[y : y+1]
		case st.w2[y]:
			vals = st.m2[y : y+1]
		case st.gset[y]:
			vals = st.g[y : y+1]
		default:
			vals, guess = m.domain[y], true
		}
		for _, v := range vals {
			nv, writes := in.AtomicResult(v)
			ev := prog.Event{Kind: prog.EvNAR, Thread: t, Loc: y, Val: v, New: nv, Remote: in.Remote}
			if m.lockFree(st, y, part, false) {
				m.atom.writes, m.atom.pending = writes, false
				m.performIn(t, in, ev, part, guess, -1, true, v)
			}
			if writes && m.lockFree(st, y, part, true) {
				m.atom.writes, m.atom.pending = true, true
				m.performIn(t, in, ev, part, guess, -1, false, v)
			}
			m.atom.writes, m.atom.pending = false, false
		}
	}
}

// lockFree reports whether an atomic on y may join part of τ in s without
// an at edge pointing backwards: it must come before the pending atomic
// that holds y's lock, if any (a τ1 atomic comes before a τ2 lock); and a
// pending atomic (pending) must come after every other atomic on y, so it
// may not join τ1 once an atomic on y is in τ2.
func (m *Machine) lockFree(s *State, y, part int, pending bool) bool {
	lk := int(s.lk[y])
	if lk != 0 && (pending || part >= lk) {
		return false
	}
	return !(pending && part == 1 && s.a2[y])
}

// lock records in s an atomic on y joining part (the one being emitted,
// m.atom).
func (m *Machine) lock(s *State, y, part int) {
	if m.atom.pending {
		s.lk[y] = uint8(part)
	}
	if part == 2 {
		s.a2[y] = true
	}
}

// linkPending adds the SC-cycle edges of a pending atomic: when thread t
// marks exit r, into every thread u whose exit is a pending atomic on r's
// location (its implicit write is mo-last: every other access links to
// it); and when r is itself a pending atomic (t.pend, just set), from
// every other thread's exit on its location, which makes it t's entry too
// (pendIn).
func (m *Machine) linkPending(s *State, t int, r rec) {
	th := &s.th[t]
	if th.pend {
		th.pendIn = true
		for u := range s.th {
			if x := s.th[u].exit; u != t && x.set && (x.r || x.w) && int(x.loc) == int(th.val) {
				s.th[u].succ |= 1 << t
			}
		}
		return
	}
	for u := range s.th {
		if u != t && s.th[u].pendIn && s.th[u].val == r.loc {
			th.succ |= 1 << u
		}
	}
}
