package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"rdmasim/corpus/bench/scaled"
	"rdmasim/explore/ckpt"
	"rdmasim/opsem/report"
)

// The checkpoint tests run rdmasim in child processes, so that they can be
// killed: the test binary itself, which TestMain makes rdmasim's main in a
// child process (asMainEnv, set for the whole test process).

// rdmasimCmd returns a command that runs rdmasim with args in a child process.
func rdmasimCmd(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(os.Args[0], args...)
	// Under the race detector a process sleeps a second before it exits
	// (GORACE's atexit_sleep_ms), which would make the kill tests' runs
	// look a second longer than their searches, so that most random kills
	// land after the search is over.
	cmd.Env = append(os.Environ(), asMainEnv+"=1", "GORACE=atexit_sleep_ms=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// exitCode returns the exit code of a finished command, or -1 if a signal
// killed it.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode()
	}
	return -1
}

const midProgram = "testdata/checkpoint-mid.rdma" // 57,863 RDMA states with --reduce=false

// TestCheckpointKill runs check with checkpoints on a mid-size program and
// kills it with SIGKILL at random moments, then resumes it (killing the
// resumed runs too, at random), until a run finishes; its report (verdicts,
// outcomes, distinct-state counts, witnesses, exit code) must be that of an
// uninterrupted run. Rounds vary the workers, the visited set (a memory
// budget small enough to spill to disk) and SIGINT in place of SIGKILL.
//
// The kill tests are not parallel (t.Parallel): they kill at moments drawn
// from the time an uninterrupted run took, so the runs they kill must see the
// load their reference saw. Sequential tests run before the parallel ones
// start, so the package's long parallel tests never run beside them.
func TestCheckpointKill(t *testing.T) {
	rng := killRNG(t, 1)

	// Every interleaving (--reduce=false) keeps the search long enough to
	// be killed in the middle, also under the race detector.
	bound := []string{"--reduce=false"}
	reference := func(args ...string) (string, time.Duration) {
		cmd, stdout, stderr := rdmasimCmd(append(append(args, bound...), midProgram)...)
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("rdmasim %v: %v\n%s", args, err, stderr)
		}
		return stdout.String(), time.Since(start)
	}
	// A checkpointed check lists every outcome: so do the references.
	refWitness, took := reference("check", "--all-outcomes", "-w")
	var plain bytes.Buffer
	if code := run(context.Background(), append(append([]string{"check", "--all-outcomes"}, bound...), midProgram), &plain, os.Stderr); code != exitOK {
		t.Fatalf("check: exit %d", code)
	}
	refPlain := plain.String()
	if !strings.Contains(refPlain, "Explored 57,863 configurations") {
		t.Fatalf("unexpected reference report:\n%s", refPlain)
	}
	// About ten checkpoints in a run, however fast the machine.
	every := max(took/10, 5*time.Millisecond).Round(time.Millisecond).String()
	t.Logf("an uninterrupted run takes %v; checkpoints every %s", took, every)

	rounds := []struct {
		name  string
		flags []string
		want  string
		sig   syscall.Signal
	}{
		{"sequential", []string{"-w"}, refWitness, syscall.SIGKILL},
		{"workers=2", []string{"--workers", "2"}, refPlain, syscall.SIGKILL},
		{"spilling", []string{"-w", "--frontier-budget", "64KiB", "--mem-budget", "256KiB"}, refWitness, syscall.SIGKILL},
		{"sigint", []string{"-w"}, refWitness, syscall.SIGINT},
		{"spilling, workers=2", []string{"--workers", "2", "--frontier-budget", "64KiB", "--mem-budget", "256KiB"}, refPlain, syscall.SIGKILL},
	}
	if testing.Short() {
		rounds = rounds[:2]
	}
	midway := 0 // resumes from a checkpoint in the middle of a search
	defer func() {
		if !t.Failed() && midway == 0 {
			t.Error("no run was resumed from the middle of a search")
		}
	}()
	for _, r := range rounds {
		t.Run(r.name, func(t *testing.T) {
			args := append(append(append([]string{"check", "--checkpoint-every", every}, r.flags...), bound...), midProgram)
			midway += killAndResume(t, rng, args, r.want, took, r.sig)
		})
	}
}

// decideProgram is robust, and its decider's instrumented machine is
// finite (MP(4), 34,410 states): the program of TestRobustStores and of
// goldens that cut the decider. TestCheckpointKillDecide needs a larger
// one to kill midway (roundsProgram).
const decideProgram = "testdata/checkpoint-decide.rdma"

