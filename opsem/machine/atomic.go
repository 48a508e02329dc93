package machine

// The remote atomics' lock (SEMANTICS-ATOMICS.md): an atomic that has read
// its target and will write it holds the target's lock until it writes;
// rule A1 (an atomic reads) waits while another atomic holds it. The lock
// is not stored apart: it is a B3 entry of kind kAtomRH, on any queue pair.

// atomLocked reports whether a remote atomic holds the lock of location y:
// it has read y and will write it (a B3 entry kAtomRH on y, on any queue
// pair). The lock is per location and taken by atomics only (see
// SEMANTICS-ATOMICS.md); it lives in the buffers, so the encoding needs no
// byte of its own and stays canonical.
func (m *Machine) atomLocked(st *State, y uint8) bool {
	for qi := range st.q {
		for _, e := range st.q[qi].buf[bufB3] {
			if e.kind == kAtomRH && e.b == y {
				return true
			}
		}
	}
	return false
}

// atomLockedAt is atomLocked on the parent's bytes: some B3 entry, on any
// queue pair, is an atomic that has read y and will write it.
func (m *Machine) atomLockedAt(s []byte, y uint8) bool {
	if len(m.atoms) == 0 {
		return false
	}
	for qi := range m.p.QPs {
		b3 := m.lay.boff[qi*nBuf+bufB3]
		for k, o := 0, b3+1; k < int(s[b3]); k, o = k+1, o+5 {
			if s[o] == kAtomRH && s[o+2] == y {
				return true
			}
		}
	}
	return false
}

// pc0 decodes the pc at offset o of a thread's scalars in s.
func pc0(s []byte, o int) int { return int(s[o]) | int(s[o+1]&0x7F)<<8 }
