package machine

import "rdmasim/opsem/prog"

// The NIC rules of the queue-pair machine on decoded states (N1–N8, F1, F2 of
// SEMANTICS.md, and the remote atomics' A1, A2): which are enabled on a queue
// pair, and what each does. fast.go does the same on encodings.

// enabledNIC appends the NIC rules enabled on queue pair qi.
func (m *Machine) enabledNIC(st *State, qi int, dst []uint64) []uint64 {
	q := &st.q[qi]
	t := m.p.QPs[qi].Thread
	b1, b2, b3 := q.buf[bufB1], q.buf[bufB2], q.buf[bufB3]
	if len(b1) > 0 && (b1[0].v != fencedMark || !q.readsPending()) {
		switch b1[0].kind {
		case kPut:
			if len(q.buf[bufLW]) == 0 {
				dst = append(dst, label(t, RuleN1, qi, 0))
			}
		case kGet, kAtom:
			dst = append(dst, label(t, RuleN2, qi, 0))
		case kFence:
			if len(b2) == 0 && len(b3) == 0 {
				dst = append(dst, label(t, RuleN3, qi, 0))
			}
		}
	}
	if len(b2) > 0 {
		if b2[0].kind == kPutV {
			dst = append(dst, label(t, RuleN4, qi, 0))
		} else {
			dst = append(dst, label(t, RuleN5, qi, 0))
		}
	}
	if len(q.buf[bufRW]) == 0 {
		for i, e := range b3 {
			if e.kind == kGetR {
				dst = append(dst, label(t, RuleN6, qi, i))
			}
		}
		for i, e := range b3 {
			if e.kind == kAtomR && !m.atomLocked(st, e.b) {
				dst = append(dst, label(t, RuleA1, qi, i))
			}
		}
	}
	for i, e := range b3 {
		if e.kind == kAtomRH {
			dst = append(dst, label(t, RuleA2, qi, i))
		}
	}
	if len(b3) > 0 {
		switch b3[0].kind {
		case kAck:
			dst = append(dst, label(t, RuleN7, qi, 0))
		case kGetRV:
			dst = append(dst, label(t, RuleN8, qi, 0))
		}
	}
	if len(q.buf[bufRW]) > 0 {
		dst = append(dst, label(t, RuleF1, qi, 0))
	}
	if len(q.buf[bufLW]) > 0 {
		dst = append(dst, label(t, RuleF2, qi, 0))
	}
	return dst
}

func (m *Machine) applyNIC(st *State, rule uint8, qi, arg int) Step {
	q := &st.q[qi]
	qp := m.p.QPs[qi]
	ev := prog.Event{Thread: qp.Thread, Remote: qp.Remote}
	var s Step
	switch rule {
	case RuleN1:
		e := q.buf[bufB1][0]
		q.buf[bufB1] = pop(q.buf[bufB1])
		v := st.mem[e.b]
		q.buf[bufB2] = append(q.buf[bufB2], entry{kind: kPutV, a: e.a, v: v, rank: e.rank, slot: e.slot})
		ev.Kind, ev.Loc, ev.Val = prog.EvNLR, int(e.b), v
		m.record(st, ev, e.slot)
	case RuleN2:
		e := q.buf[bufB1][0]
		q.buf[bufB1] = pop(q.buf[bufB1])
		k := kGetReq
		if e.kind == kAtom {
			k = kAtomReq
		}
		q.buf[bufB2] = append(q.buf[bufB2], entry{kind: k, a: e.a, b: e.b, rank: e.rank, slot: e.slot})
	case RuleN3:
		q.buf[bufB1] = pop(q.buf[bufB1])
		ev.Kind = prog.EvNF
	case RuleN4:
		e := q.buf[bufB2][0]
		q.buf[bufB2] = pop(q.buf[bufB2])
		if !m.dead[e.a] || !m.dropRW[qi] {
			q.buf[bufRW] = append(q.buf[bufRW], entry{a: e.a, v: e.v, slot: e.slot})
		}
		q.buf[bufB3] = append(q.buf[bufB3], entry{kind: kAck, rank: e.rank, slot: e.slot})
		ev.Kind, ev.Loc, ev.Val = prog.EvNRW, int(e.a), e.v
	case RuleN5:
		e := q.buf[bufB2][0]
		q.buf[bufB2] = pop(q.buf[bufB2])
		k := kGetR
		if e.kind == kAtomReq {
			k = kAtomR
		}
		q.buf[bufB3] = append(q.buf[bufB3], entry{kind: k, a: e.a, b: e.b, rank: e.rank, slot: e.slot})
	case RuleA1:
		e := &q.buf[bufB3][arg]
		in := m.atoms[e.a]
		old := st.mem[e.b]
		ev.Kind, ev.Loc, ev.Val = prog.EvNAR, int(e.b), old
		m.record(st, ev, e.slot)
		if _, ok := in.AtomicResult(old); ok {
			e.kind, e.v = kAtomRH, old
		} else {
			*e = entry{kind: kGetRV, a: uint8(in.X), b: e.b, v: old, rank: e.rank, slot: e.slot + 1}
		}
	case RuleA2:
		e := &q.buf[bufB3][arg]
		in := m.atoms[e.a]
		v, _ := in.AtomicResult(e.v)
		m.write(st, int(e.b), v)
		ev.Kind, ev.Loc, ev.Val = prog.EvNAW, int(e.b), v
		m.record(st, ev, e.slot+1)
		*e = entry{kind: kGetRV, a: uint8(in.X), b: e.b, v: e.v, rank: e.rank, slot: e.slot + 1}
	case RuleN6:
		e := &q.buf[bufB3][arg]
		e.kind, e.v = kGetRV, st.mem[e.b]
		ev.Kind, ev.Loc, ev.Val = prog.EvNRR, int(e.b), e.v
		m.record(st, ev, e.slot)
	case RuleN7:
		q.buf[bufB3] = pop(q.buf[bufB3])
	case RuleN8:
		e := q.buf[bufB3][0]
		q.buf[bufB3] = pop(q.buf[bufB3])
		q.buf[bufLW] = append(q.buf[bufLW], entry{a: e.a, v: e.v, rank: e.rank, slot: e.slot})
		ev.Kind, ev.Loc, ev.Val = prog.EvNLW, int(e.a), e.v
	case RuleF1:
		e := q.buf[bufRW][0]
		q.buf[bufRW] = pop(q.buf[bufRW])
		m.write(st, int(e.a), e.v)
		ev.Kind, ev.Loc, ev.Val = prog.EvNRW, int(e.a), e.v
		s.Visible = true
		m.record(st, ev, e.slot+1)
	case RuleF2:
		e := q.buf[bufLW][0]
		q.buf[bufLW] = pop(q.buf[bufLW])
		m.write(st, int(e.a), e.v)
		ev.Kind, ev.Loc, ev.Val = prog.EvNLW, int(e.a), e.v
		s.Visible = true
		m.record(st, ev, e.slot+1)
	}
	s.Event = ev
	return s
}
