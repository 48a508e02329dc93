package machine

import (
	"fmt"

	"rdmasim/opsem/prog"
)

// Rules of the machines, as they appear in transition labels.
const (
	RuleStep uint8 = iota // a CPU step of a thread (any instruction)
	RuleN1                // put reads its local source
	RuleN2                // get leaves B1
	RuleN3                // fence leaves B1
	RuleN4                // put arrives at the remote node (nrW issued)
	RuleN5                // get request arrives
	RuleN6                // get reads remote memory (any unread response)
	RuleN7                // put acknowledged: complete
	RuleN8                // get response returns (nlW issued)
	RuleF1                // remote write reaches memory (nrW visible)
	RuleF2                // local write of a get reaches memory (nlW visible): complete
	RuleA1                // remote atomic reads its target (naR), taking its lock if it will write
	RuleA2                // remote atomic writes its target (naW), releasing the lock
)

var ruleNames = [...]string{"step", "N1", "N2", "N3", "N4", "N5", "N6", "N7", "N8", "F1", "F2", "A1", "A2"}

// Machine is the RDMA queue-pair machine or the SC machine of a program.
type Machine struct {
	p    *prog.Program
	sc   bool
	opt  Options
	nctr int
	ctr0 []int // ctr0[t]: index of thread t's first loop counter

	checks []rangeCheck // the locations whose range is checked (prog.Range)
	dead   []bool       // per location: writes are not tracked (Options.Dead)
	dropRW []bool       // per queue pair: no gets, so dead remote writes can be dropped
	// putAhead[qi][pc]: the thread of queue pair qi, at pc, may still
	// submit a put on qi (see invisibleStep).
	putAhead [][]bool

	graph bool // Options.Graph, on the RDMA machine

	// atoms are the remote atomic instructions (rcas, rfaa) of the
	// program; atomIdx[t][pc] is the index of thread t's instruction pc
	// among them (buffer entries carry it), or -1.
	atoms   []*prog.Instr
	atomIdx [][]int

	base, work  *State
	labels      []uint64
	out         []byte
	parent      []byte  // Successors' copy of the state it expands
	qoff        []int   // offsets of parent's queue-pair segments (decodeOff)
	thrQPs      [][]int // per thread: the queue pairs a CPU step may touch, ascending
	oneQP       [1]int
	cyc         cycleScratch
	gst         *State // scratch for HasSCCycle, apart from Successors' own
	sst         *State // scratch for StuckEncoded, made on first use
	stuckLabels []uint64
	npend       []uint8 // StuckEncoded's unpolled operations per queue pair
	unsig       bool    // the program has an unsignaled operation (signal.go)

	lay         layout  // offsets in encodings, for successorsFast
	edit, canon segEdit // successorsFast's edits of the current transition
	pre         []byte  // scratch: the prefix of a CPU step's successor
	// rbuf[b]: scratch for a buffer that an edit replaces (segEdit.repl).
	rbuf [nBuf][]byte

	// red is Options.Reduce on the RDMA machine (reduce.go): a layer over
	// this machine's next-state function; nil without the reduction.
	red *reducer
	// touched: the queue pair whose buffers the successor being emitted
	// changed, or -1 for none; mover: the thread that took the step, or
	// that owns the queue pair of a NIC step. The reduction reads both.
	touched int
	mover   int

	sym *symmetry // symmetry reduction (symmetry.go), nil without
}

// NewRDMA returns the queue-pair buffer machine of p.
func NewRDMA(p *prog.Program, opt Options) (*Machine, error) { return newMachine(p, opt, false) }

// NewSC returns the sequentially consistent machine of p.
func NewSC(p *prog.Program, opt Options) (*Machine, error) { return newMachine(p, opt, true) }

