package machine

import (
	"encoding/binary"

	"rdmasim/opsem/prog"
)

// The successor function of the hot path (every mode but Options.Graph)
// works on encodings directly: it locates the buffers of every queue pair in
// the parent's bytes once, decides which transitions are enabled from those
// bytes, and writes each successor as the parent's bytes with the parts the
// transition changes rewritten. Nothing is decoded into a State, so no State
// is copied or restored per transition. The result is byte for byte what
// applying the transition to the decoded parent and encoding it gives
// (TestSuccessorsIncremental checks that on the litmus corpus).

// layout holds the fixed offsets of an encoding and, per parent, the offsets
// of its queue pairs' buffers.
type layout struct {
	thOff, ctrOff, qBase int
	// boff[qi*nBuf+b] is the offset of buffer b's length byte in queue
	// pair qi's segment of the parent (RDMA only).
	boff []int
}

// segEdit describes how a transition rewrites one queue pair's segment.
type segEdit struct {
	npend int8 // added to the count of unpolled operations
	drop  uint8
	add   [nBuf][5]byte // add[b], if addN[b]: an entry appended to buffer b
	addN  uint8         // bit b: add[b] is appended
	dec   bool          // a poll: ranks above zero are decremented
	left  int           // canonPolls' cap on ranks and npend; -1 for none
	setB3 int           // N6, A1, A2: B3 entry setB3's first four bytes become setE; -1 for none
	setE  [4]byte
	// repl bit b: buffer b's entries become Machine.rbuf[b] (its bytes,
	// whole entries), for the steps of multi-word operations, which move
	// or rewrite several entries at once (NIC steps only, through
	// splice).
	repl uint8
}

func (e *segEdit) reset() {
	*e = segEdit{left: -1, setB3: -1}
}

// scan records in m.qoff and m.lay.boff where the segments and buffers of the
// parent s begin.
func (m *Machine) scan(s []byte) {
	i := m.lay.qBase
	nq := len(m.p.QPs)
	for qi := 0; qi < nq; qi++ {
		m.qoff[qi] = i
		if m.sc {
			i++
			continue
		}
		i = m.scanSeg(s, qi, i)
	}
	m.qoff[nq] = i
}

// scanSeg records in m.lay.boff where the buffers of queue pair qi's segment
// of s, which begins at i, begin, and returns where the segment ends (RDMA
// only).
func (m *Machine) scanSeg(s []byte, qi, i int) int {
	i++
	bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf : qi*nBuf+nBuf]
	if i+8 <= len(s) && binary.LittleEndian.Uint64(s[i:])&0xFF_FFFF_FFFF == 0 {
		// The five buffers are empty, as those of most queue pairs
		// are: one load instead of a chain of five.
		bo[bufB1], bo[bufB2], bo[bufB3], bo[bufRW], bo[bufLW] = i, i+1, i+2, i+3, i+4
		return i + nBuf
	}
	bo[bufB1] = i
	i += 1 + 5*int(s[i])
	bo[bufB2] = i
	i += 1 + 5*int(s[i])
	bo[bufB3] = i
	i += 1 + 5*int(s[i])
	bo[bufRW] = i
	i += 1 + 2*int(s[i])
	bo[bufLW] = i
	return i + 1 + 3*int(s[i])
}

// pcOf decodes thread t's pc and mid-instruction flag from s.
func (m *Machine) pcOf(s []byte, t int) (int, bool) {
	o := m.lay.thOff + 3*t
	return int(s[o]) | int(s[o+1]&0x7F)<<8, s[o+1]&0x80 != 0
}

// successorsFast is Successors for machines without event graphs.
func (m *Machine) successorsFast(s []byte, emit func(l uint64, next []byte)) uint32 {
	return m.expand(m.load(s), emit)
}

// load copies s into m.parent, since s may change under emit, and scans
// it; it returns the copy.
func (m *Machine) load(s []byte) []byte {
	m.parent = append(m.parent[:0], s...)
	m.scan(m.parent)
	return m.parent
}

