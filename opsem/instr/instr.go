// Package instr is the instrumented program of the seed paper's section 6:
// an SC machine whose target states are reachable exactly when the RDMA
// program it instruments is not robust.
//
// # The reduction
//
// By the normal-form theorem (section 5), a program that is not robust has a
// violating trace τ = τ1 τ2 in which τ1 and τ2 are each an SC-consistent
// sequence, every ob edge points forward in τ, and sc has a cycle. Moreover
// (from the construction, τ” = τ1↓σ e τ2↓σ with σ one SC linearisation)
// both halves are restrictions of one global interleaving that respects
// program order, with the maximal event e placed last. The machine guesses
// such a τ: it runs the threads under SC, one event at a time in program
// order, and appends each event to τ1 or to τ2 ("part" 1 or 2).
//
// Memory. τ1 runs on the memory M1, from the initial values. τ2 runs on M2,
// which starts from the memory at the τ1/τ2 boundary, that is the final M1.
// The boundary memory G is guessed lazily: a location's guess is fixed when
// a τ2 read first needs it (a τ2 read of a location τ2 has not written), and
// the target checks G[x] = M1[x] for every fixed guess. With
// Options.EagerGuess the whole of G is guessed before any thread moves (the
// paper's step 1); the two give the same answers, the lazy one fewer states.
// A read in τ1 reads M1, the last τ1 write before it; a read in τ2 reads the
// last τ2 write before it, else the last τ1 write: in both cases the last
// write before it in τ, which is how T(τ) defines rf. rf, mo, rb and nfo of
// T(τ) are therefore forward in τ by construction.
//
// RDMA consistency. τ linearises ob iff every ob edge is forward. Within a
// part, events appear in generation order, which extends po, so ppo, pf and
// every edge defined from τ is forward; only edges from a τ2 event to a τ1
// event can point backwards, and those are po edges (ippo, oppo, pf) to an
// event generated later. The machine forbids them as follows.
//
//   - oppo: an event may join τ1 only if no po-earlier τ2 event of its
//     thread precedes it in oppo. A CPU event in τ2 precedes everything
//     (row ✓ of the table), so from then on the thread stays in τ2 (flag
//     cpu2); NIC events in τ2 are remembered per queue pair by class (in2),
//     and an event of class c joins τ1 only if in2 holds no class a with
//     ppo(a, c) = sqp. The entries come from axiom.PPO, the model's table.
//   - [nlW];pf: the k-th poll of a queue pair polls its k-th NIC write. A
//     poll may join τ1 only if its write is not "forcing". An nlW in τ2 is
//     forcing; so is an nrW in τ2 after an nlR or nF of its queue pair in
//     τ2 (see [Inst];ib below). Per queue pair with polls, counter c2 holds
//     the unpolled NIC writes and c1 those of them that come before the
//     first forcing one (c1 stops growing at it): a τ1 poll needs c1 > 0, a
//     τ2 poll c2 > 0 (pf well-formed), and both take one from each.
//   - [Inst];ib: take a backward path e0 →ib ... →ib en (en ≤τ e0, e0
//     instantaneous) of least length. Its last edge is backward; with the
//     checks above it is nW →ippo nF (same queue pair) or nrW →pf poll. The
//     appendix ("Detailed RDMA-Consistency Checks") shows by cases on the
//     edge before it that only two shapes remain: (a) nlR →nfo nlW →ippo nF
//     with nlW in τ2, nF in τ1 and the nlR in τ1 after the nF: the machine
//     sets a flag on the queue pair when an nF joins τ1 while in2 holds an
//     nlW, and then keeps nlR out of τ1; (b) nlR or nF →ippo nrW →pf poll
//     with both NIC events in τ2 and the poll in τ1: such an nrW is forcing.
//     Every other case either is an edge already forbidden or contradicts
//     the minimality of the path.
//
// SC cycle. A cycle of po ∪ rf ∪ rb ∪ mo can be shortened until it visits
// each thread once (section 6): it enters a thread at an event "entry",
// leaves at a po-later (or the same) event "exit", and goes from each exit
// to the next thread's entry by one rf, mo or rb edge. Conversely, two
// accesses x <τ y to one location of which one writes are related by
// (mo|rf|rb) chains of T(τ) (appendix, "Detailed SC-Cycle Detection").
// So each thread may mark one event as its exit (a guess), and every event
// of the thread up to its exit is a candidate entry (no guess: a candidate
// po-before the exit is as good as any). The machine records an edge from
// thread u to thread t when u's exit x and a candidate entry e of t access
// one location, one of them writes, and x precedes e in τ: when e is
// generated after x, if x is in τ1 or e in τ2; when e was generated first,
// if x is in τ1 and e in τ2. The second case is decided when x is marked,
// from the set of (location, read/write) classes of t's candidates in τ2,
// which is all the machine keeps of them. Instead of guessing the cycle's
// thread order up front, the target asks for a cycle in the recorded
// thread graph: each thread on it uses one incoming edge (one candidate
// entry, po-before its exit) and its exit's outgoing edge.
//
// Target. A state is a target when every fixed guess equals M1 and the
// thread graph has a cycle: the events generated so far form a violating
// trace (traces of partial executions count, so the main thread's "stop" is
// any moment). Every other component of the state is finite except the poll
// counters, which grow without bound when a loop submits puts or gets
// faster than it polls; package explore/cover decides coverability of the
// target with Karp–Miller acceleration. Counters are capped by the number of
// polls still possible (Instr.PollsLeft) when that is finite: values beyond
// it behave alike.
//
// Dead bookkeeping. Each successor is canonicalized (canon): what no
// future step can consult is forgotten, from the locations and classes each
// thread may still access (a fixpoint over its control flow). A location
// no thread may still read loses its τ2 value, and its τ1 value unless a
// guess is pending on it; a guess on a location no thread may still write
// in τ1 is checked at once (a state whose guess already fails is dropped)
// and forgotten. Exit classes no future entry candidate can link to, and
// entry classes no future τ1 exit can link to, are forgotten; a thread that
// can no longer have both an incoming and an outgoing edge is on no cycle,
// and its edges go. On the paper's message-passing family (two threads, n
// rounds of put and poll) this cuts the states 15-fold at n = 2 and
// 50-fold at n = 4.
package instr

