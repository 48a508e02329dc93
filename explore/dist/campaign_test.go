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

// TestCampaignWorkerLost runs a campaign of 30 tasks with a short
// acknowledgement wait on three workers. Worker w0 dies as a killed process
// does in its first task: its connection goes, and with it its signs of
// life, and it never gives the task back; the task goes to another worker
// once the wait lapses, and runs a second time. The last task runs for four waits: its
// worker's signs of life keep it, so it runs once (else it would go to the
// third worker, idle by then). Every other task runs
// once, and the results are every task's.
func TestCampaignWorkerLost(t *testing.T) {
	srv, err := StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	const ackWait, long = 500 * time.Millisecond, 29
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var mu sync.Mutex
	runs := map[uint64]int{}
	var lost uint64 // the task w0 died in, +1
	for k := range 3 {
		nc, err := Connect(srv.URL(), "test worker")
		if err != nil {
			t.Fatal(err)
		}
		task := func(c context.Context, p []byte) ([]byte, error) {
			x := binary.LittleEndian.Uint64(p)
			mu.Lock()
			runs[x]++
			die := k == 0 && lost == 0 && x != long
			if die {
				lost = x + 1
			}
			mu.Unlock()
			switch {
			case die:
				nc.Close()
				<-c.Done()
				return nil, c.Err()
			case x == long:
				time.Sleep(4 * ackWait)
			default:
				time.Sleep(10 * time.Millisecond) // so that both workers pull tasks
			}
			return square(c, p)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			w := &Worker{ID: fmt.Sprintf("w%d", k), Tasks: map[string]func(context.Context, []byte) ([]byte, error){"square": task}}
			err := w.Run(ctx, nc)
			if k != 0 && err != nil {
				t.Errorf("worker %d: %v", k, err)
			}
		}()
	}
	nc, err := Connect(srv.URL(), "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var tasks [][]byte
	for i := range 30 {
		tasks = append(tasks, binary.LittleEndian.AppendUint64(nil, uint64(i)))
	}
	var got []uint64
	rctx, rcancel := context.WithTimeout(ctx, 60*time.Second)
	defer rcancel()
	err = RunCampaign(rctx, nc, CampaignConfig{Kind: "square", AckWait: ackWait}, tasks, func(i int, out []byte) error {
		got = append(got, binary.LittleEndian.Uint64(out))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range got {
		if x != uint64(i*i) {
			t.Errorf("result %d is %d, want %d", i, x, i*i)
		}
	}
	if len(got) != len(tasks) {
		t.Errorf("%d results, want %d", len(got), len(tasks))
	}
	mu.Lock()
	defer mu.Unlock()
	if lost == 0 {
		t.Fatalf("w0 never died: it ran no task")
	}
	for i := range uint64(len(tasks)) {
		want := 1
		if i == lost-1 {
			want = 2
		}
		if runs[i] != want {
			t.Errorf("task %d ran %d times, want %d (w0 died in task %d)", i, runs[i], want, lost-1)
		}
	}
}
