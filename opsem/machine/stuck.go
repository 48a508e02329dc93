package machine

import (
	"fmt"
	"strings"

	"rdmasim/opsem/prog"
)

// Stuck classifies a configuration from which no transition is enabled
// although not every thread has ended: the end of a run that is not a run
// of the whole program.
//
// Two kinds differ in what they mean. A thread waiting at an assume whose
// test fails ends a run that the program filters out, as a litmus test
// filters the executions it does not ask about: such a run was never an
// execution, and herd7 and SPIN ignore it alike. A thread waiting at a poll
// with nothing left to complete waits for ever: the program deadlocks, which
// SPIN reports as an invalid end state. When both happen in one
// configuration, the failing assume wins: the run is filtered out whatever
// else holds in it.
//
// A configuration in which a bound of the machine (max-inflight, unroll, an
// event graph's size) disables the only steps left is neither: the bound
// cut the run, and the search reports the bound.
type Stuck uint8

// Kinds of stuck configurations.
const (
	// NotStuck: a transition is enabled, a bound disabled one, or every
	// thread has ended and every queue pair is drained (final).
	NotStuck Stuck = iota
	// Filtered: a thread waits at an assume whose test fails (or at a
	// switch none of whose alternatives' tests holds).
	Filtered
	// Deadlock: every thread that has not ended waits at a poll with no
	// operation left to complete.
	Deadlock
	// Failed: a thread stopped at an error point of a protocol (an
	// assertion failed, a value left its range), or a write the lowering
	// could not check left a location's range (prog.Range), which stops
	// the whole run. It wins over the others: the run shows an error
	// whatever else holds in it.
	Failed
)

// String returns "not stuck", "filtered", "deadlock" or "failed".
func (k Stuck) String() string {
	switch k {
	case NotStuck:
		return "not stuck"
	case Filtered:
		return "filtered"
	case Deadlock:
		return "deadlock"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("Stuck(%d)", uint8(k))
}

// StuckEncoded classifies the configuration encoded in s (see Stuck). It
// reads s in place and returns at once when a thread can move or a queue
// pair is not drained, as in almost every configuration; only the rest it
// decodes, into scratch space of its own, to look at every transition. It
// may be called between calls of Successors, not during one.
func (m *Machine) StuckEncoded(s []byte) Stuck {
	if m.outOfRange(s) {
		return Failed
	}
	waiting := false
	for t := range m.p.Threads {
		pc, mid := m.pcOf(s, t)
		if mid {
			return NotStuck
		}
		switch in := &m.p.Threads[t].Code[pc]; in.Op {
		case prog.OpEnd:
		case prog.OpFail:
			waiting = true
		case prog.OpAssumeEq:
			if s[in.X] == in.A {
				return NotStuck
			}
			waiting = true
		case prog.OpAssumeNe:
			if s[in.X] != in.A {
				return NotStuck
			}
			waiting = true
		case prog.OpSwitch:
			if in.SwitchAlt(s[in.X]) >= 0 {
				return NotStuck
			}
			waiting = true
		case prog.OpLoad:
			if !in.Blocked(s) {
				return NotStuck
			}
			waiting = true
		case prog.OpPoll:
			waiting = true
		default:
			return NotStuck
		}
	}
	if !waiting {
		return NotStuck // every thread has ended: final, or the NIC moves
	}
	if !m.graph {
		// A queue pair that is not drained has a NIC step enabled; in
		// drained ones every operation is complete, so a poll with an
		// unpolled operation can go.
		i := m.lay.qBase
		for qi := range m.p.QPs {
			if m.sc {
				m.npend[qi] = s[i]
				i++
				continue
			}
			for b := 1; b <= nBuf; b++ {
				if s[i+b] != 0 {
					return NotStuck
				}
			}
			m.npend[qi] = s[i]
			i += 1 + nBuf
		}
		for t := range m.p.Threads {
			pc, _ := m.pcOf(s, t)
			if in := &m.p.Threads[t].Code[pc]; in.Op == prog.OpPoll && m.npend[in.QP] > 0 {
				return NotStuck
			}
		}
	}
	if m.sst == nil {
		m.sst = m.newState()
	}
	st := m.sst
	m.decode(s, st)
	var pruned uint32
	if m.stuckLabels, pruned = m.enabled(st, m.stuckLabels[:0]); len(m.stuckLabels) > 0 || pruned != 0 {
		return NotStuck
	}
	kind := Deadlock
	for t := range m.p.Threads {
		switch in := &m.p.Threads[t].Code[st.pc[t]]; in.Op {
		case prog.OpFail:
			return Failed
		case prog.OpAssumeEq, prog.OpAssumeNe, prog.OpSwitch, prog.OpLoad:
			kind = Filtered
		}
	}
	return kind
}

// Waiting describes where the threads of a stuck configuration wait, in the
// program's own terms: "T0 at poll(B) (line 4)", one clause per thread that
// has not ended, joined by "; ".
func (m *Machine) Waiting(s []byte) string {
	var parts []string
	for t := range m.p.Threads {
		pc, _ := m.pcOf(s, t)
		th := &m.p.Threads[t]
		in := &th.Code[pc]
		if in.Op == prog.OpEnd {
			continue
		}
		what := m.p.SourceString(in.Stmt)
		if in.Op == prog.OpSwitch && in.Stmt.Src == nil {
			what = "choose on " + m.p.Locs[in.X].Name
		}
		parts = append(parts, fmt.Sprintf("%s at %s (line %d)", th.Name, what, in.Stmt.Pos.Line))
	}
	return strings.Join(parts, "; ")
}

// assumeHolds reports whether in, if it is an assume, holds in memory mem
// (a decoded memory, or an encoding, which starts with it).
func assumeHolds(in *prog.Instr, mem []byte) bool {
	switch in.Op {
	case prog.OpAssumeEq:
		return mem[in.X] == in.A
	case prog.OpAssumeNe:
		return mem[in.X] != in.A
	}
	return true
}

// readsHold reports whether the reads that begin at instruction pc of a
// thread's code (assumes and switches, one after the other) can all be taken
// in memory mem as it is now: for ReadNow, an alternative of a branch (a
// loop head's enter or exit, whose test may read several locations) worth
// offering to a walk.
func readsHold(code []prog.Instr, pc int, mem []byte) bool {
	for range code {
		switch in := &code[pc]; in.Op {
		case prog.OpAssumeEq, prog.OpAssumeNe:
			if !assumeHolds(in, mem) {
				return false
			}
			pc = in.Next
		case prog.OpSwitch:
			i := in.SwitchAlt(mem[in.X])
			if i < 0 {
				return false
			}
			pc = code[in.Alts[i]].Next
		default:
			return true
		}
	}
	return true
}
