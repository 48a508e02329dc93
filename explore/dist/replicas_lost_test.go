package dist

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"rdmasim/explore"
)

// TestReplicaServerLost runs a search on a JetStream cluster of three
// servers with three replicas of the run's stream and buckets (Replicas 3,
// --nats-replicas 3), and loses one server about 400 ms into the run: the
// one that leads the run's stream, the hardest to lose, as its stream and
// the consumers on it must move to another. The run must end with the
// sequential search's result. The workers and the coordinator know all
// three servers' URLs, and reconnect to another when theirs goes away.
//
// In "shutdown" the server does not come back (an embedded server killed
// is one shut down); in "restarted" it comes back half a second later on
// the same ports and store, and rejoins the cluster.
//
// It runs only with loseNATSEnv set (see there for its record), as make
// test's race-free pass sets it.
func TestReplicaServerLost(t *testing.T) {
	if os.Getenv(loseNATSEnv) == "" {
		t.Skipf("set %s=1 to run it (it loses a NATS server of three; make test runs it without -race)", loseNATSEnv)
	}
	for _, restart := range []bool{false, true} {
		name := "shutdown"
		if restart {
			name = "restarted"
		}
		t.Run(name, func(t *testing.T) { replicaServerLost(t, restart) })
	}
}

// loseNATSEnv, set, runs TestReplicaServerLost. It used to fail about one
// run in four (go test -race, a 2-core host at load average about 10): a
// run stopped with ErrLost, or hung at one level with nothing logged. The
// causes, found with the goroutine dump and the streams' state it logs a
// minute into a run: the stream can hold a sender's messages out of the
// order they were sent in, and readers counted an incarnation whose end
// marker came first short for good (see collector); and a purge of a past
// level, or a key-value put, went unanswered again and again while the run
// waited for it (see Coordinator.Expand, retry). Since those fixes it
// passed 32 runs in 32 (22 "shutdown", 10 "restarted"); after the resume
// work (successors purged one level later, expansion records kept) 5 runs
// of 5 without -race, 5 to 25 s each on a loaded 2-core host. make test
// sets it in its race-free pass (Makefile RACE_FREE_TESTS), so CI runs it
// once, without the race detector; go test ./... alone skips it.
const loseNATSEnv = "RDMASIM_TEST_LOSE_NATS"

func replicaServerLost(t *testing.T, restart bool) {
	logf := func(format string, args ...any) {
		t.Logf("%v "+format, append([]any{time.Now().Format("15:04:05.000")}, args...)...)
	}
	srvs, opts := startJSClusterOpts(t)
	var urls []string
	for _, s := range srvs {
		urls = append(urls, s.ClientURL())
	}
	url := strings.Join(urls, ",")

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	nc, err := Connect(url, "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// The buckets with three copies from the start, as a cluster that
	// ran with --nats-replicas 3 before has them: scaling up the ones
	// the workers make (TestReplicas3) takes seconds.
	js, err := newJS(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := buckets(ctx, js, 3); err != nil {
		t.Fatal(err)
	}
	startWorkers(t, ctx, &wg, url, 3, func(s string) { logf("%s", s) })

	// About 2,400 states at 500µs each over three workers: a run of a
	// second or more, over 20 levels.
	g := grid{12, 25, 8, 5 * 100 * time.Microsecond}
	want, err := explore.New(grid{g.a, g.b, g.c, 0}, explore.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCoordinator(nc, Config{Partitions: 3, Payload: g.payload(), Replicas: 3, Log: func(s string) { logf("coordinator: %s", s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	lost := make(chan struct{})
	go func() {
		defer close(lost)
		// The run begins once its stream has a leader: Start, before,
		// scales the workers' buckets to three replicas.
		i := -1
		for i < 0 && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
			i = streamLeader(ctx, c)
		}
		if i < 0 {
			return
		}
		time.Sleep(400 * time.Millisecond)
		i = max(streamLeader(ctx, c), 0)
		logf("shutting server s%d down", i)
		srvs[i].Shutdown()
		srvs[i].WaitForShutdown()
		if !restart {
			return
		}
		time.Sleep(500 * time.Millisecond)
		o := opts[i]
		s, err := server.NewServer(&o)
		if err != nil {
			t.Error(err)
			return
		}
		s.Start()
		t.Cleanup(s.Shutdown)
		if !s.ReadyForConnections(10 * time.Second) {
			t.Error("the restarted NATS server did not start within 10s")
		}
		logf("server s%d restarted", i)
	}()
	// A hang fails the test rather than CI.
	rctx, rcancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer rcancel()
	start := time.Now()
	// A run that hangs shows where it waits: the goroutines of this
	// package (not the servers'), once, a minute in.
	dump := time.AfterFunc(time.Minute, func() {
		logf("a minute in, the streams: %s", streamsState(js, streamName(c.Run()), "KV_"+RunsBucket, "KV_"+ClaimsBucket))
		logf("a minute in, the run's goroutines:\n%s", distStacks())
	})
	defer dump.Stop()
	progress := func(st explore.Stats) { logf("progress: depth %d, %d states", st.MaxDepth, st.States) }
	got, err := explore.New(g, explore.Options{Remote: c, Progress: progress}).Run(rctx)
	<-lost
	logf("the run ended after %v, %d worker incarnations took part: %v", time.Since(start).Round(time.Millisecond), got.Workers, err)
	if err != nil {
		t.Fatal(err)
	}
	if got.States != want.States || got.Transitions != want.Transitions || got.MaxDepth != want.MaxDepth || got.Stop != want.Stop {
		t.Errorf("got %+v, want %+v", got.Stats, want.Stats)
	}
}

// streamLeader returns the index of the server (s0, s1, s2) that leads the
// stream of c's run, or -1 if it has none yet.
func streamLeader(ctx context.Context, c *Coordinator) int {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := c.js.Stream(ctx, streamName(c.Run()))
	if err != nil {
		return -1
	}
	if cl := s.CachedInfo().Cluster; cl != nil && len(cl.Leader) == 2 && cl.Leader[0] == 's' {
		return int(cl.Leader[1] - '0')
	}
	return -1
}

// distStacks returns the stacks of the goroutines that run this package's
// code (the coordinator's, the workers'), without the NATS servers' own.
func distStacks() string {
	buf := make([]byte, 16<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "rdmasim/explore/dist.") && !strings.Contains(g, "nats-server/v2/server.") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}

// streamsState says, for each stream, its replicas, its leader and its
// replicas' state, as the server the test is connected to sees them.
func streamsState(js jetstream.JetStream, names ...string) string {
	var out []string
	for _, name := range names {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s, err := js.Stream(ctx, name)
		cancel()
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		info := s.CachedInfo()
		desc := fmt.Sprintf("%s: R%d", name, info.Config.Replicas)
		if cl := info.Cluster; cl != nil {
			desc += fmt.Sprintf(" leader %q", cl.Leader)
			for _, r := range cl.Replicas {
				desc += fmt.Sprintf(" [%s current=%v offline=%v lag=%d]", r.Name, r.Current, r.Offline, r.Lag)
			}
		}
		out = append(out, desc)
	}
	return strings.Join(out, "; ")
}
