package dist

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"rdmasim/explore"
)

// startJSCluster starts three embedded NATS servers with JetStream on
// loopback, routed to each other as one JetStream cluster, and waits for
// them to elect a meta leader. It returns the servers.
func startJSCluster(t *testing.T) []*server.Server {
	t.Helper()
	srvs, _ := startJSClusterOpts(t)
	return srvs
}

// startJSClusterOpts is startJSCluster that also returns each server's
// options, from which a server shut down can be started again on the same
// ports and store (restartJS).
func startJSClusterOpts(t *testing.T) ([]*server.Server, []server.Options) {
	t.Helper()
	var opts []server.Options
	ports, cports := make([]int, 3), make([]int, 3)
	var routes []string
	for i := range ports {
		ports[i], cports[i] = freePort(t), freePort(t)
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", cports[i]))
	}
	var srvs []*server.Server
	t.Cleanup(func() {
		for _, s := range srvs {
			s.Shutdown()
		}
	})
	for i := range ports {
		o := &server.Options{ServerName: fmt.Sprintf("s%d", i), Host: "127.0.0.1", Port: ports[i], JetStream: true,
			StoreDir: t.TempDir(), NoSigs: true, NoLog: true, MaxPayload: 8 << 20}
		o.Cluster.Name, o.Cluster.Host, o.Cluster.Port = "rdmasim", "127.0.0.1", cports[i]
		o.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		opts = append(opts, *o)
		s, err := server.NewServer(o)
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		srvs = append(srvs, s)
	}
	for _, s := range srvs {
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("a NATS server did not start within 10s")
		}
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		for _, s := range srvs {
			if s.JetStreamIsLeader() {
				return srvs, opts
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no JetStream meta leader within 20s")
		}
	}
}

// killNATSEnv, set, makes TestReplicas3 also shut a server down mid-run.
// Before the coordinator waited for its run's stream to have a leader
// (streamReady), that run ended with the sequential search's result in
// 35 s once and hung at level 11 of 19 until the test's limit (2 minutes)
// once, beside the package's other tests; since, four runs of four ended
// with it in 1-3 s. Too few to call the loss of a server survived (issue
// 30): the case is not run by default. TestReplicaServerLost (with
// RDMASIM_TEST_LOSE_NATS) runs it many times over, on the server that leads
// the run's stream.
const killNATSEnv = "RDMASIM_TEST_KILL_NATS"

// TestReplicas3 runs searches on a JetStream cluster of three servers with
// three replicas of the run's stream and buckets (--nats-replicas 3), and
// checks them against the sequential search: one undisturbed and, with
// killNATSEnv set, one during which a server is shut down (the streams
// keep two of three copies, the clients on it reconnect to the others).
// The workers start first, as
// users start them, and make the buckets with one replica, which the
// coordinator scales to three: operations on a bucket while it elects its
// leader among the new peers went unanswered, and every run failed at once
// with "taking the coordinator's lease: context deadline exceeded" (see
// streamReady). The three workers also make the buckets at the same
// moment, which one of them failed ("stream name already in use").
func TestReplicas3(t *testing.T) {
	srvs := startJSCluster(t)
	var urls []string
	for _, s := range srvs {
		urls = append(urls, s.ClientURL())
	}
	url := strings.Join(urls, ",")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	startWorkers(t, ctx, &wg, url, 3, nil)
	nc, err := Connect(url, "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	kills := []bool{false}
	if os.Getenv(killNATSEnv) != "" {
		kills = append(kills, true)
	}
	for _, kill := range kills {
		// About 2,400 states at 200µs each: a run of a second or more.
		g := grid{12, 25, 8, 2 * 100 * time.Microsecond}
		var want, got visits
		wr, err := explore.New(grid{g.a, g.b, g.c, 0}, explore.Options{Trace: true, Visit: want.visit}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewCoordinator(nc, Config{Partitions: 3, Payload: g.payload(), Replicas: 3})
		if err != nil {
			t.Fatal(err)
		}
		s := explore.New(g, explore.Options{Trace: true, Visit: got.visit, Remote: c})
		if kill {
			time.AfterFunc(500*time.Millisecond, func() { srvs[2].Shutdown() })
		}
		rctx, rcancel := context.WithTimeout(context.Background(), 120*time.Second)
		start := time.Now()
		gr, err := s.Run(rctx)
		rcancel()
		c.Close()
		if err != nil {
			t.Fatalf("kill %v: %v", kill, err)
		}
		t.Logf("kill %v: %d states in %v", kill, gr.States, time.Since(start))
		if gr.States != wr.States || gr.Transitions != wr.Transitions || gr.MaxDepth != wr.MaxDepth || gr.Stop != wr.Stop {
			t.Errorf("kill %v: got %+v, want %+v", kill, gr, wr)
		}
		if got.buf.String() != want.buf.String() {
			t.Errorf("kill %v: the visits differ from the sequential search's", kill)
		}
	}
}
