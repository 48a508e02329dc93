package axiom

import (
	"errors"
	"fmt"
)

// ErrTooLarge is matched (errors.Is) by every error that says a program is
// too large for the model: the program is valid, the enumeration cannot
// represent its traces. The error itself is a *LimitError, which says which
// limit and by how much. A caller that answers with other semantics too
// (a machine, the decider) reports such a program as unknown under the
// model, not as bad input.
var ErrTooLarge = errors.New("axiom: program too large for the declarative model")

// Quantities a LimitError counts.
const (
	// LimitEvents: the events of a trace, initial writes included, more
	// than Options.MaxEvents (at most MaxEvents = 64: each relation is a row
	// of one 64-bit word per event).
	LimitEvents = "events"
	// LimitPrefixes: the label-sequence prefixes of one thread (the nodes
	// of its trie), more than the enumeration builds (1<<20): the unrolled
	// program branches too much for trace enumeration.
	LimitPrefixes = "label-sequence prefixes"
)

// LimitError reports a program whose traces exceed a limit of the model.
// For LimitEvents, N is the number of events of the largest trace (initial
// writes included, loops unrolled Unroll times): the sum of the memory
// locations (one initial write each; a register kept at run time has none)
// and of each thread's longest label sequence. When that sum could not be
// measured (a thread's trie outgrew its own limit on the way), N is a
// lower bound and AtLeast is set.
type LimitError struct {
	Program string // the program's name
	What    string // LimitEvents or LimitPrefixes
	Thread  string // LimitPrefixes: the thread whose trie is too large
	N       int    // how many the program needs (at least N when AtLeast)
	AtLeast bool
	Limit   int // the limit exceeded
	Unroll  int // the loop bound the traces were built with
}

// Summary says in a few words which limit the program exceeds and by how
// much: "70 events > 64".
func (e *LimitError) Summary() string {
	what := e.What
	if e.Thread != "" {
		what += " of thread " + e.Thread
	}
	if e.AtLeast {
		return fmt.Sprintf("more than %d %s", e.Limit, what)
	}
	return fmt.Sprintf("%d %s > %d", e.N, what, e.Limit)
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("axiom: %s is too large for the declarative model: %s (loops unrolled %d times)", e.Program, e.Summary(), e.Unroll)
}

// Is makes every LimitError match ErrTooLarge.
func (e *LimitError) Is(target error) bool { return target == ErrTooLarge }
