package axiom

import "rdmasim/opsem/prog"

// Inline puts (SEMANTICS-VERBS.md 5). The queue-pair machine's submission
// of a put marked inline reads the put's source words (IBV_SEND_INLINE
// copies them into the work request when it is posted) and N1 then only
// moves the work request on (machine/inlineput.go). Its nlR events are so
// the CPU's, and their ppo rows and columns are read off that step:
//
//   - a → nlR(inline): the submission is a CPU step in program order, so
//     every earlier CPU event (lR, lW, CAS, poll, quiet) and every earlier
//     inline read is before it (✓, ippo and oppo); no earlier NIC event is,
//     on any queue pair (×): an earlier put's N1, an earlier rfence's N3, a
//     get's or atomic's events and every NIC write happen whenever their
//     queue pair gets to them, possibly after the submission. This drops
//     the seed's sqp entries nlR → nlR and nF → nlR, and the fence flag's
//     entries into it: a fenced inline put's copy is made at the post, the
//     fence holds back only its work request (N1).
//   - nlR(inline) → b: every later event of the thread is issued after
//     the submission (the CPU moves on only after it; a later operation is
//     submitted later still): ✓ in ippo and oppo, the CPU row.
//
// No nfo pair has an inline read: the empty-LW condition of N1, which nfo
// stands for, is a NIC read's flush of its queue pair's NIC writes, and an
// inline put's read is not the NIC's. The put's other events (nrW) keep a
// put's rows and columns: its work request goes down B1, B2 and RW in FIFO
// order as an unmarked one.

// inlineRead reports whether e is the read of a put marked inline.
func inlineRead(e *Event) bool { return e.Inline && e.Kind == prog.EvNLR }

// ppoInline is PPO for a →po b on one thread, one of them an inline read
// (and not two events of one multi-word work request, which ppoWords
// orders alike).
func ppoInline(a, b *Event) (ippo, oppo bool) {
	if inlineRead(a) {
		return true, true
	}
	switch ClassOf(a.Kind) {
	case ClassCPU, ClassQuiet:
		return true, true
	}
	return false, false
}