// expand emits every successor of s, a configuration load made, by every
// thread's CPU step and every queue pair's NIC rules.
func (m *Machine) expand(s []byte, emit func(l uint64, next []byte)) uint32 {
	var pruned uint32
	for t := range m.p.Threads {
		pruned |= m.fastCPU(s, t, emit)
	}
	if !m.sc {
		for qi := range m.p.QPs {
			m.fastNIC(s, qi, emit)
		}
	}
	return pruned
}

// fastCPU emits the CPU steps of thread t (enabledCPU and applyCPU on bytes).
func (m *Machine) fastCPU(s []byte, t int, emit func(l uint64, next []byte)) uint32 {
	th := &m.p.Threads[t]
	pc, mid := m.pcOf(s, t)
	in := &th.Code[pc]
	switch in.Op {
	case prog.OpEnd, prog.OpFail:
		return 0
	case prog.OpBranch:
		var pruned uint32
		for i, a := range in.Alts {
			if in.Loop >= 0 && i == 0 && m.opt.Unroll > 0 && int(s[m.lay.ctrOff+m.ctr0[t]+in.Loop]) >= m.opt.Unroll {
				pruned |= PrunedUnroll
				continue
			}
			if m.opt.ReadNow && th.Lowered && !readsHold(th.Code, a, s) {
				continue
			}
			m.cpuStep(s, t, in, mid, i, emit)
		}
		return pruned
	case prog.OpAssumeEq:
		if s[in.X] != in.A {
			return 0
		}
	case prog.OpAssumeNe:
		if s[in.X] == in.A {
			return 0
		}
	case prog.OpSwitch:
		i := in.SwitchAlt(s[in.X])
		if i < 0 {
			return 0
		}
		m.cpuStep(s, t, in, mid, i, emit)
		return 0
	case prog.OpLoad:
		if in.Blocked(s) {
			return 0
		}
	case prog.OpGet, prog.OpPut, prog.OpRFence, prog.OpRCAS, prog.OpRFAA:
		if !mid {
			unboundedPolls := in.Op != prog.OpRFence && in.PollsLeft[m.p.QPs[in.QP].Local] == prog.Unbounded
			if unboundedPolls && int(s[m.qoff[in.QP]]) >= m.opt.MaxInflight || !m.sc && m.inflightAt(s, in.QP) >= m.opt.MaxInflight {
				return PrunedInflight
			}
		}
	case prog.OpPoll:
		if s[m.qoff[in.QP]] == 0 || !m.sc && m.oldestPendingAt(s, in.QP) {
			return 0
		}
	case prog.OpQuiet:
		if !m.sc && !m.quietAt(s, t) {
			return 0
		}
	}
	m.cpuStep(s, t, in, mid, 0, emit)
	return 0
}

