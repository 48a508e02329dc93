package machine

import "rdmasim/opsem/prog"

// The invisible steps of the RDMA machine, which the partial-order
// reduction (reduce.go) takes alone and at once: the NIC rules that touch
// no memory and commute with everything, and, under Options.ControlHidden,
// the submissions and polls.

// invisibleStep emits, if one is enabled on queue pair qi, the successor by
// a NIC rule that is invisible and independent of every other transition
// (N2, N3, N5, N7, or N8 when no put is pending), and reports whether it
// did.
//
// N8 is independent only when no put can read its source on the queue pair
// any more: the response it moves into LW makes LW non-empty, which
// disables N1 (a put reads its source only when LW is empty). Taken eagerly
// while a put is in B1, or while the thread may still submit one, it would
// forbid the put from reading between the local writes of two gets, which
// the machine allows (corpus/regress/fuzz-outcomes-reduced-f5de8bd197bf90ba.rdma).
func (m *Machine) invisibleStep(s []byte, qi int, emit func(l uint64, next []byte)) bool {
	bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
	n1, n2, n3 := s[bo[bufB1]], s[bo[bufB2]], s[bo[bufB3]]
	if n1 > 0 {
		f := s[bo[bufB1]+1:]
		switch {
		case f[0] == kGet && (f[3]&fencedMark == 0 || !m.readsPendingAt(s, qi)):
			m.stepN2(s, qi, f, emit)
			return true
		case f[0] == kFence && n2 == 0 && n3 == 0:
			m.stepN3(s, qi, emit)
			return true
		}
	}
	if f := s[bo[bufB2]+1:]; n2 > 0 && f[0] == kGetReq {
		m.stepN5(s, qi, f, emit)
		return true
	}
	if n3 > 0 {
		switch f := s[bo[bufB3]+1:]; f[0] {
		case kAck:
			m.stepN7(s, qi, emit)
			return true
		case kGetRV, kGroup:
			if !groupReadAt(f) || m.putPending(s, qi) {
				return false
			}
			m.stepN8(s, qi, f, emit)
			return true
		}
	}
	return false
}

// putPending reports whether a put on queue pair qi may still read its
// source: one waits in B1, or the queue pair's thread may still submit one.
func (m *Machine) putPending(s []byte, qi int) bool {
	pc, _ := m.pcOf(s, m.p.QPs[qi].Thread)
	if m.putAhead[qi][pc] {
		return true
	}
	b1 := m.lay.boff[qi*nBuf+bufB1]
	for k, o := 0, b1+1; k < int(s[b1]); k, o = k+1, o+5 {
		if s[o] == kPut {
			return true
		}
	}
	return false
}

// passedPut reports whether thread t, from configuration s to next, went
// past the last put it could submit on one of its queue pairs. Only a step
// with a choice of successors can (a branch, a switch, a run-time register's
// test or its error point): any other step that leaves a put behind is that
// put's submission, whose queue pair is the one the step touched.
func (m *Machine) passedPut(s, next []byte, t int) bool {
	from, _ := m.pcOf(s, t)
	if in := &m.p.Threads[t].Code[from]; len(in.Succ()) < 2 {
		return false
	}
	to, _ := m.pcOf(next, t)
	for _, qi := range m.thrQPs[t] {
		if m.putAhead[qi][from] && !m.putAhead[qi][to] {
			return true
		}
	}
	return false
}

// stepN8 emits N8 on queue pair qi, whose B3 begins with the get response f.
//
// A multi-word get's group (kGroup) moves to LW whole, headed.
func (m *Machine) stepN8(s []byte, qi int, f []byte, emit func(l uint64, next []byte)) {
	e := &m.edit
	e.reset()
	if f[0] == kGroup {
		bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
		k := int(f[1])
		m.rbuf[bufB3] = append(m.rbuf[bufB3][:0], f[5*(k+1):5*int(s[bo[bufB3]])]...)
		r := append(m.rbuf[bufLW][:0], s[bo[bufLW]+1:bo[bufLW]+1+3*int(s[bo[bufLW]])]...)
		r = append(r, groupLoc, uint8(k), f[4])
		for o := 5; o <= 5*k; o += 5 {
			r = append(r, f[o+1], f[o+3], f[o+4])
		}
		m.rbuf[bufLW], e.repl = r, 1<<bufB3|1<<bufLW
		m.nicStep(s, qi, label(m.p.QPs[qi].Thread, RuleN8, qi, 0), -1, 0, emit)
		return
	}
	e.drop = 1 << bufB3
	e.add[bufLW] = [5]byte{f[1], f[3], f[4]}
	e.addN = 1 << bufLW
	m.nicStep(s, qi, label(m.p.QPs[qi].Thread, RuleN8, qi, 0), -1, 0, emit)
}

