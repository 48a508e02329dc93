package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// asMainEnv, set, makes the test binary rdmasim itself (see TestMain): the
// workers that explore --cluster local:N starts are os.Executable(), which
// in a test is the test binary, and the kill tests run rdmasim in child
// processes (rdmasimCmd).
const asMainEnv = "RDMASIM_TEST_AS_MAIN"

// TestMain runs the tests, or, in a child process of the tests (asMainEnv
// set), rdmasim's main with the child's arguments.
//
// The tests set asMainEnv in their own environment once, before any test
// runs, so that every child process they start inherits it. Setting it per
// test (t.Setenv) would forbid t.Parallel in the tests that start workers,
// the longest of the package; set here, the environment never changes while
// tests run. The one other child of the tests is Chromium (TestBrowser),
// which does not read the variable.
func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := runEnv(ctx, os.Args[1:], newEnv(os.Stdout, os.Stderr))
		stop()
		os.Exit(code)
	}
	if err := os.Setenv(asMainEnv, "1"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// volatile are the fields of explore's JSON that differ from run to run, or
// between one process and a cluster (the visited set is split in
// partitions, each with its own table).
var volatile = []string{"seconds", "states_per_sec", "peak_memory_bytes", "store_bytes", "workers"}

// exploreJSON runs explore with args and returns its JSON objects, without
// the volatile fields, and the workers each says took part. It returns an
// error rather than failing the test, so that it can run beside the test's
// goroutine (see concurrently).
func exploreJSON(args ...string) (objs []string, workers []float64, err error) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"explore", "--json"}, args...), &out, &errb); code != exitOK {
		return nil, nil, fmt.Errorf("explore %v: exit %d: %s", args, code, errb.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return nil, nil, fmt.Errorf("explore %v: %q: %v", args, line, err)
		}
		w, _ := m["workers"].(float64)
		workers = append(workers, w)
		for _, k := range volatile {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		objs = append(objs, string(b))
	}
	return objs, workers, nil
}

// concurrently runs f and g at the same time and returns once both have.
// A cluster test's two runs, in one process and on the cluster, share
// nothing (the first searches in the test process, the second in worker
// processes, each with its own buffers), so on a host with a core to spare
// the pair takes as long as the longer rather than the sum. Neither may call
// t.Fatal or t.FailNow (only the test's own goroutine may): they return
// errors, which the test checks once both are done.
func concurrently(f, g func()) {
	var wg sync.WaitGroup
	wg.Go(g)
	f()
	wg.Wait()
}

// TestExploreCluster explores every litmus test and two benchmarks on a
// cluster of three worker processes on this machine, and checks that every
// report equals the single-process one (states, transitions, depth,
// completeness and bound, final, filtered and deadlocked configurations,
// where the first deadlock waits), that three workers took part, and the
// same under SC, with a state limit that cuts a level and for protocols
// with a --param. The single-process run and the cluster's run go at the same
// time (concurrently); the test runs beside the package's other long tests
// (t.Parallel: its workers and NATS server, on a free port, are its own).
func TestExploreCluster(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(litmus + "*.rdma")
	if err != nil || len(files) < 50 {
		t.Fatalf("%d litmus tests: %v", len(files), err)
	}
	files = append(files, "../../corpus/bench/mp3.rdma", "../../corpus/bench/sb5.rdma")
	for _, args := range [][]string{
		files,
		{"--semantics", "sc", litmus + "SB-PUT.rdma", litmus + "paper-5.1.rdma", "testdata/deadlock.rdma"},
		{"--max-states", "5000", "../../corpus/bench/mp3.rdma"},
		{"--param", "M=4", "../../corpus/protocols/farm-ring.rdma", "../../corpus/protocols/farm-ring-readback.rdma"},
	} {
		var want, got []string
		var workers []float64
		var werr, gerr error
		concurrently(
			func() { want, _, werr = exploreJSON(args...) },
			func() { got, workers, gerr = exploreJSON(append([]string{"--cluster", "local:3"}, args...)...) })
		if err := errors.Join(werr, gerr); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d reports, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("on a cluster:\n%s\nin one process:\n%s", got[i], want[i])
			}
			if workers[i] != 3 {
				t.Errorf("%s: %v workers took part, want 3", got[i], workers[i])
			}
		}
	}
}

