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
	if len(b1) > 0 && (!b1Fenced(b1[0].kind, b1[0].b, b1[0].v) || !q.readsPending()) {
		switch b1[0].kind {
		case kPutI:
			dst = append(dst, label(t, RuleN1, qi, 0))
		case kPut:
			if len(q.buf[bufLW]) == 0 {
				dst = enabledN1(q, b1[0], t, qi, dst)
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
		} else if b2[0].kind != kPutP { // a put still reading (tear.go)
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
		case kGetRV, kGroup:
			if groupRead(b3) {
				dst = append(dst, label(t, RuleN8, qi, 0))
			}
		}
	}
	dst = m.enabledPlace(q.buf[bufRW], t, RuleF1, qi, dst)
	dst = m.enabledPlace(q.buf[bufLW], t, RuleF2, qi, dst)
	return dst
}

// enabledPlace appends rule (F1 on RW, F2 on LW) for each entry of b it may
// place: the head, or, when the head is a group's header, any of the group's
// words (the first only under PlaceInOrder). The label's arg is the index
// of the entry placed.
func (m *Machine) enabledPlace(b []entry, t int, rule uint8, qi int, dst []uint64) []uint64 {
	if len(b) == 0 {
		return dst
	}
	if b[0].a != groupLoc {
		return append(dst, label(t, rule, qi, 0))
	}
	last := int(b[0].v)
	if m.opt.Placement == PlaceInOrder {
		last = 1
	}
	for j := 1; j <= last; j++ {
		dst = append(dst, label(t, rule, qi, j))
	}
	return dst
}

// place removes the entry at index j of buffer b (RW or LW), the head or a
// word of the head group (enabledPlace), and returns it with the buffer;
// the group's header then counts one word less, and goes when one is left.
func place(b []entry, j int) ([]entry, entry) {
	e := b[j]
	if j == 0 {
		return pop(b), e
	}
	b = append(b[:j], b[j+1:]...)
	if b[0].v--; b[0].v < 2 {
		b = pop(b)
	}
	return b, e
}