func newMachine(p *prog.Program, opt Options, sc bool) (*Machine, error) {
	if err := InflightBound.Check(opt.MaxInflight); err != nil {
		return nil, err
	}
	if err := UnrollBound.Check(opt.Unroll); err != nil {
		return nil, err
	}
	if p.InOrder {
		opt.Placement = PlaceInOrder // the file's placement line
	}
	m := &Machine{p: p, sc: sc, opt: opt, graph: opt.Graph && !sc, unsig: hasUnsignaled(p)}
	if opt.Graph && opt.Reduce {
		return nil, fmt.Errorf("event graphs record every event: they cannot be combined with the partial-order reduction")
	}
	if opt.Graph {
		if sc {
			return nil, fmt.Errorf("event graphs are recorded by the RDMA machine only")
		}
		if opt.Dead != nil {
			return nil, fmt.Errorf("event graphs need every location tracked (no dead-location set)")
		}
		for t := range p.Threads {
			if p.Threads[t].Loops > 0 && opt.Unroll == 0 {
				return nil, fmt.Errorf("thread %s has loops: event graphs need a loop bound (unroll >= 1)", p.Threads[t].Name)
			}
		}
	}
	for l := range p.Locs {
		if r := p.Locs[l].Check; r != nil {
			// A write out of a location's range stops every thread
			// (prog.Range): it depends on every step, which the
			// reduction's independence does not know.
			opt.Reduce = false
			m.checks = append(m.checks, rangeCheck{loc: l, lo: r.Lo, hi: r.Hi})
		}
	}
	m.opt = opt
	m.ctr0 = make([]int, len(p.Threads))
	for t := range p.Threads {
		m.ctr0[t] = m.nctr
		if opt.Unroll > 0 {
			m.nctr += p.Threads[t].Loops
		}
	}
	m.dead = make([]bool, len(p.Locs))
	if opt.Dead != nil {
		if len(opt.Dead) != len(p.Locs) {
			return nil, fmt.Errorf("dead-location set has %d entries for %d locations", len(opt.Dead), len(p.Locs))
		}
		copy(m.dead, opt.Dead)
	}
	for _, c := range m.checks {
		m.dead[c.loc] = false
	}
	m.atomIdx = make([][]int, len(p.Threads))
	for t := range p.Threads {
		m.atomIdx[t] = make([]int, len(p.Threads[t].Code))
		for pc := range p.Threads[t].Code {
			m.atomIdx[t][pc] = -1
			if p.Threads[t].Code[pc].Op.IsAtomic() {
				if len(m.atoms) >= 255 {
					return nil, fmt.Errorf("more than 255 remote atomic instructions: the machine numbers them in one byte")
				}
				m.atomIdx[t][pc] = len(m.atoms)
				m.atoms = append(m.atoms, &p.Threads[t].Code[pc])
			}
		}
	}
	m.dropRW = make([]bool, len(p.QPs))
	m.putAhead = make([][]bool, len(p.QPs))
	for qi, qp := range p.QPs {
		m.dropRW[qi] = true
		code := p.Threads[qp.Thread].Code
		for _, in := range code {
			if (in.Op == prog.OpGet || in.Op.IsAtomic()) && in.QP == qi {
				m.dropRW[qi] = false
			}
		}
		m.putAhead[qi] = putsAhead(code, qi)
	}
	m.thrQPs = make([][]int, len(p.Threads))
	for qi, qp := range p.QPs {
		m.thrQPs[qp.Thread] = append(m.thrQPs[qp.Thread], qi)
	}
	for t := range p.Threads {
		for _, in := range p.Threads[t].Code {
			if in.QP >= 0 && p.QPs[in.QP].Thread != t {
				return nil, fmt.Errorf("thread %s uses queue pair %d of another thread", p.Threads[t].Name, in.QP)
			}
		}
	}
	m.qoff = make([]int, len(p.QPs)+1)
	m.npend = make([]uint8, len(p.QPs))
	m.lay.thOff = len(p.Locs)
	m.lay.ctrOff = m.lay.thOff + 3*len(p.Threads)
	m.lay.qBase = m.lay.ctrOff + m.nctr
	m.lay.boff = make([]int, nBuf*len(p.QPs))
	m.base = m.newState()
	m.work = m.newState()
	if opt.Reduce && !m.sc && !m.graph {
		m.red = newReducer(m)
	}
	return m, nil
}

// Program returns the machine's program.
func (m *Machine) Program() *prog.Program { return m.p }

// Options returns the machine's bounds.
func (m *Machine) Options() Options { return m.opt }

// IsSC reports whether this is the SC machine.
func (m *Machine) IsSC() bool { return m.sc }

// NewState returns a State to decode into, for Decode.
func (m *Machine) NewState() *State { return m.newState() }

// Decode fills st with the configuration encoded in s.
func (m *Machine) Decode(s []byte, st *State) { m.decode(s, st) }

