package machine

// Queue-pair queries on encodings: what the decoded qstate answers
// (inflight, oldestPending, readsPending, quiet), read off the parent's bytes
// by the byte-level step (fast.go), and quiet's condition on a decoded
// state beside its byte-level twin.

// inflightAt is qstate.inflight on the parent's bytes.
func (m *Machine) inflightAt(s []byte, qi int) int {
	bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
	n := b1WRsAt(s, bo[bufB1])
	acks := 0
	for k, o := 0, bo[bufB2]+1; k < int(s[bo[bufB2]]); k, o = k+1, o+5 {
		if s[o] != kPutP && (s[o] != kPutV || s[o+2] == 0) {
			n++ // a put's words count once, at its last
		}
	}
	for k, o := 0, bo[bufB3]+1; k < int(s[bo[bufB3]]); k, o = k+1, o+5 {
		switch s[o] {
		case kAck:
			acks++
		case kGroup:
			k, o = k+int(s[o+1]), o+5*int(s[o+1]) // a get's words count once
		}
		n++
	}
	rw := groupsAt(s, bo[bufRW], 2)
	return n + groupsAt(s, bo[bufLW], 3) + rw - min(acks, rw)
}

// groupsAt counts the operations in the RW or LW buffer (entry width w)
// whose length byte is at s[o]: a headed group counts once (wrCount).
func groupsAt(s []byte, o, w int) int {
	n := 0
	for k, p := 0, o+1; k < int(s[o]); k, p = k+1, p+w {
		if s[p] == groupLoc {
			k, p = k+int(s[p+1]), p+w*int(s[p+1])
		}
		n++
	}
	return n
}

// oldestPendingAt is qstate.oldestPending on the parent's bytes.
func (m *Machine) oldestPendingAt(s []byte, qi int) bool {
	bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
	for _, b := range [...]int{bufB1, bufB2, bufB3} {
		for k, o := 0, bo[b]+1; k < int(s[bo[b]]); k, o = k+1, o+5 {
			if s[o+4] == 0 && s[o] != kFence {
				return true
			}
		}
	}
	for k, o := 0, bo[bufLW]+1; k < int(s[bo[bufLW]]); k, o = k+1, o+3 {
		if s[o+2] == 0 {
			return true
		}
	}
	return false
}

// readsPendingAt is qstate.readsPending on the parent's bytes.
func (m *Machine) readsPendingAt(s []byte, qi int) bool {
	bo := m.lay.boff[qi*nBuf : qi*nBuf+nBuf]
	if s[bo[bufLW]] != 0 {
		return true
	}
	for _, b := range [...]int{bufB2, bufB3} {
		for k, o := 0, bo[b]+1; k < int(s[bo[b]]); k, o = k+1, o+5 {
			if readKind(s[o]) {
				return true
			}
		}
	}
	return false
}

// quietAt is Machine.quiet on the parent's bytes: every buffer of every
// queue pair of thread t has length zero.
func (m *Machine) quietAt(s []byte, t int) bool {
	for _, qi := range m.thrQPs[t] {
		for _, o := range m.lay.boff[qi*nBuf : qi*nBuf+nBuf] {
			if s[o] != 0 {
				return false
			}
		}
	}
	return true
}

// quiet reports whether thread t may take its quiet in st (RDMA machine;
// SEMANTICS-VERBS.md 6): every operation it submitted, on each of its
// queue pairs, is complete and its writes visible, that is, no buffer of
// its queue pairs (B1, B2, B3, RW, LW) holds an entry.
func (m *Machine) quiet(st *State, t int) bool {
	for _, qi := range m.thrQPs[t] {
		if !st.q[qi].empty() {
			return false
		}
	}
	return true
}