// cpuStep emits the successor of s by thread t's step (branch arg), the
// byte-level applyCPU followed by canonPolls.
func (m *Machine) cpuStep(s []byte, t int, in *prog.Instr, mid bool, arg int, emit func(l uint64, next []byte)) {
	out := append(m.out[:0], s[:m.lay.qBase]...)
	o := m.lay.thOff + 3*t
	reg := s[o+2]
	pc := in.Next
	touched := -1 // the queue pair the instruction itself edits
	e := &m.edit
	e.reset()
	switch in.Op {
	case prog.OpSkip, prog.OpQuiet:
	case prog.OpBranch:
		pc = in.Alts[arg]
		if in.Loop >= 0 && m.opt.Unroll > 0 {
			c := m.lay.ctrOff + m.ctr0[t] + in.Loop
			if arg == 0 {
				out[c]++
			} else {
				out[c] = 0
			}
		}
	case prog.OpWrite:
		m.writeAt(out, in.X, in.A)
	case prog.OpAssumeEq, prog.OpAssumeNe:
	case prog.OpSwitch:
		pc = m.p.Threads[t].Code[in.Alts[arg]].Next
	case prog.OpCAS:
		if !mid {
			old := s[in.Z]
			if old == in.A {
				m.writeAt(out, in.Z, in.B)
			}
			mid, reg, pc = true, old, -1
		} else {
			m.writeAt(out, in.X, reg)
			mid, reg = false, 0
		}
	case prog.OpRCAS, prog.OpRFAA:
		touched = in.QP
		switch {
		case !m.sc:
			e.add[bufB1] = [5]byte{kAtom, uint8(m.atomIdx[t][pc0(s, o)]), uint8(in.Y), b1V(in), s[m.qoff[in.QP]]}
			e.addN, e.npend = 1<<bufB1, int8(signalled(in))
		case !mid:
			old := s[in.Y]
			if v, ok := in.AtomicResult(old); ok {
				m.writeAt(out, in.Y, v)
			}
			mid, reg, pc, touched = true, old, -1, -1
		default:
			m.writeAt(out, in.X, reg)
			mid, reg, e.npend = false, 0, int8(signalled(in))
		}
	case prog.OpGet, prog.OpPut, prog.OpRFence:
		touched = in.QP
		if m.sc {
			switch {
			case in.Words > 1:
				// One step (sc.go's scRemote): k reads, k writes.
				from, to := in.X, in.Y
				if in.Op == prog.OpGet {
					from, to = in.Y, in.X
				}
				for i := 0; i < in.Words; i++ {
					m.writeAt(out, to+i, s[from+i])
				}
				e.npend = int8(signalled(in))
			case in.Op == prog.OpRFence:
				touched = -1
			case !mid && in.Op == prog.OpPut:
				mid, reg, pc, touched = true, s[in.X], -1, -1
			case !mid:
				mid, reg, pc, touched = true, s[in.Y], -1, -1
			case in.Op == prog.OpPut:
				m.writeAt(out, in.Y, reg)
				mid, reg, e.npend = false, 0, int8(signalled(in))
			default:
				m.writeAt(out, in.X, reg)
				mid, reg, e.npend = false, 0, int8(signalled(in))
			}
			break
		}
		rank := s[m.qoff[in.QP]]
		switch {
		case in.Op == prog.OpPut && in.Inline:
			m.submitInlineAt(s, in, rank, e)
			e.npend = int8(signalled(in))
		case in.Op == prog.OpPut:
			e.add[bufB1] = [5]byte{kPut, uint8(in.Y), uint8(in.X), b1V(in), rank}
			e.npend = int8(signalled(in))
		case in.Op == prog.OpGet:
			e.add[bufB1] = [5]byte{kGet, uint8(in.X), uint8(in.Y), b1V(in), rank}
			e.npend = int8(signalled(in))
		default:
			e.add[bufB1] = [5]byte{kFence}
		}
		if e.repl == 0 {
			e.addN = 1 << bufB1
		}
	case prog.OpPoll:
		touched = in.QP
		e.npend, e.dec = -1, true
	case prog.OpLoad, prog.OpEval, prog.OpIf:
		next, v, write := in.Local(s)
		if write {
			m.writeAt(out, in.X, v)
		}
		pc = next
	}
	if pc < 0 {
		pc = int(s[o]) | int(s[o+1]&0x7F)<<8
	}
	if !mid {
		pc = m.runLocal(out, t, pc)
	}
	hi := uint8(pc >> 8)
	if mid {
		hi |= 0x80
	}
	out[o], out[o+1], out[o+2] = uint8(pc), hi, reg
	m.cpuQueues(s, out, t, pc, touched, arg, emit)
}