// roundsProgram writes MP(n) of corpus/bench/scaled (n rounds of message
// passing with polled puts, robust) to a file in t's temporary
// directory and returns its path.
func roundsProgram(t *testing.T, n int) string {
	path := filepath.Join(t.TempDir(), fmt.Sprintf("mp-%d.rdma", n))
	if err := os.WriteFile(path, []byte(scaled.MP(n)+"expect robust yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckpointKillDecide is TestCheckpointKill for robust's decider (the
// search of its instrumented machine), sequential and with two workers: the
// report of a run killed and resumed, again and again, is that of an
// uninterrupted one.
func TestCheckpointKillDecide(t *testing.T) {
	rng := killRNG(t, 2)
	midway := 0
	mp8 := roundsProgram(t, 8) // 534,936 states: MP(4) became too quick to kill midway
	for _, workers := range []string{"1", "2"} {
		t.Run("workers="+workers, func(t *testing.T) {
			cmd, stdout, stderr := rdmasimCmd("robust", "--method", "decide", "--workers", workers, mp8)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("rdmasim robust: %v\n%s", err, stderr)
			}
			took := time.Since(start)
			want := stdout.String()
			if !strings.Contains(want, ": yes (decide, ") || !strings.Contains(want, " states, complete") {
				t.Fatalf("unexpected reference report:\n%s", want)
			}
			every := max(took/10, 5*time.Millisecond).Round(time.Millisecond).String()
			args := []string{"robust", "--method", "decide", "--workers", workers, "--checkpoint-every", every, mp8}
			midway += killAndResume(t, rng, args, want, took, syscall.SIGKILL)
		})
	}
	if !t.Failed() && midway == 0 {
		t.Error("no run was resumed from the middle of a search")
	}
}

// killRNG returns the random source of the moments a kill test kills at:
// seeded from the clock, or from RDMASIM_CHECKPOINT_SEED to repeat a run,
// and stream, one per test.
func killRNG(t *testing.T, stream uint64) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RDMASIM_CHECKPOINT_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (set RDMASIM_CHECKPOINT_SEED to repeat)", seed)
	return rand.New(rand.NewPCG(seed, stream))
}

// killAndResume runs rdmasim with args and --checkpoint, killing it with sig
// at a random moment within took, then resumes it with rdmasim resume,
// killing the first resumed run too, and resumes again until a run
// finishes: its report must be want. It returns how many runs resumed a
// search from its middle.
func killAndResume(t *testing.T, rng *rand.Rand, args []string, want string, took time.Duration, sig syscall.Signal) int {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ck")
	args = append([]string{args[0], "--checkpoint", dir}, args[1:]...)
	var kills []string
	midway := 0
	for attempt := 0; ; attempt++ {
		args := args
		if _, err := os.Stat(filepath.Join(dir, ckpt.RunName)); err == nil {
			args = []string{"resume", dir}
			if states, ok := midSearch(dir); ok {
				midway++
				kills = append(kills, fmt.Sprintf("(%d states saved)", states))
			}
		}
		cmd, stdout, stderr := rdmasimCmd(args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killed := false
		if attempt < 2 {
			// In the last two thirds of a run: before, often nothing is
			// saved yet, and a test whose kills all land there resumes
			// nothing from the middle.
			delay := took/3 + time.Duration(rng.Int64N(int64(took-took/3)))
			timer := time.AfterFunc(delay, func() { cmd.Process.Signal(sig) })
			defer timer.Stop()
			kills = append(kills, fmt.Sprintf("%s %v after %v", args[0], sig, delay.Round(time.Millisecond)))
			killed = true
		}
		err := cmd.Wait()
		code := exitCode(err)
		if killed && (code == -1 || code == exitInterrupt) {
			continue // killed (or interrupted): resume
		}
		if code != exitOK {
			t.Fatalf("after %s: rdmasim %v: %v\n%s", strings.Join(kills, ", "), args, err, stderr)
		}
		if got := stdout.String(); got != want {
			t.Fatalf("after %s: the report differs from an uninterrupted run's:\n--- got\n%s\n--- want\n%s",
				strings.Join(kills, ", "), got, want)
		}
		t.Logf("%s, then finished", strings.Join(kills, ", "))
		break
	}
	if slices.Contains(args, "--mem-budget") {
		// The spilled stores and frontiers of the killed runs are gone.
		stale, _ := filepath.Glob(filepath.Join(dir, "pebbleset-*"))
		segs, _ := filepath.Glob(filepath.Join(dir, "rdmasim-frontier-*"))
		if len(stale)+len(segs) > 0 {
			t.Errorf("left behind: %v", append(stale, segs...))
		}
	}
	return midway
}

// midSearch reports whether the checkpoint in dir holds a search that
// started but did not finish, and how many states it saved.
func midSearch(dir string) (uint64, bool) {
	// Each search's directory is named by its job's key (search-KEY).
	manifests, _ := filepath.Glob(filepath.Join(dir, "search-*", "manifest.json"))
	for _, path := range manifests {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var m struct {
			Finished bool   `json:"finished"`
			States   uint64 `json:"states"`
		}
		if json.Unmarshal(data, &m) == nil && !m.Finished {
			return m.States, m.States > 1
		}
	}
	return 0, false
}

// TestCheckpointInProcess checkpoints and resumes explore and robust in
// process: canceling the context interrupts the run (as SIGINT does), and
// resuming gives the uninterrupted report.
func TestCheckpointInProcess(t *testing.T) {
	for _, args := range [][]string{
		{"explore", "--semantics", "sc", "--order", "dfs"},
		{"robust", "--method", "enum-machine"},
		{"robust", "--method", "decide"}, // the decider, which finds a violation
		{"check", "--all-outcomes", "--max-states", "5000"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var want bytes.Buffer
			if code := run(context.Background(), append(args, midProgram), &want, os.Stderr); code != exitOK {
				t.Fatalf("exit %d", code)
			}
			dir := filepath.Join(t.TempDir(), "ck")
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var stdout, stderr bytes.Buffer
			if code := run(ctx, append(args, "--checkpoint", dir, midProgram), &stdout, &stderr); code != exitInterrupt {
				t.Fatalf("interrupted run: exit %d, want %d\n%s", code, exitInterrupt, stderr.String())
			}
			if hint := "continue it with 'rdmasim resume " + dir + "'"; !strings.Contains(stderr.String(), hint) {
				t.Errorf("interrupted run: stderr does not say %q:\n%s", hint, stderr.String())
			}
			stdout.Reset()
			stderr.Reset()
			if code := run(context.Background(), []string{"resume", dir}, &stdout, &stderr); code != exitOK {
				t.Fatalf("resume: exit %d\n%s", code, stderr.String())
			}
			got := stdout.String()
			if args[0] == "explore" {
				got, want = dropTimes(got), *bytes.NewBufferString(dropTimes(want.String()))
			}
			if got != want.String() {
				t.Fatalf("resumed report:\n%s\nuninterrupted:\n%s", got, want.String())
			}
		})
	}
}

// dropTimes removes the lines of explore's report that vary from run to run.
func dropTimes(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && (f[0] == "seconds" || f[0] == "states/s" || f[0] == "peak" || f[0] == "visited") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestMemBudget: a visited set that spills to disk gives the same
// exploration as one in memory, in a sequential and a parallel search.
func TestMemBudget(t *testing.T) {
	const prog = litmus + "ppo-33-LOOP-PUT-POLL.rdma" // 12,606 states
	var want report.StatsJSON
	for i, args := range [][]string{
		{"explore", "--json", prog},
		{"explore", "--json", "--mem-budget", "512KiB", "--store-dir", t.TempDir(), prog},
		{"explore", "--json", "--mem-budget", "512KiB", "--workers", "2", prog},
		{"explore", "--json", "--store", "pebble", "--mem-budget", "512KiB", prog},
		{"explore", "--json", "--frontier-budget", "16KiB", "--store-dir", t.TempDir(), prog},
		{"explore", "--json", "--frontier-budget", "1", "--workers", "2", prog},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		var out report.StatsJSON
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			want = out
		}
		if out.States != want.States || out.Transitions != want.Transitions || out.MaxDepth != want.MaxDepth || out.Bound != want.Bound {
			t.Fatalf("%v: %+v, want %+v", args, out, want)
		}
		if i > 0 && i < 3 && out.StoreBytes <= 16*out.States {
			t.Errorf("%v: a store of %d bytes for %d states: did it spill?", args, out.StoreBytes, out.States)
		}
	}
}

// TestTuneGC: a memory budget, and only that, makes a command tune the
// garbage collector.
func TestTuneGC(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		calls int
	}{
		{[]string{"explore", litmus + "paper-5.1.rdma"}, 0},
		{[]string{"explore", "--store", "pebble", "--frontier-budget", "1MiB", litmus + "paper-5.1.rdma"}, 0},
		{[]string{"explore", "--mem-budget", "1MiB", litmus + "paper-5.1.rdma"}, 1},
		{[]string{"check", "--mem-budget", "1MiB", litmus + "paper-5.1.rdma"}, 1},
	} {
		var stdout, stderr bytes.Buffer
		e := newEnv(&stdout, &stderr)
		calls := 0
		e.tuneGC = func() { calls++ }
		if code := runEnv(context.Background(), tt.args, e); code != exitOK {
			t.Fatalf("%v: exit %d: %s", tt.args, code, stderr.String())
		}
		if calls != tt.calls {
			t.Errorf("%v: tuneGC called %d times, want %d", tt.args, calls, tt.calls)
		}
	}
}

