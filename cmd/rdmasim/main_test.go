package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/opsem/report"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const litmus = "../../corpus/litmus/"

// TestGolden runs the CLI in-process and compares stdout, stderr and the exit
// code with testdata/NAME.golden.
func TestGolden(t *testing.T) {
	// Beside the other long tests (each case runs the CLI in this process,
	// on its own buffers; -update writes only this test's golden files).
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"check-paper-5.1-witness", []string{"check", "-w", litmus + "paper-5.1.rdma"}, exitOK},
		{"check-sb-put-json", []string{"check", "--json", litmus + "SB-PUT.rdma"}, exitOK},
		{"check-reach-mid-cas", []string{"check", "-w", litmus + "ppo-35-REACH-MID-CAS.rdma"}, exitOK},
		{"check-loop-reach", []string{"check", litmus + "ppo-33-LOOP-PUT-POLL.rdma"}, exitOK},
		{"check-wrong-expect", []string{"check", "testdata/wrong-expect.rdma"}, exitFailed},
		{"check-skip-robust-strict", []string{"check", "--strict", "--skip-robust", litmus + "PUT-LW.rdma"}, exitOK},
		{"check-skip-robust-json", []string{"check", "--json", "--json-witness=false", "--skip-robust", litmus + "PUT-LW.rdma"}, exitOK},
		{"check-unbounded", []string{"check", "--max-inflight", "2", "testdata/unbounded.rdma"}, exitOK},
		{"check-state-limit", []string{"check", "--max-states", "20", litmus + "SB-PUT.rdma"}, exitOK},
		{"check-state-limit-strict", []string{"check", "--strict", "--max-states", "20", litmus + "SB-PUT.rdma"}, exitFailed},
		{"check-state-limit-json", []string{"check", "--json", "--max-states", "20", litmus + "SB-PUT.rdma"}, exitOK},
		{"check-deadlock", []string{"check", "-w", "testdata/deadlock.rdma"}, exitFailed},
		{"check-deadlock-json", []string{"check", "--json", "testdata/deadlock.rdma"}, exitFailed},
		{"check-deadlock-some", []string{"check", "-w", "testdata/deadlock-some.rdma"}, exitOK},
		{"check-deadlock-some-strict", []string{"check", "--strict", "testdata/deadlock-some.rdma"}, exitFailed},
		{"check-bad-syntax", []string{"check", "testdata/bad-syntax.rdma"}, exitUsage},
		{"check-bad-syntax-json", []string{"check", "--json", "testdata/bad-syntax.rdma", "testdata/no-such-file.rdma", litmus + "PUT-LW.rdma"}, exitUsage},
		{"check-missing-file", []string{"check", "testdata/no-such-file.rdma"}, exitUsage},
		{"check-no-files", []string{"check"}, exitUsage},
		{"check-bad-order", []string{"check", "--order", "random", litmus + "SB-PUT.rdma"}, exitUsage},
		{"unknown-command", []string{"frobnicate"}, exitUsage},
		{"protocol-check-witness", []string{"check", "-w", "testdata/protocol-reuse.rdma"}, exitOK},
		{"protocol-check-json", []string{"check", "--json", "testdata/protocol-reuse.rdma"}, exitOK},
		{"protocol-robust", []string{"robust", "--method", "decide", "testdata/protocol-reuse.rdma"}, exitOK},
		{"protocol-lower", []string{"lower", "testdata/protocol-reuse.rdma"}, exitOK},
		{"protocol-lower-param", []string{"lower", "--param", "N=3", "testdata/protocol-family.rdma"}, exitOK},
		{"protocol-check-param", []string{"check", "--param", "N=3", "testdata/protocol-family.rdma"}, exitOK},
		{"protocol-robust-symmetry", []string{"robust", "--method", "decide", "--param", "N=3", "testdata/protocol-symmetric.rdma"}, exitOK},
		{"protocol-robust-symmetry-json", []string{"robust", "--json", "--method", "decide", "--param", "N=3", "testdata/protocol-symmetric.rdma"}, exitOK},
		{"protocol-robust-no-symmetry", []string{"robust", "--no-symmetry", "--method", "decide", "--param", "N=3", "testdata/protocol-symmetric.rdma"}, exitOK},
		{"protocol-check-symmetry", []string{"check", "--witness", "--param", "N=3", "testdata/protocol-symmetric.rdma"}, exitOK},
		{"protocol-check-symmetry-json", []string{"check", "--json", "--param", "N=3", "testdata/protocol-symmetric.rdma"}, exitOK},
		{"protocol-check-no-symmetry", []string{"check", "--no-symmetry", "--param", "N=3", "testdata/protocol-symmetric.rdma"}, exitOK},
		{"protocol-robust-not-symmetric", []string{"robust", "--method", "decide", "--param", "N=3", "testdata/protocol-family.rdma"}, exitOK},
		{"protocol-bad", []string{"check", "testdata/protocol-bad.rdma"}, exitUsage},
		{"protocol-bad-param", []string{"check", "--param", "N", "testdata/protocol-family.rdma"}, exitUsage},
		{"protocol-undeclared-param", []string{"check", "--param", "n=3", "testdata/protocol-family.rdma"}, exitUsage},
		{"run-seed-1", []string{"run", "--seed", "1", litmus + "paper-5.1.rdma"}, exitOK},
		{"run-bad-unroll", []string{"run", "--unroll", "-1", litmus + "paper-5.1.rdma"}, exitUsage},
		{"run-sc-json", []string{"run", "--json", "--semantics", "sc", "--seed", "7", litmus + "SB-PUT.rdma"}, exitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
}