import (
	"fmt"
	"slices"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
)

// Omega is the value of a counter accelerated to ω: it stays Omega under
// increments and decrements and enables every poll.
const Omega = ^uint32(0)

// Options configure the instrumented machine.
type Options struct {
	// EagerGuess guesses the whole boundary memory before any thread
	// moves, as the paper's step 1 does, instead of one location at a time
	// when τ2 first reads it.
	EagerGuess bool
	// NoReduction turns off the partial-order reduction (see Successors).
	NoReduction bool
}

// rec is an SC-cycle exit point of a thread, or an event considered as one.
type rec struct {
	set   bool
	loc   uint8
	r, w  bool // the event reads / writes loc
	part2 bool // the event is in τ2
}

// linked reports whether an exit x and an entry y can be joined by rf, mo
// or rb (given x <τ y): same location, and one of them writes. An exit
// whose class was forgotten (neither r nor w, see canonCycle) links to
// nothing.
func linked(x, y rec) bool { return x.loc == y.loc && (x.w || y.w) && (x.r || x.w) }

// linkedSet reports whether exit x is linked to some class of the entry
// candidate set ent: bit 2l stands for a read of location l, bit 2l+1 for
// a write.
func linkedSet(x rec, ent []byte) bool {
	rb, wb := 2*int(x.loc), 2*int(x.loc)+1
	r := ent[rb/8]&(1<<(rb%8)) != 0
	w := ent[wb/8]&(1<<(wb%8)) != 0
	return w || x.w && r
}

// addClass adds the classes of event r to the candidate set ent.
func addClass(ent []byte, r rec) {
	if r.r {
		b := 2 * int(r.loc)
		ent[b/8] |= 1 << (b % 8)
	}
	if r.w {
		b := 2*int(r.loc) + 1
		ent[b/8] |= 1 << (b % 8)
	}
}

// thread is the instrumentation state of one thread.
type thread struct {
	pc   uint16
	mid  bool  // between the two events of a CAS, get or put
	val  uint8 // the value the second event writes (when mid)
	cpu2 bool  // a CPU event of the thread is in τ2
	exit rec
	succ uint64 // SC-cycle edges: bit u set when exit -> entry of thread u
}

// queue is the instrumentation state of one queue pair.
type queue struct {
	in2    uint8 // bit c set when an event of ppo class c is in τ2
	fence  bool  // an nF is in τ1 after an nlW in τ2
	forced bool  // a forcing NIC write has been generated
}

// State is a decoded state of the instrumented machine.
type State struct {
	th        []thread
	q         []queue
	m1, m2, g []uint8
	w2, gset  []bool
	ent       []byte   // per thread, entBytes: classes of its candidate entries in τ2
	c         []uint32 // per counted queue pair: c1, c2
	guessed   int      // eager mode: locations guessed so far
	// bytes backs m1, m2, g and ent, and bools w2 and gset, so that
	// copyFrom copies each in one go.
	bytes []uint8
	bools []bool
}

// Machine is the instrumented machine of one program. It implements
// explore.Machine (states end with their counters, see Counters) and is
// not safe for concurrent use.
type Machine struct {
	p      *prog.Program
	opt    Options
	nt, nq int
	nl     int
	ctr    []int // ctr[q]: index of q's c1 (c2 follows), -1 when q has no polls
	nctr   int
	qps    [][]int // qps[t]: queue pairs of thread t
	forbid [6]uint8
	domain [][]uint8
	// markable[l]: accesses to l can be on an sc cycle: the program has
	// two accesses to l (an instruction on a loop counts twice), one of
	// which writes. Initial writes are on no cycle.
	markable []bool
	// isRead[l]: some instruction reads l. The values of other
	// locations never matter, and are not tracked.
	isRead []bool
	succN  int // bytes of a thread's succ bits
	// entBytes: bytes of a thread's candidate-entry classes
	entBytes int
	thLen    int

	st, nx  *State
	cn      *State // the canonical copy of nx being encoded
	buf     []byte
	cur     Step // the step being emitted
	emitted int  // successors emitted by the current expansion
	onCycle [][]bool
	emit    func(uint64, []byte)

	// futR[t][pc] and futW[t][pc]: the locations thread t may still read
	// / write from instruction pc on (both events of pc
	// included); midR and midW: the same in the middle of pc, after its
	// first event. Bitsets of words words.
	futR, futW, midR, midW [][][]uint64
	words                  int
	// live scratch: per thread, the markable locations other threads may
	// still read/write (see canonCycle).
	liveR, liveW []uint64
	scr          []uint64
	entKeep      []byte // entBytes of scratch for canonCycle
}

