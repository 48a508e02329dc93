package dist

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// square is a campaign's task: the square of a uint64.
func square(_ context.Context, payload []byte) ([]byte, error) {
	x := binary.LittleEndian.Uint64(payload)
	return binary.LittleEndian.AppendUint64(nil, x*x), nil
}

// TestCampaign runs two campaigns of 40 tasks on three workers, one of
// which dies (its context ends) in the middle of a task, unacknowledged:
// the task goes to another worker after the acknowledgement wait, and the
// results are every task's, once each, in task order.
func TestCampaign(t *testing.T) {
	srv, err := StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var started atomic.Int32
	for k := range 3 {
		nc, err := Connect(srv.URL(), "test worker")
		if err != nil {
			t.Fatal(err)
		}
		wctx, wcancel := context.WithCancel(ctx)
		task := square
		if k == 0 {
			// Dies at its third task, holding it.
			task = func(c context.Context, p []byte) ([]byte, error) {
				if started.Add(1) == 3 {
					wcancel()
					<-c.Done()
				}
				return square(c, p)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			defer wcancel()
			w := &Worker{ID: fmt.Sprintf("w%d", k), Tasks: map[string]func(context.Context, []byte) ([]byte, error){"square": task}}
			if err := w.Run(wctx, nc); err != nil {
				t.Errorf("worker %d: %v", k, err)
			}
		}()
	}
	nc, err := Connect(srv.URL(), "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for run := range 2 {
		var tasks [][]byte
		for i := range 40 {
			tasks = append(tasks, binary.LittleEndian.AppendUint64(nil, uint64(i+run)))
		}
		var got []uint64
		served := map[int]string{}
		rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
		cfg := CampaignConfig{Kind: "square", AckWait: time.Second, Served: func(i int, w string) { served[i] = w }}
		err := RunCampaign(rctx, nc, cfg, tasks, func(i int, out []byte) error {
			if i != len(got) {
				return fmt.Errorf("result %d after %d results", i, len(got))
			}
			got = append(got, binary.LittleEndian.Uint64(out))
			return nil
		})
		rcancel()
		if err != nil {
			t.Fatalf("campaign %d: %v", run, err)
		}
		for i, x := range got {
			if y := uint64(i + run); x != y*y {
				t.Errorf("campaign %d: result %d is %d, want %d", run, i, x, y*y)
			}
		}
		if len(got) != len(tasks) {
			t.Errorf("campaign %d: %d results, want %d", run, len(got), len(tasks))
		}
		for i := range tasks {
			if w := served[i]; w != "w0" && w != "w1" && w != "w2" {
				t.Errorf("campaign %d: task %d served by %q, want a worker's ID", run, i, w)
			}
		}
	}
	if started.Load() < 3 {
		t.Errorf("the flaky worker ran %d tasks: it never died", started.Load())
	}
}
