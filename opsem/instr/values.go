package instr

import "rdmasim/opsem/prog"

// Guesses that can no longer come true.
//
// A boundary guess G[l] is checked against M1[l] when a target is reached
// (target) or once no thread can write l in τ1 any more (canonMemory). In
// between, M1[l] changes only by τ1 writes: a guess that differs from M1[l]
// now can come true only if some thread that can still put events in τ1
// may write exactly the value G[l] to l in τ1. A state where no such write
// is possible reaches no target, and canonMemory drops it at once instead
// of carrying it until the last τ1 writer of l has moved on. On the
// message-passing family most states hold a guess that differs from M1
// (60,347 of 95,055 at n = 4), most of them for ever.
//
// The values a thread may still write in τ1 are over-approximated by a
// fixpoint over its control flow: the constants of its writes and CAS
// instructions (wconst), and the copies its gets, puts and CAS results make
// from one location to another (copies), whose values are those the source
// holds in τ1 when read: its M1 value now or a value written to it later
// in τ1 (valuesLeft closes over copies).

// valset is a set of values 0..255.
type valset [4]uint64

func (v *valset) add(x uint8)      { v[x/64] |= 1 << (x % 64) }
func (v *valset) has(x uint8) bool { return v[x/64]&(1<<(x%64)) != 0 }
func (v *valset) or(o *valset) (ch bool) {
	for i := range v {
		if v[i]|o[i] != v[i] {
			v[i] |= o[i]
			ch = true
		}
	}
	return ch
}

// wconst is a constant a thread may still write to a location.
type wconst struct {
	loc  int
	vals valset
}

// copyEdge is a copy a thread may still make from src to dst.
type copyEdge struct{ dst, src int }

// writesLeft holds, per instruction of one thread, the constants and copies
// of that instruction and every instruction after it (both events
// included).
type writesLeft struct {
	consts [][]wconst
	copies [][]copyEdge
}

// valueAnalysis computes m.left for every thread.
func (m *Machine) valueAnalysis() {
	m.left = make([]writesLeft, m.nt)
	for t := range m.p.Threads {
		code := m.p.Threads[t].Code
		n := len(code)
		consts := make([]map[int]valset, n)
		copies := make([]map[copyEdge]bool, n)
		for pc, in := range code {
			consts[pc], copies[pc] = map[int]valset{}, map[copyEdge]bool{}
			addC := func(l int, v uint8) {
				s := consts[pc][l]
				s.add(v)
				consts[pc][l] = s
			}
			switch in.Op {
			case prog.OpWrite:
				addC(in.X, in.A)
			case prog.OpCAS:
				addC(in.Z, in.B)
				copies[pc][copyEdge{in.X, in.Z}] = true
			case prog.OpGet:
				copies[pc][copyEdge{in.X, in.Y}] = true
			case prog.OpPut:
				copies[pc][copyEdge{in.Y, in.X}] = true
			case prog.OpRCAS, prog.OpRFAA:
				// an rfaa may write any value y can hold
				if in.Op == prog.OpRCAS {
					addC(in.Y, in.B)
				} else {
					for _, v := range m.domain[in.Y] {
						addC(in.Y, v)
					}
				}
				copies[pc][copyEdge{in.X, in.Y}] = true
			case prog.OpEval:
				// the values it may compute (registers are never
				// guessed: only ordinary locations matter)
				if !m.isRegister(in.X) && m.flows[t].at[pc] != nil {
					vs := evalValues(&in, m.nl, m.flows[t].valuesAt(pc))
					s := consts[pc][in.X]
					s.or(&vs)
					consts[pc][in.X] = s
				}
			}
		}
		for changed := true; changed; {
			changed = false
			for pc := range code {
				for _, nx := range code[pc].Succ() {
					for l, v := range consts[nx] {
						s := consts[pc][l]
						if s.or(&v) {
							consts[pc][l] = s
							changed = true
						}
					}
					for e := range copies[nx] {
						if !copies[pc][e] {
							copies[pc][e] = true
							changed = true
						}
					}
				}
			}
		}
		wl := writesLeft{consts: make([][]wconst, n), copies: make([][]copyEdge, n)}
		for pc := range code {
			for l := 0; l < m.nl; l++ { // in location order: deterministic
				if v, ok := consts[pc][l]; ok {
					wl.consts[pc] = append(wl.consts[pc], wconst{l, v})
				}
			}
			for dst := 0; dst < m.nl; dst++ {
				for src := 0; src < m.nl; src++ {
					if copies[pc][copyEdge{dst, src}] {
						wl.copies[pc] = append(wl.copies[pc], copyEdge{dst, src})
					}
				}
			}
		}
		m.left[t] = wl
	}
}

// valuesLeft fills m.vals[l] with the values some thread of s that can
// still put events in τ1 may write to l in τ1 from now on (an
// over-approximation, see above).
func (m *Machine) valuesLeft(s *State) {
	if len(m.vals) < m.nl {
		m.vals = make([]valset, m.nl)
	}
	vals := m.vals[:m.nl]
	for l := range vals {
		vals[l] = valset{}
	}
	m.copyScr = m.copyScr[:0]
	for t := range s.th {
		th := &s.th[t]
		if th.cpu2 || m.ended(s, t) {
			continue
		}
		pc := int(th.pc)
		in := &m.p.Threads[t].Code[pc]
		if th.mid {
			// The instruction's second event writes th.val.
			switch in.Op {
			case prog.OpGet, prog.OpCAS, prog.OpRCAS, prog.OpRFAA:
				vals[in.X].add(th.val)
			case prog.OpPut:
				vals[in.Y].add(th.val)
			}
			pc = in.Next
		}
		wl := &m.left[t]
		for i := range wl.consts[pc] {
			c := &wl.consts[pc][i]
			vals[c.loc].or(&c.vals)
		}
		m.copyScr = append(m.copyScr, wl.copies[pc]...)
	}
	for changed := true; changed; {
		changed = false
		for _, e := range m.copyScr {
			src := vals[e.src]
			src.add(s.m1[e.src])
			if vals[e.dst].or(&src) {
				changed = true
			}
		}
	}
}

// soloLeft is valuesLeft by soloValues (solo.go): false when it cannot
// tell, and then m.vals is garbage.
func (m *Machine) soloLeft(s *State) bool {
	vals := m.vals[:m.nl]
	for l := range vals {
		vals[l] = valset{}
	}
	var ws uint64
	for t := range s.th {
		if !s.th[t].cpu2 && !m.ended(s, t) {
			ws |= 1 << t
		}
	}
	return m.soloValues(s, ws, vals)
}

// guessesAlive reports whether every guess of s that differs from M1 may
// still come true (see above). w1 holds the locations some thread that can
// still put events in τ1 may write.
func (m *Machine) guessesAlive(s *State, w1 []uint64) bool {
	computed := false
	for l := 0; l < m.nl; l++ {
		if !s.gset[l] || s.g[l] == s.m1[l] || !bit(w1, l) {
			continue
		}
		if !computed {
			m.valuesLeft(s)
			computed = true
		}
		if !m.vals[l].has(s.g[l]) {
			return false
		}
	}
	if !computed || !m.solo || !m.soloLeft(s) {
		return true
	}
	// Every guess valuesLeft keeps alive: soloValues may know better.
	for l := 0; l < m.nl; l++ {
		if s.gset[l] && s.g[l] != s.m1[l] && bit(w1, l) && !m.vals[l].has(s.g[l]) {
			return false
		}
	}
	return true
}