// golden runs the CLI in-process and compares stdout, stderr and the exit
// code with testdata/NAME.golden (rewritten under -update).
func golden(t *testing.T, name string, args []string, wantCode int) {
	t.Helper()
	goldenNormalized(t, name, args, wantCode, func(s string) string { return s })
}

// TestCheckCorpus: check exits 0 on the whole bundled corpus.
func TestCheckCorpus(t *testing.T) {
	files, _ := filepath.Glob(litmus + "*.rdma")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"check"}, files...), &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if n := strings.Count(stdout.String(), ": fail"); n > 0 {
		t.Fatalf("%d failed expectations", n)
	}
}

// TestExploreJSON checks the statistics of explore (timing fields vary, so
// they are not golden).
// TestExploreJSON: explore's statistics, with the partial-order reduction
// (the default) and without.
func TestExploreJSON(t *testing.T) {
	for _, tc := range []struct {
		flags               []string
		states, transitions uint64
		depth               int
	}{
		{nil, 36, 59, 7},
		{[]string{"--reduce=false"}, 70, 128, 12},
	} {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"explore", "--json"}, tc.flags...), litmus+"paper-5.1.rdma")
		if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		var out report.StatsJSON
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		if out.States != tc.states || out.Transitions != tc.transitions || !out.Complete || out.Semantics != "rdma" || out.MaxDepth != tc.depth || out.PeakMemory == 0 {
			t.Fatalf("%v: unexpected statistics: %+v", args, out)
		}
	}
}

// TestExploreSymmetry: explore reduces a family by its symmetry unless
// --no-symmetry, and says so.
func TestExploreSymmetry(t *testing.T) {
	var got [2]report.StatsJSON
	for i, flags := range [][]string{nil, {"--no-symmetry"}} {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"explore", "--json", "--param", "N=3"}, flags...), "testdata/protocol-symmetric.rdma")
		if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		if err := json.Unmarshal(stdout.Bytes(), &got[i]); err != nil {
			t.Fatal(err)
		}
	}
	sym, plain := got[0], got[1]
	if sym.Symmetry != "3 instances of client (6 permutations)" || plain.Symmetry != "" {
		t.Fatalf("symmetry %q, with --no-symmetry %q", sym.Symmetry, plain.Symmetry)
	}
	if !sym.Complete || !plain.Complete || sym.States >= plain.States || (sym.Finals > 0) != (plain.Finals > 0) || (sym.Deadlocks > 0) != (plain.Deadlocks > 0) {
		t.Fatalf("with symmetry %+v, without %+v", sym, plain)
	}
}

// TestInterrupted: a cancelled context stops the search, the report says
// what was explored, and the exit code is 130.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"check", litmus + "ppo-37-IRIW-GET-RFENCE.rdma"}, &stdout, &stderr)
	if code != exitInterrupt {
		t.Fatalf("exit %d, want %d", code, exitInterrupt)
	}
	if !strings.Contains(stdout.String(), "unknown, stopped by interrupted") || !strings.Contains(stdout.String(), "Unknown") {
		t.Fatalf("report does not say the search was interrupted:\n%s", stdout.String())
	}
}

