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
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
}
