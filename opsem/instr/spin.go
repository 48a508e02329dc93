package instr

import (
	"slices"

	"rdmasim/opsem/prog"
)

// Spin loops. A designer waits for a flag with a spin loop, while (x == 0)
// { skip }, which the lowering compiles into a loop branch to the body or
// the exit, each starting with an assume on x, and a skip back to the
// branch. Run as written, each failed iteration is three steps of the
// instrumented machine (branch, read, skip), each interleaved with every
// other thread's, and the read joins τ1 or τ2, fixing a guess and setting
// cpu2 on the way: the states multiply by the positions and modes of every
// spinning thread. Four reductions, all off under Options.NoReduction
// (the Promela robustness model follows that machine transition for
// transition), take the cost back to what the loop's real events need:
// loop switches, settled skips, stutter reads and retired threads.
//
// Loop switches. A loop branch whose alternatives are assumes on one
// location that no value passes twice (prog.SwitchCases) runs as the
// OpSwitch compile gives a choose of that shape: one step that reads the
// location and goes on past the assume of the alternative it satisfies.
// The decider counts no iterations, so the branch's Loop number is not
// needed; the argument is the switch's (prog/switch.go): the silent branch
// step can always be moved to just before its assume.
//
// Skips settled. A skip, and a branch with one alternative (the head of a
// loop whose exit the lowering decided from its registers), is run within
// the step that reached it, as the register-only instructions are
// (settle): it changes the thread's pc only, which no other thread and no
// target reads.
//
// Stutter reads. A CPU read after which its thread is back where it was
// (same pc, same registers: a failed iteration of a spin loop) and that
// changes none of the SC-cycle bookkeeping (no edge, no entry class, not
// the exit) is not taken. Take any run of the machine to a target and
// remove every such step: the thread's later steps find it at the same
// pc with the same registers; memory is unchanged (a read writes
// nothing); what the step may have set besides is cpu2, which only keeps
// later events out of τ1, and a boundary guess G[x], which only adds a
// condition to the target, and which a later τ2 read of x fixes to the
// same value if it needs it; the exits, edges and entry classes every
// later step consults are those of the run, since the step changed none.
// So the shortened run is a run to a target, and every state it passes
// is one the reduced machine reaches. The step that marks the read as the
// thread's exit, a separate successor, is always taken; a read that is
// the cycle's entry records an edge or an entry class unless an earlier
// event of the thread already did, which then serves as the entry.

// Retired threads. A thread that marks no SC-cycle event (not in
// Options.CycleThreads: it runs only to feed the block's threads their
// values) and whose every write from here on goes to locations no thread
// reads (registers aside, which only it reads and which are never
// guessed) can no longer matter to a target: remove its remaining events
// from a run to a target and what is left is a run to a target (its writes
// reached no read and no guess, its reads fixed at most guesses, which
// only add conditions, it carries no edge or entry). canon takes such a
// thread to its end, so that the positions and modes it would pass
// through make no states. Programs with remote atomics keep their threads
// (an atomic's lock is seen by the others').

// retirements computes retire, retireMid and ends.
func (m *Machine) retirements() {
	if prog.HasAtomics(m.p) {
		return
	}
	shared := make([]uint64, m.words)
	for l := range m.p.Locs {
		if m.isRead[l] && !m.p.Locs[l].Reg {
			shared[l/64] |= 1 << (l % 64)
		}
	}
	quiet := func(w []uint64) bool {
		for i := range w {
			if w[i]&shared[i] != 0 {
				return false
			}
		}
		return true
	}
	m.retire, m.retireMid = make([][]bool, m.nt), make([][]bool, m.nt)
	m.ends = make([]int, m.nt)
	for t := range m.p.Threads {
		code := m.p.Threads[t].Code
		m.ends[t] = slices.IndexFunc(code, func(in prog.Instr) bool { return in.Op == prog.OpEnd })
		if m.marks&(1<<t) != 0 || m.ends[t] < 0 {
			continue
		}
		r, rm := make([]bool, len(code)), make([]bool, len(code))
		for pc := range code {
			r[pc] = pc != m.ends[t] && quiet(m.futW[t][pc])
			rm[pc] = quiet(m.midW[t][pc])
		}
		m.retire[t], m.retireMid[t] = r, rm
	}
}

// retired takes every retired thread of s to its end.
func (m *Machine) retired(s *State) {
	if m.retire == nil {
		return
	}
	for t := range s.th {
		th := &s.th[t]
		if m.retire[t] == nil || th.pend {
			continue
		}
		if th.mid && m.retireMid[t][th.pc] || !th.mid && m.retire[t][th.pc] {
			th.pc, th.mid, th.val = uint16(m.ends[t]), false, 0
		}
	}
}

// loopSwitches returns, per thread and instruction, the OpSwitch a loop
// branch runs as (nil for every other instruction).
func loopSwitches(p *prog.Program) [][]*prog.Instr {
	out := make([][]*prog.Instr, len(p.Threads))
	for t := range p.Threads {
		th := &p.Threads[t]
		for pc := range th.Code {
			in := &th.Code[pc]
			if in.Op != prog.OpBranch || in.Loop < 0 {
				continue
			}
			x, cases, ok := prog.SwitchCases(th, pc, nil)
			if !ok {
				continue
			}
			if out[t] == nil {
				out[t] = make([]*prog.Instr, len(th.Code))
			}
			sw := *in
			sw.Op, sw.X, sw.Case = prog.OpSwitch, x, cases
			out[t][pc] = &sw
		}
	}
	return out
}

// loopSwitch returns the OpSwitch thread t's loop branch at pc runs as,
// or nil.
func (m *Machine) loopSwitch(t, pc int) *prog.Instr {
	if m.switches == nil || m.switches[t] == nil {
		return nil
	}
	return m.switches[t][pc]
}

// stutter reports whether the step being emitted, whose successor (its
// register steps and skips settled, not yet canonical) is m.cn, is a
// stutter read that changes no SC-cycle bookkeeping (see above).
func (m *Machine) stutter() bool {
	t := m.cur.Thread
	if m.opt.NoReduction || t < 0 || m.cur.Exit || m.cur.Event.Kind != prog.EvLR {
		return false
	}
	a, b := &m.st.th[t], &m.cn.th[t]
	if a.pc != b.pc || b.mid || b.pend || a.exit != b.exit {
		return false
	}
	for u := range m.st.th {
		if m.st.th[u].succ != m.cn.th[u].succ {
			return false
		}
	}
	for l := range m.st.m1 {
		if m.isRegister(l) && m.st.m1[l] != m.cn.m1[l] {
			return false
		}
	}
	return string(m.st.ent) == string(m.cn.ent)
}
