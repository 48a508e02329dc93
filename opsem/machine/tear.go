package machine

import "rdmasim/opsem/prog"

// Torn reads of multi-word work requests (SEMANTICS-VERBS.md 1). No verbs or
// InfiniBand document makes the reads of one work request atomic: a put's
// DMA reads its source words, and a get's responder reads its remote words,
// one word at a time in an order nothing promises (ibv_query_qp_data_in_order
// speaks of data written, never of data read). So both machines' RDMA side
// reads one word per step, any unread word next, under either placement:
//
//   - A k-word put's N1 reads one of its unread source words (label arg: the
//     word's index). The words it has read wait at the tail of B2 as PUTP
//     entries (kPutP: a PUTV whose put is still reading), in word order, each
//     with the PUTV's fields (a = y+i, b = k-1-i, v); its B1 entry stays at
//     the head of B1 until the last word is read, when it leaves B1 and its
//     PUTP entries become PUTV: N4 then moves the group whole, as before.
//     Nothing else can append to B2 meanwhile (only the head of B1 leaves
//     B1), so the PUTP entries are B2's last and the words read are exactly
//     their indices (a - y).
//   - A k-word get's request becomes its group in B3 when it arrives (N5):
//     GROUP(k) and k unread GETR(x+i, y+i, ⊥) entries; N6 reads any unread
//     one as it reads a one-word get's response, and N8 moves the group to
//     LW whole only once every word is read (groupRead).
//
// Both encodings are canonical: a put's read words are kept in word order,
// and a get's group holds its words in word order whatever the order read.
// Programs without multi-word operations make no PUTP and no group, so they
// encode as before. The SC machine is unchanged: it performs the whole
// transfer in one step.

// kPutP is the kind of a B2 entry PUTP(y+i, v): word i of the multi-word
// put at the head of B1, read, while some other word of it is not. Its value
// stands apart from the kinds of state.go's list (which other features
// extend) so that it can never share a number with one of them.
const kPutP uint8 = 0x40

// partialPut returns the index in b2 of the first of its trailing PUTP
// entries (len(b2) when there are none).
func partialPut(b2 []entry) int {
	j := len(b2)
	for j > 0 && b2[j-1].kind == kPutP {
		j--
	}
	return j
}

// enabledN1 appends N1 for the put e at the head of queue pair qi's B1 (on
// thread t): one label for a one-word put, one per unread word (arg: its
// index) for a multi-word one.
func enabledN1(q *qstate, e entry, t, qi int, dst []uint64) []uint64 {
	k := wordsOf(e.v)
	if k == 1 {
		return append(dst, label(t, RuleN1, qi, 0))
	}
	var read uint8
	b2 := q.buf[bufB2]
	for _, w := range b2[partialPut(b2):] {
		read |= 1 << (w.a - e.a)
	}
	for i := 0; i < k; i++ {
		if read&(1<<i) == 0 {
			dst = append(dst, label(t, RuleN1, qi, i))
		}
	}
	return dst
}

// applyN1Word is N1 reading word i of the multi-word put at the head of
// B1 (decoded): it records the word's nlR, keeps the word in B2 as a PUTP
// in word order and, when it was the last unread word, moves the put on:
// its B1 entry goes and its words become PUTV.
func (m *Machine) applyN1Word(st *State, q *qstate, ev prog.Event, i int) prog.Event {
	e := q.buf[bufB1][0]
	k := wordsOf(e.v)
	v := st.mem[int(e.b)+i]
	w := entry{kind: kPutP, a: e.a + uint8(i), b: uint8(k - 1 - i), v: v, rank: e.rank, slot: e.slot + uint8(2*i)}
	b2 := q.buf[bufB2]
	start := partialPut(b2)
	j := start
	for j < len(b2) && b2[j].a < w.a {
		j++
	}
	b2 = append(b2, entry{})
	copy(b2[j+1:], b2[j:])
	b2[j] = w
	if len(b2)-start == k {
		for x := start; x < len(b2); x++ {
			b2[x].kind = kPutV
		}
		q.buf[bufB1] = pop(q.buf[bufB1])
	}
	q.buf[bufB2] = b2
	ev.Kind, ev.Loc, ev.Val = prog.EvNLR, int(e.b)+i, v
	m.record(st, ev, w.slot)
	return ev
}