// cpuQueues completes out, the successor of s by thread t's step (branch
// arg) up to its queue pairs, the thread now at pc: it writes the queue
// pairs, the one the step edited (touched, by m.edit) and those canonPolls
// caps at pc, and emits it.
func (m *Machine) cpuQueues(s, out []byte, t, pc, touched, arg int, emit func(l uint64, next []byte)) {
	e := &m.edit
	// The queue pairs of thread t: the one the instruction edits, and
	// those canonPolls caps at the new pc. Ranks are below the count of
	// unpolled operations, so canonPolls changes a queue pair only when
	// that count exceeds the polls left; an unsignaled operation's rank
	// may equal the count (signal.go), so with one in the program it
	// changes it when the count reaches the polls left.
	next := &m.p.Threads[t].Code[pc]
	canon := false
	for _, qi := range m.thrQPs[t] {
		left := next.PollsLeft[m.p.QPs[qi].Local]
		np := int(s[m.qoff[qi]])
		if qi == touched {
			np += int(e.npend)
		}
		if left != prog.Unbounded && (np > left || np == left && m.unsig) {
			canon = true
		}
	}
	m.touched, m.mover = touched, t
	if !canon && !e.dec {
		if touched >= 0 {
			// The prefix copied above is copied again: splice writes
			// the whole encoding.
			prefix := append(m.pre[:0], out...)
			m.pre = prefix
			out = m.splice(out[:0], s, touched, e)
			copy(out, prefix)
		} else {
			out = append(out, s[m.lay.qBase:m.qoff[len(m.p.QPs)]]...)
		}
		m.out = out
		emit(label(t, RuleStep, 0, arg), out)
		return
	}
	prev := m.lay.qBase
	for _, qi := range m.thrQPs[t] {
		left := next.PollsLeft[m.p.QPs[qi].Local]
		qe := e
		if qi != touched {
			if left == prog.Unbounded {
				continue
			}
			qe = &m.canon
			qe.reset()
		}
		if left != prog.Unbounded {
			qe.left = left
		}
		out = append(out, s[prev:m.qoff[qi]]...)
		out = m.writeSeg(out, s, qi, qe)
		prev = m.qoff[qi+1]
	}
	out = append(out, s[prev:m.qoff[len(m.p.QPs)]]...)
	m.out = out
	emit(label(t, RuleStep, 0, arg), out)
}

// writeAt stores v at location loc of the encoding out, unless loc is dead.
func (m *Machine) writeAt(out []byte, loc int, v uint8) {
	if !m.dead[loc] {
		out[loc] = v
	}
}

// writeSeg appends queue pair qi's segment of s, edited by e, to out.
func (m *Machine) writeSeg(out, s []byte, qi int, e *segEdit) []byte {
	np := int(s[m.qoff[qi]]) + int(e.npend)
	if e.left >= 0 && np > e.left {
		np = e.left
	}
	out = append(out, uint8(np))
	if m.sc {
		return out
	}
	bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
	for b := 0; b < nBuf; b++ {
		w := entryWidth[b]
		n := int(s[bo[b]])
		ent := s[bo[b]+1 : bo[b]+1+n*w]
		if e.repl&(1<<b) != 0 {
			ent, n = m.rbuf[b], len(m.rbuf[b])/w // a multi-word inline put's submission
		}
		if e.drop&(1<<b) != 0 {
			ent = ent[w:]
			n--
		}
		add := e.addN&(1<<b) != 0
		if add {
			n++
		}
		out = append(out, uint8(n))
		start := len(out)
		out = append(out, ent...)
		if b == bufB3 && e.setB3 >= 0 {
			k := start + 5*e.setB3
			copy(out[k:k+4], e.setE[:])
		}
		old := len(out)
		if add {
			out = append(out, e.add[b][:w]...)
		}
		if b == bufRW || !e.dec && e.left < 0 {
			continue
		}
		rp := w - 1 // the rank's position in an entry
		for k := start; k < len(out); k += w {
			r := out[k+rp]
			if e.dec && k < old && r != noRank && r > 0 {
				r--
			}
			if e.left >= 0 && r != noRank && int(r) >= e.left && (w != 5 || out[k] != kFence) {
				r = noRank
			}
			out[k+rp] = r
		}
	}
	return out
}

