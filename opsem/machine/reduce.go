package machine

// Under Options.Reduce, a configuration in which an invisible step is
// enabled has that step as its only successor, so the search need not store
// it: each successor is settled, that is, invisible steps are taken from it
// as long as one is enabled, and the configuration reached is emitted in its
// place, under the label of the step that led to it (ExplainChain recovers
// the steps in between). The invisible steps are N2, N3, N5, N7, N8 when no
// put is pending on its queue pair (see invisibleStep) and, under
// Options.ControlHidden, submissions and polls (see Options). They
// commute with each other and with every other transition, none disables
// another, and each moves an entry down a queue pair's pipeline or out of
// it, or a thread past a put, get, rfence or poll (every cycle of a thread
// passes a branch, which is not invisible), so settling ends, and where it
// ends does not depend on the order of the steps. None writes memory, so
// every configuration skipped has the memory of the one emitted for it (and
// its program counters, but for submissions and polls), and no final
// configuration is ever skipped (its buffers are empty and its threads at
// their ends). The configurations stored are those of the reduced machine in
// which no invisible step is enabled: on the bench programs a tenth to a
// twentieth as many as the reduction stored without settling.
//
// A thread's quiet (SEMANTICS-VERBS.md 6) is a visible step, never settled,
// and the invisible steps stay independent of it. Quiet is enabled only when
// no buffer of any queue pair of its thread holds an entry, so no invisible
// step of those queue pairs (each needs an entry to move) is enabled with
// it, and one enabled on another thread's queue pair touches no buffer quiet
// reads; quiet writes no memory and no buffer, so it disables nothing. An
// invisible step on its thread's queue pair can enable it (N7 or N3 may
// empty the last buffer), but never disable it, and quiet cannot be taken
// before that step along any path (the entry it waits for is the one the
// step moves): the ample-set conditions hold as before. TestQuietIndependence
// checks the first two facts on every reachable configuration of quiet's
// litmus tests and random programs, TestQuietReduce the outcome.
//
// N2 of a fenced get (SEMANTICS-VERBS.md 4) is invisible only once no
// earlier get or atomic of its queue pair is pending (settle.go's
// invisibleStep tests it as N2's rule does). Enabled so, it stays so: only
// an entry ahead of it in B1 could make a read pending again, and it heads
// B1. The steps that may enable it (N8, F2, A1, A2 of the earlier reads)
// are never enabled with it, since a pending read disables it; it commutes
// with every step enabled with it as an unmarked N2 does.
// TestFencedWaits checks the guard on every reachable configuration of
// random programs, TestFencedReduce the outcome.
//
// The torn reads of a multi-word put or get (tear.go, SEMANTICS-VERBS.md
// 1) are visible steps, never settled: each N1 or N6 of one word reads
// memory, as a one-word N1 or N6 does. The invisible steps stay
// independent of them. N5 of a multi-word get appends its whole group of
// unread words to B3's tail, which no read step touches (N6 rewrites an
// entry in place, and appending keeps every earlier entry's index, so
// every label stays the same), and disables nothing. N8 of a group is
// enabled only once every word of the group is read (groupRead); it is
// then the head of B3, which no N6 rewrites any more, so it commutes with
// the N6 of other responses as a one-word N8 does; an N6 may enable it,
// never disable it. A partly read put stays at the head of B1, so the
// putPending guard on N8 sees it, and its read words wait at B2's tail
// (PUTP), which N4 and N5 do not take (N4 takes PUTV only, and a PUTP is
// B2's head only when no request is ahead of it). TestWordsReduce and
// TestTearSteps check it on random programs with two-word operations.
//
// The reduction is a layer over the machine's next-state function, as
// LTSmin's partial-order reduction wraps a model (pins2pins): a reducer
// calls the machine's steps (invisibleStep, submitStep, expand) and settles
// what they emit on a copy of the machine with scratch of its own.

// A reducer is Options.Reduce on the RDMA machine m.
type reducer struct {
	m *Machine
	// chain is a copy of m, with scratch space of its own, on which
	// successors are settled.
	chain *Machine
	// out is the emit of the current successors call; emitFn is r.emit and
	// captureFn r.capture, made once.
	out, emitFn, captureFn func(l uint64, next []byte)
	// stepLabel is the label of the invisible step or submission the chain
	// took last.
	stepLabel uint64
	// settled: no invisible step (nor, under Options.ControlHidden, any
	// submission) is enabled in the configuration being expanded.
	settled bool
}

