package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

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
		// Help and version.
		{"help", []string{"help"}, exitOK},
		{"help-check", []string{"help", "check"}, exitOK},
		{"help-unknown", []string{"help", "frobnicate"}, exitUsage},
		// A failure still wins: exit 1, not 3.
		{"check-axiom-model-limit-and-failure", []string{"check", "--semantics", "axiom", "testdata/model-limit.rdma", "testdata/wrong-expect.rdma"}, exitFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
	// corpus shows the model's columns as limit, and the file passes on
	// the other semantics.
	goldenNormalized(t, "corpus-model-limit", []string{"corpus", "-v", "testdata/model-limit.rdma"}, exitOK, normalizeCorpus)
}

// goVersion matches the Go version in rdmasim's version line.
var goVersion = regexp.MustCompile(`\(go[^)]*\)`)

// TestGoldenVersion: rdmasim version and --version print the same line,
// "rdmasim devel (goX)" in a test binary (no module version, no VCS
// stamp); the Go version is normalised.
func TestGoldenVersion(t *testing.T) {
	normalize := func(s string) string { return goVersion.ReplaceAllString(s, "(goVERSION)") }
	goldenNormalized(t, "version", []string{"version"}, exitOK, normalize)
	goldenNormalized(t, "version-flag", []string{"--version"}, exitOK, normalize)
	golden(t, "version-args", []string{"version", "now"}, exitUsage)
}

// TestHelpEveryCommand: rdmasim help COMMAND prints what COMMAND --help
// prints, on stdout, exit 0, for every command; each command's usage line
// keeps its summary at usageColumn, so that the wrapped list stays aligned.
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			if len(c.usage) <= usageColumn || c.usage[usageColumn-1] != ' ' || c.usage[usageColumn] == ' ' || !strings.HasPrefix(c.usage, c.name) {
				t.Errorf("usage %q: want the name, then the summary at column %d", c.usage, usageColumn)
			}
			var out [2][2]bytes.Buffer
			codes := [2]int{
				run(context.Background(), []string{"help", c.name}, &out[0][0], &out[0][1]),
				run(context.Background(), []string{c.name, "--help"}, &out[1][0], &out[1][1]),
			}
			if codes != [2]int{exitOK, exitOK} || out[0][0].String() != out[1][0].String() || out[0][1].Len()+out[1][1].Len() > 0 {
				t.Errorf("help %s: exit %d, stdout %q, stderr %q\n%s --help: exit %d, stdout %q, stderr %q",
					c.name, codes[0], out[0][0].String(), out[0][1].String(), c.name, codes[1], out[1][0].String(), out[1][1].String())
			}
			if !strings.HasPrefix(out[0][0].String(), "usage: rdmasim "+c.name) {
				t.Errorf("help %s: %q", c.name, out[0][0].String())
			}
		})
	}
	// After a bad flag, the usage goes to stderr, with exit 2.
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"check", "--frobnicate", litmus + "SB-PUT.rdma"}, &stdout, &stderr); code != exitUsage ||
		stdout.Len() > 0 || !strings.HasPrefix(stderr.String(), "rdmasim: unknown flag: --frobnicate\nusage: rdmasim check [flags] FILE...\n") {
		t.Errorf("bad flag: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestHelpColumns: $COLUMNS when it is a positive number, else a
// terminal's width, else 80.
func TestHelpColumns(t *testing.T) {
	file, err := os.CreateTemp(t.TempDir(), "not-a-terminal")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	tests := []struct {
		env  string
		want int
	}{
		{"120", 120}, {" 60 ", 60}, {"", defaultColumns}, {"wide", defaultColumns}, {"0", defaultColumns}, {"-5", defaultColumns},
	}
	for _, tc := range tests {
		if got := helpColumns(tc.env, file, nil); got != tc.want {
			t.Errorf("helpColumns(%q) = %d, want %d", tc.env, got, tc.want)
		}
	}
	if w := terminalWidth(file); w != 0 {
		t.Errorf("a regular file has width %d", w)
	}
}