// Initial appends the encoding of the initial configuration to dst.
func (m *Machine) Initial(dst []byte) []byte {
	st := m.work
	for l := range m.p.Locs {
		st.mem[l] = m.p.Locs[l].Init
	}
	for t := range m.p.Threads {
		st.pc[t] = uint16(m.runLocal(st.mem, t, m.p.Threads[t].Entry))
		st.mid[t] = false
		st.reg[t] = 0
	}
	for i := range st.ctr {
		st.ctr[i] = 0
	}
	if m.graph {
		for t := range st.slots {
			st.slots[t] = 0
		}
		st.g.ev = st.g.ev[:0]
		for l := range st.g.mo {
			st.g.mo[l] = st.g.mo[l][:0]
		}
	}
	for i := range st.q {
		st.q[i].npend = 0
		for b := range st.q[i].buf {
			st.q[i].buf[b] = st.q[i].buf[b][:0]
		}
	}
	return m.encode(dst, st)
}

// Final reports whether the configuration st is final: every thread has
// terminated and every queue pair is drained.
func (m *Machine) Final(st *State) bool {
	if m.outOfRange(st.mem) {
		return false
	}
	for t := range m.p.Threads {
		if int(st.pc[t]) != m.p.Threads[t].End() || st.mid[t] {
			return false
		}
	}
	if !m.sc {
		for i := range st.q {
			if !st.q[i].empty() {
				return false
			}
		}
	}
	return true
}

// Successors emits every successor of the configuration s, with its label.
// It implements explore.Machine.
//
// A transition changes memory, the scalars of one thread (pc, mid, reg, its
// loop counters and, under Options.Graph, its slots and the graph) and the
// queue pairs of one thread (a CPU step may re-rank all of them, see
// canonPolls) or a single queue pair (NIC rules). Without Options.Graph the
// successor is written on the parent's bytes directly (successorsFast; under
// Options.Reduce the layer of reduce.go over it). Under Options.Graph it is produced from a
// working copy of the parent by applying the transition, encoding it as the
// parent's bytes with only those parts re-encoded, and restoring from the
// parent only what the transition may have changed.
func (m *Machine) Successors(s []byte, emit func(l uint64, next []byte)) uint32 {
	if m.outOfRange(s) {
		return 0 // an error point of the whole run (prog.Range)
	}
	if m.red != nil {
		return m.red.successors(s, emit)
	}
	if !m.graph {
		return m.successorsFast(s, emit)
	}
	m.parent = append(m.parent[:0], s...) // s may change under emit
	s = m.parent
	base, work := m.base, m.work
	m.decodeOff(s, base, m.qoff)
	var pruned uint32
	m.labels, pruned = m.enabled(base, m.labels[:0])
	if len(m.labels) == 0 {
		return pruned
	}
	work.copyFrom(base)
	qoff := m.qoff
	nq := len(base.q)
	thOff := len(base.mem)
	ctrOff := thOff + 3*len(base.pc)
	for _, l := range m.labels {
		t, rule, qi, _ := unlabel(l)
		var qps []int
		if rule == RuleStep {
			qps = m.thrQPs[t]
		} else {
			m.oneQP[0] = qi
			qps = m.oneQP[:]
		}
		m.apply(work, l)

		out := append(m.out[:0], s[:qoff[0]]...)
		copy(out, work.mem)
		hi := uint8(work.pc[t] >> 8)
		if work.mid[t] {
			hi |= 0x80
		}
		out[thOff+3*t], out[thOff+3*t+1], out[thOff+3*t+2] = uint8(work.pc[t]), hi, work.reg[t]
		copy(out[ctrOff:], work.ctr)
		prev := qoff[0]
		for _, qi := range qps {
			out = append(out, s[prev:qoff[qi]]...)
			out = m.encodeQP(out, &work.q[qi])
			prev = qoff[qi+1]
		}
		out = append(out, s[prev:qoff[nq]]...)
		if m.graph {
			out = append(out, work.slots...)
			out = work.g.encode(out)
		}
		m.out = out
		emit(l, out)

		copy(work.mem, base.mem)
		work.pc[t], work.mid[t], work.reg[t] = base.pc[t], base.mid[t], base.reg[t]
		copy(work.ctr, base.ctr)
		for _, qi := range qps {
			work.q[qi].copyFrom(&base.q[qi])
		}
		if m.graph {
			copy(work.slots, base.slots)
			work.g.copyFrom(&base.g)
		}
	}
	return pruned
}

// rangeCheck is a location's range that the machine checks (prog.Range).
type rangeCheck struct {
	loc    int
	lo, hi uint8
}