// groupRead reports whether the head of B3, b3[0], is a multi-word get's
// group whose words are all read (N8 may move it), or no group at all.
func groupRead(b3 []entry) bool {
	if b3[0].kind != kGroup {
		return true
	}
	for _, w := range b3[1 : 1+int(b3[0].a)] {
		if w.kind != kGetRV {
			return false
		}
	}
	return true
}

// getGroup returns the entries a k-word get's request g (v = k-1) becomes
// in B3 when it arrives (N5): GROUP(k) and its k unread words.
func getGroup(dst []entry, g entry) []entry {
	k := int(g.v) + 1
	dst = append(dst, entry{kind: kGroup, a: uint8(k), rank: g.rank})
	for i := 0; i < k; i++ {
		dst = append(dst, entry{kind: kGetR, a: g.a + uint8(i), b: g.b + uint8(i), rank: g.rank, slot: g.slot + uint8(2*i)})
	}
	return dst
}

// The same on encodings (fast.go's byte-level step).

// partialPutAt returns the offset of the first trailing PUTP entry of the
// B2 whose entries are b2 (bytes, 5 per entry), len(b2) when none.
func partialPutAt(b2 []byte) int {
	j := len(b2)
	for j > 0 && b2[j-5] == kPutP {
		j -= 5
	}
	return j
}

// fastN1Words emits N1 for each unread word of the multi-word put f at the
// head of queue pair qi's B1 (applyN1Word on bytes).
func (m *Machine) fastN1Words(s []byte, qi int, f []byte, emit func(l uint64, next []byte)) {
	bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
	t := m.p.QPs[qi].Thread
	k := wordsOf(f[3])
	b2 := s[bo[bufB2]+1 : bo[bufB2]+1+5*int(s[bo[bufB2]])]
	start := partialPutAt(b2)
	var read uint8
	for o := start; o < len(b2); o += 5 {
		read |= 1 << (b2[o+1] - f[1])
	}
	e := &m.edit
	for i := 0; i < k; i++ {
		if read&(1<<i) != 0 {
			continue
		}
		e.reset()
		y := f[1] + uint8(i)
		r := append(m.rbuf[bufB2][:0], b2[:start]...)
		o := start
		for ; o < len(b2) && b2[o+1] < y; o += 5 {
			r = append(r, b2[o:o+5]...)
		}
		r = append(r, kPutP, y, uint8(k-1-i), s[int(f[2])+i], f[4])
		r = append(r, b2[o:]...)
		if (len(r)-start)/5 == k {
			for x := start; x < len(r); x += 5 {
				r[x] = kPutV
			}
			e.drop = 1 << bufB1
		}
		m.rbuf[bufB2], e.repl = r, 1<<bufB2
		m.nicStep(s, qi, label(t, RuleN1, qi, i), -1, 0, emit)
	}
}

// groupReadAt is groupRead on the bytes f of B3 from its head.
func groupReadAt(f []byte) bool {
	if f[0] != kGroup {
		return true
	}
	for o := 5; o <= 5*int(f[1]); o += 5 {
		if f[o] != kGetRV {
			return false
		}
	}
	return true
}

// stepN5Words emits N5 on queue pair qi, whose B2 begins with the request f
// of a multi-word get (v = k-1): it leaves B2, and its group (getGroup)
// enters B3.
func (m *Machine) stepN5Words(s []byte, qi int, f []byte, emit func(l uint64, next []byte)) {
	bo := m.lay.boff[qi*nBuf+bufB3]
	e := &m.edit
	e.reset()
	e.drop = 1 << bufB2
	k := int(f[3]) + 1
	r := append(m.rbuf[bufB3][:0], s[bo+1:bo+1+5*int(s[bo])]...)
	r = append(r, kGroup, uint8(k), 0, 0, f[4])
	for i := 0; i < k; i++ {
		r = append(r, kGetR, f[1]+uint8(i), f[2]+uint8(i), 0, f[4])
	}
	m.rbuf[bufB3], e.repl = r, 1<<bufB3
	m.nicStep(s, qi, label(m.p.QPs[qi].Thread, RuleN5, qi, 0), -1, 0, emit)
}
