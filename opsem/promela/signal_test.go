package promela

import "testing"

// TestUnsignaledOutcomesMatch: on every litmus test of the unsignaled mark
// (corpus/litmus/SIGNAL-*.rdma, SEMANTICS-VERBS.md 2), SPIN's search of the
// exported machine reaches exactly the final outcomes rdmasim finds, and
// stores as many states as it explores, under both semantics and with a
// max-inflight bound of 2 as well as the default.
func TestUnsignaledOutcomesMatch(t *testing.T) {
	litmusOutcomesMatch(t, "SIGNAL-*.rdma", "unsignaled")
}