// New builds the instrumented machine of p.
func New(p *prog.Program, opt Options) (*Machine, error) {
	if len(p.Threads) > 64 {
		return nil, fmt.Errorf("instrumenting %s: %d threads, more than 64", p.Name, len(p.Threads))
	}
	m := &Machine{p: p, opt: opt, nt: len(p.Threads), nq: len(p.QPs), nl: len(p.Locs)}
	m.ctr = make([]int, m.nq)
	m.qps = make([][]int, m.nt)
	for q, qp := range p.QPs {
		m.ctr[q] = -1
		m.qps[qp.Thread] = append(m.qps[qp.Thread], q)
	}
	for t := range p.Threads {
		for _, in := range p.Threads[t].Code {
			if in.Op == prog.OpPoll && m.ctr[in.QP] < 0 {
				m.ctr[in.QP] = m.nctr
				m.nctr += 2
			}
		}
	}
	// forbid[b]: classes a with a ->oppo b on one queue pair.
	for b := axiom.ClassNLR; b <= axiom.ClassNF; b++ {
		for a := axiom.ClassNLR; a <= axiom.ClassNF; a++ {
			ea := axiom.Event{Event: prog.Event{Kind: classKind(a), Remote: 0}, Index: 0}
			eb := axiom.Event{Event: prog.Event{Kind: classKind(b), Remote: 0}, Index: 1}
			if _, o := axiom.PPO(&ea, &eb); o {
				m.forbid[b] |= 1 << a
			}
		}
	}
	m.domain = domains(p)
	m.succN = (m.nt + 7) / 8
	m.thLen = 5 + m.succN
	m.entBytes = (2*m.nl + 7) / 8
	m.markable, m.isRead = accesses(p)
	for t := range p.Threads {
		m.onCycle = append(m.onCycle, prog.OnCycle(p.Threads[t].Code))
	}
	m.futureAccesses()
	m.st, m.nx, m.cn = m.NewState(), m.NewState(), m.NewState()
	return m, nil
}

// Markable reports whether accesses to location l can be on an sc cycle:
// the program has two accesses to l (an instruction on a loop counts twice),
// one of which writes.
func (m *Machine) Markable(l int) bool { return m.markable[l] }

// IsRead reports whether some instruction reads location l; the values of
// other locations never matter.
func (m *Machine) IsRead(l int) bool { return m.isRead[l] }

// Forbid returns, per ppo class b, the set of classes a (bit a) with a ->oppo
// b on one queue pair: the classes whose pending events on a queue pair
// forbid an event of class b to start τ2 there.
func (m *Machine) Forbid() [6]uint8 { return m.forbid }

// classKind returns an event kind of ppo class c.
func classKind(c axiom.Class) prog.EventKind {
	switch c {
	case axiom.ClassNLR:
		return prog.EvNLR
	case axiom.ClassNRW:
		return prog.EvNRW
	case axiom.ClassNRR:
		return prog.EvNRR
	case axiom.ClassNLW:
		return prog.EvNLW
	case axiom.ClassNF:
		return prog.EvNF
	}
	return prog.EvLW
}

// accesses computes which locations can carry SC-cycle marks and which
// are read (see Machine.markable and Machine.read).
func accesses(p *prog.Program) (markable, read []bool) {
	n := make([]int, len(p.Locs))
	written := make([]bool, len(p.Locs))
	read = make([]bool, len(p.Locs))
	for t := range p.Threads {
		code := p.Threads[t].Code
		onCycle := prog.OnCycle(code)
		access := func(pc, l int, w bool) {
			n[l]++
			if onCycle[pc] {
				n[l]++
			}
			if w {
				written[l] = true
			} else {
				read[l] = true
			}
		}
		for pc, in := range code {
			switch in.Op {
			case prog.OpWrite:
				access(pc, in.X, true)
			case prog.OpAssumeEq, prog.OpAssumeNe:
				access(pc, in.X, false)
			case prog.OpCAS:
				access(pc, in.Z, false)
				access(pc, in.Z, true)
				n[in.Z]-- // one CAS or lR event on z
				access(pc, in.X, true)
			case prog.OpGet:
				access(pc, in.Y, false)
				access(pc, in.X, true)
			case prog.OpPut:
				access(pc, in.X, false)
				access(pc, in.Y, true)
			}
		}
	}
	markable = make([]bool, len(p.Locs))
	for l := range markable {
		markable[l] = n[l] >= 2 && written[l]
	}
	return markable, read
}