// outOfRange reports whether a location of mem (a decoded memory, or an
// encoding, which starts with it) holds a value outside its checked range:
// the configuration is then an error point of the run, from which no step
// leaves (Failed).
func (m *Machine) outOfRange(mem []byte) bool {
	for _, c := range m.checks {
		if v := mem[c.loc]; v < c.lo || v > c.hi {
			return true
		}
	}
	return false
}

// Labels are thread | rule<<8 | qp<<16 | arg<<24.
func label(t int, rule uint8, qp, arg int) uint64 {
	return uint64(t) | uint64(rule)<<8 | uint64(qp)<<16 | uint64(arg)<<24
}

func unlabel(l uint64) (t int, rule uint8, qp, arg int) {
	return int(l & 0xFF), uint8(l >> 8), int(l>>16) & 0xFF, int(l>>24) & 0xFFFF
}

// enabled appends the labels of the transitions enabled in st.
func (m *Machine) enabled(st *State, dst []uint64) ([]uint64, uint32) {
	var pruned uint32
	for t := range m.p.Threads {
		var pr uint32
		dst, pr = m.enabledCPU(st, t, dst)
		pruned |= pr
	}
	if !m.sc {
		for qi := range st.q {
			dst = m.enabledNIC(st, qi, dst)
		}
	}
	return dst, pruned
}

// enabledCPU appends the CPU step of thread t, if any (several for a branch).
func (m *Machine) enabledCPU(st *State, t int, dst []uint64) ([]uint64, uint32) {
	th := &m.p.Threads[t]
	in := &th.Code[st.pc[t]]
	step := label(t, RuleStep, 0, 0)
	if m.graph && in.Op > prog.OpBranch && !st.mid[t] && m.graphFull(st, t, max(3, 2*in.Words+1)) {
		return dst, PrunedGraph
	}
	switch in.Op {
	case prog.OpEnd, prog.OpFail:
		return dst, 0
	case prog.OpBranch:
		var pruned uint32
		for i, a := range in.Alts {
			if in.Loop >= 0 && i == 0 && m.opt.Unroll > 0 && int(st.ctr[m.ctr0[t]+in.Loop]) >= m.opt.Unroll {
				pruned |= PrunedUnroll
				continue
			}
			if m.opt.ReadNow && th.Lowered && !readsHold(th.Code, a, st.mem) {
				continue
			}
			dst = append(dst, label(t, RuleStep, 0, i))
		}
		return dst, pruned
	case prog.OpAssumeEq:
		if st.mem[in.X] == in.A {
			dst = append(dst, step)
		}
	case prog.OpAssumeNe:
		if st.mem[in.X] != in.A {
			dst = append(dst, step)
		}
	case prog.OpSwitch:
		if i := in.SwitchAlt(st.mem[in.X]); i >= 0 {
			dst = append(dst, label(t, RuleStep, 0, i))
		}
	case prog.OpLoad:
		if !in.Blocked(st.mem) {
			dst = append(dst, step)
		}
	case prog.OpGet, prog.OpPut, prog.OpRFence, prog.OpRCAS, prog.OpRFAA:
		if st.mid[t] {
			return append(dst, step), 0
		}
		q := &st.q[in.QP]
		unboundedPolls := in.Op != prog.OpRFence && in.PollsLeft[m.p.QPs[in.QP].Local] == prog.Unbounded
		if unboundedPolls && int(q.npend) >= m.opt.MaxInflight || !m.sc && q.inflight() >= m.opt.MaxInflight {
			return dst, PrunedInflight
		}
		dst = append(dst, step)
	case prog.OpPoll:
		q := &st.q[in.QP]
		if q.npend > 0 && (m.sc || !q.oldestPending()) {
			dst = append(dst, step)
		}
	case prog.OpQuiet:
		if m.sc || m.quiet(st, t) {
			dst = append(dst, step)
		}
	default: // skip, write, cas
		dst = append(dst, step)
	}
	return dst, 0
}

// Step is what a transition did: its event (Kind EvNone for silent steps)
// and, for NIC writes, whether the event was issued or became visible.
type Step struct {
	Event   prog.Event
	Visible bool // for nlW/nrW: the write reached memory (else: issued)
	// Words are the step's other events when it makes several: the
	// later words' reads of a multi-word put's N1 or get's N6, the
	// later words' writes issued by its N4 or N8, and under SC the
	// whole transfer (SEMANTICS-VERBS.md 1): Event is the first.
	Words []prog.Event
}

