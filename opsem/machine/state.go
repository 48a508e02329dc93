// Package machine implements the two operational semantics of rdmasim: the
// queue-pair buffer machine of RDMA (shared/spec/SEMANTICS.md, section 3) and
// the sequentially consistent machine (section 4).
//
// Both machines share the CPU side (control flow, local writes, assumes, CAS,
// loop counters) and one state layout; the RDMA machine adds the five FIFO
// buffers of every queue pair. States are canonical byte strings: equal
// configurations encode equally (operations carry no absolute identifiers,
// only their rank among the queue pair's unpolled operations), so that
// fingerprint deduplication is exact up to hash collisions.
//
// A Machine implements explore.Machine structurally, without importing the
// explorer. It is not safe for concurrent use: it owns scratch space.
package machine

import (
	"fmt"

	"rdmasim/opsem/prog"
)

// Bounds that can cut the successors of a state (explore.Pruned flags).
const (
	// PrunedInflight: a put, get or rfence was not submitted because its
	// queue pair already had MaxInflight operations in flight (or, where
	// polls are unbounded, MaxInflight operations not yet polled).
	PrunedInflight uint32 = 1 << iota
	// PrunedUnroll: a loop was not entered for iteration Unroll+1.
	PrunedUnroll
	// PrunedGraph: under Options.Graph, an event graph reached its size
	// limit (250 events, 254 per thread).
	PrunedGraph
)

// PrunedString names the bounds in a Pruned set.
func PrunedString(p uint32, o Options) string {
	s := ""
	if p&PrunedInflight != 0 {
		s = InflightBound.At(o.MaxInflight)
	}
	if p&PrunedUnroll != 0 {
		if s != "" {
			s += ", "
		}
		s += UnrollBound.At(o.Unroll)
	}
	if p&PrunedGraph != 0 {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("graph-size=%d", maxGraphEvents)
	}
	return s
}

// Options bound the state space.
type Options struct {
	// MaxInflight bounds the operations of one queue pair that are in its
	// buffers at once (RDMA), and, on queue pairs whose thread may poll
	// without bound, the operations not yet polled (both machines). It must
	// be in InflightBound, 1..250.
	MaxInflight int
	// Unroll bounds the iterations of each loop per entry; 0 means no bound
	// (loops are explored to a fixpoint by state deduplication). It must be
	// in UnrollBound, 0..254.
	Unroll int
	// Dead, when non-nil, marks locations whose value nothing observes (see
	// DeadLocations). Writes to them leave memory unchanged, and their
	// remote writes are dropped on queue pairs without gets, whose RW buffer
	// nothing else waits on. This keeps, for example, a loop of polled puts
	// to a location nobody reads finite-state. Nil tracks every location,
	// as event-level analyses (robustness) need.
	Dead []bool
	// Graph makes every RDMA configuration carry the event graph of the run
	// that reached it (see graph.go), for robustness by enumeration. Loops
	// then need Unroll > 0, and Dead must be nil.
	Graph bool
	// Reduce turns on a partial-order reduction (RDMA machine only; not
	// with Graph). Five NIC rules neither write memory nor move a thread
	// and are independent of every other transition: N2 (a get leaves
	// B1), N3 (a fence leaves B1), N5 (a get request arrives), N7 (a put
	// is acknowledged) and, when no put waits in B1 of its queue pair and
	// the thread will submit no more puts on it, N8 (a get's response
	// returns: it takes the head of B3, which only N8 takes, and appends
	// to LW, whose head only F2 takes; while a put may still read its
	// source it is not independent, since a non-empty LW disables N1).
	// Each commutes with every transition enabled with
	// it and neither disables nor is disabled by any, so when one is
	// enabled it alone is expanded (an ample set of one transition). Every
	// reduced step moves an entry down the pipeline or out of it, so no
	// cycle is made of reduced states only (the cycle proviso). Moreover a
	// configuration in which such a step is enabled is never emitted:
	// each successor is settled first, by taking these steps until none
	// is enabled, and the configuration reached is emitted under the
	// label of the step that led to it (see reduce.go; ExplainChain lists
	// the steps in between). The reduction keeps every reachable outcome
	// and every reachable value of a condition over memory and program
	// counters, and every run it finds is a run of the machine; it
	// explores fewer configurations, so state counts (and depths) differ
	// from the full machine's. A bound reported as cutting the reduced
	// search is one that cuts the full one.
	Reduce bool
	// ReadNow is for random walks of a protocol (a lowered thread): a
	// branch there (a loop head over a test on memory, or a choose of
	// assumes that did not become a switch) may be followed by reads that
	// decide whether the alternative can go on, and a walk that picks an
	// alternative whose reads fail when it gets to them waits there, most
	// often for ever. With ReadNow an alternative that starts with reads
	// (assumes, switches) is offered only when they would all pass now:
	// the branch and its reads act as one read. Every
	// run of the walks is a run of the machine, and every end reachable
	// without it stays reachable (a thread that does not commit to a value
	// early can commit when the value is there); only the distribution of
	// the walks changes. Searches never set it.
	ReadNow bool
	// ControlHidden says that nothing reads a thread's control point (its
	// pc: T@L, T@end) except in final configurations, as with a query on
	// final outcomes or a reach condition over memory only. Under Reduce a
	// thread's submission of a put, a get or an rfence, and its poll, are
	// then invisible too, and settled like the NIC steps. Neither writes
	// memory or touches another thread or its queue pairs; a submission
	// appends to its queue pair's B1 and a poll rewrites ranks, which no
	// NIC step reads; no other step disables either (no NIC step raises a
	// queue pair's in-flight count, and an operation, once complete, stays
	// so); and every cycle of a thread passes a branch, which is never
	// settled. The reduction then keeps every final outcome and every
	// reachable value of a condition over memory, but no longer every
	// reachable control point.
	ControlHidden bool
	// Placement is the order in which the words of one multi-word put or
	// get reach memory (SEMANTICS-VERBS.md 1): PlaceAny (the default,
	// all the verbs documentation promises) lets F1 and F2 place any
	// word of the head group of RW or LW; PlaceInOrder places them in
	// address order, as ibv_query_qp_data_in_order reports of some
	// devices. Groups stay in FIFO order either way. Programs without
	// multi-word operations are unaffected.
	Placement Placement
}

