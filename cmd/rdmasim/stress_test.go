package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"rdmasim/opsem/check"
	"rdmasim/opsem/stress"
)

// TestGoldenStress compares stress's seeded output with
// testdata/stress-*.golden.
func TestGoldenStress(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"stress-paper-5.1", []string{"stress", "--walks", "1000", litmus + "paper-5.1.rdma"}, exitOK},
		{"stress-bias", []string{"stress", "--walks", "1000", "--bias", "0.9", "--seed", "3", litmus + "paper-5.1.rdma"}, exitOK},
		{"stress-first", []string{"stress", "--first", "--seed", "2", litmus + "SB-PUT-POLL.rdma"}, exitOK},
		{"stress-first-reach", []string{"stress", "--first", "--walks", "1000", litmus + "paper-vass-loop.rdma"}, exitOK},
		{"stress-cut", []string{"stress", "--walks", "500", "--depth", "20", "--max-inflight", "2", "testdata/unbounded.rdma", litmus + "paper-vass-dec-blocked.rdma"}, exitOK},
		{"stress-sc-json", []string{"stress", "--json", "--semantics", "sc", "--walks", "200", litmus + "SB-PUT.rdma"}, exitOK},
		{"stress-bad-syntax", []string{"stress", "testdata/bad-syntax.rdma"}, exitUsage},
		{"stress-bad-bias", []string{"stress", "--bias", "1.5", litmus + "paper-5.1.rdma"}, exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
}

