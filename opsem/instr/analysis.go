package instr

import "rdmasim/opsem/prog"

// accesses computes which locations can carry SC-cycle marks, counting
// the accesses of the threads in marks only, and which are read by any
// thread that is not frozen (see Machine.markable and Machine.isRead): a
// frozen thread never moves, so its reads never happen.
func accesses(p *prog.Program, marks, frozen uint64) (markable, read []bool) {
	n := make([]int, len(p.Locs))
	written := make([]bool, len(p.Locs))
	read = make([]bool, len(p.Locs))
	for t := range p.Threads {
		code := p.Threads[t].Code
		onCycle := prog.OnCycle(code)
		counted := marks&(1<<t) != 0
		moves := frozen&(1<<t) == 0
		access := func(pc, l int, w bool) {
			if !w && moves {
				read[l] = true
			}
			if !counted {
				return
			}
			n[l]++
			if onCycle[pc] {
				n[l]++
			}
			if w {
				written[l] = true
			}
		}
		for pc, in := range code {
			switch in.Op {
			case prog.OpWrite:
				access(pc, in.X, true)
			case prog.OpAssumeEq, prog.OpAssumeNe:
				access(pc, in.X, false)
			case prog.OpCAS:
				access(pc, in.Z, false)
				access(pc, in.Z, true)
				if counted {
					n[in.Z]-- // one CAS or lR event on z
				}
				access(pc, in.X, true)
			case prog.OpGet:
				access(pc, in.Y, false)
				access(pc, in.X, true)
			case prog.OpPut:
				access(pc, in.X, false)
				access(pc, in.Y, true)
			case prog.OpRCAS, prog.OpRFAA:
				// one naR(+naW) access of y, contracted as a CAS's, then
				// the nlW of x
				access(pc, in.Y, false)
				access(pc, in.Y, true)
				if counted {
					n[in.Y]--
				}
				access(pc, in.X, true)
			case prog.OpLoad:
				access(pc, in.Y, false) // its lR; the register makes no event
			case prog.OpEval:
				if !p.Locs[in.X].Reg {
					access(pc, in.X, true) // its lW
				}
			}
			// A register the thread reads: read, never markable (no
			// event accesses it, and no other thread names it).
			if in.Op.IsRegisterOp() && in.Op != prog.OpLoad && moves {
				for _, l := range in.E.Locs() {
					read[l] = true
				}
			}
		}
	}
	markable = make([]bool, len(p.Locs))
	for l := range markable {
		markable[l] = n[l] >= 2 && written[l]
	}
	return markable, read
}

// futureAccesses computes futR, futW, midR and midW: per instruction, the
// locations the thread may still read and write, a least
// fixpoint over its control flow.
func (m *Machine) futureAccesses() {
	m.words = (m.nl + 63) / 64
	for t := range m.p.Threads {
		code := m.p.Threads[t].Code
		n := len(code)
		r, w := make([][]uint64, n), make([][]uint64, n)
		mr, mw := make([][]uint64, n), make([][]uint64, n)
		for pc := range code {
			r[pc], w[pc] = make([]uint64, m.words), make([]uint64, m.words)
			mr[pc], mw[pc] = make([]uint64, m.words), make([]uint64, m.words)
		}
		set := func(b []uint64, l int) { b[l/64] |= 1 << (l % 64) }
		// The events of each instruction: first event into r/w, second
		// (after mid) into mr/mw and r/w.
		for pc, in := range code {
			switch in.Op {
			case prog.OpWrite:
				set(w[pc], in.X)
			case prog.OpAssumeEq, prog.OpAssumeNe:
				set(r[pc], in.X)
			case prog.OpCAS:
				set(r[pc], in.Z)
				set(w[pc], in.Z)
				set(mw[pc], in.X)
			case prog.OpGet:
				set(r[pc], in.Y)
				set(mw[pc], in.X)
			case prog.OpPut:
				set(r[pc], in.X)
				set(mw[pc], in.Y)
			case prog.OpRCAS, prog.OpRFAA:
				set(r[pc], in.Y)
				set(w[pc], in.Y)
				set(mw[pc], in.X)
			case prog.OpLoad:
				set(r[pc], in.Y)
				set(w[pc], in.X)
			case prog.OpEval, prog.OpIf:
				if in.Op == prog.OpEval {
					set(w[pc], in.X)
				}
				for _, l := range in.E.Locs() {
					set(r[pc], l) // the registers it reads
				}
			}
		}
		or := func(dst, src []uint64) bool {
			changed := false
			for i := range dst {
				if dst[i]|src[i] != dst[i] {
					dst[i] |= src[i]
					changed = true
				}
			}
			return changed
		}
		for pc := range code {
			or(r[pc], mr[pc])
			or(w[pc], mw[pc])
		}
		for changed := true; changed; {
			changed = false
			for pc := range code {
				for _, nx := range code[pc].Succ() {
					changed = or(r[pc], r[nx]) || changed
					changed = or(w[pc], w[nx]) || changed
				}
			}
		}
		for pc, in := range code {
			if in.Op != prog.OpBranch && in.Op != prog.OpSwitch && in.Op != prog.OpEnd && in.Op != prog.OpFail && !in.Op.IsRegisterOp() {
				or(mr[pc], r[in.Next])
				or(mw[pc], w[in.Next])
			}
		}
		m.futR, m.futW = append(m.futR, r), append(m.futW, w)
		m.midR, m.midW = append(m.midR, mr), append(m.midW, mw)
		fm, mm := make([]bool, n), make([]bool, n)
		for pc := range code {
			if m.marks&(1<<t) != 0 { // else the thread marks nothing
				fm[pc] = m.anyMarkable(r[pc], w[pc])
				mm[pc] = m.anyMarkable(mr[pc], mw[pc])
			}
		}
		m.futM, m.midM = append(m.futM, fm), append(m.midM, mm)
	}
}

