package instr

import "rdmasim/opsem/prog"

// Forgotten lock state. The per-location lock state of the remote atomics
// (atomic.go: lk, the part of the pending atomic holding the location's
// lock; a2, an atomic on it is in τ2) is consulted by lockFree only, when
// a thread generates the first step of an atomic on the location, and
// written by lock at that step. So canon (canonLocks, off under
// Options.NoReduction: futA is nil there) forgets it where no such step can
// come:
//
//   - both, on a location on which no thread that can still move (not
//     ended, pending or frozen) may still perform an atomic (futA);
//   - a2, when lk is set: lockFree refuses every pending atomic on a
//     locked location whatever a2 says, and a2 matters for pending ones
//     only;
//   - a2, when every thread that may still perform an atomic on the
//     location has a CPU event in τ2 (cpu2, which is never cleared while
//     the thread can move): such a thread's events join τ2 only (allowed),
//     and a2 matters only for a pending atomic joining τ1.
//
// Two states that differ only there have the same successors up to the
// same forgetting, and the target reads neither component, so the
// search's answer is the same.

// atomicFutures computes futA and midA: per thread and instruction, the
// locations on which the thread may still perform a remote atomic's first
// step, from the instruction on (its own included) and in its middle
// (after its first event: its own excluded), a least fixpoint over its
// control flow as futureAccesses.
func (m *Machine) atomicFutures() {
	if !prog.HasAtomics(m.p) {
		return
	}
	m.futA, m.midA = make([][][]uint64, m.nt), make([][][]uint64, m.nt)
	for t := range m.p.Threads {
		code := m.p.Threads[t].Code
		a, ma := make([][]uint64, len(code)), make([][]uint64, len(code))
		for pc, in := range code {
			a[pc], ma[pc] = make([]uint64, m.words), make([]uint64, m.words)
			if in.Op.IsAtomic() {
				a[pc][in.Y/64] |= 1 << (in.Y % 64)
			}
		}
		for changed := true; changed; {
			changed = false
			for pc := range code {
				for _, nx := range code[pc].Succ() {
					for i := range a[pc] {
						if a[pc][i]|a[nx][i] != a[pc][i] {
							a[pc][i] |= a[nx][i]
							changed = true
						}
					}
				}
			}
		}
		for pc, in := range code {
			if in.Op != prog.OpBranch && in.Op != prog.OpSwitch && in.Op != prog.OpEnd && in.Op != prog.OpFail && !in.Op.IsRegisterOp() {
				copy(ma[pc], a[in.Next])
			}
		}
		m.futA[t], m.midA[t] = a, ma
	}
}

// canonLocks forgets the lock state no future step can consult (see
// above).
func (m *Machine) canonLocks(s *State) {
	if m.futA == nil {
		return
	}
	any, in1 := m.scratch2()
	for t := range s.th {
		if m.ended(s, t) {
			continue
		}
		th := &s.th[t]
		fa := m.futA[t][th.pc]
		if th.mid {
			fa = m.midA[t][th.pc]
		}
		for i := range any {
			any[i] |= fa[i]
			if !th.cpu2 {
				in1[i] |= fa[i]
			}
		}
	}
	for l := 0; l < m.nl; l++ {
		if s.lk[l] == 0 && !s.a2[l] {
			continue
		}
		switch {
		case !bit(any, l):
			s.lk[l], s.a2[l] = 0, false
		case s.lk[l] != 0 || !bit(in1, l):
			s.a2[l] = false
		}
	}
}
