package dist

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"rdmasim/explore"
)

// workerEnv, set to a NATS URL, makes the test binary a worker process
// (see TestMain): the fault test's workers are this binary, re-executed.
const workerEnv = "RDMASIM_DIST_TEST_WORKER"

func TestMain(m *testing.M) {
	if url := os.Getenv(workerEnv); url != "" {
		os.Exit(workerMain(url, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// workerMain serves grid runs on the server at url, as "--id ID" in args
// names it, until killed.
func workerMain(url string, args []string) int {
	id := ""
	for i, a := range args {
		if a == "--id" && i+1 < len(args) {
			id = args[i+1]
		}
	}
	nc, err := Connect(url, "test worker "+id)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w := &Worker{Factory: gridFactory, ID: id}
	if err := w.Run(context.Background(), nc); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestKilledWorkers runs a search over three worker processes, kills one
// (SIGKILL) at random moments three times, each restarted at once, and
// checks that the run reports what the sequential search does.
func TestKilledWorkers(t *testing.T) {
	srv, err := StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	t.Setenv(workerEnv, srv.URL())
	ps, err := StartProcesses(context.Background(), 3, []string{os.Args[0], "-test.run=^$"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Stop()

	// About 2,400 states, at 200µs each: a run of a second or two, over
	// 20 levels.
	g := grid{12, 25, 8, 2 * 100 * time.Microsecond}
	var want, got visits
	ws := explore.New(grid{g.a, g.b, g.c, 0}, explore.Options{Trace: true, Visit: want.visit})
	wr, err := ws.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	done := make(chan struct{})
	killed := make(chan int, 1)
	go func() {
		n := 0
		defer func() { killed <- n }()
		for range 3 {
			select {
			case <-done:
				return
			case <-time.After(time.Duration(100+rng.IntN(300)) * time.Millisecond):
			}
			if err := ps.Kill(rng.IntN(3)); err == nil {
				n++
			}
		}
	}()
	gr, gs := runDist(t, srv.URL(), g, 3, explore.Options{Trace: true, Visit: got.visit})
	close(done)
	n := <-killed
	t.Logf("%d kills, %d restarts, %d worker incarnations took part; %d states", n, ps.Restarts(), gr.Workers, gr.States)
	if n == 0 {
		t.Errorf("the run ended before a worker was killed: make it longer")
	}
	if gr.States != wr.States || gr.Transitions != wr.Transitions || gr.MaxDepth != wr.MaxDepth || gr.Stop != wr.Stop || gr.Pruned != wr.Pruned {
		t.Errorf("got %+v, want %+v", gr, wr)
	}
	if got.buf.String() != want.buf.String() {
		t.Errorf("the visits differ")
	}
	gp, err1 := gs.Path(gr.States - 1)
	wp, err2 := ws.Path(wr.States - 1)
	if err1 != nil || err2 != nil || fmt.Sprint(gp) != fmt.Sprint(wp) {
		t.Errorf("last path %v %v, want %v %v", gp, err1, wp, err2)
	}
}
