// Package explore searches the state space of a transition system: breadth-
// first (shortest witnesses), depth-first, or by random walks, with bounds on
// states and time, and reconstructs the run that reached any visited state.
//
// The package knows nothing about RDMA. It sees a Machine: an initial state,
// labelled successors, and states as canonical byte encodings (equal states
// encode equally), which it fingerprints into a store.Set to detect revisits.
//
// The sequential and the parallel searches share one core that commits
// expanded states: it inserts their successors into the visited set, and
// numbers, records, queues and visits the new ones, in order. The sequential
// search feeds it each state as it expands it; the parallel breadth-first
// search (Options.Workers) feeds it the blocks of states its workers
// expanded, in the order the sequential search expands them, so the two are
// the same search.
//
// Memory: besides the visited set, a search holds its frontier and, for
// Path, a parent record per state. Given a directory (Options.SpillDir), both
// go to disk beyond fixed budgets (Options.FrontierBudget, and a 1 MiB write
// buffer for the records), so that a long search uses bounded memory.
//
// A search can checkpoint itself and resume (Checkpoint); package
// explore/ckpt is the format of its checkpoints on disk.
package explore

// Label names a transition for traces. Its meaning belongs to the machine that
// produced it; the explorer only records and returns it. It is an alias, so
// that a machine can implement Machine without importing this package.
type Label = uint64

// Pruned is a set of bounds, as bit flags chosen by the machine, that cut some
// successors of a state. The explorer ORs together the flags of every expanded
// state and reports them, so that a search cut by a bound is never mistaken for
// a complete one. It is an alias for the same reason as Label.
type Pruned = uint32

// Machine is a transition system over canonically encoded states.
//
// Implementations must be deterministic: Successors must emit the same
// successors, with the same labels, in the same order, every time it is called
// on the same state. The explorer relies on this to replay a run from the
// ordinal positions of its steps.
type Machine interface {
	// Initial appends the encoding of the initial state to dst and returns
	// the extended slice.
	Initial(dst []byte) []byte

	// Successors calls emit once for every successor of the state s, with the
	// transition's label and the successor's encoding. The encoding passed to
	// emit is only valid during the call; emit copies what it keeps. Successors
	// must not retain s. It returns the bounds that cut successors of s (zero
	// when none did).
	Successors(s []byte, emit func(l Label, next []byte)) Pruned
}
