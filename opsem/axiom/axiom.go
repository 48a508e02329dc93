// Package axiom is the seed paper's declarative model of RDMA (section 4 of
// shared/paper/rdma-robustness.tex, restated in shared/spec/SEMANTICS.md
// section 2), made executable: it enumerates the traces
// ⟨E, po, pf, rf, mo, nfo⟩ of a program herd7-style and decides, for each,
// RDMA-consistency (ob acyclic) and SC-consistency (sc acyclic).
//
// Events come from Seq(P) per thread with every loop unrolled at most
// Options.Unroll times per entry. A trace's thread events are a po-prefix of
// one label sequence (partial executions); reads take their values from the
// write they read from, so values are never guessed: the enumeration picks
// per-thread event skeletons, then rf (propagating values along rf and the
// intra-instruction data dependencies of CAS, get and put), then mo per
// location, then the nfo orientation of every queue-pair pair, and prunes a
// branch as soon as the relations fixed so far close a cycle (incremental
// transitive closures on 64-bit bitsets).
//
// The package answers three questions: Enumerate (every candidate, with its
// two consistency flags), Outcomes (final memories of complete RDMA- and
// SC-consistent traces) and Robust (is every RDMA-consistent trace, partial
// ones included, SC-consistent; if not, a small violating trace).
package axiom

import (
	"rdmasim/opsem/prog"
)

// MaxEvents is the largest number of events (initial writes included) a trace
// may have: relations are rows of one 64-bit word.
const MaxEvents = 64

// Prune selects which candidates Enumerate reports.
type Prune uint8

// Pruning modes of Enumerate.
const (
	// PruneInconsistent (the default) drops a branch once its relations are
	// both ob-cyclic and sc-cyclic: every trace that is RDMA- or
	// SC-consistent is reported.
	PruneInconsistent Prune = iota
	// PruneNone reports every well-formed candidate (except those whose
	// values would be invented by a cycle of rf and data dependencies:
	// such a cycle lies in ob and in sc, so they are never consistent).
	PruneNone
	// PruneRDMA reports the RDMA-consistent traces only.
	PruneRDMA
	// PruneSC reports the SC-consistent traces only, and does not enumerate
	// nfo (it plays no part in sc): each reported trace carries the one nfo
	// that follows a linear extension of sc, and its rdma flag is computed
	// with that nfo.
	PruneSC
)

// Options configure an enumeration.
type Options struct {
	// Unroll is the number of iterations each loop may take per entry (the
	// body is taken 0..Unroll times each time the loop is reached).
	// Programs with loops need at least 1 to run their bodies.
	Unroll int
	// MaxEvents bounds the events of a trace, initial writes included;
	// 0 means MaxEvents (64), the largest supported value.
	MaxEvents int
	// Prune is the pruning mode of Enumerate; Outcomes and Robust choose
	// their own.
	Prune Prune
}

// Event is one event of a trace.
type Event struct {
	prog.Event     // Kind, Thread (-1 for initial writes), Loc (-1 for nF and poll), Val, New, Remote (-1 for CPU events but poll)
	ID         int // index in Trace.Events
	Index      int // position in its thread's program order, -1 for initial writes
	QP         int // queue-pair index (prog.Program.QPs) for NIC events, -1 otherwise
	PC         int // instruction of the thread's Code it comes from, -1 for initial writes
}

// IsRead reports whether e reads memory (lR, CAS, nlR, nrR).
func (e *Event) IsRead() bool { return isRead(e.Kind) }

// IsWrite reports whether e writes memory (lW, CAS, nlW, nrW).
func (e *Event) IsWrite() bool { return isWrite(e.Kind) }

// IsInst reports whether e is instantaneous (every event but nlW and nrW).
func (e *Event) IsInst() bool { return !e.IsNICWrite() }

// WriteVal returns the value e writes: New for a CAS, Val otherwise.
func (e *Event) WriteVal() uint8 {
	if e.Kind == prog.EvCAS {
		return e.New
	}
	return e.Val
}

func isRead(k prog.EventKind) bool {
	return k == prog.EvLR || k == prog.EvCAS || k == prog.EvNLR || k == prog.EvNRR
}

func isWrite(k prog.EventKind) bool {
	return k == prog.EvLW || k == prog.EvCAS || k == prog.EvNLW || k == prog.EvNRW
}

// Trace is a trace ⟨E, po, pf, rf, mo, nfo⟩ with its events' values. po is
// implicit: events of one thread are ordered by Index.
type Trace struct {
	Events   []Event  // initial writes first (one per location, in location order), then each thread's events in po order
	RF       []int    // RF[e] = the write event read by e, -1 when e is not a read
	MO       [][]int  // MO[loc] = write events of loc in modification order, initial write first
	NFO      [][2]int // (a, b) means a ->nfo b
	PF       [][2]int // (nic write, poll)
	Complete bool     // every thread's events form a complete label sequence (not a proper prefix)
}

// Stats counts what an enumeration did.
type Stats struct {
	Candidates uint64 // traces reported (Enumerate) or reached after pruning (Outcomes, Robust)
	RDMA       uint64 // of which RDMA-consistent
	SC         uint64 // of which SC-consistent
	Skeletons  uint64 // event sets searched: one label-sequence prefix per thread
	Bounded    bool   // Unroll cut some path: a loop was reached with its iterations used up
}

func (s *Stats) add(o Stats) {
	s.Candidates += o.Candidates
	s.RDMA += o.RDMA
	s.SC += o.SC
	s.Skeletons += o.Skeletons
	s.Bounded = s.Bounded || o.Bounded
}
