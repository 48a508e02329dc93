package machine

import "rdmasim/opsem/prog"

// Selective signalling (SEMANTICS-VERBS.md 2). A put, get or remote atomic
// marked unsignaled produces no completion entry: the k-th poll of a queue
// pair matches its k-th signalled operation, and is enabled only when that
// operation and every earlier one of the queue pair, signalled or not, is
// complete (the hardware completes in order; rpma: "you can indicate the
// operation is completed successfully by collecting a completion of an
// operation which comes after").
//
// The machines need no new byte for it. qstate.npend counts the signalled
// operations not yet polled, and an operation's rank is npend when it is
// submitted, as before: a signalled operation's rank is then its place
// among the unpolled signalled ones (the poll that matches it), and an
// unsignaled one's is the number of unpolled signalled operations before
// it, which is the index of the poll that covers it (the poll matching the
// next signalled operation after it). The poll's guard is unchanged: npend
// > 0 and no incomplete entry of rank 0 (oldestPending), that is, the
// first signalled operation and every operation before it are complete;
// the poll lowers every rank by one. An unsignaled operation after the
// last signalled one has rank npend, which no poll can reach until a
// signalled operation follows it (and takes rank npend, then npend+1
// counts it). canonPolls forgets ranks at or above the polls left, which
// holds for both: with P polls left only operations of rank < P are ever
// waited for.
//
// Independence for the partial-order reduction (reduce.go): the mark
// changes only the submission's count and the poll's match, both CPU steps
// of the thread. No NIC step reads npend or ranks except through the
// poll's guard, which a NIC step can only make true (an operation, once
// complete, stays so), and a submission marked unsignaled appends the same
// B1 entry as an unmarked one; so every argument of reduce.go for the
// submissions and the polls holds as it is (TestUnsignaledReduce checks
// it).

// signalled returns 1 for an operation that produces a completion entry
// and 0 for one marked unsignaled: what its submission adds to the count
// of unpolled (signalled) operations of its queue pair.
func signalled(in *prog.Instr) uint8 {
	if in.Unsignaled {
		return 0
	}
	return 1
}

// hasUnsignaled reports whether p has an operation marked unsignaled.
func hasUnsignaled(p *prog.Program) bool {
	for t := range p.Threads {
		for i := range p.Threads[t].Code {
			if p.Threads[t].Code[i].Unsignaled {
				return true
			}
		}
	}
	return false
}
