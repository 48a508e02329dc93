package promela

import "testing"

// TestFencedOutcomesMatch: on every litmus test of the fenced mark
// (corpus/litmus/FENCED-*.rdma, SEMANTICS-VERBS.md 4), SPIN's search of the
// exported machine reaches exactly the final outcomes rdmasim finds, and
// stores as many states as it explores, under both semantics and with a
// max-inflight bound of 2 as well as the default.
func TestFencedOutcomesMatch(t *testing.T) { litmusOutcomesMatch(t, "FENCED-*.rdma", "fenced") }
