package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenGraph compares graph's DOT output and messages for each
// --show selection (graph-get-get-mp and graph-none, in TestGoldenModel,
// are the default cond).
func TestGoldenGraph(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"graph-violation", []string{"graph", "--show", "violation", litmus + "paper-5.1.rdma"}, exitOK},
		{"graph-all-sc", []string{"graph", "--show", "all", "--semantics", "sc", litmus + "PUT-LW.rdma"}, exitOK},
		{"graph-robust-violation", []string{"graph", "--show", "violation", litmus + "LW-PUT.rdma"}, exitFailed},
		{"graph-reach", []string{"graph", litmus + "ppo-35-REACH-MID-CAS.rdma"}, exitUsage},
		{"graph-reach-all", []string{"graph", "--show", "all", litmus + "ppo-35-REACH-MID-CAS.rdma"}, exitOK},
		{"graph-violation-sc", []string{"graph", "--show", "violation", "--semantics", "sc", litmus + "paper-5.1.rdma"}, exitUsage},
		{"graph-bad-show", []string{"graph", "--show", "some", litmus + "paper-5.1.rdma"}, exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
}

// TestGraphFiles: with -o and --all, one DOT file per execution, numbered,
// and with --svg an SVG beside each (when Graphviz is installed).
func TestGraphFiles(t *testing.T) {
	args := []string{"--show", "violation", "--all"}
	_, err := exec.LookPath("dot")
	switch {
	case err == nil:
		args = append(args, "--svg")
	case os.Getenv("CI") != "":
		t.Fatal("graphviz's dot is not installed under CI (make tools installs it)")
	}
	prefix := filepath.Join(t.TempDir(), "v")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append(append([]string{"graph", "-o", prefix + ".dot"}, args...), litmus+"paper-5.1.rdma"), &stdout, &stderr)
	if code != exitOK || stdout.String() != "paper-5.1: 3 executions\n" {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for i := 1; i <= 3; i++ {
		exts := []string{".dot"}
		if err == nil {
			exts = append(exts, ".svg")
		}
		for _, ext := range exts {
			path := prefix + "-" + string(rune('0'+i)) + ext
			b, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(b), "with an sc cycle") {
				t.Errorf("%s: %v", path, err)
			}
		}
	}
}