// apply performs transition l on st and returns what happened.
func (m *Machine) apply(st *State, l uint64) Step {
	t, rule, qi, arg := unlabel(l)
	if rule == RuleStep {
		return m.applyCPU(st, t, arg)
	}
	return m.applyNIC(st, rule, qi, arg)
}

// write stores v at loc, unless loc is dead.
func (m *Machine) write(st *State, loc int, v uint8) {
	if !m.dead[loc] {
		st.mem[loc] = v
	}
}

func pop(b []entry) []entry { return append(b[:0], b[1:]...) }

func (m *Machine) applyCPU(st *State, t, arg int) Step {
	th := &m.p.Threads[t]
	in := &th.Code[st.pc[t]]
	ev := prog.Event{Thread: t, Remote: in.Remote}
	var words []prog.Event // Step.Words
	next := true
	switch in.Op {
	case prog.OpSkip:
	case prog.OpBranch:
		st.pc[t] = uint16(in.Alts[arg])
		if in.Loop >= 0 && m.opt.Unroll > 0 {
			c := &st.ctr[m.ctr0[t]+in.Loop]
			if arg == 0 {
				*c++
			} else {
				*c = 0
			}
		}
		next = false
	case prog.OpWrite:
		m.write(st, in.X, in.A)
		ev.Kind, ev.Loc, ev.Val = prog.EvLW, in.X, in.A
		m.record(st, ev, m.slot(st, t, 1))
	case prog.OpAssumeEq, prog.OpAssumeNe:
		ev.Kind, ev.Loc, ev.Val = prog.EvLR, in.X, st.mem[in.X]
		m.record(st, ev, m.slot(st, t, 1))
	case prog.OpSwitch:
		// The read and the assume of alternative arg, in one step.
		ev.Kind, ev.Loc, ev.Val = prog.EvLR, in.X, st.mem[in.X]
		m.record(st, ev, m.slot(st, t, 1))
		st.pc[t] = uint16(th.Code[in.Alts[arg]].Next)
		next = false
	case prog.OpLoad, prog.OpEval, prog.OpIf:
		// Run-time registers: a register's accesses make no events.
		pc, v, write := in.Local(st.mem)
		if in.Op == prog.OpLoad {
			ev.Kind, ev.Loc, ev.Val = prog.EvLR, in.Y, st.mem[in.Y]
			m.record(st, ev, m.slot(st, t, 1))
		}
		if write {
			m.write(st, in.X, v)
			if !m.p.Locs[in.X].Reg {
				ev.Kind, ev.Loc, ev.Val = prog.EvLW, in.X, v
				m.record(st, ev, m.slot(st, t, 1))
			}
		}
		st.pc[t] = uint16(pc)
		next = false
	case prog.OpCAS:
		if !st.mid[t] {
			slot := m.slot(st, t, 2)
			old := st.mem[in.Z]
			ev.Loc, ev.Val = in.Z, old
			if old == in.A {
				m.write(st, in.Z, in.B)
				ev.Kind, ev.New = prog.EvCAS, in.B
			} else {
				ev.Kind = prog.EvLR
			}
			m.record(st, ev, slot)
			st.mid[t], st.reg[t] = true, old
			next = false
		} else {
			m.write(st, in.X, st.reg[t])
			ev.Kind, ev.Loc, ev.Val = prog.EvLW, in.X, st.reg[t]
			if m.graph {
				m.record(st, ev, st.slots[t]-1)
			}
			st.mid[t], st.reg[t] = false, 0
		}
	case prog.OpGet, prog.OpPut, prog.OpRFence, prog.OpRCAS, prog.OpRFAA:
		if m.sc {
			next = m.scRemote(st, t, in, &ev, &words)
		} else {
			if in.Op == prog.OpPut && in.Inline {
				words = m.submitInline(st, t, in, &ev)
				break
			}
			q := &st.q[in.QP]
			var e entry
			switch in.Op {
			case prog.OpRCAS, prog.OpRFAA:
				e = entry{kind: kAtom, a: uint8(m.atomIdx[t][st.pc[t]]), b: uint8(in.Y), rank: q.npend, slot: m.slot(st, t, 3)}
				q.npend += signalled(in)
			case prog.OpPut:
				e = entry{kind: kPut, a: uint8(in.Y), b: uint8(in.X), rank: q.npend, slot: m.wordsSlot(st, t, in)}
				q.npend += signalled(in)
			case prog.OpGet:
				e = entry{kind: kGet, a: uint8(in.X), b: uint8(in.Y), rank: q.npend, slot: m.wordsSlot(st, t, in)}
				q.npend += signalled(in)
			default:
				e = entry{kind: kFence, slot: m.slot(st, t, 1)}
			}
			e.v = b1V(in)
			q.buf[bufB1] = append(q.buf[bufB1], e)
		}
	case prog.OpPoll:
		q := &st.q[in.QP]
		q.npend--
		for b := range q.buf {
			for i := range q.buf[b] {
				if r := q.buf[b][i].rank; r != noRank && r > 0 {
					q.buf[b][i].rank = r - 1
				}
			}
		}
		ev.Kind = prog.EvPoll
		m.slot(st, t, 1)
	case prog.OpQuiet:
		// Enabled only once every operation of t is complete and
		// visible (quiet): it changes nothing but the pc, and consumes
		// no completion.
		ev.Kind, ev.Remote = prog.EvQuiet, -1
		m.slot(st, t, 1)
	}
	if next {
		st.pc[t] = uint16(in.Next)
	}
	if !st.mid[t] {
		st.pc[t] = uint16(m.runLocal(st.mem, t, int(st.pc[t])))
	}
	m.canonPolls(st, t)
	return Step{Event: ev, Words: words}
}