// fastNIC emits the NIC rules enabled on queue pair qi (enabledNIC and
// applyNIC on bytes).
func (m *Machine) fastNIC(s []byte, qi int, emit func(l uint64, next []byte)) {
	bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
	t := m.p.QPs[qi].Thread
	n1, n2, n3 := s[bo[bufB1]], s[bo[bufB2]], s[bo[bufB3]]
	nRW, nLW := s[bo[bufRW]], s[bo[bufLW]]
	e := &m.edit
	if f := s[bo[bufB1]+1:]; n1 > 0 && (!b1Fenced(f[0], f[2], f[3]) || !m.readsPendingAt(s, qi)) {
		switch f[0] {
		case kPutI:
			m.stepN1Inline(s, qi, f, emit)
		case kPut:
			if nLW == 0 && wordsOf(f[3]) > 1 {
				m.fastN1Words(s, qi, f, emit) // one word per step (tear.go)
			} else if nLW == 0 {
				e.reset()
				e.drop = 1 << bufB1
				e.add[bufB2] = [5]byte{kPutV, f[1], 0, s[f[2]], f[4]}
				e.addN = 1 << bufB2
				m.nicStep(s, qi, label(t, RuleN1, qi, 0), -1, 0, emit)
			}
		case kGet, kAtom:
			m.stepN2(s, qi, f, emit)
		case kFence:
			if n2 == 0 && n3 == 0 {
				m.stepN3(s, qi, emit)
			}
		}
	}
	if n2 > 0 {
		f := s[bo[bufB2]+1:]
		if f[0] == kPutV {
			e.reset()
			e.drop = 1 << bufB2
			e.add[bufB3] = [5]byte{kAck, 0, 0, 0, f[4]}
			e.addN = 1 << bufB3
			if k := int(f[2]) + 1; k > 1 {
				m.stepN4Words(s, qi, k)
			} else if !m.dead[f[1]] || !m.dropRW[qi] {
				e.add[bufRW] = [5]byte{f[1], f[3]}
				e.addN |= 1 << bufRW
			}
			m.nicStep(s, qi, label(t, RuleN4, qi, 0), -1, 0, emit)
		} else if f[0] != kPutP { // a put still reading (tear.go)
			m.stepN5(s, qi, f, emit)
		}
	}
	if nRW == 0 {
		for i, o := 0, bo[bufB3]+1; i < int(n3); i, o = i+1, o+5 {
			if s[o] == kGetR {
				e.reset()
				e.setB3, e.setE = i, [4]byte{kGetRV, s[o+1], s[o+2], s[s[o+2]]}
				m.nicStep(s, qi, label(t, RuleN6, qi, i), -1, 0, emit)
			}
		}
		for i, o := 0, bo[bufB3]+1; i < int(n3); i, o = i+1, o+5 {
			if s[o] == kAtomR && !m.atomLockedAt(s, s[o+2]) {
				in := m.atoms[s[o+1]]
				old := s[s[o+2]]
				e.reset()
				e.setB3, e.setE = i, [4]byte{kAtomRH, s[o+1], s[o+2], old}
				if _, ok := in.AtomicResult(old); !ok {
					e.setE = [4]byte{kGetRV, uint8(in.X), s[o+2], old}
				}
				m.nicStep(s, qi, label(t, RuleA1, qi, i), -1, 0, emit)
			}
		}
	}
	for i, o := 0, bo[bufB3]+1; i < int(n3); i, o = i+1, o+5 {
		if s[o] == kAtomRH {
			in := m.atoms[s[o+1]]
			v, _ := in.AtomicResult(s[o+3])
			e.reset()
			e.setB3, e.setE = i, [4]byte{kGetRV, uint8(in.X), s[o+2], s[o+3]}
			m.nicStep(s, qi, label(t, RuleA2, qi, i), int(s[o+2]), v, emit)
		}
	}
	if n3 > 0 {
		f := s[bo[bufB3]+1:]
		switch f[0] {
		case kAck:
			m.stepN7(s, qi, emit)
		case kGetRV, kGroup:
			if groupReadAt(f) {
				m.stepN8(s, qi, f, emit)
			}
		}
	}
	if nRW > 0 {
		m.placeAt(s, qi, bufRW, RuleF1, emit)
	}
	if nLW > 0 {
		m.placeAt(s, qi, bufLW, RuleF2, emit)
	}
}

// placeAt emits F1 (b = RW) or F2 (b = LW) on queue pair qi, whose buffer b
// is not empty: the head is placed, or, when the head is a group's header,
// each word the placement allows (enabledPlace and place on bytes).
func (m *Machine) placeAt(s []byte, qi, b int, rule uint8, emit func(l uint64, next []byte)) {
	o := m.lay.boff[qi*nBuf+b]
	n, w := int(s[o]), entryWidth[b]
	f := s[o+1:]
	t := m.p.QPs[qi].Thread
	e := &m.edit
	if f[0] != groupLoc {
		e.reset()
		e.drop = 1 << b
		m.nicStep(s, qi, label(t, rule, qi, 0), int(f[0]), f[1], emit)
		return
	}
	c := int(f[1])
	last := c
	if m.opt.Placement == PlaceInOrder {
		last = 1
	}
	for j := 1; j <= last; j++ {
		e.reset()
		r := m.rbuf[b][:0]
		if c > 2 {
			r = append(r, f[:w]...)
			r[1]--
		}
		r = append(r, f[w:j*w]...)
		r = append(r, f[(j+1)*w:n*w]...)
		m.rbuf[b], e.repl = r, 1<<b
		m.nicStep(s, qi, label(t, rule, qi, j), int(f[j*w]), f[j*w+1], emit)
	}
}

