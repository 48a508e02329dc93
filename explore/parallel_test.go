package explore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rdmasim/store"
)

// Clone methods make the synthetic machines usable by parallel searches.

func (g *grid) Clone() Machine    { return &grid{k: g.k, n: g.n, pad: g.pad} }
func (r *ring) Clone() Machine    { return &ring{n: r.n} }
func (t *tree) Clone() Machine    { return &tree{depth: t.depth} }
func (p *pruning) Clone() Machine { return &pruning{grid{k: p.k, n: p.n, pad: p.pad}} }
func (l *line) Clone() Machine    { return &line{sleepEvery: l.sleepEvery} }
func (f *fan) Clone() Machine     { return &fan{n: f.n} }
func (b *blobs) Clone() Machine   { return &blobs{n: b.n, size: b.size} }

// wide is a k-ary tree of the given depth whose states are (depth, index)
// pairs, with many states per level; state i at depth d has successors
// k*i+j at depth d+1, and also i/2 at depth d+1, which makes some states
// reachable by several runs.
type wide struct {
	k, depth uint32
	buf      []byte
}

func (w *wide) Initial(dst []byte) []byte { return append(dst, make([]byte, 8)...) }

func (w *wide) Successors(s []byte, emit func(Label, []byte)) Pruned {
	d, i := binary.LittleEndian.Uint32(s), binary.LittleEndian.Uint32(s[4:])
	if d == w.depth {
		return 8
	}
	for j := range w.k + 1 {
		next := w.k*i + j
		if j == w.k {
			next = i / 2
		}
		w.buf = binary.LittleEndian.AppendUint32(w.buf[:0], d+1)
		w.buf = binary.LittleEndian.AppendUint32(w.buf, next)
		emit(Label(j+1), w.buf)
	}
	return 0
}

func (w *wide) dist(s []byte) int { return int(binary.LittleEndian.Uint32(s)) }

func (w *wide) Clone() Machine { return &wide{k: w.k, depth: w.depth} }

// serialVisit wraps a visitor and fails the test if it is ever entered while
// another call is in progress.
func serialVisit(t *testing.T, f func(uint64, []byte, int) bool) func(uint64, []byte, int) bool {
	var in atomic.Bool
	return func(id uint64, s []byte, d int) bool {
		if !in.CompareAndSwap(false, true) {
			t.Errorf("Visit called concurrently (state %d)", id)
		}
		defer in.Store(false)
		return f(id, s, d)
	}
}

func parallelMachines() []struct {
	name string
	m    func() Machine
} {
	return []struct {
		name string
		m    func() Machine
	}{
		{"grid 1x1", func() Machine { return &grid{k: 1, n: 1} }},
		{"grid 4x7", func() Machine { return &grid{k: 4, n: 7} }},
		{"grid 4x12", func() Machine { return &grid{k: 4, n: 12} }},
		{"grid 2x30 padded", func() Machine { return &grid{k: 2, n: 30, pad: 100} }},
		{"ring 1000", func() Machine { return &ring{n: 1000} }},
		{"tree 12", func() Machine { return &tree{depth: 12} }},
		{"pruning 3x4", func() Machine { return &pruning{grid{k: 3, n: 4}} }},
		{"fan 5", func() Machine { return &fan{n: 5} }},
		{"blobs", func() Machine { return &blobs{n: 4, size: defaultChunk + 10} }},
		{"wide 3x9", func() Machine { return &wide{k: 3, depth: 9} }},
	}
}

// sameRun reports how two searches' results differ, ignoring times and sizes;
// "" if they do not.
func sameRun(par, seq Result) string {
	if par.Stop != seq.Stop || par.States != seq.States || par.Transitions != seq.Transitions ||
		par.Frontier != seq.Frontier || par.MaxDepth != seq.MaxDepth || par.Pruned != seq.Pruned {
		return fmt.Sprintf("parallel %+v, sequential %+v", par, seq)
	}
	return ""
}

