package instr

import "rdmasim/opsem/prog"

// canonCycle forgets SC-cycle bookkeeping no future step can consult. A
// thread's exit class is consulted only when another thread that has no
// exit yet generates an event on the exit's location (a write, or any
// access when the exit writes); once no such event is possible the class
// is dead and only "exit set" remains. A thread's τ2 entry classes are
// consulted only when a thread (itself included: a cycle may visit one
// thread) marks a τ1 exit on a linked location: a thread with no exit
// yet, no CPU event in τ2 and a future access there (a write for a read
// entry, any access for a write entry). Dead bits are cleared.
func (m *Machine) canonCycle(s *State) {
	// The accesses of the threads that can still generate entry
	// candidates (exR, exW: no exit yet, not ended) and of those among
	// them that can still mark a τ1 exit (liveR, liveW: no CPU event in
	// τ2 either). Both are the same for every thread t below: t's own
	// accesses count in liveR and liveW (a cycle may visit one thread),
	// and exR and exW matter only for a t whose exit is set, which is not
	// among those threads.
	for i := range m.liveR {
		m.liveR[i], m.liveW[i] = 0, 0
	}
	exR, exW := m.scratch2()
	any1, anyEnt := false, false
	for u := range s.th {
		if s.th[u].exit.set || m.ended(s, u) || m.marks&(1<<u) == 0 {
			continue
		}
		r, w := m.future(s, u)
		for i := range exR {
			exR[i] |= r[i]
			exW[i] |= w[i]
		}
		anyEnt = true
		if !s.th[u].cpu2 {
			any1 = true
			for i := range m.liveR {
				m.liveR[i] |= r[i]
				m.liveW[i] |= w[i]
			}
		}
	}
	// keep: the entry classes some thread can still link to, per location
	// a read entry (bit 2l) if it may be written, a write entry (bit 2l+1)
	// if it may be accessed.
	keep := m.entKeep
	for i := range keep {
		keep[i] = 0
	}
	if any1 {
		for l := 0; l < m.nl; l++ {
			rb, wb := 2*l, 2*l+1
			if bit(m.liveW, l) {
				keep[rb/8] |= 1 << (rb % 8)
			}
			if bit(m.liveW, l) || bit(m.liveR, l) {
				keep[wb/8] |= 1 << (wb % 8)
			}
		}
	}
	// A write exit links to every entry on its location (linked), so its
	// read bit is never consulted; a read exit links only to write
	// entries, so when no future entry can read its location it behaves
	// as a write exit. Dually a write entry links to every exit, and a
	// read entry only to write exits: when every future τ1 exit on its
	// location writes (liveR clear there), or the write bit is set, the
	// read bit is a write bit.
	for t := range s.th {
		if x := &s.th[t].exit; x.set && (x.r || x.w) { // else dead already
			l := int(x.loc)
			switch {
			case !anyEnt || !(bit(exW, l) || x.w && bit(exR, l)):
				*x = rec{set: true}
			case x.w:
				x.r = false
			case !bit(exR, l):
				x.r, x.w = false, true
			}
		}
		ent := s.ent[t*m.entBytes : (t+1)*m.entBytes]
		for i := range ent {
			ent[i] &= keep[i]
		}
		for l := 0; l < m.nl; l++ {
			rb := 2 * l
			if ent[rb/8]&(1<<(rb%8)) != 0 && (ent[rb/8]&(2<<(rb%8)) != 0 || !bit(m.liveR, l)) {
				ent[rb/8] = ent[rb/8]&^(1<<(rb%8)) | 2<<(rb%8)
			}
		}
	}
	// A thread that can never again have both an incoming and an outgoing
	// edge is on no cycle, now or later: drop its edges and entries.
	// Dropping a thread's edges only takes edges away from the others, so
	// the threads dropped do not depend on the order: the in-edges read
	// at the start of a round may be stale, which only leaves a drop to
	// the next round.
	for changed := true; changed; {
		changed = false
		var inEdges uint64 // bit t: some edge ends at thread t
		for u := range s.th {
			inEdges |= s.th[u].succ
		}
		for t := range s.th {
			th := &s.th[t]
			open := !th.exit.set && m.canMark(s, t) // may still add entries and mark an exit
			out := open || th.succ != 0 || th.exit.r || th.exit.w
			// A pending atomic that is t's exit is also an entry linked
			// from every later exit on its location (linkPending).
			in := open || inEdges&(1<<t) != 0 || th.pendIn
			ent := s.ent[t*m.entBytes : (t+1)*m.entBytes]
			for _, b := range ent {
				in = in || b != 0
			}
			if in && out {
				continue
			}
			if th.succ != 0 || th.exit.r || th.exit.w {
				changed = true
			}
			th.succ, th.pendIn = 0, false
			if th.exit.set {
				th.exit = rec{set: true}
			}
			for i := range ent {
				if ent[i] != 0 {
					changed = true
				}
				ent[i] = 0
			}
			for u := range s.th {
				if s.th[u].succ&(1<<t) != 0 {
					changed = true
					s.th[u].succ &^= 1 << t
				}
			}
		}
	}
}