func (m *Machine) applyNIC(st *State, rule uint8, qi, arg int) Step {
	q := &st.q[qi]
	qp := m.p.QPs[qi]
	ev := prog.Event{Thread: qp.Thread, Remote: qp.Remote}
	var s Step
	switch rule {
	case RuleN1:
		if q.buf[bufB1][0].kind == kPutI {
			moveInline(q) // an inline put read its source when submitted
			break
		}
		e := q.buf[bufB1][0]
		if wordsOf(e.v) > 1 {
			// A k-word put reads word arg of its source
			// (SEMANTICS-VERBS.md 1, tear.go).
			ev = m.applyN1Word(st, q, ev, arg)
			break
		}
		q.buf[bufB1] = pop(q.buf[bufB1])
		q.buf[bufB2] = append(q.buf[bufB2], entry{kind: kPutV, a: e.a, v: st.mem[e.b], rank: e.rank, slot: e.slot})
		ev.Kind, ev.Loc, ev.Val = prog.EvNLR, int(e.b), st.mem[e.b]
		m.record(st, ev, e.slot)
	case RuleN2:
		e := q.buf[bufB1][0]
		q.buf[bufB1] = pop(q.buf[bufB1])
		k := kGetReq
		if e.kind == kAtom {
			k = kAtomReq
		}
		q.buf[bufB2] = append(q.buf[bufB2], entry{kind: k, a: e.a, b: e.b, v: e.v >> 1, rank: e.rank, slot: e.slot})
	case RuleN3:
		q.buf[bufB1] = pop(q.buf[bufB1])
		ev.Kind = prog.EvNF
	case RuleN4:
		// A k-word put arrives at once: its words enter RW as one
		// group (headed when two or more are kept), one ACK enters B3.
		e := q.buf[bufB2][0]
		k := int(e.b) + 1
		rw := q.buf[bufRW]
		h := len(rw)
		if k > 1 {
			rw = append(rw, entry{a: groupLoc})
		}
		for _, w := range q.buf[bufB2][:k] {
			if !m.dead[w.a] || !m.dropRW[qi] {
				rw = append(rw, entry{a: w.a, v: w.v, slot: w.slot})
			}
		}
		if k > 1 {
			if c := len(rw) - h - 1; c >= 2 {
				rw[h].v = uint8(c)
			} else {
				rw = append(rw[:h], rw[h+1:]...)
			}
		}
		q.buf[bufRW] = rw
		ev.Kind, ev.Loc, ev.Val = prog.EvNRW, int(e.a), e.v
		for _, w := range q.buf[bufB2][1:k] {
			s.Words = append(s.Words, prog.Event{Kind: prog.EvNRW, Thread: ev.Thread, Remote: ev.Remote, Loc: int(w.a), Val: w.v})
		}
		q.buf[bufB2] = append(q.buf[bufB2][:0], q.buf[bufB2][k:]...)
		q.buf[bufB3] = append(q.buf[bufB3], entry{kind: kAck, rank: e.rank, slot: e.slot})
	case RuleN5:
		e := q.buf[bufB2][0]
		q.buf[bufB2] = pop(q.buf[bufB2])
		k := kGetR
		if e.kind == kAtomReq {
			k = kAtomR
		}
		if e.kind == kGetReq && e.v > 0 {
			// A k-word get's request arrives as its group of
			// unread words (tear.go).
			q.buf[bufB3] = getGroup(q.buf[bufB3], e)
			break
		}
		q.buf[bufB3] = append(q.buf[bufB3], entry{kind: k, a: e.a, b: e.b, v: e.v, rank: e.rank, slot: e.slot})
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
		// One word's read, of a one-word get or of a multi-word get's
		// group (its words are read one per step: tear.go).
		e := &q.buf[bufB3][arg]
		e.kind, e.v = kGetRV, st.mem[e.b]
		ev.Kind, ev.Loc, ev.Val = prog.EvNRR, int(e.b), e.v
		m.record(st, ev, e.slot)
	case RuleN7:
		q.buf[bufB3] = pop(q.buf[bufB3])
	case RuleN8:
		e := q.buf[bufB3][0]
		if e.kind == kGroup {
			// A k-word get's response returns at once: LW gets its
			// group, headed.
			k := int(e.a)
			lw := append(q.buf[bufLW], entry{a: groupLoc, v: uint8(k), rank: e.rank})
			for _, w := range q.buf[bufB3][1 : k+1] {
				lw = append(lw, entry{a: w.a, v: w.v, rank: w.rank, slot: w.slot})
			}
			q.buf[bufLW] = lw
			q.buf[bufB3] = append(q.buf[bufB3][:0], q.buf[bufB3][k+1:]...)
			for _, w := range lw[len(lw)-k+1:] {
				s.Words = append(s.Words, prog.Event{Kind: prog.EvNLW, Thread: ev.Thread, Remote: ev.Remote, Loc: int(w.a), Val: w.v})
			}
			e = lw[len(lw)-k]
		} else {
			q.buf[bufB3] = pop(q.buf[bufB3])
			q.buf[bufLW] = append(q.buf[bufLW], entry{a: e.a, v: e.v, rank: e.rank, slot: e.slot})
		}
		ev.Kind, ev.Loc, ev.Val = prog.EvNLW, int(e.a), e.v
	case RuleF1:
		var e entry
		q.buf[bufRW], e = place(q.buf[bufRW], arg)
		m.write(st, int(e.a), e.v)
		ev.Kind, ev.Loc, ev.Val = prog.EvNRW, int(e.a), e.v
		s.Visible = true
		m.record(st, ev, e.slot+1)
	case RuleF2:
		var e entry
		q.buf[bufLW], e = place(q.buf[bufLW], arg)
		m.write(st, int(e.a), e.v)
		ev.Kind, ev.Loc, ev.Val = prog.EvNLW, int(e.a), e.v
		s.Visible = true
		m.record(st, ev, e.slot+1)
	}
	s.Event = ev
	return s
}
