package axiom

import (
	"cmp"
	"fmt"
	"slices"

	"rdmasim/opsem/prog"
)

// Class is an event's row/column in the preserved-program-order table: the
// CPU events (lR, lW, CAS, poll) form one class, each NIC event kind its own.
type Class uint8

// Classes of the ppo table, in the paper's order.
const (
	ClassCPU Class = iota
	ClassNLR
	ClassNRW
	ClassNRR
	ClassNLW
	ClassNF
	ClassNAR // a remote atomic's read at its target (SEMANTICS-ATOMICS.md)
	ClassNAW // a remote atomic's write at its target
	// ClassQuiet is quiet's event (SEMANTICS-VERBS.md 6): a CPU event whose
	// column differs from the CPU class's, since the machine takes it only
	// once every earlier operation of the thread is complete and visible.
	ClassQuiet
)

// classNames are the classes' names in the paper's table.
var classNames = [...]string{ClassCPU: "CPU", ClassNLR: "nlR", ClassNRW: "nrW", ClassNRR: "nrR", ClassNLW: "nlW", ClassNF: "nF",
	ClassNAR: "naR", ClassNAW: "naW", ClassQuiet: "quiet"}

// String returns the class's name in the paper's ppo table: "CPU" for the
// CPU events (lR, lW, CAS, poll), else the NIC event kind's ("nlR", "nrW",
// "nrR", "nlW", "nF").
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", c)
}

// ClassOf returns the ppo-table class of an event kind.
func ClassOf(k prog.EventKind) Class {
	switch k {
	case prog.EvNLR:
		return ClassNLR
	case prog.EvNRW:
		return ClassNRW
	case prog.EvNRR:
		return ClassNRR
	case prog.EvNLW:
		return ClassNLW
	case prog.EvNF:
		return ClassNF
	case prog.EvNAR:
		return ClassNAR
	case prog.EvNAW:
		return ClassNAW
	case prog.EvQuiet:
		return ClassQuiet
	}
	return ClassCPU
}

// Kind returns an event kind of class c: the NIC event kind itself, and lW
// for the CPU class.
func (c Class) Kind() prog.EventKind {
	switch c {
	case ClassNLR:
		return prog.EvNLR
	case ClassNRW:
		return prog.EvNRW
	case ClassNRR:
		return prog.EvNRR
	case ClassNLW:
		return prog.EvNLW
	case ClassNF:
		return prog.EvNF
	case ClassNAR:
		return prog.EvNAR
	case ClassNAW:
		return prog.EvNAW
	case ClassQuiet:
		return prog.EvQuiet
	}
	return prog.EvLW
}

// Entries of the ppo table.
const (
	ppoNone   = iota // ×: in neither relation
	ppoSQP           // sqp: in ippo and oppo when on the same queue pair
	ppoISQP          // ippo:sqp: in ippo only, when on the same queue pair
	ppoAlways        // ✓: in ippo and oppo
)

// ppoTable[a][b] is the entry for a →po b (paper, figure "ippo-oppo"; the
// rows and columns naR and naW of remote atomics are derived from the
// machine in SEMANTICS-ATOMICS.md). An atomic's own naR → naW is in both
// (PPO decides it: the table's naR → naW entry is for distinct atomics).
//
// The row and column of quiet are derived from the queue-pair machine
// (SEMANTICS-VERBS.md 6): quiet's step is enabled only when no buffer (B1,
// B2, B3, RW, LW) of any queue pair of its thread holds an entry, so every
// earlier event of the thread, on any queue pair, has been issued and, for
// nrW and nlW, has become visible (F1, F2) before it: every entry of its
// column is ✓, in ippo and oppo alike, where poll's column (CPU) has × below
// the first row. Its row is the CPU row: the thread goes on only after it.
var ppoTable = [9][9]uint8{
	//           CPU        nlR      nrW      nrR      nlW      nF        naR      naW      quiet
	ClassCPU:   {ppoAlways, ppoAlways, ppoAlways, ppoAlways, ppoAlways, ppoAlways, ppoAlways, ppoAlways, ppoAlways},
	ClassNLR:   {ppoNone, ppoSQP, ppoSQP, ppoSQP, ppoSQP, ppoSQP, ppoSQP, ppoSQP, ppoAlways},
	ClassNRW:   {ppoNone, ppoNone, ppoSQP, ppoSQP, ppoSQP, ppoISQP, ppoSQP, ppoSQP, ppoAlways},
	ClassNRR:   {ppoNone, ppoNone, ppoNone, ppoNone, ppoSQP, ppoSQP, ppoNone, ppoNone, ppoAlways},
	ClassNLW:   {ppoNone, ppoNone, ppoNone, ppoNone, ppoSQP, ppoISQP, ppoNone, ppoNone, ppoAlways},
	ClassNF:    {ppoNone, ppoSQP, ppoSQP, ppoSQP, ppoSQP, ppoSQP, ppoSQP, ppoSQP, ppoAlways},
	ClassNAR:   {ppoNone, ppoNone, ppoNone, ppoNone, ppoSQP, ppoSQP, ppoNone, ppoNone, ppoAlways},
	ClassNAW:   {ppoNone, ppoNone, ppoNone, ppoNone, ppoSQP, ppoSQP, ppoNone, ppoNone, ppoAlways},
	ClassQuiet: {ppoAlways, ppoAlways, ppoAlways, ppoAlways, ppoAlways, ppoAlways, ppoAlways, ppoAlways, ppoAlways},
}