// futureAccesses computes futR, futW, midR and midW: per instruction, the
// locations the thread may still read and write, a least
// fixpoint over its control flow.
func (m *Machine) futureAccesses() {
	m.words = (m.nl + 63) / 64
	m.liveR, m.liveW = make([]uint64, m.words), make([]uint64, m.words)
	m.entKeep = make([]byte, m.entBytes)
	for t := range m.p.Threads {
		code := m.p.Threads[t].Code
		n := len(code)
		r, w := make([][]uint64, n), make([][]uint64, n)
		mr, mw := make([][]uint64, n), make([][]uint64, n)
		for pc := range code {
			r[pc], w[pc] = make([]uint64, m.words), make([]uint64, m.words)
			mr[pc], mw[pc] = make([]uint64, m.words), make([]uint64, m.words)
		}
		set := func(b []uint64, l int) { b[l/64] |= 1 << (l % 64) }
		// The events of each instruction: first event into r/w, second
		// (after mid) into mr/mw and r/w.
		for pc, in := range code {
			switch in.Op {
			case prog.OpWrite:
				set(w[pc], in.X)
			case prog.OpAssumeEq, prog.OpAssumeNe:
				set(r[pc], in.X)
			case prog.OpCAS:
				set(r[pc], in.Z)
				set(w[pc], in.Z)
				set(mw[pc], in.X)
			case prog.OpGet:
				set(r[pc], in.Y)
				set(mw[pc], in.X)
			case prog.OpPut:
				set(r[pc], in.X)
				set(mw[pc], in.Y)
			}
		}
		or := func(dst, src []uint64) bool {
			changed := false
			for i := range dst {
				if dst[i]|src[i] != dst[i] {
					dst[i] |= src[i]
					changed = true
				}
			}
			return changed
		}
		for pc := range code {
			or(r[pc], mr[pc])
			or(w[pc], mw[pc])
		}
		for changed := true; changed; {
			changed = false
			for pc, in := range code {
				succ := in.Alts
				if in.Op != prog.OpBranch {
					if in.Next < 0 {
						continue
					}
					succ = []int{in.Next}
				}
				for _, nx := range succ {
					changed = or(r[pc], r[nx]) || changed
					changed = or(w[pc], w[nx]) || changed
				}
			}
		}
		for pc, in := range code {
			if in.Op != prog.OpBranch && in.Next >= 0 {
				or(mr[pc], r[in.Next])
				or(mw[pc], w[in.Next])
			}
		}
		m.futR, m.futW = append(m.futR, r), append(m.futW, w)
		m.midR, m.midW = append(m.midR, mr), append(m.midW, mw)
	}
}

// future returns the locations thread t of s may still read and write.
func (m *Machine) future(s *State, t int) (r, w []uint64) {
	th := &s.th[t]
	if th.mid {
		return m.midR[t][th.pc], m.midW[t][th.pc]
	}
	return m.futR[t][th.pc], m.futW[t][th.pc]
}

