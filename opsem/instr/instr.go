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
//
// Spin loops (spin.go). A loop branch on one read runs as a switch, skips
// run within the step that reached them, a failed iteration of a spin
// loop that changes no SC-cycle bookkeeping is not taken, and a thread
// outside the cycle's block whose writes no thread can read any more is
// taken to its end; none of it under Options.NoReduction.
//
// Remote atomics (atomic.go, experimental) add three reductions, also off
// under Options.NoReduction: the lock state of a location no step can
// consult is forgotten (atomcanon.go), the values the last τ1 writers may
// still write come from interpreting their code (solo.go), which kills
// most boundary guesses of a shared counter, and the decider reduces by
// the program's symmetry group, which prog.FindSymmetry refuses for
// atomics (AtomicsSymmetry, symmetry.go).
//
// Registers kept at run time (prog.Loc.Reg) are the threads' local state,
// kept in M1 whichever part a thread's events join; a load is the
// thread's local read, an eval into a location its local write, and the
// register-only instructions run within the step that reached them (see
// registers.go).
package instr

import (
	"fmt"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
)

// Options configure the instrumented machine.
type Options struct {
	// EagerGuess guesses the whole boundary memory before any thread
	// moves, as the paper's step 1 does, instead of one location at a time
	// when τ2 first reads it.
	EagerGuess bool
	// NoReduction turns off the partial-order reduction (see Successors).
	NoReduction bool
	// CycleThreads, when not zero, is the set of threads (bit t for thread
	// t) whose events may be SC-cycle entries and exits: the others run,
	// but mark nothing, so only cycles among these threads are found, and
	// a location is markable when these threads access it twice, one of
	// the accesses a write. Zero means every thread. See Blocks: a cycle
	// of any program lies within one of its blocks.
	CycleThreads uint64
	// Frozen is a set of threads (bit t) that never move: threads that
	// cannot change what CycleThreads' threads read (see Influence). A
	// violation whose cycle lies among CycleThreads stays one without
	// their events, and a run in which they never move is a run.
	Frozen uint64
	// AllowAtomics instruments remote atomics (rcas, rfaa) instead of
	// refusing them with an *AtomicsError: EXPERIMENTAL, see atomic.go and
	// SEMANTICS-ATOMICS.md section 5. The normal form behind the reduction
	// is not proved for programs with atomics, so an answer of "robust" on
	// such a program is not a theorem; a violation found is checked and
	// replayed on the RDMA machine as any other.
	AllowAtomics bool
}

// thread is the instrumentation state of one thread.
type thread struct {
	pc  uint16
	mid bool  // between the two events of a CAS, get, put or remote atomic
	val uint8 // the value the second event writes (when mid); the pending atomic's location (when pend)
	// pend: the thread's last event is the read of a remote atomic that
	// is pending (atomic.go): the thread makes no more events. pendIn:
	// that read is the thread's SC-cycle exit, and its implicit mo-last
	// write makes it an entry linked from every other exit on its
	// location.
	pend, pendIn bool
	cpu2         bool // a CPU event of the thread is in τ2
	exit         rec
	succ         uint64 // SC-cycle edges: bit u set when exit -> entry of thread u
}

// queue is the instrumentation state of one queue pair.
type queue struct {
	in2    uint8 // bit c set when an event of ppo class c is in τ2
	fence  bool  // an nF is in τ1 after an nlW in τ2
	forced bool  // a forcing NIC write has been generated
	// held: a fenced operation of the queue pair came after a get's or an
	// atomic's event in τ2, so every later NIC event of the queue pair
	// stays out of τ1 (fenced.go).
	held bool
}

// State is a decoded state of the instrumented machine.
type State struct {
	th        []thread
	q         []queue
	m1, m2, g []uint8
	w2, gset  []bool
	// lk and a2, per location, for remote atomics (atomic.go): the part
	// (1 or 2) of the pending atomic that holds the location's lock, 0
	// for none; and whether an atomic on the location is in τ2.
	lk      []uint8
	a2      []bool
	ent     []byte   // per thread, entBytes: classes of its candidate entries in τ2
	c       []uint32 // per counted queue pair: c1, c2
	guessed int      // eager mode: locations guessed so far
	// bytes backs m1, m2, g, lk and ent, and bools w2, gset and a2, so that
	// copyFrom copies each in one go.
	bytes []uint8
	bools []bool
}

// Machine is the instrumented machine of one program. It implements
// explore.Machine (states end with their counters, see Counters) and is
// not safe for concurrent use: a parallel search gives each worker a Clone,
// which shares the machine's analysis (read only once New has built it)
// and has scratch of its own.
type Machine struct {
	*analysis
	opt Options // per machine: AllSuccessors turns the reduction off for a call
	scratch
	sym *symmetry // symmetry reduction (symmetry.go), nil without
}