// canonPolls forgets, on each queue pair of thread t, the unpolled
// operations that no future poll can reach: with at most P polls left on
// any path, only the P oldest unpolled operations can ever be waited for, so
// the count is capped at P and later operations lose their rank. This keeps
// loops of unpolled puts and gets finite-state without losing behaviours.
func (m *Machine) canonPolls(st *State, t int) {
	th := &m.p.Threads[t]
	in := &th.Code[st.pc[t]]
	for qi := range st.q {
		qp := m.p.QPs[qi]
		if qp.Thread != t {
			continue
		}
		left := in.PollsLeft[qp.Local]
		if left == prog.Unbounded {
			continue
		}
		q := &st.q[qi]
		if int(q.npend) > left {
			q.npend = uint8(left)
		}
		for b := range q.buf {
			for i := range q.buf[b] {
				if e := &q.buf[b][i]; e.kind != kFence && e.rank != noRank && int(e.rank) >= left && b != bufRW {
					e.rank = noRank
				}
			}
		}
	}
}

// Clone returns an independent machine for the same program and options,
// for use on another goroutine: it shares only the read-only program and
// has scratch space of its own. It produces the same successors, labels and
// order as m. (It implements explore.Cloner.)
func (m *Machine) Clone() *Machine {
	c, err := newMachine(m.p, m.opt, m.sc)
	if err != nil {
		panic("machine: cloning a valid machine failed: " + err.Error()) // m was built from the same arguments
	}
	if m.sym != nil {
		c.sym = &symmetry{sym: m.sym.sym, all: m.sym.all}
		c.sym.init(c)
	}
	return c
}

// runLocal runs thread t from pc, in memory mem, through the instructions
// that touch its registers only (prog.OpEval of a register, prog.OpIf, a
// prog.OpSwitch on a register) and returns where it stops: at an
// instruction another thread could see, at an error point, or at a switch
// on a register no alternative of which its value satisfies (the thread
// waits there for ever, as at an assume that fails: enabledCPU offers no
// step). They are part of the step that reached pc (SPIN's d_step): no
// other thread can tell, and a register's arithmetic costs no
// configuration of its own, as when the lowering specialises it. A switch
// on a register reads the register, as an OpIf does: no event, no memory
// read (the decider's settle and the model's trie paths run it so too). A
// cycle passes a loop head, an OpBranch, so the run ends.
func (m *Machine) runLocal(mem []byte, t, pc int) int {
	code := m.p.Threads[t].Code
	for {
		in := &code[pc]
		switch {
		case in.Op == prog.OpIf || in.Op == prog.OpEval && m.p.Locs[in.X].Reg:
			next, v, write := in.Local(mem)
			if write && !m.dead[in.X] {
				mem[in.X] = v
			}
			pc = next
		case in.Op == prog.OpSwitch && m.p.Locs[in.X].Reg:
			i := in.SwitchAlt(mem[in.X])
			if i < 0 {
				return pc
			}
			pc = code[in.Alts[i]].Next
		default:
			return pc
		}
	}
}