// TestGoldenRobust: robust's reports. The decider's are asked for with
// --method decide; the default method (auto) runs enumeration on the
// machine first, within its budget, and the decider when that is not
// certain, in turn and so deterministically. The robust-auto-* cases show
// it: paper-5.1's violation found by enumeration at configuration 12;
// GET-LR's by the decider after --max-states cut enumeration; mp-4 (more
// puts on a queue pair than max-inflight lets be in flight) by the decider
// alone, cut; paper-5.1 with --max-states 5, neither certain; a program with
// loops, the decider alone.
func TestGoldenRobust(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"robust-paper-5.1", []string{"robust", "--method", "decide", litmus + "paper-5.1.rdma"}, exitOK},
		{"robust-deadlock", []string{"robust", "--method", "decide", "testdata/deadlock.rdma", "testdata/deadlock-some.rdma"}, exitOK},
		{"robust-deadlock-json", []string{"robust", "--method", "decide", "--json", "testdata/deadlock.rdma"}, exitOK},
		{"robust-sb-put-json", []string{"robust", "--method", "decide", "--json", litmus + "SB-PUT.rdma"}, exitOK},
		{"robust-robust-and-bounded", []string{"robust", "--method", "decide", litmus + "PUT-PUT-MP.rdma", litmus + "paper-vass-loop.rdma"}, exitOK},
		{"robust-wrong-expect", []string{"robust", "--method", "decide", "testdata/wrong-robust.rdma"}, exitFailed},
		{"robust-decide-cut", []string{"robust", "--method", "decide", "--max-states", "50", "testdata/checkpoint-decide.rdma"}, exitOK},
		{"robust-karp-miller-mem-budget", []string{"robust", "--mem-budget", "256KiB", litmus + "paper-vass-pump.rdma"}, exitOK},
		{"robust-auto-enum-machine", []string{"robust", "--max-states", "20", litmus + "paper-5.1.rdma"}, exitOK},
		{"robust-auto-decide", []string{"robust", "--max-states", "12", litmus + "GET-LR.rdma"}, exitOK},
		{"robust-auto-json", []string{"robust", "--json", "--max-states", "10000", "testdata/checkpoint-decide.rdma"}, exitOK},
		{"robust-auto-cut", []string{"robust", "--max-states", "5", litmus + "paper-5.1.rdma"}, exitOK},
		{"robust-auto-loops", []string{"robust", litmus + "paper-vass-loop.rdma"}, exitOK},
		{"robust-all-json", []string{"robust", "--json", "--method", "all", litmus + "paper-5.1.rdma"}, exitOK},
		{"robust-bad-syntax-json", []string{"robust", "--json", "--method", "enum-machine", "testdata/bad-syntax.rdma", litmus + "PUT-LW.rdma"}, exitUsage},
		// Remote atomics: the decider refuses them, auto answers by
		// enumeration and says so.
		{"robust-atomics-auto", []string{"robust", litmus + "ATOM-CPU-BETWEEN.rdma", litmus + "ATOM-FAA-FAA.rdma"}, exitOK},
		{"robust-atomics-auto-json", []string{"robust", "--json", litmus + "ATOM-FAA-FAA.rdma"}, exitOK},
		{"robust-atomics-decide", []string{"robust", "--method", "decide", litmus + "ATOM-FAA-FAA.rdma"}, exitUsage},
		{"check-atomics-witness", []string{"check", "-w", litmus + "ATOM-THEN-PUT-SAMEQP.rdma"}, exitOK},
		// Enumeration cut by the unroll bound: auto hunts with the decider's
		// experimental instrumentation of atomics.
		{"robust-atomics-hunt", []string{"robust", "--unroll", "1", "testdata/atomics-hunt.rdma", "testdata/atomics-hunt-robust.rdma"}, exitOK},
		{"robust-atomics-hunt-json", []string{"robust", "--json", "testdata/atomics-hunt-robust.rdma"}, exitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
}