// TestExploreClusterUsage checks the cluster flags that cannot work, for
// each command that takes them.
func TestExploreClusterUsage(t *testing.T) {
	for _, cmd := range []string{"explore", "check", "robust"} {
		for _, args := range [][]string{
			{"--cluster", "local:0"},
			{"--cluster", "remote:3"},
			{"--cluster", "local:2", "--order", "dfs"},
			{"--cluster", "local:2", "--checkpoint", t.TempDir()},
			{"--nats", "nats://127.0.0.1:1"},
			{"--nats", "nats://127.0.0.1:1", "--cluster", "local:2"},
		} {
			var out, errb bytes.Buffer
			code := run(context.Background(), append(append([]string{cmd}, args...), litmus+"SB-PUT.rdma"), &out, &errb)
			if code != exitUsage || !strings.Contains(errb.String(), "--") || out.Len() > 0 {
				t.Errorf("%s %v: exit %d, %q, stdout %q; want %d, the flag named and nothing on stdout", cmd, args, code, errb.String(), out.String(), exitUsage)
			}
		}
	}
}

// TestCorpusCluster checks the corpus's files (litmus tests, and the
// testdata's failing, deadlocking and malformed ones) as tasks on a cluster
// of three workers, and checks that the rows (but their times) and the exit
// code are the single process's. The two runs go at the same time
// (concurrently), and the test beside the package's other long tests
// (t.Parallel), as TestExploreCluster.
func TestCorpusCluster(t *testing.T) {
	t.Parallel()
	corpus := func(args ...string) ([]string, int, error) {
		var out, errb bytes.Buffer
		// --timeout 0: no search is cut by time, on a loaded machine too
		// (the default 60 s per search once cut a cluster's robustness
		// search that one process finished). --max-states 200000 boxes them
		// by a count instead of corpus's default 5,000,000: every search of
		// every file ends below it but the RDMA machine's enumeration of
		// testdata/protocol-symmetric.rdma (four clients), which is cut on
		// both sides, by either box, while its decider (128,015 states)
		// answers. Cut at 5,000,000 it took about 10 minutes a side under
		// -race, most of the package's time.
		code := run(context.Background(), append([]string{"corpus", "--json", "--timeout", "0", "--max-states", "200000", litmus, "testdata"}, args...), &out, &errb)
		var rows []string
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				return nil, code, fmt.Errorf("corpus %v: %q: %v (%s)", args, line, err, errb.String())
			}
			delete(m, "seconds")
			b, _ := json.Marshal(m)
			rows = append(rows, string(b))
		}
		return rows, code, nil
	}
	var want, got []string
	var wcode, gcode int
	var werr, gerr error
	concurrently(
		func() { want, wcode, werr = corpus() },
		func() { got, gcode, gerr = corpus("--cluster", "local:3") })
	if err := errors.Join(werr, gerr); err != nil {
		t.Fatal(err)
	}
	if gcode != wcode || len(got) != len(want) || len(want) < 100 {
		t.Fatalf("exit %d with %d rows, want %d with %d (at least 100)", gcode, len(got), wcode, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("on a cluster:\n%s\nin one process:\n%s", got[i], want[i])
		}
	}
}

// clusterJSON runs command cmd with args and --json and returns its JSON
// objects without the workers fields (the report's, and each method's of
// robust --method all), the workers each object says took part (0 when it
// has none), its stderr and its exit code. Like exploreJSON it returns an
// error rather than failing the test.
func clusterJSON(cmd string, args ...string) (objs []string, workers []float64, stderr string, code int, err error) {
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{cmd, "--json"}, args...), &out, &errb)
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return nil, nil, "", code, fmt.Errorf("%s %v: exit %d: %q: %v (%s)", cmd, args, code, line, err, errb.String())
		}
		w, _ := m["workers"].(float64)
		delete(m, "workers")
		methods, _ := m["methods"].([]any)
		for _, x := range methods {
			if mm, ok := x.(map[string]any); ok {
				mw, _ := mm["workers"].(float64)
				w = max(w, mw)
				delete(mm, "workers")
			}
		}
		workers = append(workers, w)
		b, _ := json.Marshal(m)
		objs = append(objs, string(b))
	}
	return objs, workers, errb.String(), code, nil
}

// clusterCase is a run of check or robust compared on a cluster and in one
// process (compareCluster).
type clusterCase struct {
	args []string
	// local names what runs in this process, as stderr must say; "" for
	// nothing.
	local string
	// workers is the workers each report must say took part: 3, or 0
	// when no search ran on the cluster.
	workers float64
}