// fenceWaits reports whether a fenced operation waits for an earlier event
// of kind k on its queue pair: a get's or an atomic's events, not a put's
// or a fence's.
func fenceWaits(k prog.EventKind) bool {
	return k == prog.EvNRR || k == prog.EvNLW || k == prog.EvNAR || k == prog.EvNAW
}

// NumberFences sets the Fences field of every event of ev from their
// Fenced marks: per thread in program order (Index), the fenced operations
// towards each remote node so far, counted at each operation's first event
// (a put's nlR, a get's nrR, an atomic's naR).
func NumberFences(ev []Event) {
	fenced := false
	for i := range ev {
		ev[i].Fences = 0
		fenced = fenced || ev[i].Fenced
	}
	if !fenced {
		return // nothing to sort or count
	}
	order := make([]int, 0, len(ev))
	for i := range ev {
		if ev[i].Thread >= 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(x, y int) int {
		if c := cmp.Compare(ev[x].Thread, ev[y].Thread); c != 0 {
			return c
		}
		return cmp.Compare(ev[x].Index, ev[y].Index)
	})
	type key struct{ thread, remote int }
	count := map[key]int{}
	for _, i := range order {
		e := &ev[i]
		k := key{e.Thread, e.Remote}
		if e.Fenced && (e.Kind == prog.EvNLR || e.Kind == prog.EvNRR || e.Kind == prog.EvNAR) && (e.WR == 0 || e.Index == e.WR-1) {
			count[k]++
		}
		e.Fences = count[k]
	}
}

// PPO reports whether the pair (a, b) is in ippo and in oppo. Both are
// subsets of po: the answer is false unless a and b belong to the same thread
// and a comes first. sqp (same thread, same remote node) is decided on the
// events' Remote fields.
func PPO(a, b *Event) (ippo, oppo bool) {
	if a.Thread < 0 || a.Thread != b.Thread || a.Index >= b.Index {
		return false, false
	}
	if a.Kind == prog.EvNAR && b.Kind == prog.EvNAW && b.Index == a.Index+1 {
		return true, true // one atomic: it writes after it reads
	}
	if a.WR > 0 && a.WR == b.WR {
		return ppoWords(a, b)
	}
	if inlineRead(a) || inlineRead(b) {
		return ppoInline(a, b)
	}
	if b.Fences > a.Fences && a.Remote == b.Remote && fenceWaits(a.Kind) && ClassOf(b.Kind) != ClassCPU {
		// A work request with the fence flag lies between a's operation
		// and b's (or is b's): it leaves B1 only when every earlier get and
		// atomic of its queue pair is complete, its reads done and its
		// local write visible, and b's operation leaves B1 after it, B1
		// being FIFO (SEMANTICS-VERBS.md 4). Not when b is a poll: a poll
		// po-after the fenced request may wait for an operation before it
		// (corpus/regress/fenced-poll-earlier.rdma); one that waits for the
		// fenced request or a later one is ordered after a by pf.
		return true, true
	}
	switch ppoTable[ClassOf(a.Kind)][ClassOf(b.Kind)] {
	case ppoAlways:
		return true, true
	case ppoSQP:
		s := a.Remote == b.Remote
		if brokenDropOppo && ClassOf(a.Kind) == ClassNRW && ClassOf(b.Kind) == ClassNRW {
			return s, false
		}
		return s, s
	case ppoISQP:
		return a.Remote == b.Remote, false
	}
	return false, false
}

// ppoWords is PPO for two events a →po b of one multi-word put or get
// (SEMANTICS-VERBS.md 1). Its reads are one step each (N1 or N6), in any
// order (machine/tear.go): two reads are ordered in neither. Its writes
// are issued in one step (N4 or N8), after every read (the machine moves
// the work request on only once all its words are read): a read before
// every write in ippo and oppo, and two writes in ippo (the relations
// contract them in ib: groups.go). In oppo, two writes are ordered only
// when the words are placed in address order (InOrder); with any
// placement F1 and F2 may make any word of the group visible first.
func ppoWords(a, b *Event) (ippo, oppo bool) {
	switch {
	case isWrite(a.Kind) && isWrite(b.Kind):
		return true, a.InOrder
	case !isWrite(a.Kind) && !isWrite(b.Kind):
		return false, false
	}
	return true, true
}
