package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rdmasim/corpus/fuzz"
)

// normalizeFuzz replaces the timings of a fuzz summary.
var fuzzTimes = regexp.MustCompile(`in \d+\.\ds \(\d+\.\d programs/s\)`)

func normalizeFuzz(s string) string { return fuzzTimes.ReplaceAllString(s, "in X.Xs (X.X programs/s)") }

// goldenNormalized is golden with the command line and the output passed
// through normalize before they are compared or written.
func goldenNormalized(t *testing.T, name string, args []string, wantCode int, normalize func(string) string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	got := normalize("$ rdmasim "+strings.Join(args, " ")+"\n") + normalize(stdout.String())
	if stderr.Len() > 0 {
		got += "--- stderr\n" + normalize(stderr.String())
	}
	if code != wantCode {
		t.Errorf("exit code %d, want %d\n%s", code, wantCode, got)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/rdmasim -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestGoldenFuzz compares fuzz's output from fixed seeds (timings
// normalised; SPIN off and no per-program timeout, so that the output does
// not depend on the machine).
func TestGoldenFuzz(t *testing.T) {
	quiet := []string{"--spin-every", "0", "--timeout", "0", "--regress-dir", ""}
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"fuzz-seed-3", append([]string{"fuzz", "--seed", "3", "--count", "12"}, quiet...), exitOK},
		{"fuzz-program-seed", append([]string{"fuzz", "--program-seed", "0x2a", "--max-states", "20000"}, quiet...), exitOK},
		{"fuzz-bad-count", []string{"fuzz", "--count", "-1"}, exitUsage},
		{"fuzz-no-limit", []string{"fuzz", "--count", "0"}, exitUsage},
		{"fuzz-bad-program-seed", []string{"fuzz", "--program-seed", "x1"}, exitUsage},
		{"fuzz-arguments", []string{"fuzz", "file.rdma"}, exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { goldenNormalized(t, tc.name, tc.args, tc.code, normalizeFuzz) })
	}
}

// TestFuzzJSON checks the JSON summary (timings vary, so it is not golden).
func TestFuzzJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"fuzz", "--json", "--seed", "2", "--count", "6", "--spin-every", "0", "--regress-dir", ""}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out fuzz.SummaryJSON
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if out.Seed != 2 || out.Programs != 6 || out.Interrupted || len(out.Disagreements) != 0 || out.Rate <= 0 ||
		len(out.PPO) != fuzz.NumClasses*fuzz.NumClasses || out.Instructions["write"] == 0 || out.Compared["outcomes-rdma"] == 0 ||
		out.Spin != "off (--spin-every 0)" {
		t.Fatalf("unexpected summary: %+v", out)
	}
	if strings.Count(stdout.String(), "\n") != 1 {
		t.Errorf("not one line:\n%s", stdout.String())
	}
}

// TestFuzzInterrupted: Ctrl-C (a cancelled context) stops the run, which
// prints the summary of what ran and exits 130.
func TestFuzzInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"fuzz", "--count", "100", "--spin-every", "0", "--regress-dir", ""}, &stdout, &stderr)
	if code != exitInterrupt {
		t.Fatalf("exit %d, want %d", code, exitInterrupt)
	}
	if !strings.Contains(stdout.String(), "Fuzz seed 1: 0 programs") || !strings.Contains(stdout.String(), "Interrupted") ||
		!strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}