// analysis is what New computes of the program: read only afterwards, and
// shared by a machine's clones.
type analysis struct {
	p      *prog.Program
	nt, nq int
	nl     int
	ctr    []int // ctr[q]: index of q's c1 (c2 follows), -1 when q has no polls
	nctr   int
	qps    [][]int // qps[t]: queue pairs of thread t
	forbid [6]uint8
	domain [][]uint8
	// flows: per thread, the values its registers may hold at each
	// instruction (regflow.go); nil when the program has no registers.
	flows []*regFlow
	// markable[l]: accesses to l can be on an sc cycle: the program has
	// two accesses to l (an instruction on a loop counts twice), one of
	// which writes. Initial writes are on no cycle.
	markable []bool
	// isRead[l]: some instruction of a thread that is not frozen reads
	// l. The values of other locations never matter, and are not tracked.
	isRead []bool
	// marks: the threads that may mark SC-cycle entries and exits (bit t),
	// Options.CycleThreads or every thread; frozen: Options.Frozen.
	marks, frozen uint64
	succN         int // bytes of a thread's succ bits
	// entBytes: bytes of a thread's candidate-entry classes
	entBytes int
	thLen    int
	onCycle  [][]bool
	// switches[t][pc]: the OpSwitch a loop branch runs as (spin.go); nil
	// under Options.NoReduction. skips: skips are settled (spin.go).
	switches [][]*prog.Instr
	skips    bool
	// retire[t][pc] and retireMid[t][pc]: thread t, at pc or in its
	// middle, can no longer matter to a target and is taken to its end,
	// ends[t] (spin.go); nil under Options.NoReduction.
	retire, retireMid [][]bool
	ends              []int
	// futA[t][pc] and midA[t][pc]: the locations of the remote atomics
	// thread t may still perform (atomcanon.go); nil without atomics and
	// under Options.NoReduction.
	futA, midA [][][]uint64
	// solo: valuesLeft interprets the code of a thread that alone may
	// still put events in τ1 (solo.go); false under Options.NoReduction,
	// without atomics and with registers kept at run time.
	solo     bool
	soloPriv [][]bool // solo.go: soloPrivate

	// futR[t][pc] and futW[t][pc]: the locations thread t may still read
	// / write from instruction pc on (both events of pc
	// included); midR and midW: the same in the middle of pc, after its
	// first event. Bitsets of words words.
	futR, futW, midR, midW [][][]uint64
	// futM[t][pc] and midM[t][pc]: thread t may still access a markable
	// location (see canMark).
	futM, midM [][]bool
	words      int
	// left: per thread, the writes each instruction on may still make
	// (valueAnalysis).
	left []writesLeft
}

// scratch is what one expansion of a state writes: each clone has its own.
type scratch struct {
	// atom: the remote atomic step being emitted (atomic.go).
	atom   struct{ writes, pending bool }
	st, nx *State
	cn     *State // the canonical copy of nx being encoded
	buf    []byte
	cur    Step // the step being emitted
	// readPC, when not -1, is the instruction the step being emitted
	// executes in place of the thread's pc: a switch's alternative.
	readPC  int
	emitted int // successors emitted by the current expansion
	// generated: successors generated by the current expansion, those
	// canon dropped included.
	generated int
	emit      func(uint64, []byte)
	// vals and copyScr: scratch of valuesLeft.
	vals    []valset
	copyScr []copyEdge
	// per thread, the markable locations other threads may still
	// read/write (see canonCycle), and canonCycle's other scratch.
	liveR, liveW []uint64
	scr          []uint64
	entKeep      []byte // entBytes of scratch for canonCycle
	// soloValues' scratch and cache (solo.go).
	soloIn     []valset
	soloPCs    []int
	soloWork   []int
	soloQueued []bool
	soloKey    []byte
	soloTs     []int
	soloRd     []uint64
	soloIndex  map[uint64]int
	soloDense  []int32 // soloRun's dense table, zeroed between runs
	soloStride []int
	soloCache  map[string][]valset
}

// newScratch returns the scratch of a machine with analysis a.
func (m *Machine) newScratch() scratch {
	return scratch{
		st: m.NewState(), nx: m.NewState(), cn: m.NewState(), readPC: -1,
		liveR: make([]uint64, m.words), liveW: make([]uint64, m.words), entKeep: make([]byte, m.entBytes),
		soloCache: map[string][]valset{}, soloRd: make([]uint64, m.words),
	}
}

