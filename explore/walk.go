package explore

import "math/rand/v2"

// defaultWalkSteps is the step bound Walk uses when given none.
const defaultWalkSteps = 10000

// Walk takes a random walk through the state space of m from its initial
// state. At each state it chooses one of the emitted successors uniformly at
// random using rng, moves to it, and calls step with the transition's label and
// the state reached; the encoding is valid only during the call. If step is nil
// it is not called.
//
// The walk ends at a state with no successors (deadEnd is true), after
// maxSteps transitions, or when step returns false. A maxSteps of zero or less
// means 10000. Walk returns the number of transitions taken, including the one
// for which step returned false, and the bitwise OR of the values returned by
// Successors for every state expanded.
//
// For a deterministic machine the walk is determined by the state of rng, so a
// walk is reproduced by seeding a fresh generator identically. Walk does not
// allocate per step beyond the growth of its two state buffers.
func Walk(m Machine, rng *rand.Rand, maxSteps int, step func(l Label, s []byte) bool) (steps int, deadEnd bool, pruned Pruned) {
	if maxSteps <= 0 {
		maxSteps = defaultWalkSteps
	}
	cur := m.Initial(nil)
	var (
		next  []byte
		label Label
		n     uint64 // successors emitted by the current state so far
	)
	// Reservoir sampling: the i-th successor replaces the choice with
	// probability 1/i, which leaves each of n successors chosen with
	// probability 1/n after a single pass.
	emit := func(l Label, s []byte) {
		n++
		if n == 1 || rng.Uint64N(n) == 0 {
			label = l
			next = append(next[:0], s...)
		}
	}
	for steps < maxSteps {
		n = 0
		pruned |= m.Successors(cur, emit)
		if n == 0 {
			return steps, true, pruned
		}
		cur, next = next, cur
		steps++
		if step != nil && !step(label, cur) {
			break
		}
	}
	return steps, false, pruned
}