// stressRun runs the CLI and returns its exit code, stdout and stderr.
func stressRun(ctx context.Context, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(ctx, append([]string{"stress"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// stressJSONOf runs stress --json on one file and decodes the result.
func stressJSONOf(t *testing.T, args ...string) stress.JSON {
	t.Helper()
	code, stdout, stderr := stressRun(context.Background(), append([]string{"--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out stress.JSON
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStressFindsRDMAOnlyOutcome: on the paper's section 5.1 program, the
// random walks reach the outcome that check finds allowed under RDMA but
// forbidden under SC, and report its frequency.
func TestStressFindsRDMAOnlyOutcome(t *testing.T) {
	file := litmus + "paper-5.1.rdma"
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"check", "--json", file}, &stdout, &stderr); code != exitOK {
		t.Fatalf("check: exit %d: %s", code, stderr.String())
	}
	var chk check.JSON
	if err := json.Unmarshal(stdout.Bytes(), &chk); err != nil {
		t.Fatal(err)
	}
	key := func(m map[string]uint8) string { b, _ := json.Marshal(m); return string(b) }
	inSC := map[string]bool{}
	for _, o := range chk.SC.Outcomes {
		inSC[key(o)] = true
	}
	var rdmaOnly []string
	for _, o := range chk.RDMA.Outcomes {
		if !inSC[key(o)] {
			rdmaOnly = append(rdmaOnly, key(o))
		}
	}
	if len(rdmaOnly) != 1 || rdmaOnly[0] != `{"z":2}` {
		t.Fatalf("RDMA-only outcomes %v, want z = 2", rdmaOnly)
	}
	out := stressJSONOf(t, "--walks", "2000", file)
	found := false
	for _, o := range out.Outcomes {
		if key(o.Values) == rdmaOnly[0] {
			found = true
			if o.Count == 0 || o.Frequency <= 0 || !o.Satisfies {
				t.Fatalf("RDMA-only outcome reported with count %d, frequency %g, satisfies %v", o.Count, o.Frequency, o.Satisfies)
			}
		}
	}
	if !found || out.Positive == 0 || out.Validated == nil || !*out.Validated {
		t.Fatalf("stress did not find the RDMA-only outcome: %+v", out)
	}
	// The text report marks it and prints its frequency.
	_, text, _ := stressRun(context.Background(), "--walks", "2000", file)
	var line string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "*>z=2;") {
			line = l
		}
	}
	if line == "" || !strings.HasSuffix(line, "%") || strings.HasSuffix(line, " 0.00%") {
		t.Fatalf("no marked z = 2 line with a frequency in\n%s", text)
	}
	// Under SC it never shows up.
	if sc := stressJSONOf(t, "--walks", "2000", "--semantics", "sc", file); sc.Positive != 0 {
		t.Fatalf("SC walks reached z = 2: %+v", sc)
	}
}

// TestStressSameSeed: the same seed gives the same output, another seed
// another one.
func TestStressSameSeed(t *testing.T) {
	for _, extra := range [][]string{nil, {"--bias", "0.4"}, {"--first"}, {"--json"}} {
		args := append([]string{"--walks", "1000", "--seed", "11"}, extra...)
		args = append(args, litmus+"SB-PUT-POLL.rdma")
		_, a, _ := stressRun(context.Background(), args...)
		_, b, _ := stressRun(context.Background(), args...)
		if a != b || a == "" {
			t.Fatalf("%v: two runs differ:\n%s\n---\n%s", extra, a, b)
		}
	}
	_, a, _ := stressRun(context.Background(), "--walks", "1000", "--seed", "11", litmus+"SB-PUT-POLL.rdma")
	_, c, _ := stressRun(context.Background(), "--walks", "1000", "--seed", "12", litmus+"SB-PUT-POLL.rdma")
	if a == c {
		t.Fatal("seeds 11 and 12 gave the same output")
	}
}

// TestStressFirst: --first stops at the first walk satisfying the
// condition and prints it.
func TestStressFirst(t *testing.T) {
	file := litmus + "SB-PUT-POLL.rdma"
	all := stressJSONOf(t, "--walks", "5000", file)
	if all.Positive == 0 || all.Walks != 5000 {
		t.Fatalf("no walk satisfies the condition: %+v", all)
	}
	out := stressJSONOf(t, "--walks", "5000", "--first", file)
	if out.First == nil || out.Walks >= 5000 || out.First.Walk != out.Walks || out.Positive != 1 || out.First.Run == nil || len(out.First.Run.Steps) == 0 {
		t.Fatalf("--first did not stop at the first witness: %+v", out)
	}
	_, text, _ := stressRun(context.Background(), "--walks", "5000", "--first", file)
	if !strings.Contains(text, "First witness: walk ") || !strings.Contains(text, "End configuration:") {
		t.Fatalf("no witness run in\n%s", text)
	}
}

func TestStressBadFlags(t *testing.T) {
	file := litmus + "paper-5.1.rdma"
	tests := []struct {
		args []string
		want string // in stderr
	}{
		// Errors found by pflag itself (malformed values, unknown flags)
		// exit 2 with an empty want: the shared parseFlags does not print
		// them (pflag.ContinueOnError leaves printing to the caller).
		{[]string{"--bias", "1.5", file}, "--bias 1.5: want a probability in 0..1"},
		{[]string{"--bias", "-0.1", file}, "--bias -0.1"},
		{[]string{"--bias", "NaN", file}, "--bias NaN"},
		{[]string{"--bias", "often", file}, ""},
		{[]string{"--walks", "0", file}, "--walks 0: want at least 1"},
		{[]string{"--walks", "-3", file}, ""},
		{[]string{"--depth", "0", file}, "--depth 0: want at least 1"},
		{[]string{"--semantics", "tso", file}, `--semantics "tso": want rdma or sc`},
		{[]string{"--max-inflight", "0", file}, "--max-inflight 0: want 1..250"},
		{[]string{"--unroll", "300", file}, "--unroll 300: want 0..254"},
		{[]string{"--frobnicate", file}, ""},
		{[]string{}, "no input files"},
		{[]string{"testdata/no-such-file.rdma"}, "no-such-file.rdma"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := stressRun(context.Background(), tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q (stdout %q)", code, stderr, exitUsage, tc.want, stdout)
			}
		})
	}
	if code, stdout, _ := stressRun(context.Background(), "--help"); code != exitOK || !strings.Contains(stdout, "--bias") {
		t.Fatalf("--help: exit %d, %q", code, stdout)
	}
}

// TestStressInterrupted: Ctrl-C (a cancelled context) stops the walks,
// prints the histogram so far and exits 130.
func TestStressInterrupted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	code, stdout, stderr := stressRun(ctx, "--walks", "1000000000", litmus+"paper-5.1.rdma")
	if code != exitInterrupt {
		t.Fatalf("exit %d, want %d", code, exitInterrupt)
	}
	if !strings.Contains(stdout, "Histogram (2 states)") || !strings.Contains(stdout, "Interrupted after ") || !strings.Contains(stderr, "interrupted") {
		t.Fatalf("no partial histogram:\n%s\n%s", stdout, stderr)
	}
}

// TestStressProgress: --progress ends with the rate on stderr, and keeps
// stdout as without it.
func TestStressProgress(t *testing.T) {
	file := litmus + "paper-5.1.rdma"
	_, plain, _ := stressRun(context.Background(), "--walks", "100", file)
	code, stdout, stderr := stressRun(context.Background(), "--walks", "100", "--progress", file)
	if code != exitOK || stdout != plain || !strings.Contains(stderr, "steps/s") {
		t.Fatalf("exit %d, stderr %q, stdout differs: %v", code, stderr, stdout != plain)
	}
}
