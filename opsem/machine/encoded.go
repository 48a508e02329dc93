package machine

// Encoded is a configuration read in place from its encoding, without
// decoding it into a State. It implements prog.Config; it is valid while the
// encoding it was made from is.
type Encoded struct {
	s     []byte
	thOff int
}

// Mem returns the value of location loc.
func (c Encoded) Mem(loc int) uint8 { return c.s[loc] }

// PC returns thread t's next instruction and whether it is mid-instruction.
func (c Encoded) PC(t int) (int, bool) {
	o := c.thOff + 3*t
	return int(c.s[o]) | int(c.s[o+1]&0x7F)<<8, c.s[o+1]&0x80 != 0
}

// Encoded returns a view of the configuration encoded in s.
func (m *Machine) Encoded(s []byte) Encoded { return Encoded{s: s, thOff: m.lay.thOff} }

// FinalEncoded is Final on an encoding: every thread has terminated and
// every queue pair is drained. It reads only what it needs of s.
func (m *Machine) FinalEncoded(s []byte) bool {
	if m.outOfRange(s) {
		return false
	}
	for t := range m.p.Threads {
		if pc, mid := m.pcOf(s, t); mid || pc != m.p.Threads[t].End() {
			return false
		}
	}
	if m.sc {
		return true
	}
	if m.graph {
		m.decode(s, m.work)
		return m.Final(m.work)
	}
	i := m.lay.qBase
	for range m.p.QPs {
		for b := 1; b <= nBuf; b++ {
			if s[i+b] != 0 {
				return false
			}
		}
		i += 1 + nBuf
	}
	return true
}
