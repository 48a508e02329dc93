package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/corpus/fuzz"
	"rdmasim/explore/dist"
	"rdmasim/opsem/machine"
)

// fuzzRun runs fuzz with args and --regress-dir dir and returns its
// stdout, with dir replaced by DIR and the timings of the text normalised
// (normalizeFuzz), or, with --json, its JSON without the timings and the
// workers field; the workers it says took part; and its exit code. Like
// exploreJSON it returns an error rather than failing the test.
func fuzzRun(dir string, args ...string) (out string, workers float64, code int, err error) {
	var stdout, stderr bytes.Buffer
	code = run(context.Background(), append([]string{"fuzz", "--regress-dir", dir}, args...), &stdout, &stderr)
	out = strings.ReplaceAll(stdout.String(), dir, "DIR")
	if !strings.Contains(strings.Join(args, " "), "--json") {
		return normalizeFuzz(out), 0, code, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return "", 0, code, fmt.Errorf("fuzz %v: exit %d: %v (%s)", args, code, err, stderr.String())
	}
	workers, _ = m["workers"].(float64)
	for _, k := range []string{"seconds", "programs_per_second", "workers"} {
		delete(m, k)
	}
	b, _ := json.Marshal(m)
	return string(b), workers, code, nil
}

// regressFiles returns the files of dir by name, with their text.
func regressFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

// TestFuzzCluster runs fuzz on a cluster of two worker processes
// (--cluster local:2) and in one process, at the same time
// (concurrently), and checks that the reports (JSON but for the timings
// and the workers field, or the text but for the timings), the exit codes
// and the regression files written are the same: for a few seeds and
// modes (remote atomics with repair, the protocol language, given program
// seeds, SPIN on some programs when spin and gcc are installed). Seed 1's
// first 25 programs have disagreements (programs 1, 6 and 19, minimised
// to two instructions) in a build with the rdmasim_broken tag
// (go test -tags rdmasim_broken -run TestFuzzCluster ./cmd/rdmasim); in a
// good build they agree. Every run is count-boxed (--count, --timeout 0,
// --max-states).
func TestFuzzCluster(t *testing.T) {
	t.Parallel()
	quiet := []string{"--timeout", "0", "--max-states", "20000"}
	for _, args := range [][]string{
		{"--json", "--seed", "3", "--count", "31", "--spin-every", "15"},
		{"--json", "--seed", "4242", "--count", "20", "--atomics", "--repair", "--spin-every", "0"},
		{"--json", "--seed", "3", "--count", "12", "--surface", "--spin-every", "0"},
		{"--json", "--program-seed", "0x2a", "--program-seed", "0x1f2e3d", "--spin-every", "0"},
		{"--json", "--seed", "1", "--count", "25", "--spin-every", "0"},
		{"--seed", "1", "--count", "25", "--spin-every", "0"},
	} {
		args = append(args, quiet...)
		wdir, gdir := t.TempDir(), t.TempDir()
		var want, got string
		var workers float64
		var wcode, gcode int
		var werr, gerr error
		concurrently(
			func() { want, _, wcode, werr = fuzzRun(wdir, args...) },
			func() {
				got, workers, gcode, gerr = fuzzRun(gdir, append([]string{"--cluster", "local:2"}, args...)...)
			})
		if err := errors.Join(werr, gerr); err != nil {
			t.Fatal(err)
		}
		if got != want || gcode != wcode {
			t.Errorf("fuzz %v on a cluster: exit %d\n%s\nin one process: exit %d\n%s", args, gcode, got, wcode, want)
		}
		if args[0] == "--json" && (workers < 1 || workers > 2) {
			t.Errorf("fuzz %v on a cluster: %v workers took part, want 1 or 2", args, workers)
		}
		wf, gf := regressFiles(t, wdir), regressFiles(t, gdir)
		if !reflect.DeepEqual(gf, wf) {
			t.Errorf("fuzz %v: regression files on a cluster %v, in one process %v", args, keys(gf), keys(wf))
		}
		if brokenBuild && strings.Contains(strings.Join(args, " "), "--seed 1 ") && len(wf) < 3 {
			t.Errorf("fuzz %v in a broken build: %d regression files, want at least 3", args, len(wf))
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestFuzzClusterUsage checks the cluster flags of fuzz that cannot work.
func TestFuzzClusterUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--cluster", "local:0"},
		{"--cluster", "remote:2"},
		{"--cluster", "local:2", "--nats", "nats://127.0.0.1:1"},
		{"--cluster", "local:2", "--time", "1m"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"fuzz"}, args...), &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), "--") || out.Len() > 0 {
			t.Errorf("fuzz %v: exit %d, %q, stdout %q; want %d, the flag named and nothing on stdout", args, code, errb.String(), out.String(), exitUsage)
		}
	}
}

// workerLog is a worker process's stderr, read line by line as it comes.
type workerLog struct {
	mu    sync.Mutex
	lines []string
	added chan struct{} // a line was added (buffered: one pending wake-up)
	done  chan struct{} // the process's stderr is closed
}

