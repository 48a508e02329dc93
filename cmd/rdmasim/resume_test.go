package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"rdmasim/explore/dist"
)

// volatileFreeJSON runs explore --json with args in this process and returns
// its JSON objects without the volatile fields, and its stderr.
func volatileFreeJSON(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"explore", "--json"}, args...), &out, &errb); code != exitOK {
		t.Fatalf("explore %v: exit %d: %s", args, code, errb.String())
	}
	var objs []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("explore %v: %q: %v", args, line, err)
		}
		for _, k := range volatile {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		objs = append(objs, string(b))
	}
	return objs, errb.String()
}

var (
	progressDepth = regexp.MustCompile(`, depth (\d+),`)
	resumedAt     = regexp.MustCompile(`resumed at level (\d+)`)
)

// TestExploreResume kills (SIGKILL) the coordinator of an explore --nats run
// (the explore process) once its progress line says the search reached
// depth 3, with two worker processes and the NATS server living on, runs the
// same command again, and checks that it resumed the run at a level past
// the first and reports what one process does; then that the same command
// run once more, the run being finished, starts afresh with the same report.
// On an MP benchmark, and on a protocol with a --param cut by a state limit.
func TestExploreResume(t *testing.T) {
	t.Parallel()
	srv, err := dist.StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	var wlog bytes.Buffer // StartProcesses writes to it one line at a time
	ps, err := dist.StartProcesses(context.Background(), 2, []string{os.Args[0], "worker", "--quiet", "--nats", srv.URL()}, &wlog)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Stop()
	cluster := []string{"--nats", srv.URL(), "--partitions", "2"}
	for _, args := range [][]string{
		{"../../corpus/bench/mp4y.rdma"},
		{"--param", "N=4", "--max-states", "700000", "../../corpus/protocols/user-mu-log.rdma"},
	} {
		name := strings.Join(args, " ")
		want, _ := volatileFreeJSON(t, args...)

		cmd, stdout, _ := rdmasimCmd(append(append([]string{"explore", "--json", "--progress"}, cluster...), args...)...)
		cmd.Stderr = nil
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var said strings.Builder
		killedAt := -1
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			fmt.Fprintln(&said, sc.Text())
			if m := progressDepth.FindStringSubmatch(sc.Text()); m != nil && killedAt < 0 {
				if d, _ := strconv.Atoi(m[1]); d >= 3 {
					cmd.Process.Kill()
					killedAt = d
				}
			}
		}
		err = cmd.Wait()
		if killedAt < 0 || exitCode(err) != -1 {
			t.Fatalf("%s: the coordinator was not killed (%v): make the run longer; it said\n%s%s", name, err, stdout.String(), said.String())
		}

		got, stderr := volatileFreeJSON(t, append(cluster, args...)...)
		m := resumedAt.FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("%s: killed at depth %d; run again, it did not say it resumed: %s", name, killedAt, stderr)
		}
		if l, _ := strconv.Atoi(m[1]); l < 1 {
			t.Errorf("%s: killed at depth %d, resumed at level %d: want a level past the first", name, killedAt, l)
		}
		t.Logf("%s: killed at depth %d; %s", name, killedAt, strings.TrimSpace(stderr))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: resumed:\n%s\nin one process:\n%s", name, got, want)
		}

		got, stderr = volatileFreeJSON(t, append(cluster, args...)...)
		if strings.Contains(stderr, "resumed") {
			t.Errorf("%s: the finished run was resumed: %s", name, stderr)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: run again:\n%s\nin one process:\n%s", name, got, want)
		}
	}
}