// TestParallelMatchesSequential checks that a parallel search is the
// sequential one: same counts, same states visited in the same order with the
// same ids and depths, and the same runs to them.
func TestParallelMatchesSequential(t *testing.T) {
	for _, tt := range parallelMachines() {
		var sv visited
		seqSearch := New(tt.m(), Options{Trace: true, Visit: sv.visit(t)})
		seq, err := seqSearch.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 4, 8} {
			for _, trace := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/w%d/trace=%v", tt.name, workers, trace), func(t *testing.T) {
					m := tt.m()
					var v visited
					s := New(m, Options{Workers: workers, Trace: trace, Visit: serialVisit(t, v.visit(t))})
					res, err := s.Run(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					if res.Workers != workers || res.Fallback != "" {
						t.Errorf("Workers, Fallback = %d, %q; want %d, none", res.Workers, res.Fallback, workers)
					}
					if d := sameRun(res, seq); d != "" || res.Stop != Complete || res.Frontier != 0 {
						t.Fatalf("%s", d)
					}
					if len(v.states) != len(sv.states) {
						t.Fatalf("Visit called %d times, want %d", len(v.states), len(sv.states))
					}
					for id := range v.states {
						if !bytes.Equal(v.states[id], sv.states[id]) || v.depths[id] != sv.depths[id] {
							t.Fatalf("state %d: %x at depth %d, sequentially %x at depth %d", id, v.states[id], v.depths[id], sv.states[id], sv.depths[id])
						}
					}
					if !trace {
						return
					}
					for id := range uint64(len(v.states)) {
						if id > 300 && id%89 != 0 && id != uint64(len(v.states))-1 {
							continue
						}
						path, err := s.Path(id)
						if err != nil {
							t.Fatalf("Path(%d): %v", id, err)
						}
						want, err := seqSearch.Path(id)
						if err != nil {
							t.Fatalf("sequential Path(%d): %v", id, err)
						}
						if d := pathDiff(path, want); d != "" {
							t.Fatalf("Path(%d) against the sequential search's: %s", id, d)
						}
						for i := 1; i < len(path); i++ {
							if !successorOf(m, path[i-1].State, path[i].Label, path[i].State) {
								t.Fatalf("Path(%d): step %d is not a transition", id, i)
							}
						}
					}
				})
			}
		}
	}
}

