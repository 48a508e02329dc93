package machine

import "rdmasim/opsem/prog"

// Inline puts (SEMANTICS-VERBS.md 5). IBV_SEND_INLINE copies a put's data
// into the work request when it is posted: "the buffer can be reused
// immediately after the call returns". So the submission of a put marked
// inline reads its k source words then and there (its nlR events are the
// submission step's, on the CPU's side of the post) and appends k entries
// PUTI(y+i, v_i) to B1 (kind kPutI: a the target word, v its value, b the
// words after it in the work request, with inlineFenced set when the put
// is also fenced). N1 then reads nothing: it moves the k entries to B2 as
// the PUTV entries a put's N1 makes, and it does not wait for LW to be
// empty (that condition is the NIC read's flush of the queue pair's NIC
// writes, nfo, and an inline put has no NIC read). A fenced inline put
// still leaves B1 only when no earlier get or atomic is pending: the fence
// delays the work request's execution, not the copy made at the post.
// Everything after N1 is a put's.
//
// The partial-order reduction: the submission of an inline put reads
// memory, so it is never one of the invisible steps (atSubmission refuses
// it under Options.ControlHidden: a write to its source by another thread
// or a NIC does not commute with it). N1 of a PUTI head is visible, as a
// put's N1 is; it reads no memory, so N8 of the queue pair stays
// independent of it (putPending, which guards N8's invisibility, looks for
// a PUT in B1 only: a PUTI's N1 is not disabled by LW). TestInlineReduce
// compares the reduced machine with the full one.

// inlineN1What describes N1 of an inline put in run views (ruleWhat's N1
// is a put reading its source, which an inline put did at submission).
const inlineN1What = "inline put moves on, read at submission (B1 -> B2)"

// inlineFenced marks, in the b byte of a PUTI entry in B1, an inline put
// that is also fenced (SEMANTICS-VERBS.md 4): the entry's v byte, where
// other B1 entries keep fencedMark, holds the word's value.
const inlineFenced = 0x80

// b1Fenced reports whether the B1 entry of kind kind, b byte b and v byte
// v is fenced: it leaves B1 only when no read is pending on its queue pair.
func b1Fenced(kind, b, v uint8) bool {
	switch kind {
	case kPutI:
		return b&inlineFenced != 0
	case kFence:
		return false
	}
	return v&fencedMark != 0
}

// inlineAfter returns the number of words after a PUTI entry (b byte b)
// in its work request.
func inlineAfter(b uint8) int { return int(b &^ inlineFenced) }

// inlineB returns the b byte of the PUTI entry of word i of the k-word
// inline put in: the words after it, and inlineFenced if in is fenced.
func inlineB(in *prog.Instr, k, i int) uint8 {
	b := uint8(k - 1 - i)
	if in.Fenced {
		b |= inlineFenced
	}
	return b
}

// submitInline is applyCPU's submission of the inline put in by thread t
// on the decoded state st: it reads the source words, records their nlR
// events, and appends the PUTI entries to B1. It sets *ev to the first
// word's nlR and returns the others' (Step.Words).
func (m *Machine) submitInline(st *State, t int, in *prog.Instr, ev *prog.Event) []prog.Event {
	q := &st.q[in.QP]
	k := max(in.Words, 1)
	slot := m.wordsSlot(st, t, in)
	var words []prog.Event
	for i := 0; i < k; i++ {
		v := st.mem[in.X+i]
		q.buf[bufB1] = append(q.buf[bufB1], entry{kind: kPutI, a: uint8(in.Y + i), b: inlineB(in, k, i), v: v, rank: q.npend, slot: slot + uint8(2*i)})
		w := *ev
		w.Kind, w.Loc, w.Val = prog.EvNLR, in.X+i, v
		m.record(st, w, slot+uint8(2*i))
		if i == 0 {
			*ev = w
		} else {
			words = append(words, w)
		}
	}
	q.npend += signalled(in)
	return words
}

// moveInline is applyNIC's N1 on a queue pair whose B1 begins with an
// inline put: its k entries move to B2 as PUTV entries; no event.
func moveInline(q *qstate) {
	k := inlineAfter(q.buf[bufB1][0].b) + 1
	for _, e := range q.buf[bufB1][:k] {
		q.buf[bufB2] = append(q.buf[bufB2], entry{kind: kPutV, a: e.a, b: uint8(inlineAfter(e.b)), v: e.v, rank: e.rank, slot: e.slot})
	}
	q.buf[bufB1] = append(q.buf[bufB1][:0], q.buf[bufB1][k:]...)
}

// submitInlineAt is fastCPU's submission of the inline put in on the
// parent's bytes s, into the edit e of its queue pair: one PUTI entry
// appended to B1, or for a multi-word put B1 replaced by its entries and
// the k new ones.
func (m *Machine) submitInlineAt(s []byte, in *prog.Instr, rank uint8, e *segEdit) {
	k := max(in.Words, 1)
	if k == 1 {
		e.add[bufB1] = [5]byte{kPutI, uint8(in.Y), inlineB(in, 1, 0), s[in.X], rank}
		e.addN = 1 << bufB1
		return
	}
	o := m.lay.boff[in.QP*nBuf+bufB1]
	r := append(m.rbuf[bufB1][:0], s[o+1:o+1+5*int(s[o])]...)
	for i := 0; i < k; i++ {
		r = append(r, kPutI, uint8(in.Y+i), inlineB(in, k, i), s[in.X+i], rank)
	}
	m.rbuf[bufB1], e.repl = r, 1<<bufB1
}

// stepN1Inline emits N1 on queue pair qi, whose B1 begins with the inline
// put f (moveInline on bytes).
func (m *Machine) stepN1Inline(s []byte, qi int, f []byte, emit func(l uint64, next []byte)) {
	e := &m.edit
	e.reset()
	k := inlineAfter(f[2]) + 1
	if k == 1 {
		e.drop = 1 << bufB1
		e.add[bufB2] = [5]byte{kPutV, f[1], 0, f[3], f[4]}
		e.addN = 1 << bufB2
	} else {
		bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
		n1, n2 := int(s[bo[bufB1]]), int(s[bo[bufB2]])
		m.rbuf[bufB1] = append(m.rbuf[bufB1][:0], f[5*k:5*n1]...)
		r := append(m.rbuf[bufB2][:0], s[bo[bufB2]+1:bo[bufB2]+1+5*n2]...)
		for i := 0; i < k; i++ {
			r = append(r, kPutV, f[5*i+1], uint8(inlineAfter(f[5*i+2])), f[5*i+3], f[5*i+4])
		}
		m.rbuf[bufB2], e.repl = r, 1<<bufB1|1<<bufB2
	}
	m.nicStep(s, qi, label(m.p.QPs[qi].Thread, RuleN1, qi, 0), -1, 0, emit)
}

// b1WRsAt counts the work requests in B1, whose length byte is at s[o]: a
// multi-word inline put's PUTI entries count once (wrCount).
func b1WRsAt(s []byte, o int) int {
	n := 0
	for k, p := 0, o+1; k < int(s[o]); k, p = k+1, p+5 {
		if s[p] != kPutI || inlineAfter(s[p+2]) == 0 {
			n++
		}
	}
	return n
}