// Placement is the order in which the words of one work request are placed
// in memory (Options.Placement).
type Placement uint8

const (
	// PlaceAny: any word of the work request may be placed next.
	PlaceAny Placement = iota
	// PlaceInOrder: the words are placed in address order.
	PlaceInOrder
)

// String returns the placement's name as the --placement flag spells it.
func (p Placement) String() string {
	switch p {
	case PlaceAny:
		return "any"
	case PlaceInOrder:
		return "in-order"
	}
	return fmt.Sprintf("placement(%d)", uint8(p))
}

// ParsePlacement reads a placement's name ("any" or "in-order").
func ParsePlacement(s string) (Placement, error) {
	switch s {
	case "any":
		return PlaceAny, nil
	case "in-order":
		return PlaceInOrder, nil
	}
	return 0, fmt.Errorf("placement %q: want any or in-order", s)
}

// DeadLocations returns the locations of p that no instruction reads (as
// an assume, a cas, the source of a put or of a get) and that are not in
// shown: their values cannot influence any behaviour or any answer.
func DeadLocations(p *prog.Program, shown []int) []bool {
	dead := make([]bool, len(p.Locs))
	for i := range dead {
		dead[i] = true
	}
	for _, l := range shown {
		dead[l] = false
	}
	for l := range p.Locs {
		if p.Locs[l].Check != nil {
			dead[l] = false // its range is checked (prog.Range)
		}
	}
	for t := range p.Threads {
		for _, in := range p.Threads[t].Code {
			switch in.Op {
			case prog.OpAssumeEq, prog.OpAssumeNe:
				dead[in.X] = false
			case prog.OpCAS:
				dead[in.Z] = false
			case prog.OpPut:
				for i := range max(in.Words, 1) {
					dead[in.X+i] = false
				}
			case prog.OpGet:
				for i := range max(in.Words, 1) {
					dead[in.Y+i] = false
				}
			case prog.OpRCAS, prog.OpRFAA:
				dead[in.Y] = false
			case prog.OpLoad:
				dead[in.Y] = false
			case prog.OpEval, prog.OpIf:
				for _, l := range in.E.Locs() {
					dead[l] = false // a register the expression reads
				}
			}
		}
	}
	return dead
}

// DefaultOptions are the bounds used when none are given.
func DefaultOptions() Options { return Options{MaxInflight: 8} }