// TestParallelStopsLikeSequential checks that a search stopped by MaxStates
// or by Visit stops where the sequential one does, with the same counts and
// the same visits.
func TestParallelStopsLikeSequential(t *testing.T) {
	for _, tt := range parallelMachines() {
		total, err := New(tt.m(), Options{}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []uint64{1, 2, 7, total.States / 3, total.States - 1, total.States} {
			for _, byVisit := range []bool{false, true} {
				run := func(workers int) (Result, visited) {
					var v visited
					record := v.visit(t)
					opt := Options{Workers: workers, Visit: record}
					if byVisit {
						opt.Visit = func(id uint64, s []byte, d int) bool { return record(id, s, d) && id+1 < at }
					} else {
						opt.MaxStates = at
					}
					res, err := New(tt.m(), opt).Run(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					return res, v
				}
				seq, sv := run(1)
				for _, workers := range []int{2, 3} {
					res, v := run(workers)
					if d := sameRun(res, seq); d != "" {
						t.Fatalf("%s, stop at %d (visit %v), %d workers: %s", tt.name, at, byVisit, workers, d)
					}
					for id := range v.states {
						if !bytes.Equal(v.states[id], sv.states[id]) {
							t.Fatalf("%s, stop at %d, %d workers: state %d differs", tt.name, at, workers, id)
						}
					}
				}
			}
		}
	}
}

// noClone hides the Clone method of the machine it wraps.
type noClone struct{ Machine }

func TestParallelFallback(t *testing.T) {
	res, err := New(noClone{&grid{k: 3, n: 5}}, Options{Workers: 4}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Workers != 1 || res.Fallback == "" || res.States != 125 {
		t.Errorf("without Clone: %+v", res)
	}
	res, err = New(&grid{k: 3, n: 5}, Options{Workers: 4, Order: DFS}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Workers != 1 || res.Fallback == "" || res.States != 125 {
		t.Errorf("DFS: %+v", res)
	}
	res, err = New(&grid{k: 3, n: 5}, Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Workers != 1 || res.Fallback != "" {
		t.Errorf("sequential: %+v", res)
	}
}

func TestParallelBounds(t *testing.T) {
	const total = 20736 // grid 4x12
	for _, workers := range []int{2, 4} {
		for _, max := range []uint64{1, 10, 1000, total - 1, total, total + 1} {
			t.Run(fmt.Sprintf("max%d/w%d", max, workers), func(t *testing.T) {
				visits := uint64(0)
				res, err := New(&grid{k: 4, n: 12}, Options{
					Workers: workers, MaxStates: max, Trace: true,
					Visit: serialVisit(t, func(uint64, []byte, int) bool { visits++; return true }),
				}).Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				wantStop, want := StateLimit, max
				if max >= total {
					wantStop, want = Complete, total
				}
				if res.Stop != wantStop || res.States != want || visits != want {
					t.Errorf("Stop, States, visits = %v, %d, %d; want %v, %d", res.Stop, res.States, visits, wantStop, want)
				}
			})
		}
		t.Run(fmt.Sprintf("visit/w%d", workers), func(t *testing.T) {
			var last, calls uint64
			res, err := New(&grid{k: 4, n: 12}, Options{Workers: workers, Visit: serialVisit(t, func(id uint64, _ []byte, _ int) bool {
				last = id
				calls++
				return id < 5000
			})}).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != Stopped || res.States != 5001 || last != 5000 || calls != 5001 {
				t.Errorf("Stop, States, last, calls = %v, %d, %d, %d; want %v, 5001, 5000, 5001", res.Stop, res.States, last, calls, Stopped)
			}
		})
		t.Run(fmt.Sprintf("visit initial/w%d", workers), func(t *testing.T) {
			res, err := New(&grid{k: 3, n: 5}, Options{Workers: workers, Visit: func(uint64, []byte, int) bool { return false }}).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != Stopped || res.States != 1 || res.Transitions != 0 {
				t.Errorf("got %+v", res)
			}
		})
		t.Run(fmt.Sprintf("canceled before/w%d", workers), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			res, err := New(&grid{k: 3, n: 5}, Options{Workers: workers}).Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != Canceled || res.States != 1 || res.Transitions != 0 || res.Frontier != 1 {
				t.Errorf("got %+v", res)
			}
		})
		t.Run(fmt.Sprintf("canceled during/w%d", workers), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const at = 5000
			var after atomic.Int64
			res, err := New(&wide{k: 3, depth: 30}, Options{Workers: workers, Visit: func(id uint64, _ []byte, _ int) bool {
				if id == at {
					cancel()
				}
				if id > at {
					after.Add(1)
				}
				return true
			}}).Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != Canceled || res.States <= at {
				t.Errorf("Stop, States = %v, %d; want %v, more than %d", res.Stop, res.States, Canceled, at)
			}
		})
		t.Run(fmt.Sprintf("canceled from another goroutine/w%d", workers), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			res, err := New(&wide{k: 3, depth: 40}, Options{Workers: workers}).Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != Canceled {
				t.Errorf("Stop = %v, want %v", res.Stop, Canceled)
			}
		})
		t.Run(fmt.Sprintf("timeout/w%d", workers), func(t *testing.T) {
			const timeout = 50 * time.Millisecond
			res, err := New(&line{}, Options{Workers: workers, Timeout: timeout}).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != TimeLimit || res.Elapsed < timeout {
				t.Errorf("Stop, Elapsed = %v, %v; want %v, about %v", res.Stop, res.Elapsed, TimeLimit, timeout)
			}
			if res.States < 2 || res.MaxDepth != int(res.States-1) {
				t.Errorf("States, MaxDepth = %d, %d on a line", res.States, res.MaxDepth)
			}
		})
	}
}

func TestParallelStore(t *testing.T) {
	for _, set := range []store.Set{store.NewMem(0), &failingSet{store.NewMem(0), 1 << 30}} {
		res, err := New(&grid{k: 4, n: 9}, Options{Workers: 4, Set: set}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.States != 6561 || set.Len() != res.States || res.StoreBytes != set.Bytes() {
			t.Errorf("%T: States %d, set Len %d, StoreBytes %d, set Bytes %d", set, res.States, set.Len(), res.StoreBytes, set.Bytes())
		}
		if _, err := New(&grid{k: 4, n: 9}, Options{Workers: 4, Set: set}).Run(context.Background()); err == nil {
			t.Errorf("%T: Run with the initial state already in the set succeeded", set)
		}
		set.Close()
	}
	for _, n := range []int{0, 1, 50, 3000} {
		for _, set := range []store.Set{
			&failingSet{store.NewMem(0), n},
			&failingBatchSet{failingSet{store.NewMem(0), n}},
		} {
			res, err := New(&grid{k: 4, n: 9}, Options{Workers: 4, Set: set}).Run(context.Background())
			if !errors.Is(err, errFull) {
				t.Errorf("%T failing after %d inserts: err = %v, want %v", set, n, err, errFull)
			}
			if res.States > uint64(n) {
				t.Errorf("%T failing after %d inserts: %d states", set, n, res.States)
			}
		}
	}
}

// panicky panics when it expands the state at depth 3 of a grid.
type panicky struct{ grid }

func (p *panicky) Clone() Machine { return &panicky{grid{k: p.k, n: p.n}} }

func (p *panicky) Successors(s []byte, emit func(Label, []byte)) Pruned {
	if p.grid.dist(s) == 3 {
		panic("boom")
	}
	return p.grid.Successors(s, emit)
}

func TestParallelPanic(t *testing.T) {
	defer func() {
		v := recover()
		if s, ok := v.(string); !ok || !strings.HasPrefix(s, "boom") {
			t.Errorf("recovered %v, want the machine's panic", v)
		}
	}()
	New(&panicky{grid{k: 3, n: 5}}, Options{Workers: 2}).Run(context.Background())
	t.Errorf("Run returned")
}

// TestParallelVisitPanic checks that a panic in Visit, which runs on the
// goroutine of Run, leaves Run with the visitor's value after the workers
// stopped.
func TestParallelVisitPanic(t *testing.T) {
	var running atomic.Int32
	// A level of many blocks: the workers are ahead of the commits.
	m := &counting{wide: wide{k: 3, depth: 12}, running: &running}
	before := runtime.NumGoroutine()
	func() {
		defer func() {
			if v := recover(); v != "visit boom" {
				t.Errorf("recovered %v, want the visitor's panic", v)
			}
		}()
		New(m, Options{Workers: 3, Visit: func(id uint64, _ []byte, _ int) bool {
			if id == 20000 {
				panic("visit boom")
			}
			return true
		}}).Run(context.Background())
		t.Errorf("Run returned")
	}()
	if n := running.Load(); n != 0 {
		t.Errorf("%d workers still expanding states after Run", n)
	}
	for i := 0; runtime.NumGoroutine() > before; i++ {
		if i == 100 {
			t.Fatalf("%d goroutines after Run, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// counting is a wide machine that counts the calls of Successors in
// progress, over all its clones.
type counting struct {
	wide
	running *atomic.Int32
}

func (c *counting) Clone() Machine {
	return &counting{wide: wide{k: c.k, depth: c.depth}, running: c.running}
}

func (c *counting) Successors(s []byte, emit func(Label, []byte)) Pruned {
	c.running.Add(1)
	defer c.running.Add(-1)
	return c.wide.Successors(s, emit)
}

// exclusive is a grid that reports any concurrent use of one instance.
type exclusive struct {
	grid
	busy    atomic.Bool
	clashes *atomic.Int64
}

func (e *exclusive) Clone() Machine {
	return &exclusive{grid: grid{k: e.k, n: e.n}, clashes: e.clashes}
}

func (e *exclusive) Successors(s []byte, emit func(Label, []byte)) Pruned {
	if !e.busy.CompareAndSwap(false, true) {
		e.clashes.Add(1)
		return e.grid.Clone().Successors(s, emit)
	}
	defer e.busy.Store(false)
	return e.grid.Successors(s, emit)
}

// TestParallelMachinePerWorker checks that workers never share a machine, and
// that Visit may use the machine passed to New while workers run.
func TestParallelMachinePerWorker(t *testing.T) {
	m := &exclusive{grid: grid{k: 4, n: 10}, clashes: new(atomic.Int64)}
	res, err := New(m, Options{Workers: 4, Visit: func(_ uint64, s []byte, _ int) bool {
		m.Successors(s, func(Label, []byte) {})
		return true
	}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.States != 10000 || m.clashes.Load() != 0 {
		t.Errorf("States = %d, %d concurrent uses of one machine", res.States, m.clashes.Load())
	}
}

// selfCloning is a grid whose Clone returns its own type, as the machines of
// other packages do; clones counts the clones made.
type selfCloning struct {
	grid
	clones *int
}

func (m *selfCloning) Clone() *selfCloning {
	*m.clones++
	return &selfCloning{grid{k: m.k, n: m.n, pad: m.pad}, m.clones}
}

// TestCloning: a machine adapted by Cloning runs the parallel search, on a
// clone per worker, and finds what the sequential search finds.
func TestCloning(t *testing.T) {
	for _, workers := range []int{2, 3} {
		var clones int
		m := &selfCloning{grid{k: 3, n: 7}, &clones}
		want, err := New(m, Options{}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got, err := New(Cloning(m), Options{Workers: workers}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got.Workers != workers || got.Fallback != "" || clones != workers {
			t.Errorf("%d workers asked: %d workers, fallback %q, %d clones", workers, got.Workers, got.Fallback, clones)
		}
		if d := sameRun(got, want); d != "" {
			t.Errorf("%d workers: %s", workers, d)
		}
	}
}
