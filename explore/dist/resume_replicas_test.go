package dist

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// TestResumeReplicas3 resumes runs on a JetStream cluster of three servers
// with three replicas of the run's stream and buckets (Config.Replicas 3,
// --nats-replicas 3): the first coordinator dies (mid-level, or at a
// level's boundary; TestResume also lets a lease lapse, which costs 10 s
// here for nothing more), the same search run again
// resumes it, and must report what the sequential search does. In the
// later cases the server that leads the run's stream is also lost while
// the resumed run does its second new level: restarted on its store half a
// second later, then shut down for good (the last case, as the cluster
// keeps two of three servers from then on). The losses are triggered by
// the resumed coordinator's levels, not by a clock.
func TestResumeReplicas3(t *testing.T) {
	srvs, opts := startJSClusterOpts(t)
	var urls []string
	for _, s := range srvs {
		urls = append(urls, s.ClientURL())
	}
	url := strings.Join(urls, ",")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	nc, err := Connect(url, "test setup")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// The buckets with three copies from the start, as a cluster that
	// ran with --nats-replicas 3 before has them (TestReplicaServerLost).
	js, err := newJS(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := buckets(ctx, js, 3); err != nil {
		t.Fatal(err)
	}
	startWorkers(t, ctx, &wg, url, 3, nil)
	replicas := runOpt{set: func(c *Config) { c.Replicas = 3 }}

	// lose shuts down the server that leads c's run's stream, and starts
	// it again on its store if restart (to serve the later cases: its
	// cleanup is the whole test's); it returns once that is done, and the
	// time the server went away.
	lose := func(st *testing.T, c *Coordinator, restart bool) time.Time {
		i := max(streamLeader(ctx, c), 0)
		st.Logf("shutting server s%d down", i)
		srvs[i].Shutdown()
		srvs[i].WaitForShutdown()
		gone := time.Now()
		if !restart {
			return gone
		}
		time.Sleep(500 * time.Millisecond) // the server's absence, not an assertion
		o := opts[i]
		s, err := server.NewServer(&o)
		if err != nil {
			st.Error(err)
			return gone
		}
		s.Start()
		t.Cleanup(s.Shutdown)
		if !s.ReadyForConnections(10 * time.Second) {
			st.Error("the restarted NATS server did not start within 10s")
		}
		srvs[i] = s
		st.Logf("server s%d restarted", i)
		return gone
	}

	for _, tc := range []struct {
		d    death
		loss string // "", "restarted", "shutdown"
	}{
		{death{visit: 6}, ""},
		{death{at: 5}, "restarted"},
		{death{visit: 9}, "shutdown"},
	} {
		g := grid{12, 25, 8, 100 * time.Microsecond}
		name := fmt.Sprintf("%+v/loss=%q", tc.d, tc.loss)
		t.Run(name, func(t *testing.T) {
			key := "test-resume-replicas " + name
			wr, ws, want := sequential(t, g)
			level := dyingRun(t, url, g, 3, key, tc.d, replicas)
			wantAt := tc.d.at
			if tc.d.visit > 0 {
				wantAt = tc.d.visit - 1
			}
			if level != wantAt {
				t.Fatalf("the dying run recorded level %d, want %d", level, wantAt)
			}
			var lost sync.WaitGroup
			var gone time.Time // lost's
			hook := runOpt{hook: func(c *Coordinator) {
				if tc.loss == "" {
					return
				}
				c.levelDone = func(l int) {
					if l == wantAt+2 {
						lost.Add(1)
						go func() { defer lost.Done(); gone = lose(t, c, tc.loss == "restarted") }()
					}
				}
			}}
			start := time.Now()
			gr, gs, got, at, log := resumedRun(t, url, g, 3, key, replicas, hook)
			end := time.Now()
			lost.Wait()
			t.Logf("resumed at %d, %d states in %v", at, gr.States, end.Sub(start).Round(time.Millisecond))
			if tc.loss != "" && (gone.IsZero() || gone.After(end)) {
				t.Errorf("the resumed run ended (%v) before its server was lost (%v): make it longer", end, gone)
			}
			if at != wantAt {
				t.Errorf("resumed at %d, want %d; the coordinator said:\n%s", at, wantAt, log)
			}
			if why := sameSearch(gr, gs, got, wr, ws, want); why != "" {
				t.Errorf("resumed: %s; the coordinator said:\n%s", why, log)
			}
		})
	}
}