// compareCluster runs cmd with each case's args, in one process and on a
// cluster of three worker processes, and checks that the reports (--json,
// witnesses included) and exit codes are the single process's but for the
// workers field, which says that three workers took part; and that what
// runs in this process says so on stderr. Every search is boxed by
// --max-states, so that the test's time does not hang on the host's speed;
// the two runs of a case go at the same time (concurrently). Each case
// starts one cluster: a case has several files.
func compareCluster(t *testing.T, cmd string, cases []clusterCase) {
	for _, tc := range cases {
		args := append([]string{"--max-states", "50000"}, tc.args...)
		var want, got []string
		var workers []float64
		var wcode, gcode int
		var stderr string
		var werr, gerr error
		concurrently(
			func() { want, _, _, wcode, werr = clusterJSON(cmd, args...) },
			func() {
				got, workers, stderr, gcode, gerr = clusterJSON(cmd, append([]string{"--cluster", "local:3"}, args...)...)
			})
		if err := errors.Join(werr, gerr); err != nil {
			t.Fatal(err)
		}
		if gcode != wcode || len(got) != len(want) {
			t.Fatalf("%s %v on a cluster: exit %d with %d reports, want %d with %d (stderr %q)", cmd, args, gcode, len(got), wcode, len(want), stderr)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s %v on a cluster:\n%s\nin one process:\n%s", cmd, args, got[i], want[i])
			}
			if workers[i] != tc.workers {
				t.Errorf("%s %v: %s: %v workers took part, want %v", cmd, args, got[i], workers[i], tc.workers)
			}
		}
		if said := tc.local != "" && strings.Contains(stderr, tc.local) && strings.Contains(stderr, "in this process"); said != (tc.local != "") {
			t.Errorf("%s %v on a cluster: stderr %q; want it to say that %q runs in this process: %v", cmd, args, stderr, tc.local, tc.local != "")
		}
	}
}

// TestCheckCluster checks check on a cluster against one process
// (compareCluster): mp and sb, a witness of a failed expect line,
// deadlocks and their runs, symmetry (the workers expand canonical
// configurations), a protocol, the expect robust line's searches, the
// deepening of max-inflight (each bound its own job), and the model of
// --semantics both, which runs in this process.
func TestCheckCluster(t *testing.T) {
	t.Parallel()
	compareCluster(t, "check", []clusterCase{
		{[]string{litmus + "PUT-PUT-MP.rdma", litmus + "SB-PUT.rdma", litmus + "PUT-GET-SB.rdma", "testdata/wrong-expect.rdma",
			"testdata/deadlock.rdma", "testdata/protocol-symmetric.rdma", "../../corpus/protocols/dekker-put-poll.rdma"}, "", 3},
		{[]string{"--semantics", "both", litmus + "SB-PUT.rdma"}, "declarative model", 3},
	})
}

// TestRobustCluster checks robust on a cluster against one process
// (compareCluster): auto's two stages, the decider alone on a symmetric
// protocol, its block-by-block searches (each its own job), a protocol's
// --param (which travels in the job), a violation's
// witness, the SC deadlock search of a program whose checked ranges
// robustness drops, and the Karp–Miller search, which runs in this
// process.
func TestRobustCluster(t *testing.T) {
	t.Parallel()
	compareCluster(t, "robust", []clusterCase{
		{[]string{litmus + "SB-PUT.rdma", litmus + "PUT-GET-SB.rdma", "../../corpus/protocols/family-slots.rdma",
			"testdata/wrong-robust.rdma", "../../corpus/protocols/atomics-counter.rdma"}, "", 3},
		{[]string{"--method", "decide", litmus + "PUT-PUT-2THR-MP.rdma"}, "", 3},
		{[]string{"--param", "M=3", "../../corpus/protocols/farm-ring.rdma"}, "", 3},
		{[]string{litmus + "paper-vass-pump.rdma"}, "Karp–Miller", 0},
	})
}

// TestCheckClusterText checks that check -w prints, on a cluster, the text
// of one process: outcomes, verdicts, expect lines, the witness runs step by
// step and the run to a deadlock.
func TestCheckClusterText(t *testing.T) {
	t.Parallel()
	args := []string{"check", "-w", "--max-states", "50000", litmus + "SB-PUT.rdma", "testdata/deadlock.rdma"}
	var want, got, werrb, gerrb bytes.Buffer
	var wcode, gcode int
	concurrently(
		func() { wcode = run(context.Background(), args, &want, &werrb) },
		func() { gcode = run(context.Background(), append(args, "--cluster", "local:3"), &got, &gerrb) })
	if gcode != wcode || got.String() != want.String() || !strings.Contains(want.String(), "Witness") {
		t.Errorf("on a cluster: exit %d, stdout\n%s\nstderr %s\nin one process: exit %d, stdout\n%s", gcode, got.String(), gerrb.String(), wcode, want.String())
	}
}
