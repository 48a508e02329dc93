package dist

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"rdmasim/explore"
)

// startFixed starts an embedded NATS server with JetStream on port, storing
// its streams in dir: a server that can be stopped and started again at the
// same address on the same store, as a restarted nats-server is.
func startFixed(t *testing.T, port int, dir string) *server.Server {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir,
		NoSigs: true, NoLog: true, MaxPayload: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		t.Fatal("the NATS server did not start within 10s")
	}
	return s
}

// freePort returns a loopback port that nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestServerRestarted stops the single NATS server of a run midway, starts
// it again a moment later on the same address and store, and checks that
// the run ends, within a bounded time, with the sequential search's result:
// the workers and the coordinator reconnect, and a partition whose worker
// failed while the server was away (its publishes lost with the
// connection) is served again, as a new incarnation whose messages are
// counted apart from the failed attempt's; requests in flight when the
// server went away (a consumer being made, a look at the claims) end at once
// and are made again (whileConnected), and the coordinator publishes again
// the ids the server did not acknowledge (publisher.resending). Before
// those, about one run in ten waited for a request's 30 s timeout or for
// ever.
func TestServerRestarted(t *testing.T) {
	port, dir := freePort(t), t.TempDir()
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	srv := startFixed(t, port, dir)
	defer func() { srv.Shutdown() }()

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	startWorkers(t, ctx, &wg, url, 3, func(s string) { t.Logf("%v %s", time.Now().Format("15:04:05.000"), s) })

	// About 2,400 states at 1ms each over three workers: a run of a
	// second or more, over 20 levels.
	g := grid{12, 25, 8, 10 * 100 * time.Microsecond}
	want, err := explore.New(grid{g.a, g.b, g.c, 0}, explore.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	nc, err := Connect(url, "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c, err := NewCoordinator(nc, Config{Partitions: 3, Payload: g.payload(), Batch: 64, Log: func(s string) { t.Logf("%v coordinator: %s", time.Now().Format("15:04:05.000"), s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		time.Sleep(400 * time.Millisecond)
		srv.Shutdown()
		srv.WaitForShutdown()
		time.Sleep(500 * time.Millisecond)
		srv = startFixed(t, port, dir)
	}()
	rctx, rcancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer rcancel()
	start := time.Now()
	got, err := explore.New(g, explore.Options{Remote: c}).Run(rctx)
	<-restarted
	t.Logf("the run ended after %v, %d worker incarnations took part: %v", time.Since(start).Round(time.Millisecond), got.Workers, err)
	if err != nil {
		t.Fatal(err)
	}
	if got.States != want.States || got.Transitions != want.Transitions || got.MaxDepth != want.MaxDepth || got.Stop != want.Stop {
		t.Errorf("got %+v, want %+v", got.Stats, want.Stats)
	}
}

// startWorkers starts n grid workers (w0, w1, ...) on the server at url,
// each on its own connection, until ctx ends; wg counts them. A worker's
// error before ctx ends fails the test. log, when not nil, gets their
// messages.
func startWorkers(t *testing.T, ctx context.Context, wg *sync.WaitGroup, url string, n int, log func(string)) {
	t.Helper()
	for k := range n {
		nc, err := Connect(url, "test worker")
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			w := &Worker{Factory: gridFactory, ID: fmt.Sprintf("w%d", k), Log: log}
			if err := w.Run(ctx, nc); err != nil && ctx.Err() == nil {
				t.Errorf("worker %d: %v", k, err)
			}
		}()
	}
}
