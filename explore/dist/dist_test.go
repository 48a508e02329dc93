package dist

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"rdmasim/explore"
	"rdmasim/store"
)

// gridFactory builds the grid machine of a payload (a, b, c, delay in
// 100µs).
func gridFactory(payload []byte) (explore.Machine, error) {
	if len(payload) != 4 {
		return nil, errors.New("want 4 bytes")
	}
	return grid{payload[0], payload[1], payload[2], time.Duration(payload[3]) * 100 * time.Microsecond}, nil
}

func (g grid) payload() []byte {
	return []byte{g.a, g.b, g.c, byte(g.delay / (100 * time.Microsecond))}
}

// startCluster starts an embedded server and n in-process workers, stopped
// at the end of the test; worker 0's visited sets spill to Pebble; set, if
// any, changes each worker's settings.
func startCluster(t *testing.T, n int, set ...func(*Worker)) *Server {
	t.Helper()
	srv, err := StartServer()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		srv.Shutdown()
	})
	for k := range n {
		nc, err := Connect(srv.URL(), "test worker")
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			w := &Worker{Factory: gridFactory, ID: fmt.Sprintf("w%d", k)}
			for _, f := range set {
				f(w)
			}
			if k == 0 {
				// A visited set that spills to Pebble at once.
				w.NewSet = func() (store.Set, error) {
					return store.NewSpill(1, dir, store.PebbleOptions{Temp: true}), nil
				}
			}
			if err := w.Run(ctx, nc); err != nil {
				t.Errorf("worker %d: %v", k, err)
			}
		}()
	}
	return srv
}

// runDist runs the search of g over the cluster at url with n partitions.
func runDist(t *testing.T, url string, g grid, n int, opt explore.Options) (explore.Result, *explore.Search) {
	t.Helper()
	nc, err := Connect(url, "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c, err := NewCoordinator(nc, Config{Partitions: n, Payload: g.payload(), Batch: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	opt.Remote = c
	s := explore.New(g, opt)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := s.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r, s
}

// TestClusterEqualsSequential runs searches, one after another, over an
// embedded server and three workers, and checks them against the sequential
// search: visits, counts, stops and runs.
func TestClusterEqualsSequential(t *testing.T) {
	srv := startCluster(t, 3)
	for _, tc := range []struct {
		g   grid
		max uint64
	}{{grid{9, 11, 6, 0}, 0}, {grid{9, 11, 6, 0}, 101}, {grid{5, 7, 4, 0}, 0}} {
		var want, got visits
		ws := explore.New(tc.g, explore.Options{MaxStates: tc.max, Trace: true, Visit: want.visit})
		wr, err := ws.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		gr, gs := runDist(t, srv.URL(), tc.g, 3, explore.Options{MaxStates: tc.max, Trace: true, Visit: got.visit})
		name := fmt.Sprintf("%v max=%d", tc.g, tc.max)
		if gr.States != wr.States || gr.Transitions != wr.Transitions || gr.MaxDepth != wr.MaxDepth || gr.Stop != wr.Stop || gr.Pruned != wr.Pruned {
			t.Errorf("%s: got %+v, want %+v", name, gr, wr)
		}
		if gr.Workers != 3 {
			t.Errorf("%s: %d workers took part, want 3", name, gr.Workers)
		}
		if got.buf.String() != want.buf.String() {
			t.Errorf("%s: the visits differ", name)
		}
		gp, err1 := gs.Path(gr.States - 1)
		wp, err2 := ws.Path(wr.States - 1)
		if err1 != nil || err2 != nil || fmt.Sprint(gp) != fmt.Sprint(wp) {
			t.Errorf("%s: last path %v %v, want %v %v", name, gp, err1, wp, err2)
		}
	}
}

// TestRefusedWorker checks that a worker of another version refuses a run,
// that the coordinator says so, and that a run without workers stops at its
// time limit, reported as such.
func TestRefusedWorker(t *testing.T) {
	srv, err := StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wnc, err := Connect(srv.URL(), "test worker")
	if err != nil {
		t.Fatal(err)
	}
	defer wnc.Close()
	done := make(chan error, 1)
	go func() {
		w := &Worker{Factory: gridFactory, ID: "old", Version: "rdmasim 0.1"}
		done <- w.Run(ctx, wnc)
	}()

	nc, err := Connect(srv.URL(), "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var mu sync.Mutex
	var logs []string
	g := grid{5, 7, 4, 0}
	c, err := NewCoordinator(nc, Config{Partitions: 1, Payload: g.payload(), Log: func(s string) {
		mu.Lock()
		logs = append(logs, s)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := explore.New(g, explore.Options{Remote: c, Timeout: time.Second}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != explore.TimeLimit || r.States != 1 {
		t.Errorf("got %+v, want a time limit after the initial state", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) != 1 || !strings.Contains(logs[0], "worker old refuses run") || !strings.Contains(logs[0], "rdmasim 0.1") {
		t.Errorf("the coordinator said %q, want the refusal of worker old, built from rdmasim 0.1", logs)
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestLostMessages deletes data messages of the partitions' successors from
// the run's stream as they come, after the server acknowledged them, as a
// NATS server that restarts without writes it had not synced loses them,
// and checks that the run fails with ErrLost within a bounded time (the
// workers' LostAfter and a little), instead of waiting for ever for levels
// that the workers, whose publishes all succeeded, will never send again.
func TestLostMessages(t *testing.T) {
	const lostAfter = 2 * time.Second
	srv := startCluster(t, 3, func(w *Worker) { w.LostAfter = lostAfter })
	nc, err := Connect(srv.URL(), "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	g := grid{12, 25, 8, 2 * 100 * time.Microsecond}
	c, err := NewCoordinator(nc, Config{Partitions: 3, Payload: g.payload(), Batch: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	deleted := make(chan int, 1)
	go func() {
		n := 0
		defer func() { deleted <- n }()
		js, err := newJS(nc)
		if err != nil {
			return
		}
		var stream jetstream.Stream
		for stream == nil {
			if stream, err = js.Stream(ctx, streamName(c.Run())); err != nil {
				select {
				case <-ctx.Done():
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}
		cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{"rdmasim." + c.Run() + ".succ.>"}})
		if err != nil {
			return
		}
		for ctx.Err() == nil {
			m, err := cons.Next(jetstream.FetchMaxWait(100 * time.Millisecond))
			if err != nil {
				continue
			}
			if meta, err := m.Metadata(); err == nil && m.Headers().Get(hEnd) == "" {
				if stream.DeleteMsg(ctx, meta.Sequence.Stream) == nil {
					n++
				}
			}
		}
	}()

	s := explore.New(g, explore.Options{Remote: c})
	rctx, rcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer rcancel()
	start := time.Now()
	_, err = s.Run(rctx)
	took := time.Since(start)
	cancel()
	t.Logf("%d messages deleted; the run ended after %v: %v", <-deleted, took.Round(time.Millisecond), err)
	if !errors.Is(err, ErrLost) {
		t.Fatalf("the run ended with %v, want an error with %q", err, ErrLost)
	}
	if took > 10*lostAfter {
		t.Errorf("the run took %v to fail, want at most %v", took, 10*lostAfter)
	}
	if !strings.Contains(err.Error(), "cannot be completed") || !strings.Contains(err.Error(), "messages, ") {
		t.Errorf("error %q does not say what was lost", err)
	}
}
