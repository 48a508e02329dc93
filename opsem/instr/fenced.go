package instr

import (
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
)

// The verbs features the instrumentation covers (SEMANTICS-VERBS.md 9):
// quiet and the fence flag. Both only add entries to ppo, in ippo and oppo
// alike, so the paper's normal form carries over unchanged (its proof uses
// ippo \ oppo, which they leave as the seed's); the instrumented machine
// needs only to keep the new oppo edges forward, as it keeps the table's:
//
//   - quiet is a CPU event that every earlier event of its thread, on any
//     queue pair, precedes in oppo (axiom.ClassQuiet's column). It may join
//     τ1 only if no CPU event of the thread is in τ2 (cpu2) and no NIC
//     event of any of its queue pairs is (in2); in τ2 it holds the thread
//     there, as a CPU event does.
//   - A fenced operation f orders every event of an earlier get or atomic
//     of its queue pair before every NIC event of f and of the operations
//     after it (not a poll: axiom.PPO). The simulation generates every
//     earlier operation's events before f's, so when f's first event comes,
//     such an event is in τ2 exactly when in2 holds nrR or nlW (an atomic
//     books as nrR: bookClass); from then on (held) the queue pair's NIC
//     events stay out of τ1.

// holds reports whether the queue pair of instruction in, whose next
// event thread t generates, is held in τ2 by a fence: already, or because
// in is a fenced operation starting while an earlier get's or atomic's
// event is in τ2.
func (m *Machine) holds(st *State, in *prog.Instr, t int) bool {
	if in.QP < 0 {
		return false
	}
	q := &st.q[in.QP]
	if q.held {
		return true
	}
	const reads = 1<<axiom.ClassNRR | 1<<axiom.ClassNLW
	return in.Fenced && !st.th[t].mid && q.in2&reads != 0
}

// quietAllowed reports whether thread t's quiet may join τ1: no NIC event
// of any of its queue pairs is in τ2 (cpu2 is checked by allowed).
func (m *Machine) quietAllowed(st *State, t int) bool {
	for _, q := range m.qps[t] {
		if st.q[q].in2 != 0 {
			return false
		}
	}
	return true
}
