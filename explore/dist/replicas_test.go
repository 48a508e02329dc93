package dist

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"rdmasim/explore"
)

// startJSCluster starts three embedded NATS servers with JetStream on
// loopback, routed to each other as one JetStream cluster, and waits for
// them to elect a meta leader. It returns their client URLs.
func startJSCluster(t *testing.T) []string {
	t.Helper()
	ports := make([]int, 3)
	cports := make([]int, 3)
	for i := range ports {
		ports[i], cports[i] = freePort(t), freePort(t)
	}
	var routes []string
	for _, p := range cports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	var srvs []*server.Server
	var urls []string
	for i := range ports {
		o := &server.Options{ServerName: fmt.Sprintf("s%d", i), Host: "127.0.0.1", Port: ports[i], JetStream: true,
			StoreDir: t.TempDir(), NoSigs: true, NoLog: true, MaxPayload: 8 << 20}
		o.Cluster.Name, o.Cluster.Host, o.Cluster.Port = "rdmasim", "127.0.0.1", cports[i]
		o.Routes = server.RoutesFromStr(routes[0] + "," + routes[1] + "," + routes[2])
		s, err := server.NewServer(o)
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		srvs = append(srvs, s)
		urls = append(urls, s.ClientURL())
	}
	t.Cleanup(func() {
		for _, s := range srvs {
			s.Shutdown()
		}
	})
	for _, s := range srvs {
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("a NATS server did not start within 10s")
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		leader := false
		for _, s := range srvs {
			leader = leader || s.JetStreamIsLeader()
		}
		if leader {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no JetStream meta leader within 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return urls
}

// TestReplicas3 runs a search on a JetStream cluster of three servers with
// three replicas of the run's stream and buckets.
func TestReplicas3(t *testing.T) {
	urls := startJSCluster(t)
	url := urls[0] + "," + urls[1] + "," + urls[2]
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for k := range 3 {
		nc, err := Connect(url, "test worker")
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			w := &Worker{Factory: gridFactory, ID: fmt.Sprintf("w%d", k)}
			if err := w.Run(ctx, nc); err != nil && ctx.Err() == nil {
				t.Errorf("worker %d: %v", k, err)
			}
		}()
	}
	g := grid{9, 11, 6, 0}
	ws := explore.New(g, explore.Options{})
	wr, err := ws.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	nc, err := Connect(url, "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c, err := NewCoordinator(nc, Config{Partitions: 3, Payload: g.payload(), Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := explore.New(g, explore.Options{Remote: c})
	rctx, rcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer rcancel()
	start := time.Now()
	gr, err := s.Run(rctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v: %+v", time.Since(start), gr)
	if gr.States != wr.States || gr.Stop != wr.Stop {
		t.Errorf("got %+v, want %+v", gr, wr)
	}
}