func TestGoldenModel(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"check-both-paper-5.1", []string{"check", "--semantics", "both", litmus + "paper-5.1.rdma"}, exitOK},
		{"check-axiom-loop", []string{"check", "--semantics", "axiom", litmus + "paper-vass-dec.rdma"}, exitOK},
		{"check-axiom-reach", []string{"check", "--semantics", "axiom", litmus + "ppo-35-REACH-MID-CAS.rdma"}, exitOK},
		// Every run stops at an error point: vacuous under the model as
		// under the machines (the model said ok).
		{"check-axiom-vacuous", []string{"check", "--semantics", "axiom", "testdata/vac.rdma"}, exitFailed},
		{"check-both-vacuous", []string{"check", "--semantics", "both", "testdata/vac.rdma"}, exitFailed},
		{"check-both-reach-control", []string{"check", "--semantics", "both", litmus + "rule-F1-put-inflight-at-end.rdma"}, exitOK},
		{"robust-axiom-paper-5.1", []string{"robust", "--method", "enum-axiom", litmus + "paper-5.1.rdma"}, exitOK},
		{"robust-both-json", []string{"robust", "--json", "--method", "both", litmus + "GET-LR.rdma"}, exitOK},
		{"graph-get-get-mp", []string{"graph", litmus + "GET-GET-MP.rdma"}, exitOK},
		{"graph-none", []string{"graph", litmus + "LW-PUT.rdma"}, exitFailed},
		{"graph-json", []string{"graph", "--json", "--all", litmus + "PUT-LW.rdma"}, exitOK},
		{"graph-none-json", []string{"graph", "--json", litmus + "LW-PUT.rdma"}, exitFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
}

// TestBothCorpus: machine and model agree on every corpus file.
func TestBothCorpus(t *testing.T) {
	files, _ := filepath.Glob(litmus + "*.rdma")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"check", "--semantics", "both"}, files...), &stdout, &stderr)
	if code != exitOK || strings.Contains(stdout.String(), "DISAGREES") {
		t.Fatalf("exit %d\n%s%s", code, stderr.String(), grepLines(stdout.String(), "DISAGREES"))
	}
	if n := strings.Count(stdout.String(), ": agrees"); n < 150 {
		t.Fatalf("only %d agreements", n)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestPebbleStore: the on-disk visited set gives the same exploration as
// the in-memory one.
func TestPebbleStore(t *testing.T) {
	for _, args := range [][]string{
		{"explore", "--json", litmus + "paper-5.1.rdma"},
		{"explore", "--json", "--store", "pebble", "--store-dir", t.TempDir(), litmus + "paper-5.1.rdma"},
		{"explore", "--json", "--store", "pebble", litmus + "paper-5.1.rdma"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		var out report.StatsJSON
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		if out.States != 36 || out.Transitions != 59 || !out.Complete {
			t.Fatalf("%v: %+v", args, out)
		}
	}
}

// TestProfiled checks RDMASIM_CPUPROFILE's helper: it writes a profile when it
// can, reports when it cannot, and runs the command and returns its code
// either way.
func TestProfiled(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file, stderr string
		wantFile           bool
	}{
		{"off", "", "", false},
		{"written", filepath.Join(dir, "cpu.prof"), "", true},
		{"unwritable", filepath.Join(dir, "missing", "cpu.prof"), "rdmasim: RDMASIM_CPUPROFILE: open " + filepath.Join(dir, "missing", "cpu.prof") + ": no such file or directory\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			ran := false
			if code := profiled(tt.file, &stderr, func() int { ran = true; return 3 }); code != 3 || !ran {
				t.Fatalf("profiled returned %d, ran %v; want 3, true", code, ran)
			}
			if stderr.String() != tt.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
			if tt.file == "" {
				return
			}
			fi, err := os.Stat(tt.file)
			if got := err == nil && fi.Size() > 0; got != tt.wantFile {
				t.Errorf("profile written: %v, want %v (%v)", got, tt.wantFile, err)
			}
		})
	}
}

// TestExploreDeadlock: explore counts the final, filtered and deadlocked
// configurations (its golden would hold timings).
func TestExploreDeadlock(t *testing.T) {
	for _, tc := range []struct {
		file                       string
		finals, filtered, deadlock uint64
	}{
		{"testdata/deadlock.rdma", 0, 0, 1},
		{"testdata/deadlock-some.rdma", 1, 0, 1},
		{litmus + "SB-PUT.rdma", 1, 3, 0},
	} {
		var out, errOut bytes.Buffer
		e := newEnv(&out, &errOut)
		if code := runEnv(context.Background(), []string{"explore", "--json", tc.file}, e); code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.file, code, errOut.String())
		}
		var got report.StatsJSON
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if got.Finals != tc.finals || got.Filtered != tc.filtered || got.Deadlocks != tc.deadlock {
			t.Errorf("%s: finals %d, filtered %d, deadlocks %d; want %d, %d, %d", tc.file, got.Finals, got.Filtered, got.Deadlocks, tc.finals, tc.filtered, tc.deadlock)
		}
		if (got.DeadlockAt != "") != (tc.deadlock > 0) {
			t.Errorf("%s: deadlock_at %q", tc.file, got.DeadlockAt)
		}
	}
}