func (l *workerLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// startWorker starts rdmasim worker --nats url --id id in a child process
// and returns it with its log.
func startWorker(t *testing.T, url, id string) (*workerLog, func()) {
	t.Helper()
	cmd, _, _ := rdmasimCmd("worker", "--nats", url, "--id", id)
	cmd.Stderr = nil
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l := &workerLog{added: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			l.mu.Unlock()
			select {
			case l.added <- struct{}{}:
			default:
			}
		}
	}()
	return l, func() {
		cmd.Process.Kill()
		<-l.done
		cmd.Wait()
	}
}

// TestFuzzClusterWorkerKilled runs a fuzz run (40 programs, 4 batches) on
// a NATS server with one worker process, which is killed (SIGKILL) once it
// has finished a batch and started the next; a second worker is started
// then. The run's summary must be the single process's: the finished batch
// is kept, and the second worker, given the killed one's batch once its
// acknowledgement wait (2 s here) lapses, redoes it (its log says it
// finished that batch; the killed worker's never does). The kill waits for
// a line of the worker's log, not a time.
func TestFuzzClusterWorkerKilled(t *testing.T) {
	t.Parallel()
	srv, err := dist.StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	opt := fuzz.Options{Seed: 7, Count: 40, Workers: 1, Differ: differ.Options{MaxStates: 20000, MaxInflight: machine.DefaultOptions().MaxInflight, MaxModelCost: 20},
		Minimize: fuzz.MinimizeOptions{Time: 2 * time.Minute}, RegressDir: t.TempDir()}
	spin := opt.ResolveSpin()
	want, err := fuzz.Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}

	w0, stop0 := startWorker(t, srv.URL(), "w0")
	defer stop0()
	var stop1 func()
	var w1 *workerLog
	defer func() {
		if stop1 != nil {
			stop1()
		}
	}()
	killed := make(chan string, 1) // the batch w0 was killed in
	go func() {
		defer close(killed)
		task := regexp.MustCompile(`task (\d+) of campaign (\S+)$`)
		finished := false
		for {
			select {
			case <-w0.added:
			case <-w0.done:
				return
			}
			for _, line := range strings.Split(w0.text(), "\n") {
				finished = finished || strings.HasSuffix(line, " done")
				if m := task.FindStringSubmatch(line); m != nil && finished && !strings.Contains(w0.text(), "task "+m[1]+" of campaign "+m[2]+" done") {
					stop0()
					killed <- m[1] + " of campaign " + m[2]
					return
				}
			}
		}
	}()
	type outcome struct {
		sum *fuzz.Summary
		err error
	}
	ran := make(chan outcome, 1)
	go func() {
		var stderr bytes.Buffer
		cf := clusterFlags{natsFlags: natsFlags{url: srv.URL()}}
		sum, err := fuzzCluster(context.Background(), newEnv(&bytes.Buffer{}, &stderr), &cf, func() fuzz.Options {
			o := opt
			o.RegressDir = t.TempDir()
			return o
		}(), spin, 2*time.Second)
		ran <- outcome{sum, err}
	}()
	var batch string
	var got outcome
	select {
	case b, ok := <-killed:
		if !ok {
			t.Fatalf("worker w0 exited before it was killed:\n%s", w0.text())
		}
		batch = b
	case got = <-ran:
		t.Fatalf("the run ended (%v) before w0 started a second batch: nothing killed\n%s", got.err, w0.text())
	}
	w1, stop1 = startWorker(t, srv.URL(), "w1")
	got = <-ran
	if got.err != nil {
		t.Fatal(got.err)
	}
	norm := func(s *fuzz.Summary) string {
		j := s.JSON(opt, spin)
		j.Seconds, j.Rate, j.Workers = 0, 0, 0
		for i := range j.Disagreements {
			j.Disagreements[i].File = filepath.Base(j.Disagreements[i].File)
		}
		b, _ := json.Marshal(j)
		return string(b)
	}
	if g, w := norm(got.sum), norm(want); g != w {
		t.Errorf("with a worker killed:\n%s\nin one process:\n%s", g, w)
	}
	if got.sum.Workers != 2 {
		t.Errorf("%d workers took part, want 2 (the killed one's finished batch, the other's)", got.sum.Workers)
	}
	stop0()
	stop1() // the log is read to its end (a worker logs a task done before it publishes its result)
	if !strings.Contains(w1.text(), "task "+batch+" done") || strings.Contains(w0.text(), "task "+batch+" done") {
		t.Errorf("task %s: not redone by w1, or finished by w0 before its kill\nw0:\n%s\nw1:\n%s", batch, w0.text(), w1.text())
	}
}

// TestGoldenHelpFuzz compares fuzz's help (its flags, the cluster's
// included) with its golden file.
func TestGoldenHelpFuzz(t *testing.T) {
	golden(t, "help-fuzz", []string{"help", "fuzz"}, exitOK)
}