// anyMarkable reports whether the bitsets r or w hold a markable location.
func (m *Machine) anyMarkable(r, w []uint64) bool {
	for l := 0; l < m.nl; l++ {
		if m.markable[l] && (bit(r, l) || bit(w, l)) {
			return true
		}
	}
	return false
}

// canMark reports whether thread t of s may still generate an event on a
// markable location: a candidate SC-cycle entry or exit.
func (m *Machine) canMark(s *State, t int) bool {
	th := &s.th[t]
	if th.pend {
		return false
	}
	if th.mid {
		return m.midM[t][th.pc]
	}
	return m.futM[t][th.pc]
}

// future returns the locations thread t of s may still read and write.
func (m *Machine) future(s *State, t int) (r, w []uint64) {
	th := &s.th[t]
	if th.mid {
		return m.midR[t][th.pc], m.midW[t][th.pc]
	}
	return m.futR[t][th.pc], m.futW[t][th.pc]
}

func bit(b []uint64, l int) bool { return b[l/64]&(1<<(l%64)) != 0 }

// domains computes, per location, the values it can ever hold: its initial
// value, the constants written to it, the values that flow into it by
// CAS results, gets and puts, and those an OpEval may compute from the
// values its registers may hold there (a least fixpoint, with the
// registers' analysis of regflow.go, which it returns). A register's
// domain is the union of its values at every instruction.
func domains(p *prog.Program) ([][]uint8, []*regFlow) {
	has := make([][256]bool, len(p.Locs))
	for l, loc := range p.Locs {
		has[l][loc.Init] = true
	}
	flow := func(from, to int) bool {
		changed := false
		for v := range has[from] {
			if has[from][v] && !has[to][v] {
				has[to][v] = true
				changed = true
			}
		}
		return changed
	}
	var flows []*regFlow
	regs := usesRegisters(p)
	for changed := true; changed; {
		changed = false
		if regs {
			flows = registerFlows(p, has)
		}
		for t := range p.Threads {
			for pc, in := range p.Threads[t].Code {
				switch in.Op {
				case prog.OpWrite:
					if !has[in.X][in.A] {
						has[in.X][in.A] = true
						changed = true
					}
				case prog.OpCAS:
					if !has[in.Z][in.B] {
						has[in.Z][in.B] = true
						changed = true
					}
					changed = flow(in.Z, in.X) || changed
				case prog.OpGet:
					changed = flow(in.Y, in.X) || changed
				case prog.OpPut:
					changed = flow(in.X, in.Y) || changed
				case prog.OpRCAS:
					if !has[in.Y][in.B] {
						has[in.Y][in.B] = true
						changed = true
					}
					changed = flow(in.Y, in.X) || changed
				case prog.OpRFAA:
					// y + d, modulo 256, for every value y can hold
					for v := range has[in.Y] {
						if nv, _ := in.AtomicResult(uint8(v)); has[in.Y][v] && !has[in.Y][nv] {
							has[in.Y][nv] = true
							changed = true
						}
					}
					changed = flow(in.Y, in.X) || changed
				case prog.OpEval:
					if p.Locs[in.X].Reg || flows[t].at[pc] == nil {
						continue // a register's values are per instruction; pc is never reached
					}
					vs := evalValues(&in, len(p.Locs), flows[t].valuesAt(pc))
					for v := range has[in.X] {
						if vs.has(uint8(v)) && !has[in.X][v] {
							has[in.X][v] = true
							changed = true
						}
					}
				}
			}
		}
	}
	for _, f := range flows {
		for _, at := range f.at {
			for i, l := range f.regs {
				for v := range has[l] {
					has[l][v] = has[l][v] || at != nil && at[i].has(uint8(v))
				}
			}
		}
	}
	out := make([][]uint8, len(p.Locs))
	for l := range has {
		out[l] = valueList(&has[l])
	}
	return out, flows
}

// valueList returns the values of has, ascending.
func valueList(has *[256]bool) []uint8 {
	var out []uint8
	for v := range has {
		if has[v] {
			out = append(out, uint8(v))
		}
	}
	return out
}