// stepN4Words sets m.edit's RW and B2 for N4 of a k-word put at the head
// of queue pair qi's B2 (applyNIC's RuleN4 on bytes): its words leave B2
// and enter RW as one group, headed when two or more are kept.
func (m *Machine) stepN4Words(s []byte, qi, k int) {
	bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
	e := &m.edit
	e.drop = 0
	b2 := bo[bufB2] + 1
	m.rbuf[bufB2] = append(m.rbuf[bufB2][:0], s[b2+5*k:b2+5*int(s[bo[bufB2]])]...)
	r := append(m.rbuf[bufRW][:0], s[bo[bufRW]+1:bo[bufRW]+1+2*int(s[bo[bufRW]])]...)
	h := len(r)
	r = append(r, groupLoc, 0)
	for i, o := 0, b2; i < k; i, o = i+1, o+5 {
		if !m.dead[s[o+1]] || !m.dropRW[qi] {
			r = append(r, s[o+1], s[o+3])
		}
	}
	if c := (len(r) - h - 2) / 2; c >= 2 {
		r[h+1] = uint8(c)
	} else {
		r = append(r[:h], r[h+2:]...)
	}
	m.rbuf[bufRW] = r
	e.repl = 1<<bufB2 | 1<<bufRW
}

// nicStep emits the successor of s by a NIC rule on queue pair qi that edits
// its segment as m.edit says and, if loc >= 0, writes v to loc.
func (m *Machine) nicStep(s []byte, qi int, l uint64, loc int, v uint8, emit func(l uint64, next []byte)) {
	out := m.splice(m.out[:0], s, qi, &m.edit)
	if loc >= 0 {
		m.writeAt(out, loc, v)
	}
	m.out = out
	m.touched, m.mover = qi, m.p.QPs[qi].Thread
	emit(l, out)
}

// splice appends to out the whole encoding s with queue pair qi's segment
// edited by e, which must not transform ranks (e.dec false, e.left < 0):
// it copies the runs of s between the bytes the edit changes, so a
// transition costs a handful of copies whatever the size of the state.
func (m *Machine) splice(out, s []byte, qi int, e *segEdit) []byte {
	pos := m.qoff[qi]
	out = append(out, s[:pos]...)
	if e.npend != 0 {
		out = append(out, uint8(int(s[pos])+int(e.npend)))
		pos++
	}
	if !m.sc && e.drop|e.addN|e.repl != 0 {
		bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
		for b := 0; b < nBuf; b++ {
			bit := uint8(1) << b
			if (e.drop|e.addN|e.repl)&bit == 0 {
				continue
			}
			w := entryWidth[b]
			n := int(s[bo[b]])
			out = append(out, s[pos:bo[b]]...)
			pos = bo[b] + 1
			end := pos + n*w
			if e.repl&bit != 0 {
				out = append(out, uint8(len(m.rbuf[b])/w))
				out = append(out, m.rbuf[b]...)
				if e.addN&bit != 0 {
					panic("machine: an edit both replaces and appends to a buffer")
				}
				pos = end
				continue
			}
			if e.drop&bit != 0 {
				n--
				pos += w
			}
			if e.addN&bit != 0 {
				out = append(out, uint8(n+1))
				out = append(out, s[pos:end]...)
				out = append(out, e.add[b][:w]...)
				pos = end
			} else {
				out = append(out, uint8(n))
			}
		}
	}
	out = append(out, s[pos:m.qoff[len(m.p.QPs)]]...)
	if e.setB3 >= 0 {
		k := m.lay.boff[qi*nBuf+bufB3] + 1 + 5*e.setB3
		copy(out[k:k+4], e.setE[:])
	}
	return out
}