// newReducer returns the reduction of m, an RDMA machine without event
// graphs.
func newReducer(m *Machine) *reducer {
	c := *m
	c.red, c.qoff, c.lay.boff = nil, make([]int, len(m.qoff)), make([]int, len(m.lay.boff))
	c.base, c.work = nil, nil
	c.rbuf = [nBuf][]byte{}
	r := &reducer{m: m, chain: &c}
	r.emitFn, r.captureFn = r.emit, r.capture
	return r
}

// successors is the reduced machine's Successors: the first enabled
// invisible step is the only successor of s; else every step of m. Each
// successor is settled before it is emitted.
func (r *reducer) successors(s []byte, emit func(l uint64, next []byte)) uint32 {
	m := r.m
	r.out = emit
	s = m.load(s)
	r.settled = false
	for qi := range m.p.QPs {
		if m.invisibleStep(s, qi, r.emitFn) {
			return 0
		}
	}
	if m.opt.ControlHidden {
		for t := range m.p.Threads {
			if m.submitStep(s, t, r.emitFn) {
				return 0
			}
		}
	}
	r.settled = true
	return m.expand(s, r.emitFn)
}

// emit settles the successor next of m.parent and passes it on to r.out.
func (r *reducer) emit(l uint64, next []byte) {
	m := r.m
	var moved bool
	if !r.settled || m.passedPut(m.parent, next, m.mover) {
		// A thread that went past its last put on a queue pair makes
		// N8 invisible there (see invisibleStep), on a queue pair the
		// step need not have touched: settle it whole.
		moved = r.settle(next)
	} else {
		// No invisible step is enabled in the parent, and the step
		// changed the buffers of queue pair m.touched alone and moved
		// thread m.mover or one of its queue pairs: only there can one
		// be enabled now.
		off := 0
		if m.touched >= 0 {
			off = m.qoff[m.touched]
		}
		moved = r.settleAt(next, m.mover, m.touched, off)
	}
	if !moved {
		r.out(l, next)
		return
	}
	r.out(l, r.chain.parent)
}

// settleAt is settle for a configuration s in which an invisible step can
// be enabled only on queue pair qi (none if qi is -1) and, under
// Options.ControlHidden, a submission only by thread t, the owner of qi. The
// steps it takes keep it so: a NIC step on qi changes no other queue pair,
// and t's submission changes only the queue pair it is on.
//
// Until it takes a submission it needs only qi's segment, which begins at off
// as in the parent (NIC steps on qi leave the segments before it alone), and
// a full scan only when t is at a submission; after one it scans s whole.
func (r *reducer) settleAt(s []byte, t, qi, off int) bool {
	c := r.chain
	moved, whole := false, false
	for {
		switch {
		case whole:
			c.scan(s)
		case qi >= 0:
			c.qoff[qi] = off
			c.qoff[qi+1] = c.scanSeg(s, qi, off)
			c.qoff[len(c.p.QPs)] = len(s)
		}
		if qi < 0 || !c.invisibleStep(s, qi, r.captureFn) {
			if !c.opt.ControlHidden || !c.atSubmission(s, t) {
				return moved
			}
			if !whole {
				c.scan(s)
			}
			if !c.submitStep(s, t, r.captureFn) {
				return moved
			}
			qi, whole = c.touched, true
		}
		c.parent, c.out = c.out, c.parent
		s, moved = c.parent, true
	}
}

// settle takes invisible steps from s as long as one is enabled, the one on
// the first queue pair each time, and reports whether it took any; if it
// did, the configuration reached is in r.chain.parent.
func (r *reducer) settle(s []byte) bool {
	c := r.chain
	moved := false
	for {
		if !r.invisible(s) {
			return moved
		}
		// c.out holds the successor: it becomes the configuration to
		// settle, and the old one's buffer scratch.
		c.parent, c.out = c.out, c.parent
		s, moved = c.parent, true
	}
}

// invisible writes to r.chain.out the successor of s by the first
// invisible step enabled on any queue pair or, under
// Options.ControlHidden, by the first thread's submission, recording its
// label in r.stepLabel, and reports whether there was one.
func (r *reducer) invisible(s []byte) bool {
	c := r.chain
	c.scan(s)
	for qi := range c.p.QPs {
		if c.invisibleStep(s, qi, r.captureFn) {
			return true
		}
	}
	if c.opt.ControlHidden {
		for t := range c.p.Threads {
			if c.submitStep(s, t, r.captureFn) {
				return true
			}
		}
	}
	return false
}

// capture is the emit of settling's steps: it records the step's label.
func (r *reducer) capture(l uint64, _ []byte) {
	r.stepLabel = l
}