// TestGoldenCheckpoint: the errors of --mem-budget, --checkpoint and resume.
func TestGoldenCheckpoint(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"flags-bad-mem-budget", []string{"check", "--mem-budget", "lots", litmus + "SB-PUT.rdma"}, exitUsage},
		{"flags-checkpoint-two-files", []string{"check", "--checkpoint", "testdata/no-such-dir", litmus + "SB-PUT.rdma", litmus + "LW-PUT.rdma"}, exitUsage},
		{"flags-checkpoint-exists", []string{"check", "--checkpoint", "testdata/resume-changed", litmus + "SB-PUT.rdma"}, exitUsage},
		{"flags-checkpoint-axiom", []string{"check", "--semantics", "axiom", "--checkpoint", "testdata/no-such-dir", litmus + "SB-PUT.rdma"}, exitUsage},
		{"flags-checkpoint-karp-miller", []string{"robust", "--checkpoint", "testdata/no-such-dir", litmus + "paper-vass-loop.rdma"}, exitUsage},
		{"flags-checkpoint-enum-axiom", []string{"robust", "--method", "enum-axiom", "--checkpoint", "testdata/no-such-dir", litmus + "SB-PUT.rdma"}, exitUsage},
		{"flags-checkpoint-every", []string{"explore", "--checkpoint", "testdata/no-such-dir", "--checkpoint-every", "-1s", litmus + "SB-PUT.rdma"}, exitUsage},
		{"resume-no-dir", []string{"resume"}, exitUsage},
		{"resume-no-checkpoint", []string{"resume", "testdata/no-such-dir"}, exitUsage},
		{"resume-changed", []string{"resume", "testdata/resume-changed"}, exitUsage},
		{"resume-bad-format", []string{"resume", "testdata/resume-bad-format"}, exitUsage},
		{"resume-changed-json", []string{"resume", "--json", "testdata/resume-changed"}, exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
	if _, err := os.Stat("testdata/no-such-dir"); err == nil {
		t.Error("a failed command created its checkpoint directory")
	}
}

