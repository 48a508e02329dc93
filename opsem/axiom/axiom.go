// Package axiom is the seed paper's declarative model of RDMA (section 4 of
// shared/paper/rdma-robustness.tex, restated in shared/spec/SEMANTICS.md
// section 2), made executable: it enumerates the traces
// ⟨E, po, pf, rf, mo, nfo⟩ of a program herd7-style and decides, for each,
// RDMA-consistency (ib and ob acyclic) and SC-consistency (sc acyclic).
//
// Events come from Seq(P) per thread with every loop unrolled at most
// Options.Unroll times per entry. A trace's thread events are a po-prefix of
// one label sequence (partial executions); reads take their values from the
// write they read from, so values are never guessed. The search, per event
// set (one label-sequence prefix per thread, from a trie of each thread's
// sequences):
//
//  1. rf, read by read, propagating values along rf and the data dependencies
//     inside CAS, get and put (a constraint of assume or CAS that fails
//     prunes; a value that only a cycle of rf and dependencies could supply
//     is never consistent and is dropped);
//  2. mo, location by location, built from its end: placing a write as the
//     latest of those left adds at once every mo and rb edge that totality
//     implies;
//  3. nfo, one orientation per nlR/nlW and nrR/nrW pair of a queue pair.
//
// ob, ib and sc are kept as transitive closures on 64-bit rows, updated
// incrementally with each edge, and a branch is pruned as soon as the
// relation its mode cares about has a cycle. After each rf choice the
// coherence edges that every completion must contain are added as well
// (saturation), so most wrong mo orders are never tried.
//
// Four entry points: Enumerate reports every candidate with its two
// consistency flags; Outcomes collects the final memories of complete
// RDMA- and SC-consistent traces, choosing each location's mo-last write
// first and stopping at one trace per distinct memory; Robust searches
// partial traces by increasing size for one that is RDMA-consistent with an
// sc cycle, skipping branches where ob already contains po (then sc ⊆ ob);
// Reach answers from consistent prefixes what the machines find inside
// runs — reach conditions, error points, deadlocks (reach.go,
// SEMANTICS-REACH.md).
package axiom

import (
	"rdmasim/opsem/prog"
)

// MaxEvents is the largest number of events (initial writes included) a trace
// may have: relations are rows of one 64-bit word. Registers kept at run
// time are thread state: they have no initial write and make no event.
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
	// that follows a linear extension of sc. With that nfo every relation
	// in ob lies inside the extension, so the trace is RDMA-consistent too
	// (its rdma flag is always true).
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
	// InOrder places the words of a multi-word put or get in address
	// order (the machines' --placement in-order, SEMANTICS-VERBS.md 1);
	// without it any word of a work request may become visible first.
	InOrder bool
}

// Event is one event of a trace.
type Event struct {
	// Kind, Thread (-1 for initial writes), Loc (-1 for nF and poll), Val
	// (value read, or written; a CAS's read value), New (a CAS's written
	// value), Remote (the remote node of NIC events and polls, -1 otherwise).
	prog.Event
	ID    int // index in Trace.Events
	Index int // position in its thread's program order, -1 for initial writes
	QP    int // queue-pair index (prog.Program.QPs) for NIC events and polls, -1 otherwise
	PC    int // instruction of the thread's Code it comes from, -1 for initial writes
	// Writes is set on the naR of a remote atomic that writes: every rfaa,
	// and an rcas on the label sequence where its comparison succeeds. Its
	// naW follows it in program order, unless the trace is a prefix that
	// ends between the two: then the atomic is pending and holds its
	// location's lock to the end of the prefix (see atomic.go).
	Writes bool
	// Fenced marks the events of a put, get or remote atomic marked fenced
	// (SEMANTICS-VERBS.md 4).
	Fenced bool
	// Unsignaled marks the events of a put, get or remote atomic marked
	// unsignaled (SEMANTICS-VERBS.md 2): no poll matches it; the poll of
	// the next signalled operation of its queue pair polls from its NIC
	// write too (pf).
	Unsignaled bool
	// Inline marks the events of a put marked inline (SEMANTICS-VERBS.md
	// 5): its nlR events happen when the CPU submits it (inline.go).
	Inline bool
	// Fences counts the fenced operations of the event's thread towards
	// its remote node up to the event's own operation, in program order
	// (NumberFences sets it). PPO orders an earlier get's or atomic's event
	// a before every event b of its queue pair with b.Fences > a.Fences: a
	// fenced operation lies between them, which leaves B1 only once a is
	// complete, and every later operation of the queue pair leaves B1
	// after it.
	Fences int
	// WR identifies the events of one multi-word put or get
	// (SEMANTICS-VERBS.md 1): 1 + the Index of its first event, the same
	// on all its 2k events; 0 for every other event. Its reads are one
	// step each of the machine (N1, N6), in any order; its writes are
	// issued in one step (N4, N8), after them: PPO orders them, and the
	// relations contract the writes in ib (groups.go).
	WR int
	// InOrder is set on the writes of a multi-word operation when its
	// words are placed in address order (Options.InOrder): PPO then
	// orders them in oppo too.
	InOrder bool
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
	return k == prog.EvLR || k == prog.EvCAS || k == prog.EvNLR || k == prog.EvNRR || k == prog.EvNAR
}

func isWrite(k prog.EventKind) bool {
	return k == prog.EvLW || k == prog.EvCAS || k == prog.EvNLW || k == prog.EvNRW || k == prog.EvNAW
}

// Trace is a trace ⟨E, po, pf, rf, mo, nfo⟩ with its events' values. po is
// implicit: events of one thread are ordered by Index.
type Trace struct {
	Events   []Event  // initial writes first (one per memory location, in location order; none for a register kept at run time), then each thread's events in po order
	RF       []int    // RF[e] = the write event read by e, -1 when e is not a read
	MO       [][]int  // MO[loc] = write events of loc in modification order, initial write first; empty for a register
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