// Buffer entry kinds.
const (
	kPut    uint8 = 1 + iota // B1: PUT(y,x): a=y remote, b=x local
	kGet                     // B1: GET(x,y): a=x local, b=y remote
	kFence                   // B1: FENCE
	kPutV                    // B2: PUTV(y,v): a=y, v
	kGetReq                  // B2: GETREQ(x,y)
	kAck                     // B3: ACK of a put
	kGetR                    // B3: GETR(x,y,⊥): not read yet
	kGetRV                   // B3: GETR(x,y,v): read
	// Remote atomics (SEMANTICS-ATOMICS.md). a is the atomic's index in
	// Machine.atoms, b its target location y. Once it has read and written
	// (or read, for a failing rcas), its response becomes a get's GETR(x,y,v).
	kAtom    // B1: ATOM(x,y): submitted
	kAtomReq // B2: ATOMREQ(x,y)
	kAtomR   // B3: ATOMR(x,y,⊥): not performed yet
	kAtomRH  // B3: ATOMR(x,y,v) read v, its write pending: holds y's atomic lock
	// Multi-word gets (SEMANTICS-VERBS.md 1): once a k-word get's
	// request arrives (N5), its response is a group, GROUP(k) (a=k)
	// followed by the k words' GETR(x+i,y+i,·) entries, which N6 reads
	// one per step (tear.go); N8 moves the whole group to LW at once,
	// once every word is read.
	kGroup // B3: GROUP(k): the next k entries are one get's words
	// Inline puts (SEMANTICS-VERBS.md 5; inlineput.go): PUTI(y,v) in B1,
	// a word read when the put was submitted: a=y, v, b the words after
	// it in the work request (and inlineFenced).
	kPutI
)

// Multi-word work requests (SEMANTICS-VERBS.md 1). A k-word put or get is
// one entry in B1 (its v byte holds fencedMark | (k-1)<<1, wordsOf), a
// get's one GETREQ in B2 (v = k-1), and a word per entry after: a put's k
// PUTV entries in B2 (b = the words after it in the group, so N4 moves b+1
// entries from the head; PUTP while the put still reads, tear.go), a get's
// group in B3 (kGroup). In RW and LW a group of c >= 2 words still to be placed is
// headed by a header entry whose location byte is groupLoc (no location has
// that number: prog.MaxLocs is 250) and whose value byte is c; F1 and F2
// place a word of the head group (any of them, or under Options.InOrder the
// first) and rewrite the header, dropping it when one word is left, so that
// a group of one is a one-word entry and encodings stay canonical.
const groupLoc = 0xFF

// wordsOf returns the number of words of the work request whose B1 entry
// has v byte v (1 for a one-word operation).
func wordsOf(v uint8) int { return int(v>>1) + 1 }

// b1V returns the v byte of in's B1 entry: its fence mark and its words.
func b1V(in *prog.Instr) uint8 {
	v := uint8(0)
	if in.Fenced {
		v = fencedMark
	}
	if in.Words > 1 {
		v |= uint8(in.Words-1) << 1
	}
	return v
}

// wrCount counts the work requests of one buffer's entries es (b the
// buffer): a put's words in B2 count once (their last, b = 0), a group
// in B3, RW or LW counts once (its header), and every other entry once.
func wrCount(b int, es []entry) int {
	n := 0
	for i := 0; i < len(es); i++ {
		e := es[i]
		switch {
		case b == bufB2 && (e.kind == kPutV && e.b > 0 || e.kind == kPutP):
			continue // a put still reading counts in B1 (tear.go)
		case b == bufB1 && e.kind == kPutI && inlineAfter(e.b) > 0:
			continue
		case b == bufB3 && e.kind == kGroup:
			i += int(e.a)
		case (b == bufRW || b == bufLW) && e.a == groupLoc:
			i += int(e.v)
		}
		n++
	}
	return n
}

// fencedMark, in the v byte of a B1 entry of a put, get or remote atomic
// (unused there otherwise), marks a fenced work request
// (SEMANTICS-VERBS.md 4): it leaves B1 (N1, N2) only when readsPending is
// false on its queue pair.
const fencedMark = 1

// readKind reports whether an entry of kind k in B2 or B3 is an earlier get
// or remote atomic not yet complete: its request, its response (read or
// not, or a multi-word get's group), or an atomic holding its lock.
func readKind(k uint8) bool {
	return k == kGetReq || k == kGetR || k == kGetRV || k == kAtomReq || k == kAtomR || k == kAtomRH || k == kGroup
}

// readsPending reports whether a get or remote atomic of the queue pair
// that has left B1 is not complete yet: in B2 or B3, or its local write in
// LW (F2 completes it). A fenced work request at the head of B1 waits while
// it is so.
func (q *qstate) readsPending() bool {
	if len(q.buf[bufLW]) > 0 {
		return true
	}
	for _, b := range [...]int{bufB2, bufB3} {
		for _, e := range q.buf[b] {
			if readKind(e.kind) {
				return true
			}
		}
	}
	return false
}

