package main

import "testing"

// TestGoldenFirstUse holds what a new user meets first: programs that are
// not programs, misspelt statements and conditions, bad flag values, the
// model's size limit, help and the version.
func TestGoldenFirstUse(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"check-empty", []string{"check", "testdata/empty.rdma"}, exitUsage},
		{"check-no-thread", []string{"check", "testdata/no-thread.rdma"}, exitUsage},
		{"check-flush", []string{"check", "testdata/flush.rdma"}, exitUsage},
		{"check-cond-eqeq", []string{"check", "testdata/cond-eqeq.rdma"}, exitUsage},
		{"check-negative-timeout", []string{"check", "--timeout", "-1s", litmus + "SB-PUT.rdma"}, exitUsage},
		{"fuzz-negative-minimize-time", []string{"fuzz", "--minimize-time", "-90s"}, exitUsage},
		{"graph-negative-unroll", []string{"graph", "--unroll", "-1", litmus + "SB-PUT.rdma"}, exitUsage},
		// A valid program of 70 events: the machines and the decider answer
		// it, the declarative model (64 events at most) says unknown.
		{"check-axiom-model-limit", []string{"check", "--semantics", "axiom", "testdata/model-limit.rdma"}, exitLimit},
		{"check-both-model-limit", []string{"check", "--semantics", "both", "testdata/model-limit.rdma"}, exitLimit},
		{"check-axiom-model-limit-json", []string{"check", "--json", "--semantics", "axiom", "testdata/model-limit.rdma"}, exitLimit},
		{"robust-all-model-limit", []string{"robust", "--method", "all", "testdata/model-limit.rdma"}, exitLimit},
		{"robust-axiom-model-limit-json", []string{"robust", "--json", "--method", "enum-axiom", "testdata/model-limit.rdma"}, exitLimit},
		{"graph-model-limit", []string{"graph", "testdata/model-limit.rdma"}, exitLimit},
		// A failure still wins: exit 1, not 3.
		{"check-axiom-model-limit-and-failure", []string{"check", "--semantics", "axiom", "testdata/model-limit.rdma", "testdata/wrong-expect.rdma"}, exitFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
	// corpus shows the model's columns as limit, and the file passes on
	// the other semantics.
	goldenNormalized(t, "corpus-model-limit", []string{"corpus", "testdata/model-limit.rdma"}, exitOK, normalizeCorpus)
}
