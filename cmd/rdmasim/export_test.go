package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestGoldenExport: the exported Promela text of small programs, and the
// usage and input errors of export.
func TestGoldenExport(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"export-sb-put-putget-poll", []string{"export", "--promela", litmus + "SB-PUT-PUTGET-POLL.rdma"}, exitOK},
		{"export-cas-sc", []string{"export", "--promela", "--semantics", "sc", litmus + "CAS-VS-NICWRITE.rdma"}, exitOK},
		{"export-loop-bounded", []string{"export", "--promela", "--max-inflight", "2", "--unroll", "1", litmus + "rule-loop-gets-reorder.rdma"}, exitOK},
		{"export-bad-syntax", []string{"export", "--promela", "testdata/bad-syntax.rdma"}, exitUsage},
		{"export-no-format", []string{"export", litmus + "PUT-LW.rdma"}, exitUsage},
		{"export-bad-semantics", []string{"export", "--promela", "--semantics", "axiom", litmus + "PUT-LW.rdma"}, exitUsage},
		{"export-bad-inflight", []string{"export", "--promela", "--max-inflight", "0", litmus + "PUT-LW.rdma"}, exitUsage},
		{"export-two-files", []string{"export", "--promela", litmus + "PUT-LW.rdma", litmus + "SB-PUT.rdma"}, exitUsage},
		{"export-robustness-paper-5.1", []string{"export", "--promela", "--robustness", litmus + "paper-5.1.rdma"}, exitOK},
		{"export-robustness-bad-counter", []string{"export", "--promela", "--robustness", "--max-counter", "255", litmus + "PUT-LW.rdma"}, exitUsage},
		{"export-robustness-semantics", []string{"export", "--promela", "--robustness", "--semantics", "sc", litmus + "PUT-LW.rdma"}, exitUsage},
		{"export-robustness-counter-alone", []string{"export", "--promela", "--max-counter", "2", litmus + "PUT-LW.rdma"}, exitUsage},
		{"export-robustness-atomics-experimental", []string{"export", "--promela", "--robustness", "--atomics-experimental", litmus + "ATOM-RCAS-FAIL-NOWRITE.rdma"}, exitOK},
		{"export-robustness-atomics-refused", []string{"export", "--promela", "--robustness", litmus + "ATOM-CPU-BETWEEN.rdma"}, exitUsage},
		{"export-atomics-experimental-alone", []string{"export", "--promela", "--atomics-experimental", litmus + "ATOM-CPU-BETWEEN.rdma"}, exitUsage},
		{"export-json", []string{"export", "--promela", "--json", litmus + "PUT-LW.rdma"}, exitOK},
		{"export-bad-syntax-json", []string{"export", "--promela", "--json", "testdata/bad-syntax.rdma"}, exitUsage},
		// Multi-word transfers (SEMANTICS-VERBS.md 1): the placement reaches the model.
		{"export-words-in-order", []string{"export", "--promela", "--placement", "in-order", litmus + "WORDS-GET-TORN.rdma"}, exitOK},
		{"export-words-bad-placement", []string{"export", "--promela", "--placement", "wqe-any", litmus + "WORDS-GET-TORN.rdma"}, exitUsage},
		{"export-words-robustness-placement", []string{"export", "--promela", "--robustness", "--placement", "in-order", litmus + "WORDS-GET-TORN.rdma"}, exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
}

// TestExportOutput: -o writes what stdout would show, and nothing else.
func TestExportOutput(t *testing.T) {
	file := litmus + "paper-5.1.rdma"
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"export", "--promela", file}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := filepath.Join(t.TempDir(), "model.pml")
	var stdout2 bytes.Buffer
	if code := run(context.Background(), []string{"export", "--promela", "-o", out, file}, &stdout2, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, stdout.Bytes()) || stdout2.Len() != 0 || stderr.Len() != 0 {
		t.Fatalf("-o wrote %d bytes (stdout %d bytes), printed %q, %q", len(got), stdout.Len(), stdout2.String(), stderr.String())
	}
	if code := run(context.Background(), []string{"export", "--promela", "-o", filepath.Join(t.TempDir(), "no", "such", "dir"), file}, &stdout2, &stderr); code != exitUsage {
		t.Fatalf("unwritable -o: exit %d", code)
	}
}