// noRank marks an operation that no future poll can wait for.
const noRank = 0xFF

// Buffers of a queue pair, in pipeline order.
const (
	bufB1 = iota
	bufB2
	bufB3
	bufRW
	bufLW
	nBuf
)

var bufNames = [nBuf]string{"B1", "B2", "B3", "RW", "LW"}

// entry is a buffer entry. RW entries use a (location) and v; LW entries use
// a, v and rank. Under Options.Graph, slot is the program-order position of
// the operation's first event (encoded only then).
type entry struct {
	kind, a, b, v, rank, slot uint8
}

// entry widths in the encoding, per buffer.
var entryWidth = [nBuf]int{5, 5, 5, 2, 3}

// qstate is the state of one queue pair.
type qstate struct {
	npend uint8 // operations (puts and gets) posted and not yet polled
	buf   [nBuf][]entry
}

// State is a decoded configuration. It implements prog.Config.
type State struct {
	mem []uint8
	pc  []uint16
	mid []bool  // between the two events of an instruction
	reg []uint8 // the value carried between them
	ctr []uint8 // loop iteration counters (only under Options.Unroll)
	q   []qstate

	// Under Options.Graph only:
	slots []uint8 // per thread: program-order positions allocated so far
	g     graph
}

// Mem returns the value of location loc.
func (st *State) Mem(loc int) uint8 { return st.mem[loc] }

// PC returns thread t's next instruction and whether it is mid-instruction.
func (st *State) PC(t int) (int, bool) { return int(st.pc[t]), st.mid[t] }

func (m *Machine) newState() *State {
	st := &State{
		mem: make([]uint8, len(m.p.Locs)),
		pc:  make([]uint16, len(m.p.Threads)),
		mid: make([]bool, len(m.p.Threads)),
		reg: make([]uint8, len(m.p.Threads)),
		ctr: make([]uint8, m.nctr),
		q:   make([]qstate, len(m.p.QPs)),
	}
	if m.graph {
		st.slots = make([]uint8, len(m.p.Threads))
		st.g.mo = make([][]uint16, len(m.p.Locs))
	}
	if !m.sc {
		for i := range st.q {
			for b := range st.q[i].buf {
				st.q[i].buf[b] = make([]entry, 0, m.opt.MaxInflight+2)
			}
		}
	}
	return st
}

// copyFrom makes st equal to o without allocating (buffers have the
// capacity of the bound).
func (st *State) copyFrom(o *State) {
	copy(st.mem, o.mem)
	copy(st.pc, o.pc)
	copy(st.mid, o.mid)
	copy(st.reg, o.reg)
	copy(st.ctr, o.ctr)
	if st.slots != nil {
		copy(st.slots, o.slots)
		st.g.copyFrom(&o.g)
	}
	for i := range st.q {
		st.q[i].copyFrom(&o.q[i])
	}
}

// encode appends the canonical encoding of st to dst.
//
// Layout: memory (one byte per location); per thread the pc (two bytes, the
// high bit marking mid-instruction) and the carried value; the loop
// counters; per queue pair the count of unpolled operations and, for the
// RDMA machine, each buffer as a length byte followed by its entries.
func (m *Machine) encode(dst []byte, st *State) []byte {
	dst = append(dst, st.mem...)
	for t := range st.pc {
		hi := uint8(st.pc[t] >> 8)
		if st.mid[t] {
			hi |= 0x80
		}
		dst = append(dst, uint8(st.pc[t]), hi, st.reg[t])
	}
	dst = append(dst, st.ctr...)
	for i := range st.q {
		dst = m.encodeQP(dst, &st.q[i])
	}
	if m.graph {
		dst = append(dst, st.slots...)
		dst = st.g.encode(dst)
	}
	return dst
}

