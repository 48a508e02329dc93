package axiom

import "rdmasim/opsem/prog"

// PrefixProduct returns the product over p's threads of the number of
// label-sequence prefixes of each (the nodes of its trie) with loops
// unrolled unroll times: the number of event sets Reach searches, a
// measure of the model's cost that tests use to leave out, by a count and
// never by time, programs too costly to compare. It fails as the model
// does on a program too large.
func PrefixProduct(p *prog.Program, unroll int) (float64, error) {
	pr, err := newProblem(p, Options{Unroll: unroll})
	if err != nil {
		return 0, err
	}
	n := 1.0
	for _, tr := range pr.trees {
		n *= float64(len(tr.nodes))
	}
	return n, nil
}

// TraceEvents returns the most events a trace of p has with loops unrolled
// unroll times: its initial writes (one per memory location, none for a
// register) and each thread's longest label sequence. It fails as the
// model does on a program too large.
func TraceEvents(p *prog.Program, unroll int) (int, error) {
	pr, err := newProblem(p, Options{Unroll: unroll})
	if err != nil {
		return 0, err
	}
	n := pr.nInit
	for _, tr := range pr.trees {
		n += tr.longest()
	}
	return n, nil
}