func bit(b []uint64, l int) bool { return b[l/64]&(1<<(l%64)) != 0 }

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
		if s.th[u].exit.set || m.ended(s, u) {
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
	for t := range s.th {
		if x := &s.th[t].exit; x.set {
			l := int(x.loc)
			if !anyEnt || !(bit(exW, l) || x.w && bit(exR, l)) {
				*x = rec{set: true}
			}
		}
		ent := s.ent[t*m.entBytes : (t+1)*m.entBytes]
		for i := range ent {
			ent[i] &= keep[i]
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
			open := !th.exit.set && !m.ended(s, t) // may still add entries and mark an exit
			out := open || th.succ != 0 || th.exit.r || th.exit.w
			in := open || inEdges&(1<<t) != 0
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
			th.succ = 0
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
			if !s.gset[l] {
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

// ended reports whether thread t of s has terminated.
func (m *Machine) ended(s *State, t int) bool {
	th := &s.th[t]
	return !th.mid && m.p.Threads[t].Code[th.pc].Op == prog.OpEnd
}

// domains computes, per location, the values it can ever hold: its initial
// value, the constants written to it, and the values that flow into it by
// CAS results, gets and puts (a least fixpoint).
func domains(p *prog.Program) [][]uint8 {
	has := make([][256]bool, len(p.Locs))
	for l, loc := range p.Locs {
		has[l][loc.Init] = true
	}
	flow := func(from, to int) bool {
		changed := false
		for v := range has[from] {
			if has[from][v] && !has[to][v] {
				has[to][v] = true
				changed = true
			}
		}
		return changed
	}
	for changed := true; changed; {
		changed = false
		for t := range p.Threads {
			for _, in := range p.Threads[t].Code {
				switch in.Op {
				case prog.OpWrite:
					if !has[in.X][in.A] {
						has[in.X][in.A] = true
						changed = true
					}
				case prog.OpCAS:
					if !has[in.Z][in.B] {
						has[in.Z][in.B] = true
						changed = true
					}
					changed = flow(in.Z, in.X) || changed
				case prog.OpGet:
					changed = flow(in.Y, in.X) || changed
				case prog.OpPut:
					changed = flow(in.X, in.Y) || changed
				}
			}
		}
	}
	out := make([][]uint8, len(p.Locs))
	for l := range has {
		for v := range has[l] {
			if has[l][v] {
				out[l] = append(out[l], uint8(v))
			}
		}
	}
	return out
}

// Program returns the instrumented program.
func (m *Machine) Program() *prog.Program { return m.p }

// Counters returns the number of counters that end every state encoding:
// 4 bytes each, big-endian, Omega for ω. Two per queue pair with polls.
func (m *Machine) Counters() int { return m.nctr }

// Finite reports whether the machine has finitely many states: every
// counter is capped by a finite number of polls still possible, as no poll
// of its queue pair lies on a loop (Instr.PollsLeft at its thread's entry is
// finite). Every other component of a state is finite, so then a plain
// exhaustive search decides the target, with no Karp–Miller acceleration.
func (m *Machine) Finite() bool {
	for q, c := range m.ctr {
		if c < 0 {
			continue
		}
		qp := m.p.QPs[q]
		th := &m.p.Threads[qp.Thread]
		if th.Code[th.Entry].PollsLeft[qp.Local] == prog.Unbounded {
			return false
		}
	}
	return true
}

// Domain returns the values location l can hold.
func (m *Machine) Domain(l int) []uint8 { return m.domain[l] }

// NewState returns a zero State sized for m.
func (m *Machine) NewState() *State {
	nl, ne := m.nl, m.nt*m.entBytes
	b, f := make([]uint8, 3*nl+ne), make([]bool, 2*nl)
	return &State{
		th: make([]thread, m.nt), q: make([]queue, m.nq),
		m1: b[:nl:nl], m2: b[nl : 2*nl : 2*nl], g: b[2*nl : 3*nl : 3*nl], ent: b[3*nl:],
		w2: f[:nl:nl], gset: f[nl:],
		c: make([]uint32, m.nctr), bytes: b, bools: f,
	}
}

// copyFrom makes s a copy of o, a state of the same machine.
func (s *State) copyFrom(o *State) {
	copy(s.th, o.th)
	copy(s.q, o.q)
	copy(s.bytes, o.bytes)
	copy(s.bools, o.bools)
	copy(s.c, o.c)
	s.guessed = o.guessed
}

// Initial appends the initial state: every thread at its entry, M1 the
// initial memory, nothing in τ2, no guess, counters zero.
func (m *Machine) Initial(dst []byte) []byte {
	st := m.st
	st.guessed = 0
	for t := range st.th {
		st.th[t] = thread{pc: uint16(m.p.Threads[t].Entry)}
	}
	for q := range st.q {
		st.q[q] = queue{}
	}
	for l := range st.m1 {
		st.m1[l] = m.p.Locs[l].Init
		st.m2[l], st.g[l], st.w2[l], st.gset[l] = 0, 0, false, false
	}
	for i := range st.c {
		st.c[i] = 0
	}
	for i := range st.ent {
		st.ent[i] = 0
	}
	m.canon(st)
	return m.encode(dst, st)
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func (m *Machine) encode(dst []byte, s *State) []byte {
	n := len(dst)
	size := m.nt*m.thLen + len(s.ent) + m.nq + 4*m.nl + 4*m.nctr
	dst = slices.Grow(dst, size)[:n+size]
	e := dst[n:]
	i := 0
	for t := range s.th {
		th := &s.th[t]
		e[i], e[i+1] = uint8(th.pc>>8), uint8(th.pc)
		e[i+2] = b2u(th.mid) | b2u(th.cpu2)<<1 | b2u(th.exit.set)<<2 | b2u(th.exit.r)<<3 | b2u(th.exit.w)<<4 |
			b2u(th.exit.part2)<<5
		e[i+3], e[i+4] = th.val, th.exit.loc
		for k := 0; k < m.succN; k++ {
			e[i+5+k] = uint8(th.succ >> (8 * k))
		}
		i += m.thLen
	}
	i += copy(e[i:], s.ent)
	for q := range s.q {
		e[i] = s.q[q].in2 | b2u(s.q[q].fence)<<6 | b2u(s.q[q].forced)<<7
		i++
	}
	for l := range s.m1 {
		e[i], e[i+1], e[i+2], e[i+3] = s.m1[l], s.m2[l], s.g[l], b2u(s.w2[l])|b2u(s.gset[l])<<1
		i += 4
	}
	for _, c := range s.c {
		e[i], e[i+1], e[i+2], e[i+3] = uint8(c>>24), uint8(c>>16), uint8(c>>8), uint8(c)
		i += 4
	}
	return dst
}

// Decode decodes the encoding e into s.
func (m *Machine) Decode(e []byte, s *State) {
	i := 0
	for t := range s.th {
		th := &s.th[t]
		f1 := e[i+2]
		*th = thread{
			pc: uint16(e[i])<<8 | uint16(e[i+1]), mid: f1&1 != 0, cpu2: f1&2 != 0, val: e[i+3],
			exit: rec{set: f1&4 != 0, r: f1&8 != 0, w: f1&16 != 0, part2: f1&32 != 0, loc: e[i+4]},
		}
		for k := 0; k < m.succN; k++ {
			th.succ |= uint64(e[i+5+k]) << (8 * k)
		}
		i += m.thLen
	}
	i += copy(s.ent, e[i:i+len(s.ent)])
	for q := range s.q {
		b := e[i]
		s.q[q] = queue{in2: b & 0x3F, fence: b&0x40 != 0, forced: b&0x80 != 0}
		i++
	}
	for l := range s.m1 {
		s.m1[l], s.m2[l], s.g[l] = e[i], e[i+1], e[i+2]
		s.w2[l], s.gset[l] = e[i+3]&1 != 0, e[i+3]&2 != 0
		i += 4
	}
	for k := range s.c {
		s.c[k] = uint32(e[i])<<24 | uint32(e[i+1])<<16 | uint32(e[i+2])<<8 | uint32(e[i+3])
		i += 4
	}
	s.guessed = 0
	if m.opt.EagerGuess {
		for s.guessed < m.nl && s.gset[s.guessed] {
			s.guessed++
		}
	}
}

// canon forgets what can no longer matter, so that equivalent states
// encode equally: the queue-pair bookkeeping of a thread that can put no
// more events in τ1 (cpu2) or has ended, c1 of a cpu2 thread, and counter
// values beyond the number of polls still possible.
func (m *Machine) canon(s *State) bool {
	if !m.canonMemory(s) {
		return false
	}
	m.canonCycle(s)
	for t := range s.th {
		th := &s.th[t]
		code := m.p.Threads[t].Code
		in := &code[th.pc]
		ended := in.Op == prog.OpEnd && !th.mid
		for _, q := range m.qps[t] {
			if th.cpu2 || ended {
				s.q[q].in2, s.q[q].fence = 0, false
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

// Step describes one transition of the instrumented machine.
type Step struct {
	Thread int        // the thread that moved; -1 for an eager guess
	PC     int        // the instruction it executed (-1 for a guess)
	Event  prog.Event // Kind EvNone for a silent step (skip, branch) or a guess
	Part   int        // 1 or 2: the half of τ the event joins
	Exit   bool       // the event is the thread's SC-cycle exit
	Guess  bool       // the step fixed the boundary value of GuessLoc
	// GuessLoc and GuessVal: the location whose boundary value the step
	// guessed, and the value.
	GuessLoc int
	GuessVal uint8
}

// Labels: thread | part<<8 | cycle choice<<10 | alternative<<12 | value<<32
// | guess<<40 | silent<<41; an eager guess is eagerLabel | loc<<8 | value<<32.
const (
	labelGuess  = 1 << 40
	labelSilent = 1 << 41
	labelEager  = 1 << 42
)

// Successors emits every successor of s.
func (m *Machine) Successors(s []byte, emit func(l uint64, next []byte)) uint32 {
	m.emit = emit
	m.Decode(s, m.st)
	st := m.st
	if m.opt.EagerGuess && st.guessed < m.nl {
		l := st.guessed
		for _, v := range m.domain[l] {
			m.nx.copyFrom(st)
			m.nx.g[l], m.nx.gset[l] = v, true
			m.cur = Step{Thread: -1, PC: -1, Guess: true, GuessLoc: l, GuessVal: v}
			m.out(uint64(labelEager) | uint64(l)<<8 | uint64(v)<<32)
		}
		return 0
	}
	if !m.opt.NoReduction {
		for t := range st.th {
			if m.local(t) {
				m.emitted = 0
				m.threadMoves(t)
				if m.emitted > 0 {
					m.emit = nil
					return 0
				}
			}
		}
	}
	for t := range st.th {
		m.threadMoves(t)
	}
	m.emit = nil
	return 0
}

// local reports whether the next step of thread t is invisible and
// independent of every step of the other threads: a silent step, a fence,
// a poll, or a write to a location that is never read and carries no
// SC-cycle marks; and not on a cycle of t's control flow.
//
// This is the partial-order reduction: when some thread has such a step
// enabled, Successors expands that thread alone (an ample set). Its steps
// change only the thread's own control, queue-pair bookkeeping and
// counters, which no other thread reads and the target ignores, and no
// other thread can enable or disable them; a run to a target that takes
// another thread's step first can take this one first instead and reach a
// state that differs from its target only in t's components, a target
// too. Such steps cannot repeat forever (they are not on a control-flow
// cycle), so no thread is ignored for ever.
func (m *Machine) local(t int) bool {
	th := &m.st.th[t]
	if m.onCycle[t][th.pc] {
		return false
	}
	in := &m.p.Threads[t].Code[th.pc]
	private := func(l int) bool { return !m.isRead[l] && !m.markable[l] }
	if th.mid {
		switch in.Op {
		case prog.OpGet, prog.OpCAS:
			return private(in.X)
		case prog.OpPut:
			return private(in.Y)
		}
		return false
	}
	switch in.Op {
	case prog.OpSkip, prog.OpBranch, prog.OpRFence, prog.OpPoll:
		return true
	case prog.OpWrite:
		return private(in.X)
	}
	return false
}

func (m *Machine) out(l uint64) {
	// Canonicalize a copy: performIn goes on from nx (marking the exit).
	m.cn.copyFrom(m.nx)
	if !m.canon(m.cn) {
		return
	}
	m.buf = m.encode(m.buf[:0], m.cn)
	m.emitted++
	m.emit(l, m.buf)
}

// Transition describes the transition labelled l from state s.
func (m *Machine) Transition(s []byte, l uint64) (Step, error) {
	var found *Step
	m.Successors(s, func(l2 uint64, _ []byte) {
		if l2 == l && found == nil {
			st := m.cur
			found = &st
		}
	})
	if found == nil {
		return Step{}, fmt.Errorf("instr: no transition %#x from this state", l)
	}
	return *found, nil
}

func (m *Machine) threadMoves(t int) {
	th := &m.st.th[t]
	in := &m.p.Threads[t].Code[th.pc]
	if th.mid {
		ev := prog.Event{Kind: prog.EvLW, Thread: t, Loc: in.X, Val: th.val, Remote: -1}
		switch in.Op {
		case prog.OpGet:
			ev.Kind, ev.Remote = prog.EvNLW, in.Remote
		case prog.OpPut:
			ev.Kind, ev.Loc, ev.Remote = prog.EvNRW, in.Y, in.Remote
		}
		m.perform(t, in, ev, false, in.Next, false, 0)
		return
	}
	switch in.Op {
	case prog.OpSkip:
		m.silent(t, in.Next, 0)
	case prog.OpBranch:
		for i, a := range in.Alts {
			m.silent(t, a, i)
		}
	case prog.OpWrite:
		m.perform(t, in, prog.Event{Kind: prog.EvLW, Thread: t, Loc: in.X, Val: in.A, Remote: -1}, false, in.Next, false, 0)
	case prog.OpRFence:
		m.perform(t, in, prog.Event{Kind: prog.EvNF, Thread: t, Loc: -1, Remote: in.Remote}, false, in.Next, false, 0)
	case prog.OpPoll:
		m.perform(t, in, prog.Event{Kind: prog.EvPoll, Thread: t, Loc: -1, Remote: in.Remote}, false, in.Next, false, 0)
	case prog.OpAssumeEq, prog.OpAssumeNe, prog.OpCAS, prog.OpGet, prog.OpPut:
		m.read(t, in)
	}
}

func (m *Machine) silent(t, pc, alt int) {
	m.nx.copyFrom(m.st)
	m.cur = Step{Thread: t, PC: int(m.nx.th[t].pc)}
	m.nx.th[t].pc = uint16(pc)
	m.out(uint64(t) | uint64(alt)<<12 | labelSilent)
}

// read generates the first event of an instruction that reads memory, in
// each part and with each value the part's memory (or a fresh guess) gives.
func (m *Machine) read(t int, in *prog.Instr) {
	st := m.st
	loc := in.X
	kind, mid := prog.EvLR, false
	switch in.Op {
	case prog.OpCAS:
		loc, mid = in.Z, true
	case prog.OpGet:
		loc, kind, mid = in.Y, prog.EvNRR, true
	case prog.OpPut:
		kind, mid = prog.EvNLR, true
	}
	for part := 1; part <= 2; part++ {
		var vals []uint8
		guess := false
		switch {
		case part == 1:
			vals = st.m1[loc : loc+1]
		case st.w2[loc]:
			vals = st.m2[loc : loc+1]
		case st.gset[loc]:
			vals = st.g[loc : loc+1]
		default:
			vals, guess = m.domain[loc], true
		}
		for _, v := range vals {
			ev := prog.Event{Kind: kind, Thread: t, Loc: loc, Val: v, Remote: -1}
			switch in.Op {
			case prog.OpAssumeEq:
				if v != in.A {
					continue
				}
			case prog.OpAssumeNe:
				if v == in.A {
					continue
				}
			case prog.OpCAS:
				if v == in.A {
					ev.Kind, ev.New = prog.EvCAS, in.B
				}
			case prog.OpGet, prog.OpPut:
				ev.Remote = in.Remote
			}
			next := in.Next
			if mid {
				next = -1
			}
			m.performIn(t, in, ev, part, guess, next, mid, v)
		}
	}
}

// perform generates event ev of thread t in both parts.
func (m *Machine) perform(t int, in *prog.Instr, ev prog.Event, guess bool, next int, mid bool, val uint8) {
	for part := 1; part <= 2; part++ {
		m.performIn(t, in, ev, part, guess, next, mid, val)
	}
}

// allowed reports whether event ev of thread t may join part.
func (m *Machine) allowed(st *State, ev prog.Event, qp, part int) bool {
	cls := axiom.ClassOf(ev.Kind)
	if part == 2 {
		if ev.Kind == prog.EvPoll {
			return st.c[m.ctr[qp]+1] > 0
		}
		return true
	}
	if st.th[ev.Thread].cpu2 {
		return false
	}
	if cls != axiom.ClassCPU {
		q := &st.q[qp]
		if q.in2&m.forbid[cls] != 0 {
			return false
		}
		if cls == axiom.ClassNLR && q.fence {
			return false
		}
	}
	if ev.Kind == prog.EvPoll {
		return st.c[m.ctr[qp]] > 0
	}
	return true
}

func dec(c uint32) uint32 {
	if c == Omega {
		return c
	}
	return c - 1
}

func inc(c uint32) uint32 {
	if c >= Omega-1 {
		return Omega
	}
	return c + 1
}

// performIn generates event ev of thread t in one part, if allowed: it
// applies the event to the part's memory and the bookkeeping, moves the
// thread on (to next, or to the middle of its instruction), and emits one
// successor per SC-cycle choice.
func (m *Machine) performIn(t int, in *prog.Instr, ev prog.Event, part int, guess bool, next int, mid bool, val uint8) {
	st := m.st
	qp := in.QP
	if !m.allowed(st, ev, qp, part) {
		return
	}
	// Memory.
	w, wv := false, ev.Val
	switch ev.Kind {
	case prog.EvLW, prog.EvNLW, prog.EvNRW:
		w = true
	case prog.EvCAS:
		w, wv = true, ev.New
	}
	nx := m.nx
	nx.copyFrom(st)
	if guess {
		nx.g[ev.Loc], nx.gset[ev.Loc] = ev.Val, true
	}
	if w && m.isRead[ev.Loc] {
		if part == 1 {
			nx.m1[ev.Loc] = wv
		} else {
			nx.m2[ev.Loc], nx.w2[ev.Loc] = wv, true
		}
	}
	// RDMA bookkeeping.
	th := &nx.th[t]
	cls := axiom.ClassOf(ev.Kind)
	if qp >= 0 {
		q := &nx.q[qp]
		in2 := q.in2
		if part == 2 && cls != axiom.ClassCPU {
			q.in2 |= 1 << cls
		}
		if part == 1 && cls == axiom.ClassNF && in2&(1<<axiom.ClassNLW) != 0 {
			q.fence = true
		}
		if c := m.ctr[qp]; c >= 0 {
			switch ev.Kind {
			case prog.EvNLW, prog.EvNRW:
				forcing := part == 2 && (ev.Kind == prog.EvNLW || in2&(1<<axiom.ClassNLR|1<<axiom.ClassNF) != 0)
				if forcing {
					q.forced = true
				}
				if !q.forced {
					nx.c[c] = inc(nx.c[c])
				}
				nx.c[c+1] = inc(nx.c[c+1])
			case prog.EvPoll:
				if part == 1 {
					nx.c[c] = dec(nx.c[c])
				} else if nx.c[c] > 0 {
					nx.c[c] = dec(nx.c[c])
				}
				nx.c[c+1] = dec(nx.c[c+1])
			}
		}
	}
	if part == 2 && cls == axiom.ClassCPU {
		th.cpu2 = true
	}
	th.mid, th.val = mid, val
	if !mid {
		th.pc = uint16(next)
		th.val = 0
	}
	base := uint64(t) | uint64(part)<<8 | uint64(ev.Val)<<32
	if guess {
		base |= labelGuess
	}
	m.cur = Step{Thread: t, PC: int(st.th[t].pc), Event: ev, Part: part, Guess: guess}
	if guess {
		m.cur.GuessLoc, m.cur.GuessVal = ev.Loc, ev.Val
	}
	if ev.Loc < 0 || !m.markable[ev.Loc] {
		m.out(base)
		return
	}
	// SC cycle: the event is a candidate entry until the thread marks its
	// exit; it may become the exit (a second successor).
	r := rec{set: true, loc: uint8(ev.Loc), part2: part == 2,
		r: ev.Kind == prog.EvLR || ev.Kind == prog.EvCAS || ev.Kind == prog.EvNLR || ev.Kind == prog.EvNRR, w: w}
	if st.th[t].exit.set {
		m.out(base)
		return
	}
	for u := range nx.th {
		if x := nx.th[u].exit; x.set && linked(x, r) && (!x.part2 || r.part2) {
			nx.th[u].succ |= 1 << t
		}
	}
	ent := nx.ent[t*m.entBytes : (t+1)*m.entBytes]
	if part == 2 {
		addClass(ent, r)
	}
	m.out(base)
	// The same step, marking the event as the thread's exit.
	nx.th[t].exit = r
	if !r.part2 {
		for u := range nx.th {
			if linkedSet(r, nx.ent[u*m.entBytes:(u+1)*m.entBytes]) {
				nx.th[t].succ |= 1 << u
			}
		}
	}
	m.cur.Exit = true
	m.out(base | 2<<10)
	m.cur.Exit = false
}

// Target reports whether s is a target state: every fixed boundary guess
// equals τ1's memory, and the recorded SC-cycle edges form a cycle.
func (m *Machine) Target(s []byte) bool {
	// Without SC-cycle edges there is no cycle: look at the threads'
	// edge bytes (see encode) before decoding anything.
	edges := false
	for t := 0; t < m.nt && !edges; t++ {
		for _, b := range s[t*m.thLen+5 : t*m.thLen+5+m.succN] {
			edges = edges || b != 0
		}
	}
	if !edges {
		return false
	}
	st := m.st
	m.Decode(s, st)
	return m.target(st)
}

func (m *Machine) target(st *State) bool {
	edges := false
	for t := range st.th {
		if st.th[t].succ != 0 {
			edges = true
			break
		}
	}
	if !edges {
		return false
	}
	for l := range st.gset {
		if st.gset[l] && st.g[l] != st.m1[l] {
			return false
		}
	}
	return m.cycle(st) != nil
}

// cycle returns the threads of a shortest cycle of SC-cycle edges, in
// order, or nil.
func (m *Machine) cycle(st *State) []int {
	var best []int
	for s := range st.th {
		if st.th[s].succ == 0 {
			continue
		}
		prev := make([]int, m.nt)
		for i := range prev {
			prev[i] = -1
		}
		queue := []int{s}
		found := -1
		for len(queue) > 0 && found < 0 {
			x := queue[0]
			queue = queue[1:]
			for y := 0; y < m.nt; y++ {
				if st.th[x].succ&(1<<y) == 0 {
					continue
				}
				if y == s {
					found = x
					break
				}
				if prev[y] < 0 && y != s {
					prev[y] = x
					queue = append(queue, y)
				}
			}
		}
		if found < 0 {
			continue
		}
		cyc := []int{found}
		for x := found; x != s; {
			x = prev[x]
			cyc = append(cyc, x)
		}
		for i, j := 0, len(cyc)-1; i < j; i, j = i+1, j-1 {
			cyc[i], cyc[j] = cyc[j], cyc[i]
		}
		if best == nil || len(cyc) < len(best) {
			best = cyc
		}
	}
	return best
}

// Clone returns a machine for the same program that shares no mutable
// state with m.
func (m *Machine) Clone() *Machine {
	c := *m
	c.st, c.nx, c.cn = m.NewState(), m.NewState(), m.NewState()
	c.buf = nil
	c.liveR, c.liveW, c.scr = make([]uint64, m.words), make([]uint64, m.words), nil
	c.entKeep = make([]byte, m.entBytes)
	return &c
}