// encodeQP appends the encoding of one queue pair (its segment of encode).
func (m *Machine) encodeQP(dst []byte, q *qstate) []byte {
	dst = append(dst, q.npend)
	if m.sc {
		return dst
	}
	if m.graph {
		for b := 0; b < nBuf; b++ {
			dst = append(dst, uint8(len(q.buf[b])))
			for _, e := range q.buf[b] {
				switch entryWidth[b] {
				case 5:
					dst = append(dst, e.kind, e.a, e.b, e.v, e.rank)
				case 2:
					dst = append(dst, e.a, e.v)
				case 3:
					dst = append(dst, e.a, e.v, e.rank)
				}
				dst = append(dst, e.slot)
			}
		}
		return dst
	}
	for b := bufB1; b <= bufB3; b++ {
		dst = append(dst, uint8(len(q.buf[b])))
		for _, e := range q.buf[b] {
			dst = append(dst, e.kind, e.a, e.b, e.v, e.rank)
		}
	}
	dst = append(dst, uint8(len(q.buf[bufRW])))
	for _, e := range q.buf[bufRW] {
		dst = append(dst, e.a, e.v)
	}
	dst = append(dst, uint8(len(q.buf[bufLW])))
	for _, e := range q.buf[bufLW] {
		dst = append(dst, e.a, e.v, e.rank)
	}
	return dst
}

// copyFrom makes q equal to o without allocating.
func (q *qstate) copyFrom(o *qstate) {
	q.npend = o.npend
	for b := range q.buf {
		src := o.buf[b]
		if len(src) > cap(q.buf[b]) {
			q.buf[b] = append(q.buf[b][:0], src...)
			continue
		}
		// Reslicing in place writes only the length (no write barrier).
		q.buf[b] = q.buf[b][:len(src)]
		copy(q.buf[b], src)
	}
}

// decode fills st from an encoding produced by encode.
func (m *Machine) decode(s []byte, st *State) { m.decodeOff(s, st, nil) }

// decodeOff is decode that, when off is non-nil, also records in off[qi]
// the offset in s of queue pair qi's segment and in off[len(st.q)] the end
// of the last one (off must have len(st.q)+1 entries).
func (m *Machine) decodeOff(s []byte, st *State, off []int) {
	i := copy(st.mem, s)
	for t := range st.pc {
		hi := s[i+1]
		st.pc[t] = uint16(s[i]) | uint16(hi&0x7F)<<8
		st.mid[t] = hi&0x80 != 0
		st.reg[t] = s[i+2]
		i += 3
	}
	i += copy(st.ctr, s[i:])
	for qi := range st.q {
		if off != nil {
			off[qi] = i
		}
		q := &st.q[qi]
		q.npend = s[i]
		i++
		if m.sc {
			continue
		}
		for b := 0; b < nBuf; b++ {
			n := int(s[i])
			i++
			q.buf[b] = q.buf[b][:0]
			for k := 0; k < n; k++ {
				var e entry
				switch entryWidth[b] {
				case 5:
					e = entry{kind: s[i], a: s[i+1], b: s[i+2], v: s[i+3], rank: s[i+4]}
				case 2:
					e = entry{a: s[i], v: s[i+1]}
				case 3:
					e = entry{a: s[i], v: s[i+1], rank: s[i+2]}
				}
				i += entryWidth[b]
				if m.graph {
					e.slot = s[i]
					i++
				}
				q.buf[b] = append(q.buf[b], e)
			}
		}
	}
	if off != nil {
		off[len(st.q)] = i
	}
	if m.graph {
		i += copy(st.slots, s[i:])
		st.g.decode(s[i:])
	}
}

// inflight counts the operations of a queue pair that are in its buffers.
// A put past N4 may have both its remote write in RW and its ACK in B3; as
// both buffers are FIFO over the same puts, such puts are the last
// min(|RW|, ACKs in B3) of them, counted once.
//
// A multi-word operation counts once in each buffer (wrCount).
func (q *qstate) inflight() int {
	n := wrCount(bufB1, q.buf[bufB1]) + wrCount(bufB2, q.buf[bufB2]) + wrCount(bufB3, q.buf[bufB3]) + wrCount(bufLW, q.buf[bufLW])
	rw := wrCount(bufRW, q.buf[bufRW])
	acks := 0
	for _, e := range q.buf[bufB3] {
		if e.kind == kAck {
			acks++
		}
	}
	return n + rw - min(acks, rw)
}

// empty reports whether every buffer of the queue pair is empty.
func (q *qstate) empty() bool {
	for b := range q.buf {
		if len(q.buf[b]) > 0 {
			return false
		}
	}
	return true
}

// oldestPending reports whether the oldest unpolled operation is still in
// the pipeline (not complete).
func (q *qstate) oldestPending() bool {
	for _, b := range [...]int{bufB1, bufB2, bufB3, bufLW} {
		for _, e := range q.buf[b] {
			if e.rank == 0 && e.kind != kFence {
				return true
			}
		}
	}
	return false
}
