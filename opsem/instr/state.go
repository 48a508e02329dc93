package instr

import (
	"slices"

	"rdmasim/explore/cover"
)

// NewState returns a zero State sized for m.
func (m *Machine) NewState() *State {
	nl, ne := m.nl, m.nt*m.entBytes
	b, f := make([]uint8, 4*nl+ne), make([]bool, 3*nl)
	return &State{
		th: make([]thread, m.nt), q: make([]queue, m.nq),
		m1: b[:nl:nl], m2: b[nl : 2*nl : 2*nl], g: b[2*nl : 3*nl : 3*nl], lk: b[3*nl : 4*nl : 4*nl], ent: b[4*nl:],
		w2: f[:nl:nl], gset: f[nl : 2*nl : 2*nl], a2: f[2*nl:],
		c: make([]uint32, m.nctr), bytes: b, bools: f,
	}
}

// copyFrom makes s a copy of o, a state of the same machine.
func (s *State) copyFrom(o *State) {
	copy(s.th, o.th)
	copy(s.q, o.q)
	copy(s.bytes, o.bytes)
	copy(s.bools, o.bools)
	copy(s.c, o.c)
	s.guessed = o.guessed
}

// Initial appends the initial state: every thread at its entry, M1 the
// initial memory, nothing in τ2, no guess, counters zero.
func (m *Machine) Initial(dst []byte) []byte {
	st := m.st
	st.guessed = 0
	for t := range st.th {
		st.th[t] = thread{pc: uint16(m.p.Threads[t].Entry)}
	}
	for q := range st.q {
		st.q[q] = queue{}
	}
	for l := range st.m1 {
		st.m1[l] = m.p.Locs[l].Init
		st.m2[l], st.g[l], st.w2[l], st.gset[l] = 0, 0, false, false
		st.lk[l], st.a2[l] = 0, false
	}
	for i := range st.c {
		st.c[i] = 0
	}
	for i := range st.ent {
		st.ent[i] = 0
	}
	for t := range st.th {
		m.settle(st, t) // register-only instructions at its entry
	}
	m.canon(st)
	return m.encode(dst, st)
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func (m *Machine) encode(dst []byte, s *State) []byte {
	n := len(dst)
	size := m.nt*m.thLen + len(s.ent) + m.nq + 4*m.nl + cover.CounterBytes*m.nctr
	dst = slices.Grow(dst, size)[:n+size]
	e := dst[n:]
	i := 0
	for t := range s.th {
		th := &s.th[t]
		e[i], e[i+1] = uint8(th.pc>>8), uint8(th.pc)
		e[i+2] = b2u(th.mid) | b2u(th.cpu2)<<1 | b2u(th.exit.set)<<2 | b2u(th.exit.r)<<3 | b2u(th.exit.w)<<4 |
			b2u(th.exit.part2)<<5 | b2u(th.pend)<<6 | b2u(th.pendIn)<<7
		e[i+3], e[i+4] = th.val, th.exit.loc
		for k := 0; k < m.succN; k++ {
			e[i+5+k] = uint8(th.succ >> (8 * k))
		}
		i += m.thLen
	}
	i += copy(e[i:], s.ent)
	for q := range s.q {
		// in2 never holds the CPU class (bit 0): a CPU event in τ2 sets
		// its thread's cpu2 instead, so the bit carries held.
		e[i] = s.q[q].in2 | b2u(s.q[q].held) | b2u(s.q[q].fence)<<6 | b2u(s.q[q].forced)<<7
		i++
	}
	for l := range s.m1 {
		e[i], e[i+1], e[i+2], e[i+3] = s.m1[l], s.m2[l], s.g[l], b2u(s.w2[l])|b2u(s.gset[l])<<1|s.lk[l]<<2|b2u(s.a2[l])<<4
		i += 4
	}
	for k, c := range s.c {
		cover.SetCounter(e[i:], k, c)
	}
	return dst
}

// Decode decodes the encoding e into s.
func (m *Machine) Decode(e []byte, s *State) {
	i := 0
	for t := range s.th {
		th := &s.th[t]
		f1 := e[i+2]
		*th = thread{
			pc: uint16(e[i])<<8 | uint16(e[i+1]), mid: f1&1 != 0, cpu2: f1&2 != 0, val: e[i+3],
			exit: rec{set: f1&4 != 0, r: f1&8 != 0, w: f1&16 != 0, part2: f1&32 != 0, loc: e[i+4]},
			pend: f1&64 != 0, pendIn: f1&128 != 0,
		}
		for k := 0; k < m.succN; k++ {
			th.succ |= uint64(e[i+5+k]) << (8 * k)
		}
		i += m.thLen
	}
	i += copy(s.ent, e[i:i+len(s.ent)])
	for q := range s.q {
		b := e[i]
		s.q[q] = queue{in2: b & 0x3E, held: b&1 != 0, fence: b&0x40 != 0, forced: b&0x80 != 0}
		i++
	}
	for l := range s.m1 {
		s.m1[l], s.m2[l], s.g[l] = e[i], e[i+1], e[i+2]
		s.w2[l], s.gset[l] = e[i+3]&1 != 0, e[i+3]&2 != 0
		s.lk[l], s.a2[l] = e[i+3]>>2&3, e[i+3]&16 != 0
		i += 4
	}
	for k := range s.c {
		s.c[k] = cover.Counter(e[i:], k)
	}
	s.guessed = 0
	if m.opt.EagerGuess {
		// registers are never guessed (registers.go)
		for s.guessed < m.nl && (s.gset[s.guessed] || m.isRegister(s.guessed)) {
			s.guessed++
		}
	}
}