// stepN2 emits N2 on queue pair qi, whose B1 begins with the get (or remote
// atomic) f: its request enters B2.
func (m *Machine) stepN2(s []byte, qi int, f []byte, emit func(l uint64, next []byte)) {
	k := uint8(kGetReq)
	if f[0] == kAtom {
		k = kAtomReq
	}
	m.stepForward(s, qi, f, bufB1, bufB2, k, f[3]>>1, RuleN2, emit)
}

// stepN3 emits N3 on queue pair qi, whose B1 begins with a fence.
func (m *Machine) stepN3(s []byte, qi int, emit func(l uint64, next []byte)) {
	m.edit.reset()
	m.edit.drop = 1 << bufB1
	m.nicStep(s, qi, label(m.p.QPs[qi].Thread, RuleN3, qi, 0), -1, 0, emit)
}

// stepN5 emits N5 on queue pair qi, whose B2 begins with the get (or remote
// atomic) request f: it arrives, awaiting its remote read in B3.
func (m *Machine) stepN5(s []byte, qi int, f []byte, emit func(l uint64, next []byte)) {
	k := uint8(kGetR)
	if f[0] == kAtomReq {
		k = kAtomR
	}
	if f[0] == kGetReq && f[3] > 0 {
		m.stepN5Words(s, qi, f, emit) // a multi-word get's group (tear.go)
		return
	}
	m.stepForward(s, qi, f, bufB2, bufB3, k, f[3], RuleN5, emit)
}

// stepForward emits rule on queue pair qi: the head f of buffer from leaves
// it for the tail of buffer to, as an entry of kind k with f's operands and
// v byte v (a multi-word get's words - 1, else 0).
func (m *Machine) stepForward(s []byte, qi int, f []byte, from, to int, k, v uint8, rule uint8, emit func(l uint64, next []byte)) {
	e := &m.edit
	e.reset()
	e.drop = 1 << from
	e.add[to] = [5]byte{k, f[1], f[2], v, f[4]}
	e.addN = 1 << to
	m.nicStep(s, qi, label(m.p.QPs[qi].Thread, rule, qi, 0), -1, 0, emit)
}

// stepN7 emits N7 on queue pair qi, whose B3 begins with an ACK.
func (m *Machine) stepN7(s []byte, qi int, emit func(l uint64, next []byte)) {
	m.edit.reset()
	m.edit.drop = 1 << bufB3
	m.nicStep(s, qi, label(m.p.QPs[qi].Thread, RuleN7, qi, 0), -1, 0, emit)
}

// atSubmission reports whether thread t is at a put, get, rfence or poll in
// s, not in the middle of one: at a step settleAt may take.
func (m *Machine) atSubmission(s []byte, t int) bool {
	pc, mid := m.pcOf(s, t)
	switch in := &m.p.Threads[t].Code[pc]; in.Op {
	case prog.OpGet, prog.OpPut, prog.OpRFence, prog.OpPoll:
		return !mid && !in.Inline // an inline put's submission reads memory (inlineput.go)
	}
	return false
}

// submitStep emits, under Options.ControlHidden, thread t's submission from
// s if t is at a put, get or rfence whose submission the bounds allow, or at
// an enabled poll, and reports whether it did.
func (m *Machine) submitStep(s []byte, t int, emit func(l uint64, next []byte)) bool {
	if !m.atSubmission(s, t) {
		return false
	}
	pc, _ := m.pcOf(s, t)
	if in := &m.p.Threads[t].Code[pc]; in.Op == prog.OpPoll {
		// fastCPU's test: an unpolled operation, the oldest complete.
		if s[m.qoff[in.QP]] == 0 || m.oldestPendingAt(s, in.QP) {
			return false
		}
		m.cpuStep(s, t, in, false, 0, emit)
		return true
	}
	// fastCPU emits the submission or reports the bound that disables
	// it.
	return m.fastCPU(s, t, emit) == 0
}

// putsAhead returns, for each instruction of code, whether a put on queue
// pair qi is that instruction or reachable from it.
func putsAhead(code []prog.Instr, qi int) []bool {
	ahead := make([]bool, len(code))
	r := prog.NewReach(code)
	for pc := range code {
		isPut := func(j int) bool { return code[j].Op == prog.OpPut && code[j].QP == qi }
		if isPut(pc) {
			ahead[pc] = true
			continue
		}
		for j, ok := range r.From(pc) {
			if ok && isPut(j) {
				ahead[pc] = true
				break
			}
		}
	}
	return ahead
}