// canonMemory forgets memory no future step can consult and checks
// boundary guesses that can no longer change; it returns false when s can
// reach no target. A location's τ2 value (M2, written-in-τ2) is consulted
// only by a future read of it. Its τ1 value is consulted by future reads
// and, once a guess is fixed, by the target's check G = M1; when no thread
// that can still put events in τ1 may write it, M1 is final there, so a
// guess that differs makes s dead and one that agrees is checked once and
// for all and forgotten.
func (m *Machine) canonMemory(s *State) bool {
	rd, w1 := m.scratch2()
	for t := range s.th {
		if m.ended(s, t) {
			continue
		}
		r, w := m.future(s, t)
		for i := range rd {
			rd[i] |= r[i]
			if !s.th[t].cpu2 {
				w1[i] |= w[i]
			}
		}
	}
	if !m.guessesAlive(s, w1) {
		return false
	}
	for l := 0; l < m.nl; l++ {
		if s.gset[l] && !bit(w1, l) {
			if s.g[l] != s.m1[l] {
				return false
			}
			if !m.opt.EagerGuess { // eager guessing counts the guesses made
				s.gset[l], s.g[l] = false, 0
			}
		}
		if !bit(rd, l) {
			s.m2[l], s.w2[l] = 0, false
			// Eager guessing has yet to guess l when l >= s.guessed:
			// the guess is checked against M1, which must stay.
			if !s.gset[l] && !(m.opt.EagerGuess && l >= s.guessed) {
				s.m1[l] = 0
			}
		}
	}
	return true
}

// scratch2 returns two zeroed bitsets.
func (m *Machine) scratch2() (a, b []uint64) {
	if len(m.scr) < 2*m.words {
		m.scr = make([]uint64, 2*m.words)
	}
	for i := range m.scr {
		m.scr[i] = 0
	}
	return m.scr[:m.words], m.scr[m.words : 2*m.words]
}

// ended reports whether thread t of s has terminated, or is frozen.
func (m *Machine) ended(s *State, t int) bool {
	if m.frozen&(1<<t) != 0 {
		return true // it never moves (Options.Frozen)
	}
	th := &s.th[t]
	op := m.p.Threads[t].Code[th.pc].Op
	return th.pend || !th.mid && (op == prog.OpEnd || op == prog.OpFail)
}

// canon forgets what can no longer matter, so that equivalent states
// encode equally: the queue-pair bookkeeping of a thread that can put no
// more events in τ1 (cpu2) or has ended, c1 of a cpu2 thread, and counter
// values beyond the number of polls still possible.
func (m *Machine) canon(s *State) bool {
	m.retired(s)
	if !m.canonMemory(s) {
		return false
	}
	m.canonCycle(s)
	m.canonLocks(s)
	if !m.cycleLeft(s) {
		return false
	}
	for t := range s.th {
		th := &s.th[t]
		code := m.p.Threads[t].Code
		in := &code[th.pc]
		// a failed thread makes no more events, nor does one whose
		// atomic stays pending
		ended := (in.Op == prog.OpEnd || in.Op == prog.OpFail) && !th.mid || th.pend
		// A thread that can touch no markable location again takes part
		// in no new edge: whether it marked an exit is then consulted
		// only through the class and the edges, so an exit whose class
		// is dead and that has no edges is as if never marked. And an
		// ended thread's cpu2 is consulted by nothing.
		if x := th.exit; x.set && !x.r && !x.w && th.succ == 0 && !m.canMark(s, t) {
			th.exit, th.pendIn = rec{}, false
		}
		if ended {
			th.cpu2 = false
		}
		for _, q := range m.qps[t] {
			if th.cpu2 || ended {
				s.q[q].in2, s.q[q].fence, s.q[q].held = 0, false, false
			}
			c := m.ctr[q]
			if c < 0 {
				continue
			}
			if th.cpu2 {
				s.c[c] = 0
				s.q[q].forced = false
			}
			left := 0
			if !ended {
				left = in.PollsLeft[m.p.QPs[q].Local]
			}
			if left == 0 {
				s.c[c], s.c[c+1] = 0, 0
				s.q[q].forced = false
			} else if left != prog.Unbounded {
				s.c[c] = min(s.c[c], uint32(left))
				s.c[c+1] = min(s.c[c+1], uint32(left))
			}
		}
	}
	return true
}

// cycleLeft reports whether s has an SC cycle or may still get one: an
// edge can still be added only by an exit whose class is alive (canonCycle
// forgets the others) or by a thread with no exit yet that may still
// access a markable location (an entry or an exit to come). A state with
// neither and no cycle reaches no target.
func (m *Machine) cycleLeft(s *State) bool {
	edges := false
	for t := range s.th {
		th := &s.th[t]
		if th.exit.set && (th.exit.r || th.exit.w) || !th.exit.set && m.canMark(s, t) {
			return true
		}
		edges = edges || th.succ != 0
	}
	return edges && m.cycle(s) != nil
}