// TestGoldenResumeJSON: resume --json prints the object that the resumed
// command prints with --json, although the interrupted run had none. The
// run is robust's default method, which runs the decider alone under
// --checkpoint and says so. The checkpoint directory, a temporary one, reads
// DIR in the golden file.
func TestGoldenResumeJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ck")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"robust", "--checkpoint", dir, litmus + "PUT-PUT-MP.rdma"}, &stdout, &stderr); code != exitInterrupt {
		t.Fatalf("interrupted run: exit %d, want %d\n%s", code, exitInterrupt, stderr.String())
	}
	goldenNormalized(t, "resume-json", []string{"resume", "--json", dir}, exitOK,
		func(s string) string { return strings.ReplaceAll(s, dir, "DIR") })
}

// TestResumeJSONUntraced: resume --json of a check run made without -w or
// --json, which kept no parent records, prints JSON without witnesses (it
// failed with "made without Trace, resumed with it"); with -w they are there.
func TestResumeJSONUntraced(t *testing.T) {
	for _, tc := range []struct {
		flags   []string
		witness bool
	}{{nil, false}, {[]string{"-w"}, true}} {
		dir := filepath.Join(t.TempDir(), "ck")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"check", "--checkpoint", dir}, tc.flags...), litmus+"PUT-LW.rdma")
		if code := run(ctx, args, &stdout, &stderr); code != exitInterrupt {
			t.Fatalf("%v: exit %d, want %d\n%s", args, code, exitInterrupt, stderr.String())
		}
		stdout.Reset()
		stderr.Reset()
		if code := run(context.Background(), []string{"resume", "--json", dir}, &stdout, &stderr); code != exitOK {
			t.Fatalf("resume --json after %v: exit %d\n%s", tc.flags, code, stderr.String())
		}
		var out struct {
			RDMA struct {
				Allowed *bool           `json:"allowed"`
				Witness json.RawMessage `json:"witness"`
			} `json:"rdma"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("%v: %s", err, stdout.String())
		}
		if out.RDMA.Allowed == nil || !*out.RDMA.Allowed || (out.RDMA.Witness != nil) != tc.witness {
			t.Errorf("resume --json after %v: allowed %v, witness %s", tc.flags, out.RDMA.Allowed, out.RDMA.Witness)
		}
	}
}

// TestRobustStores: the decider's search gives the same report, witness
// included, whatever holds its visited set, frontier and parent records
// and however many workers expand states.
func TestRobustStores(t *testing.T) {
	for _, prog := range []string{decideProgram, midProgram} {
		var want string
		for i, flags := range [][]string{
			{"--workers", "1"},
			{"--mem-budget", "256KiB", "--store-dir", t.TempDir()},
			{"--mem-budget", "256KiB", "--workers", "2"},
			{"--store", "pebble", "--mem-budget", "512KiB"},
			{"--frontier-budget", "16KiB", "--store-dir", t.TempDir(), "--workers", "2"},
		} {
			args := append(append([]string{"robust", "--method", "decide", "--json"}, flags...), prog)
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
			}
			if stderr.Len() > 0 {
				t.Errorf("%v: stderr: %s", args, stderr.String())
			}
			if i == 0 {
				want = stdout.String()
				if !strings.Contains(want, `"robust"`) {
					t.Fatalf("%v: no answer: %s", args, want)
				}
				continue
			}
			if got := stdout.String(); got != want {
				t.Errorf("%v:\n%s\nwant (one worker, in memory):\n%s", args, got, want)
			}
		}
	}
}

// TestResumeSearchFailure: a checkpoint whose search files are corrupt
// cannot be resumed, and that is a failure of the search (exit 4), not an
// error in the input (exit 2), with or without --json.
func TestResumeSearchFailure(t *testing.T) {
	badJSON := func(path string) error { return os.WriteFile(path, []byte("{"), 0o644) }
	for _, tc := range []struct {
		name    string
		command []string // interrupted at once, with --checkpoint
		file    string   // of each search, corrupted
		corrupt func(path string) error
		want    string
	}{
		{"check manifest", []string{"check", "-w"}, "manifest.json", badJSON, "reading the manifest"},
		{"check visited", []string{"check", "-w"}, "visited.fp", func(path string) error { return os.Truncate(path, 0) }, "the manifest counts"},
		{"decider manifest", []string{"robust", "--method", "decide"}, "manifest.json", badJSON, "deciding robustness of SB-PUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ck")
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var stdout, stderr bytes.Buffer
			args := append(slices.Clone(tc.command), "--checkpoint", dir, litmus+"SB-PUT.rdma")
			if code := run(ctx, args, &stdout, &stderr); code != exitInterrupt {
				t.Fatalf("interrupted run: exit %d, want %d\n%s", code, exitInterrupt, stderr.String())
			}
			// The searches' directories are named by their jobs'
			// keys: corrupt the file in each.
			searches, _ := filepath.Glob(filepath.Join(dir, "search-*", tc.file))
			if len(searches) == 0 {
				t.Fatalf("no search-*/%s in %s", tc.file, dir)
			}
			for _, path := range searches {
				if err := tc.corrupt(path); err != nil {
					t.Fatal(err)
				}
			}
			for _, args := range [][]string{{"resume", dir}, {"resume", "--json", dir}} {
				stdout.Reset()
				stderr.Reset()
				if code := run(context.Background(), args, &stdout, &stderr); code != exitInternal {
					t.Errorf("%v: exit %d, want %d\n%s", args, code, exitInternal, stderr.String())
				}
				if !strings.Contains(stderr.String(), tc.want) {
					t.Errorf("%v: stderr %q, want %q in it", args, stderr.String(), tc.want)
				}
				if json := args[1] == "--json"; json != strings.Contains(stdout.String(), `"error":{"message":`) {
					t.Errorf("%v: stdout %q", args, stdout.String())
				}
			}
		})
	}
}