// New builds the instrumented machine of p.
func New(p *prog.Program, opt Options) (*Machine, error) {
	if len(p.Threads) > 64 {
		return nil, fmt.Errorf("instrumenting %s: %d threads, more than 64", p.Name, len(p.Threads))
	}
	if s := prog.FirstVerbs(p); s != nil {
		// Before atomics: their experimental option does not lift it.
		return nil, &FeatureError{File: p.File, Pos: s.Pos, Stmt: p.SourceString(s), Feature: prog.VerbsFeature(s)}
	}
	if s := prog.FirstAtomic(p); s != nil && !opt.AllowAtomics {
		return nil, &AtomicsError{File: p.File, Pos: s.Pos, Stmt: p.SourceString(s)}
	}
	if opt.AllowAtomics && prog.HasAtomics(p) {
		if err := checkAtomicClasses(); err != nil {
			return nil, err
		}
	}
	if err := prog.CheckRanges(p, "the decider"); err != nil {
		// robust answers on the program without them
		// (prog.WithoutRangeChecks), and says so.
		return nil, err
	}
	m := &Machine{analysis: &analysis{p: p, nt: len(p.Threads), nq: len(p.QPs), nl: len(p.Locs)}, opt: opt}
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
			ea := axiom.Event{Event: prog.Event{Kind: a.Kind(), Remote: 0}, Index: 0}
			eb := axiom.Event{Event: prog.Event{Kind: b.Kind(), Remote: 0}, Index: 1}
			if _, o := axiom.PPO(&ea, &eb); o {
				m.forbid[b] |= 1 << a
			}
		}
	}
	m.domain, m.flows = domains(p)
	m.succN = (m.nt + 7) / 8
	m.thLen = 5 + m.succN
	m.entBytes = (2*m.nl + 7) / 8
	m.frozen = opt.Frozen
	m.marks = opt.CycleThreads
	if m.marks == 0 {
		m.marks = 1<<m.nt - 1 // nt <= 64: shifting by 64 gives 0, and 0-1 every bit
	}
	m.markable, m.isRead = accesses(p, m.marks, m.frozen)
	for t := range p.Threads {
		m.onCycle = append(m.onCycle, prog.OnCycle(p.Threads[t].Code))
	}
	if !opt.NoReduction {
		m.switches, m.skips = loopSwitches(p), true
	}
	m.futureAccesses()
	if !opt.NoReduction {
		m.retirements()
		m.atomicFutures()
	}
	m.valueAnalysis()
	m.solo = !opt.NoReduction && prog.HasAtomics(p) && m.flows == nil
	if m.solo {
		m.soloPrivate()
	}
	m.scratch = m.newScratch()
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

// Program returns the instrumented program.
func (m *Machine) Program() *prog.Program { return m.p }

// Counters returns the number of counters that end every state encoding:
// encoded as explore/cover encodes counters (cover.Counter), cover.Omega
// standing for ω, which enables every poll. Two per queue pair with polls.
func (m *Machine) Counters() int { return m.nctr }

// Finite reports whether the machine has finitely many states: every
// counter is capped by a finite number of polls still possible, as no poll
// of its queue pair lies on a loop (Instr.PollsLeft at its thread's entry is
// finite). Every other component of a state is finite, so then a plain
// exhaustive search decides the target, with no Karp–Miller acceleration.
func (m *Machine) Finite() bool {
	for q, c := range m.ctr {
		if c < 0 || m.frozen&(1<<m.p.QPs[q].Thread) != 0 {
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

// Clone returns a machine for the same program that shares nothing
// mutable with m: the analysis is shared (read only), the scratch and the
// symmetry reduction's buffers are new.
func (m *Machine) Clone() *Machine {
	c := &Machine{analysis: m.analysis, opt: m.opt}
	c.scratch = c.newScratch()
	c.sym = m.sym.clone(m.p)
	return c
}

// FeatureError is the decider's refusal of a program that uses a verbs
// feature of issue 32 (SEMANTICS-VERBS.md) its instrumentation does not
// cover: today quiet, whose event orders every earlier operation of the
// thread before it (SEMANTICS-VERBS.md 6), which the paper's normal form
// (section 6) and the instrumented machine's checks were not re-done for.
// Robustness of such a program is answered by enumeration instead (method
// auto does so by itself, and says why).
type FeatureError struct {
	File    string
	Pos     prog.Pos
	Stmt    string // the statement, as the user wrote it
	Feature string // the feature's keyword: "quiet"
}

func (e *FeatureError) Error() string {
	where := e.Pos.String()
	if e.File != "" {
		where = e.File + ":" + where
	}
	what := e.Feature
	if e.Stmt != e.Feature {
		what += " (" + e.Stmt + ")"
	}
	return fmt.Sprintf("%s: the decider does not cover %s: its instrumentation and normal form are the seed paper's, for puts, gets, fences and polls (SEMANTICS-VERBS.md); decide robustness by enumeration (--method enum-machine or enum-axiom; auto does so by itself)", where, what)
}

// AtomicsError is the decider's refusal of a program with remote atomics
// (rcas, rfaa): the paper's instrumentation, and the normal-form argument
// behind it, cover the seed's instructions only (SEMANTICS-ATOMICS.md).
// Robustness of such a program is answered by enumeration instead.
type AtomicsError struct {
	File string
	Pos  prog.Pos
	Stmt string
}

func (e *AtomicsError) Error() string {
	where := e.Pos.String()
	if e.File != "" {
		where = e.File + ":" + where
	}
	return fmt.Sprintf("%s: the decider does not cover remote atomics (%s): its instrumentation and normal form are the seed paper's, for puts, gets, fences and polls; decide robustness by enumeration (--method enum-machine or enum-axiom; auto does so by itself)", where, e.Stmt)
}
