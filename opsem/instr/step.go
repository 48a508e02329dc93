package instr

import (
	"fmt"

	"rdmasim/explore/cover"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
)

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
	// Also is the step's second event, Kind EvNone unless the step is a
	// remote atomic that writes (atomic.go): Event is its naR, Also its
	// naW, one SC step. Writes is set on a remote atomic's step whose
	// atomic writes (Also set, or Pending); Pending on one whose atomic
	// stays pending: its write never comes, the thread stops.
	Also            prog.Event
	Writes, Pending bool
}

// Labels: thread | part<<8 | cycle choice<<10 | alternative<<12 | value<<32
// | guess<<40 | silent<<41; an eager guess is eagerLabel | loc<<8 | value<<32.
const (
	labelGuess  = 1 << 40
	labelSilent = 1 << 41
	labelEager  = 1 << 42
	// labelPending marks a remote atomic that stays pending (atomic.go).
	labelPending = 1 << 43
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
			if m.frozen&(1<<t) == 0 && m.local(t) {
				m.emitted, m.generated = 0, 0
				m.threadMoves(t)
				// A local step that is enabled but leads only to states
				// canon drops leaves s dead too: a run from s to a target
				// could take that step first (see local).
				if m.generated > 0 {
					m.emit = nil
					return 0
				}
			}
		}
	}
	for t := range st.th {
		if m.frozen&(1<<t) == 0 {
			m.threadMoves(t)
		}
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
	if m.onCycle[t][th.pc] || m.loopSwitch(t, int(th.pc)) != nil {
		return false
	}
	in := &m.p.Threads[t].Code[th.pc]
	private := func(l int) bool { return !m.isRead[l] && !m.markable[l] }
	if th.pend {
		return false // it makes no more steps
	}
	if th.mid {
		switch in.Op {
		case prog.OpGet, prog.OpCAS, prog.OpRCAS, prog.OpRFAA:
			return private(in.X)
		case prog.OpPut:
			return private(in.Y)
		}
		return false
	}
	switch in.Op {
	case prog.OpSkip, prog.OpBranch, prog.OpRFence, prog.OpPoll:
		return true
	case prog.OpWrite, prog.OpEval:
		// an OpEval at pc stores into an ordinary location (settle runs
		// those into registers), or fails silently
		return private(in.X)
	}
	return false
}

func (m *Machine) out(l uint64) {
	// Canonicalize a copy: performIn goes on from nx (marking the exit).
	m.cn.copyFrom(m.nx)
	m.generated++
	if m.cur.Thread >= 0 {
		m.settle(m.cn, m.cur.Thread) // its register-only instructions, in this step
	}
	if m.stutter() {
		return // spin.go
	}
	if !m.canon(m.cn) {
		return
	}
	if m.cur.Exit {
		// An exit whose class is dead at once and that linked to no
		// entry adds nothing but the end of the thread's entries: the
		// successor that does not mark it, emitted just before, has the
		// same state with the thread free to mark later and its entries
		// still counted, and reaches every target this one reaches (more
		// entries and edges only make cycles likelier). Drop it.
		if x := m.cn.th[m.cur.Thread]; x.exit.set && !x.exit.r && !x.exit.w && x.succ == 0 {
			return
		}
	}
	m.buf = m.encode(m.buf[:0], m.cn)
	m.emitted++
	m.emit(l, m.buf)
}

// AllSuccessors emits every successor of s, as Successors does without
// the partial-order reduction (explore.Unreduced): the reduction's choice
// of a thread (the first with a local step) is not invariant under the
// program's symmetry, so a run rebuilt through it may take the image of a
// reduced step, which is a step of the machine but not a reduced step of
// its state.
func (m *Machine) AllSuccessors(s []byte, emit func(l uint64, next []byte)) uint32 {
	saved := m.opt.NoReduction
	m.opt.NoReduction = true
	defer func() { m.opt.NoReduction = saved }()
	return m.Successors(s, emit)
}

