package axiom

import "rdmasim/opsem/prog"

// Selective signalling (SEMANTICS-VERBS.md 2), as the machines do it
// (machine/signal.go): the k-th poll of a queue pair matches the k-th
// signalled operation, and is enabled only once that operation and every
// earlier one of the queue pair is complete. So pf grows: a poll polls from
// the NIC writes of its signalled operation and of every operation of the
// queue pair before it that no earlier poll polled from (the unsignaled
// ones since the previous signalled one). [nrW];pf ⊆ ib and [nlW];pf ⊆ ob
// then apply to each, as the machine's guard gives: a put is complete once
// acknowledged (its nrW issued), a get once its nlW is visible. The ppo
// table is unchanged: the mark orders nothing by itself.

// nextSignalled returns the index in nics (the first NIC write of each
// operation of one queue pair, in program order) of the first signalled
// operation at or after k, or len(nics) when there is none (a poll there
// has nothing to match and waits for ever).
func nextSignalled(ev []Event, nics []int, k int) int {
	for k < len(nics) && ev[nics[k]].Unsignaled {
		k++
	}
	return k
}

// signalled returns 1 for an operation that produces a completion entry
// and 0 for one marked unsignaled: what it adds to the polls a label
// sequence may take on its queue pair.
func signalled(in *prog.Instr) int {
	if in.Unsignaled {
		return 0
	}
	return 1
}