// Transition describes the transition labelled l from state s, one of its
// successors with or without the partial-order reduction.
func (m *Machine) Transition(s []byte, l uint64) (Step, error) {
	var found *Step
	m.AllSuccessors(s, func(l2 uint64, _ []byte) {
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
	if th.pend {
		return // a pending atomic was its last event
	}
	in := &m.p.Threads[t].Code[th.pc]
	if th.mid {
		ev := prog.Event{Kind: prog.EvLW, Thread: t, Loc: in.X, Val: th.val, Remote: -1}
		switch in.Op {
		case prog.OpGet, prog.OpRCAS, prog.OpRFAA:
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
		if sw := m.loopSwitch(t, int(th.pc)); sw != nil {
			m.read(t, sw) // spin.go
			return
		}
		for i, a := range in.Alts {
			m.silent(t, a, i)
		}
	case prog.OpWrite:
		m.perform(t, in, prog.Event{Kind: prog.EvLW, Thread: t, Loc: in.X, Val: in.A, Remote: -1}, false, in.Next, false, 0)
	case prog.OpRFence:
		m.perform(t, in, prog.Event{Kind: prog.EvNF, Thread: t, Loc: -1, Remote: in.Remote}, false, in.Next, false, 0)
	case prog.OpPoll:
		m.perform(t, in, prog.Event{Kind: prog.EvPoll, Thread: t, Loc: -1, Remote: in.Remote}, false, in.Next, false, 0)
	case prog.OpQuiet:
		m.perform(t, in, prog.Event{Kind: prog.EvQuiet, Thread: t, Loc: -1, Remote: -1}, false, in.Next, false, 0)
	case prog.OpAssumeEq, prog.OpAssumeNe, prog.OpCAS, prog.OpGet, prog.OpPut, prog.OpSwitch, prog.OpLoad:
		if in.Op == prog.OpSwitch && m.isRegister(in.X) {
			return // blocked: no alternative holds (settle)
		}
		m.read(t, in)
	case prog.OpEval:
		m.eval(t, in)
	case prog.OpRCAS, prog.OpRFAA:
		m.atomic(t, in)
	}
}

// eval generates the step of an OpEval into an ordinary location (settle
// runs those into registers): the lW of the value its expression takes on
// the thread's registers, or a silent step to its error point, as on the
// machines.
func (m *Machine) eval(t int, in *prog.Instr) {
	next, v, write := in.Local(m.st.m1)
	if !write {
		m.silent(t, next, 0)
		return
	}
	m.perform(t, in, prog.Event{Kind: prog.EvLW, Thread: t, Loc: in.X, Val: v, Remote: -1}, false, in.Next, false, 0)
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
	case prog.OpLoad:
		loc = in.Y
	}
	last := 2
	if in.Op == prog.OpPut && m.onlyFirst(in, prog.Event{Kind: prog.EvNLR, Thread: t, Loc: loc, Remote: in.Remote}) {
		last = 1
	}
	for part := 1; part <= last; part++ {
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
			if in.Op == prog.OpSwitch {
				// The read of the alternative v satisfies, as its assume.
				i := in.SwitchAlt(v)
				if i < 0 {
					continue
				}
				a := in.Alts[i]
				m.readPC = a
				m.performIn(t, &m.p.Threads[t].Code[a], ev, part, guess, m.p.Threads[t].Code[a].Next, false, v)
				m.readPC = -1
				continue
			}
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
			switch {
			case mid:
				next = -1
			case in.Op == prog.OpLoad && (v < in.Lo || v > in.Hi):
				// performIn leaves the register alone. A load that
				// cannot fail (Fail -1) reads a value outside the
				// range of its location only in a program without
				// range checks (prog.WithoutRangeChecks), where a NIC
				// write brought it: the run blocks there, as the
				// static lowering's switch over the range does.
				if next = in.Fail; next < 0 {
					continue
				}
			}
			m.performIn(t, in, ev, part, guess, next, mid, v)
		}
	}
}

// perform generates event ev of thread t in both parts, or in τ1 alone
// when that dominates (see onlyFirst).
func (m *Machine) perform(t int, in *prog.Instr, ev prog.Event, guess bool, next int, mid bool, val uint8) {
	last := 2
	if m.onlyFirst(in, ev) {
		last = 1
	}
	for part := 1; part <= last; part++ {
		m.performIn(t, in, ev, part, guess, next, mid, val)
	}
}

// onlyFirst reports whether event ev (of instruction in) may join τ1 and
// whether joining τ1 dominates joining τ2: every run from the τ2
// successor to a target is also a run from the τ1 successor. That holds
// for an event whose part is seen by nothing but the restrictions a τ2
// event places on the τ1 events after it (cpu2, in2, forcing writes):
//   - a poll, a fence, or a write to a location that no thread that moves
//     reads and that carries no SC-cycle mark: the part changes no memory
//     a read or the target consults (performIn stores only locations that
//     are read), and no mark;
//   - the local read of a put whose write is such a write and whose
//     source carries no mark: its value reaches only that write, and in
//     τ1 it reads M1, so it fixes no guess (a guess can only be refuted).
//
// The two successors then differ in those restrictions only, and the τ1
// one has fewer: no cpu2, a subset of in2 (a fence in τ1 sets fence, which
// keeps only nlR out of τ1; in τ2 it keeps every NIC class of its queue
// pair out), a poll takes one from c1 and c2 either way (τ1 needs c1 > 0),
// and a NIC write in τ1 is never forcing, so c1 is at least as large. So
// from the τ1 successor every step of the τ2 one is enabled, leads to the
// same memory, marks and thread positions with fewer restrictions again,
// and targets ignore the restrictions. Under Options.NoReduction both
// successors are kept.
func (m *Machine) onlyFirst(in *prog.Instr, ev prog.Event) bool {
	if m.opt.NoReduction {
		return false
	}
	unseen := func(l int) bool { return !m.isRead[l] && !m.markable[l] }
	switch ev.Kind {
	case prog.EvPoll, prog.EvNF:
	case prog.EvLW, prog.EvNLW, prog.EvNRW:
		if !unseen(ev.Loc) {
			return false
		}
	case prog.EvNLR:
		if !unseen(in.Y) || m.markable[in.X] {
			return false
		}
	default:
		return false
	}
	return m.allowed(m.st, in, ev, 1)
}

// allowed reports whether event ev of instruction in may join part.
func (m *Machine) allowed(st *State, in *prog.Instr, ev prog.Event, part int) bool {
	cls, qp := bookClass(ev.Kind), in.QP
	if part == 2 {
		if ev.Kind == prog.EvPoll {
			return st.c[m.ctr[qp]+1] > 0
		}
		return true
	}
	if st.th[ev.Thread].cpu2 {
		return false
	}
	switch cls {
	case axiom.ClassCPU:
	case axiom.ClassQuiet:
		return m.quietAllowed(st, ev.Thread)
	default:
		q := &st.q[qp]
		if q.in2&m.forbid[cls] != 0 || m.holds(st, in, ev.Thread) {
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

// performIn generates event ev of thread t in one part, if allowed: it
// applies the event to the part's memory and the bookkeeping, moves the
// thread on (to next, or to the middle of its instruction), and emits one
// successor per SC-cycle choice.
func (m *Machine) performIn(t int, in *prog.Instr, ev prog.Event, part int, guess bool, next int, mid bool, val uint8) {
	st := m.st
	qp := in.QP
	if !m.allowed(st, in, ev, part) {
		return
	}
	// Memory.
	w, wv := false, ev.Val
	switch ev.Kind {
	case prog.EvLW, prog.EvNLW, prog.EvNRW:
		w = true
	case prog.EvCAS:
		w, wv = true, ev.New
	case prog.EvNAR:
		// a remote atomic (atomic.go): it writes now unless its
		// comparison fails or it stays pending
		w, wv = m.atom.writes && !m.atom.pending, ev.New
	}
	nx := m.nx
	nx.copyFrom(st)
	if ev.Kind == prog.EvNAR {
		m.lock(nx, ev.Loc, part)
	}
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
	if in.Op == prog.OpLoad && ev.Val >= in.Lo && ev.Val <= in.Hi {
		nx.m1[in.X] = ev.Val // the register, whichever part the read joins
	}
	// RDMA bookkeeping.
	th := &nx.th[t]
	cls := bookClass(ev.Kind)
	if qp >= 0 {
		q := &nx.q[qp]
		q.held = m.holds(st, in, t)
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
					nx.c[c] = cover.Inc(nx.c[c])
				}
				nx.c[c+1] = cover.Inc(nx.c[c+1])
			case prog.EvPoll:
				if part == 1 {
					nx.c[c] = cover.Dec(nx.c[c])
				} else if nx.c[c] > 0 {
					nx.c[c] = cover.Dec(nx.c[c])
				}
				nx.c[c+1] = cover.Dec(nx.c[c+1])
			}
		}
	}
	if part == 2 && (cls == axiom.ClassCPU || cls == axiom.ClassQuiet) {
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
	if ev.Kind == prog.EvNAR {
		m.cur.Writes, m.cur.Pending = m.atom.writes, m.atom.pending
		if w {
			m.cur.Also = prog.Event{Kind: prog.EvNAW, Thread: t, Loc: ev.Loc, Val: wv, Remote: ev.Remote}
		}
		if m.atom.pending {
			// The thread stops at the atomic (atomic.go).
			th.mid, th.pend, th.pc, th.val = false, true, st.th[t].pc, uint8(ev.Loc)
			base |= labelPending
		}
	}
	if m.readPC >= 0 {
		m.cur.PC = m.readPC
	}
	if guess {
		m.cur.GuessLoc, m.cur.GuessVal = ev.Loc, ev.Val
	}
	if ev.Loc < 0 || !m.markable[ev.Loc] || m.marks&(1<<t) == 0 {
		m.out(base)
		return
	}
	// SC cycle: the event is a candidate entry until the thread marks its
	// exit; it may become the exit (a second successor).
	r := rec{set: true, loc: uint8(ev.Loc), part2: part == 2,
		r: ev.Kind == prog.EvLR || ev.Kind == prog.EvCAS || ev.Kind == prog.EvNLR || ev.Kind == prog.EvNRR || ev.Kind == prog.EvNAR, w: w}
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
	m.linkPending(nx, t, r)
	m.cur.Exit = true
	m.out(base | 2<<10)
	m.cur.Exit = false
}
