package explore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"rdmasim/store"
)

// Synthetic machines with known state spaces.

// distancer is implemented by test machines that know the length of a
// shortest run from the initial state to each state.
type distancer interface {
	dist(s []byte) int
}

// grid has k counters, each in [0, n); a transition increments one counter
// that is below n-1. It has n^k states, k*n^(k-1)*(n-1) transitions, and every
// run to a state has the same length: the sum of its counters. Each state is
// followed by pad zero bytes.
type grid struct {
	k, n, pad int
	buf       []byte
}

func (g *grid) Initial(dst []byte) []byte { return append(dst, make([]byte, g.k+g.pad)...) }

func (g *grid) Successors(s []byte, emit func(Label, []byte)) Pruned {
	g.buf = append(g.buf[:0], s...)
	for i := range g.k {
		if int(g.buf[i]) < g.n-1 {
			g.buf[i]++
			emit(Label(i+1), g.buf)
			g.buf[i]--
		}
	}
	return 0
}

func (g *grid) dist(s []byte) int {
	d := 0
	for _, c := range s[:g.k] {
		d += int(c)
	}
	return d
}

// ring is a counter modulo n with transitions +1 and +2: n states, 2n
// transitions, and state x at distance ceil(x/2).
type ring struct {
	n   uint32
	buf []byte
}

func (r *ring) Initial(dst []byte) []byte { return binary.LittleEndian.AppendUint32(dst, 0) }

func (r *ring) Successors(s []byte, emit func(Label, []byte)) Pruned {
	x := binary.LittleEndian.Uint32(s)
	for d := uint32(1); d <= 2; d++ {
		r.buf = binary.LittleEndian.AppendUint32(r.buf[:0], (x+d)%r.n)
		emit(Label(d), r.buf)
	}
	return 0
}

func (r *ring) dist(s []byte) int { return int(binary.LittleEndian.Uint32(s)+1) / 2 }

// tree is the complete binary tree of the given depth; a state is the path of
// 0s and 1s from the root, so encodings vary in length. It has 2^(depth+1)-1
// states and one fewer transitions.
type tree struct {
	depth int
	buf   []byte
}

func (t *tree) Initial(dst []byte) []byte { return dst }

func (t *tree) Successors(s []byte, emit func(Label, []byte)) Pruned {
	if len(s) == t.depth {
		return 0
	}
	t.buf = append(append(t.buf[:0], s...), 0)
	for b := range byte(2) {
		t.buf[len(s)] = b
		emit(Label(b+1), t.buf)
	}
	return 0
}

func (t *tree) dist(s []byte) int { return len(s) }

// pruning is a grid that reports bound 1 on states whose first counter is at
// its maximum, and bound 4 on the states whose counters are all at their
// maximum.
type pruning struct{ grid }

func (p *pruning) Successors(s []byte, emit func(Label, []byte)) Pruned {
	p.grid.Successors(s, emit)
	var pr Pruned
	if int(s[0]) == p.n-1 {
		pr |= 1
	}
	if p.grid.dist(s) == p.k*(p.n-1) {
		pr |= 4
	}
	return pr
}

// line is the infinite chain 0 -> 1 -> 2 -> ..., each state a uint64. If
// sleepEvery is positive, expanding every sleepEvery-th state sleeps for a
// millisecond.
type line struct {
	sleepEvery uint64
	buf        []byte
}

func (l *line) Initial(dst []byte) []byte { return binary.LittleEndian.AppendUint64(dst, 0) }

func (l *line) Successors(s []byte, emit func(Label, []byte)) Pruned {
	x := binary.LittleEndian.Uint64(s)
	if l.sleepEvery > 0 && x%l.sleepEvery == 0 {
		time.Sleep(time.Millisecond)
	}
	l.buf = binary.LittleEndian.AppendUint64(l.buf[:0], x+1)
	emit(1, l.buf)
	return 0
}

// fan has an initial state with n successors, each a dead end.
type fan struct{ n int }

func (f *fan) Initial(dst []byte) []byte { return append(dst, 0) }

func (f *fan) Successors(s []byte, emit func(Label, []byte)) Pruned {
	if s[0] != 0 {
		return 2
	}
	for i := range f.n {
		emit(Label(i+1), []byte{byte(i + 1)})
	}
	return 0
}

// blobs is a chain of n states whose encodings are larger than a frontier
// chunk: state i is size bytes equal to i.
type blobs struct{ n, size int }

func (b *blobs) Initial(dst []byte) []byte { return append(dst, make([]byte, b.size)...) }

func (b *blobs) Successors(s []byte, emit func(Label, []byte)) Pruned {
	if int(s[0]) < b.n-1 {
		emit(1, bytes.Repeat([]byte{s[0] + 1}, b.size))
	}
	return 0
}

// visited collects what Visit reports.
type visited struct {
	states [][]byte
	depths []int
}

func (v *visited) visit(t *testing.T) func(uint64, []byte, int) bool {
	return func(id uint64, s []byte, depth int) bool {
		if id != uint64(len(v.states)) {
			t.Fatalf("Visit id %d, want %d (discovery order)", id, len(v.states))
		}
		v.states = append(v.states, bytes.Clone(s))
		v.depths = append(v.depths, depth)
		return true
	}
}

// pathDiff describes how the run p differs from the run q; "" if it does not.
func pathDiff(p, q []Step) string {
	if len(p) != len(q) {
		return fmt.Sprintf("%d steps, want %d", len(p), len(q))
	}
	for i := range p {
		if p[i].Label != q[i].Label || !bytes.Equal(p[i].State, q[i].State) {
			return fmt.Sprintf("step %d is %v %x, want %v %x", i, p[i].Label, p[i].State, q[i].Label, q[i].State)
		}
	}
	return ""
}

// successorOf reports whether next is emitted by m from s with label l.
func successorOf(m Machine, s []byte, l Label, next []byte) bool {
	found := false
	m.Successors(s, func(l2 Label, n2 []byte) {
		if l2 == l && bytes.Equal(n2, next) {
			found = true
		}
	})
	return found
}

func TestSearch(t *testing.T) {
	tests := []struct {
		name        string
		m           func() Machine
		states      uint64
		transitions uint64
		depth       int // BFS max depth
		pruned      Pruned
	}{
		{"grid 1x1", func() Machine { return &grid{k: 1, n: 1} }, 1, 0, 0, 0},
		{"grid 3x5", func() Machine { return &grid{k: 3, n: 5} }, 125, 3 * 25 * 4, 12, 0},
		{"grid 4x7", func() Machine { return &grid{k: 4, n: 7} }, 2401, 4 * 343 * 6, 24, 0},
		{"grid 2x30 padded", func() Machine { return &grid{k: 2, n: 30, pad: 100} }, 900, 2 * 30 * 29, 58, 0},
		{"ring 1", func() Machine { return &ring{n: 1} }, 1, 2, 0, 0},
		{"ring 1000", func() Machine { return &ring{n: 1000} }, 1000, 2000, 500, 0},
		{"tree 10", func() Machine { return &tree{depth: 10} }, 2047, 2046, 10, 0},
		{"pruning 3x4", func() Machine { return &pruning{grid{k: 3, n: 4}} }, 64, 3 * 16 * 3, 9, 1 | 4},
		{"fan 5", func() Machine { return &fan{n: 5} }, 6, 5, 1, 2},
		{"blobs", func() Machine { return &blobs{n: 4, size: defaultChunk + 10} }, 4, 3, 3, 0},
	}
	for _, tt := range tests {
		for _, order := range []Order{BFS, DFS} {
			t.Run(fmt.Sprintf("%s/%v", tt.name, order), func(t *testing.T) {
				m := tt.m()
				var v visited
				s := New(m, Options{Order: order, Trace: true, Visit: v.visit(t)})
				res, err := s.Run(context.Background())
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if res.Stop != Complete {
					t.Errorf("Stop = %v, want %v", res.Stop, Complete)
				}
				if res.States != tt.states {
					t.Errorf("States = %d, want %d", res.States, tt.states)
				}
				if res.Transitions != tt.transitions {
					t.Errorf("Transitions = %d, want %d", res.Transitions, tt.transitions)
				}
				if res.Pruned != tt.pruned {
					t.Errorf("Pruned = %#x, want %#x", res.Pruned, tt.pruned)
				}
				if res.Frontier != 0 {
					t.Errorf("Frontier = %d after a complete search, want 0", res.Frontier)
				}
				if res.StoreBytes == 0 {
					t.Errorf("StoreBytes = 0")
				}
				if order == BFS && res.MaxDepth != tt.depth || order == DFS && res.MaxDepth < tt.depth {
					t.Errorf("MaxDepth = %d, want %d (BFS) or at least %d (DFS)", res.MaxDepth, tt.depth, tt.depth)
				}

				// Visit saw every state exactly once.
				if uint64(len(v.states)) != res.States {
					t.Fatalf("Visit called %d times, want %d", len(v.states), res.States)
				}
				seen := make(map[string]bool)
				for id, st := range v.states {
					if seen[string(st)] {
						t.Fatalf("state %d (%x) visited twice", id, st)
					}
					seen[string(st)] = true
				}
				if !bytes.Equal(v.states[0], m.Initial(nil)) || v.depths[0] != 0 {
					t.Errorf("first visit = %x at depth %d, want the initial state at depth 0", v.states[0], v.depths[0])
				}
				if slices.Max(v.depths) != res.MaxDepth {
					t.Errorf("greatest visited depth %d != MaxDepth %d", slices.Max(v.depths), res.MaxDepth)
				}
				if order == BFS && !slices.IsSorted(v.depths) {
					t.Errorf("BFS visited states out of depth order")
				}

				// Path rebuilds a run to each state, of the reported depth,
				// which is shortest after BFS.
				d, _ := m.(distancer)
				for id := range uint64(len(v.states)) {
					if id > 200 && id%97 != 0 && id != uint64(len(v.states))-1 {
						continue
					}
					path, err := s.Path(id)
					if err != nil {
						t.Fatalf("Path(%d): %v", id, err)
					}
					if len(path)-1 != v.depths[id] {
						t.Fatalf("Path(%d) has %d steps, Visit reported depth %d", id, len(path)-1, v.depths[id])
					}
					if d != nil {
						want := d.dist(v.states[id])
						if order == BFS && v.depths[id] != want || v.depths[id] < want {
							t.Fatalf("state %d (%x) at depth %d, distance %d", id, v.states[id], v.depths[id], want)
						}
					}
					if path[0].Label != 0 || !bytes.Equal(path[0].State, m.Initial(nil)) {
						t.Fatalf("Path(%d)[0] = {%d, %x}, want the initial state with label 0", id, path[0].Label, path[0].State)
					}
					for i := 1; i < len(path); i++ {
						if !successorOf(m, path[i-1].State, path[i].Label, path[i].State) {
							t.Fatalf("Path(%d): step %d {%d, %x} is not a successor of %x", id, i, path[i].Label, path[i].State, path[i-1].State)
						}
					}
					if last := path[len(path)-1].State; !bytes.Equal(last, v.states[id]) {
						t.Fatalf("Path(%d) ends at %x, want %x", id, last, v.states[id])
					}
				}
				if _, err := s.Path(res.States); err == nil {
					t.Errorf("Path(%d) beyond the last state succeeded", res.States)
				}
			})
		}
	}
}

// TestShortestPath checks BFS witnesses against known distances on the ring,
// where the +2 transitions make most runs longer than the shortest.
func TestShortestPath(t *testing.T) {
	const n = 101
	m := &ring{n: n}
	ids := make(map[uint32]uint64)
	s := New(m, Options{Trace: true, Visit: func(id uint64, st []byte, _ int) bool {
		ids[binary.LittleEndian.Uint32(st)] = id
		return true
	}})
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, x := range []uint32{0, 1, 2, 3, 50, 99, 100} {
		path, err := s.Path(ids[x])
		if err != nil {
			t.Fatalf("Path to %d: %v", x, err)
		}
		if want := int(x+1) / 2; len(path)-1 != want {
			t.Errorf("Path to %d has %d steps, want %d", x, len(path)-1, want)
		}
		if got := binary.LittleEndian.Uint32(path[len(path)-1].State); got != x {
			t.Errorf("Path to %d ends at %d", x, got)
		}
	}
}

func TestMaxStates(t *testing.T) {
	const total = 125 // grid 3x5
	tests := []struct {
		max    uint64
		stop   Stop
		states uint64
	}{
		{1, StateLimit, 1},
		{10, StateLimit, 10},
		{total - 1, StateLimit, total - 1},
		{total, Complete, total},
		{total + 1, Complete, total},
		{0, Complete, total},
	}
	for _, tt := range tests {
		for _, order := range []Order{BFS, DFS} {
			t.Run(fmt.Sprintf("%d/%v", tt.max, order), func(t *testing.T) {
				visits := uint64(0)
				res, err := New(&grid{k: 3, n: 5}, Options{
					Order:     order,
					MaxStates: tt.max,
					Visit:     func(uint64, []byte, int) bool { visits++; return true },
				}).Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if res.Stop != tt.stop || res.States != tt.states {
					t.Errorf("Stop, States = %v, %d; want %v, %d", res.Stop, res.States, tt.stop, tt.states)
				}
				if visits != res.States {
					t.Errorf("Visit called %d times for %d states", visits, res.States)
				}
			})
		}
	}
}

func TestStop(t *testing.T) {
	t.Run("visit", func(t *testing.T) {
		for _, order := range []Order{BFS, DFS} {
			var last uint64
			res, err := New(&grid{k: 3, n: 5}, Options{Order: order, Visit: func(id uint64, _ []byte, _ int) bool {
				last = id
				return id < 7
			}}).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != Stopped || res.States != 8 || last != 7 {
				t.Errorf("%v: Stop, States, last id = %v, %d, %d; want %v, 8, 7", order, res.Stop, res.States, last, Stopped)
			}
		}
	})
	t.Run("visit initial", func(t *testing.T) {
		res, err := New(&grid{k: 3, n: 5}, Options{Visit: func(uint64, []byte, int) bool { return false }}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Stop != Stopped || res.States != 1 || res.Transitions != 0 {
			t.Errorf("Stop, States, Transitions = %v, %d, %d; want %v, 1, 0", res.Stop, res.States, res.Transitions, Stopped)
		}
	})
	t.Run("canceled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := New(&grid{k: 3, n: 5}, Options{}).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stop != Canceled || res.States != 1 || res.Transitions != 0 || res.Frontier != 1 {
			t.Errorf("got %+v, want Canceled with 1 state, 0 transitions, frontier 1", res)
		}
	})
	t.Run("canceled during", func(t *testing.T) {
		for _, order := range []Order{BFS, DFS} {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const at = 5000
			res, err := New(&line{}, Options{Order: order, Visit: func(id uint64, _ []byte, _ int) bool {
				if id == at {
					cancel()
				}
				return true
			}}).Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != Canceled || res.States <= at || res.States > at+checkEvery+1 {
				t.Errorf("%v: Stop, States = %v, %d; want %v, in (%d, %d]", order, res.Stop, res.States, Canceled, at, at+checkEvery+1)
			}
		}
	})
	t.Run("canceled from another goroutine", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		res, err := New(&line{}, Options{}).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stop != Canceled {
			t.Errorf("Stop = %v, want %v", res.Stop, Canceled)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		const timeout = 50 * time.Millisecond
		res, err := New(&line{}, Options{Timeout: timeout}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Stop != TimeLimit || res.Elapsed < timeout {
			t.Errorf("Stop, Elapsed = %v, %v; want %v, about %v", res.Stop, res.Elapsed, TimeLimit, timeout)
		}
		if res.States < 2 || res.MaxDepth != int(res.States-1) {
			t.Errorf("States, MaxDepth = %d, %d on a line; want MaxDepth = States-1", res.States, res.MaxDepth)
		}
	})
}

// TestProgress: both searches report their progress about once a second,
// named by Options.Name, with counts consistent with their results.
func TestProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("takes seconds")
	}
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("w%d", workers), func(t *testing.T) {
			var snaps []Stats
			res, err := New(&line{sleepEvery: 16}, Options{
				Timeout:  2500 * time.Millisecond,
				Workers:  workers,
				Name:     "line",
				Progress: func(st Stats) { snaps = append(snaps, st) },
			}).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(snaps) < 1 || len(snaps) > 2 {
				t.Fatalf("Progress called %d times in %v, want 1 or 2", len(snaps), res.Elapsed)
			}
			if res.Search != "" {
				t.Errorf("the result is named %q", res.Search)
			}
			for i, st := range snaps {
				if st.Elapsed < time.Duration(i+1)*time.Second || st.Elapsed > res.Elapsed ||
					st.States == 0 || st.States > res.States || st.Transitions != st.States-1 || st.Frontier != 1 || st.Search != "line" {
					t.Errorf("snapshot %d %+v inconsistent with result %+v", i, st, res.Stats)
				}
				if i > 0 && st.States < snaps[i-1].States {
					t.Errorf("snapshot %d has %d states, snapshot %d had %d", i, st.States, i-1, snaps[i-1].States)
				}
			}
		})
	}
}

func TestStore(t *testing.T) {
	set := store.NewMem(0)
	defer set.Close()
	res, err := New(&grid{k: 3, n: 5}, Options{Set: set}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != res.States || res.StoreBytes != set.Bytes() {
		t.Errorf("set Len, Bytes = %d, %d; result States, StoreBytes = %d, %d", set.Len(), set.Bytes(), res.States, res.StoreBytes)
	}
	// A Set that is not a store.BatchInserter gives the same search.
	var withBatch, without visited
	New(&grid{k: 3, n: 5}, Options{Order: DFS, Visit: withBatch.visit(t)}).Run(context.Background())
	plain := &failingSet{store.NewMem(0), 1 << 30}
	res2, err := New(&grid{k: 3, n: 5}, Options{Order: DFS, Set: plain, Visit: without.visit(t)}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res2.States != res.States || res2.Transitions != res.Transitions ||
		!slices.EqualFunc(withBatch.states, without.states, bytes.Equal) || !slices.Equal(withBatch.depths, without.depths) {
		t.Errorf("search with a plain Set differs from one with a store.Mem")
	}

	// The set now holds the initial state.
	if _, err := New(&grid{k: 3, n: 5}, Options{Set: set}).Run(context.Background()); err == nil {
		t.Errorf("Run with the initial state already in the set succeeded")
	}
}

var errFull = errors.New("full")

// failingSet fails every Insert after the first n.
type failingSet struct {
	mem *store.Mem
	n   int
}

func (f *failingSet) Insert(fp store.Fingerprint) (bool, error) {
	if f.n == 0 {
		return false, errFull
	}
	f.n--
	return f.mem.Insert(fp)
}

func (f *failingSet) Len() uint64   { return f.mem.Len() }
func (f *failingSet) Bytes() uint64 { return f.mem.Bytes() }
func (f *failingSet) Close() error  { return f.mem.Close() }

// failingBatchSet is a failingSet that is also a store.BatchInserter.
type failingBatchSet struct{ failingSet }

func (f *failingBatchSet) InsertBatch(fps []store.Fingerprint, added []bool) error {
	for i, fp := range fps {
		var err error
		if added[i], err = f.Insert(fp); err != nil {
			return err
		}
	}
	return nil
}

func TestErrors(t *testing.T) {
	for _, n := range []int{0, 1, 50} {
		for _, order := range []Order{BFS, DFS} {
			for _, set := range []store.Set{
				&failingSet{store.NewMem(0), n},
				&failingBatchSet{failingSet{store.NewMem(0), n}},
			} {
				res, err := New(&grid{k: 3, n: 5}, Options{Order: order, Set: set}).Run(context.Background())
				if !errors.Is(err, errFull) {
					t.Errorf("%v, %T failing after %d inserts: err = %v, want %v", order, set, n, err, errFull)
				}
				if res.States > uint64(n) {
					t.Errorf("%v, %T failing after %d inserts: %d states", order, set, n, res.States)
				}
			}
		}
	}

	s := New(&grid{k: 2, n: 2}, Options{})
	if _, err := s.Path(0); err == nil {
		t.Errorf("Path without Trace succeeded")
	}
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background()); err == nil {
		t.Errorf("second Run succeeded")
	}

	s = New(&grid{k: 2, n: 2}, Options{Trace: true})
	if _, err := s.Path(0); err == nil {
		t.Errorf("Path before Run succeeded")
	}
}

// shrinking emits fewer successors every time it is called: a
// nondeterministic machine.
type shrinking struct{ calls int }

func (m *shrinking) Initial(dst []byte) []byte { return append(dst, 0) }

func (m *shrinking) Successors(s []byte, emit func(Label, []byte)) Pruned {
	m.calls++
	if s[0] == 0 {
		for i := range 10 - m.calls {
			emit(1, []byte{byte(i + 1)})
		}
	}
	return 0
}

func TestPathNondeterministic(t *testing.T) {
	m := &shrinking{}
	var last uint64
	s := New(m, Options{Trace: true, Visit: func(id uint64, _ []byte, _ int) bool { last = id; return true }})
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Path(last); err == nil {
		t.Errorf("Path replay on a nondeterministic machine succeeded")
	}
}

func TestRunAllocations(t *testing.T) {
	allocs := func(m Machine, opt Options) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := New(m, opt).Run(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, opt := range []Options{{}, {Order: DFS}, {Trace: true}} {
		small := allocs(&grid{k: 4, n: 4}, opt)  // 256 states
		large := allocs(&grid{k: 4, n: 20}, opt) // 160,000 states
		if large-small > 40 {
			t.Errorf("%+v: %v allocations for 256 states, %v for 160000", opt, small, large)
		}
	}
}

// Frontier unit tests, with tiny chunks so that entries straddle chunk
// boundaries and some entries exceed a chunk.

func entry(i int) []byte {
	return bytes.Repeat([]byte{byte(i), byte(i >> 8)}, i%37)
}

// TestFIFO pushes and pops at random, checking the order and contents of the
// queue, that popped strings stay valid until the next pop, and, with a
// budget, that chunks spill and come back, that at most a few chunks beyond
// the budget are in memory, that writeTo writes the whole queue in order, and
// that segment files are removed once read.
func TestFIFO(t *testing.T) {
	tests := []struct {
		name   string
		chunk  int
		budget int64 // 0: no spilling
		push   int   // percent of operations that push
		ops    int
	}{
		{"in memory", 40, 0, 52, 100_000},
		{"budget of one chunk", 40, 40, 52, 6_000},
		{"budget of one 4 KiB chunk, growing", 4096, 4096, 60, 100_000},
		{"budget of three chunks, growing fast", 64, 192, 75, 8_000},
		{"budget of ten chunks", 256, 2560, 52, 100_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			dir := t.TempDir()
			q := fifo{chunk: tt.chunk}
			if tt.budget > 0 {
				q.setSpill(dir, tt.budget)
			}
			var ref []int
			var last []byte
			lastWant := -1
			pushed := 0
			spilled := uint64(0)
			for op := range tt.ops {
				if rng.IntN(100) < tt.push {
					if err := q.push(entry(pushed)); err != nil {
						t.Fatal(err)
					}
					ref = append(ref, pushed)
					pushed++
				} else {
					if lastWant >= 0 && !bytes.Equal(last, entry(lastWant)) {
						t.Fatalf("string %d changed before the next pop: %x", lastWant, last)
					}
					b, ok, err := q.pop()
					if err != nil {
						t.Fatal(err)
					}
					if ok != (len(ref) > 0) {
						t.Fatalf("pop ok = %v with %d queued", ok, len(ref))
					}
					lastWant = -1
					if ok {
						if !bytes.Equal(b, entry(ref[0])) {
							t.Fatalf("pop = %x, want entry %d = %x", b, ref[0], entry(ref[0]))
						}
						last, lastWant = b, ref[0]
						ref = ref[1:]
					}
				}
				if q.len() != uint64(len(ref)) {
					t.Fatalf("len = %d, want %d", q.len(), len(ref))
				}
				inMem := len(q.chunks) - q.head
				if q.spill != nil {
					inMem += len(q.spill.back)
					spilled = max(spilled, q.spill.nsegs)
					if limit := max(int(tt.budget)/tt.chunk, 2) + 1; inMem > limit {
						t.Fatalf("op %d: %d chunks in memory with a budget of %d of %d bytes", op, inMem, tt.budget, tt.chunk)
					}
				} else if inMem > len(ref)+2 {
					t.Fatalf("%d chunks in use for %d entries", inMem, len(ref))
				}
				if op%4999 == 0 {
					checkFIFOWrite(t, &q, ref)
					checkSegments(t, &q, dir)
				}
			}
			if tt.budget > 0 && spilled < 10 {
				t.Fatalf("only %d segments written", spilled)
			}
			checkFIFOWrite(t, &q, ref)
			if len(ref) == 0 {
				t.Fatal("the queue ended empty: the test does not check close")
			}
			// Drain half, then close with the rest queued.
			for range len(ref) / 2 {
				b, ok, err := q.pop()
				if err != nil || !ok || !bytes.Equal(b, entry(ref[0])) {
					t.Fatalf("pop = %x, %v, %v; want entry %d", b, ok, err, ref[0])
				}
				ref = ref[1:]
			}
			checkFIFOWrite(t, &q, ref)
			checkSegments(t, &q, dir)
			if err := q.close(); err != nil {
				t.Fatal(err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Fatalf("%d files left after close", len(ents))
			}
		})
	}
}

// checkFIFOWrite checks that q.writeTo writes the entries of ref, in order.
func checkFIFOWrite(t *testing.T, q *fifo, ref []int) {
	t.Helper()
	var buf bytes.Buffer
	if err := q.writeTo(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	for i, e := range ref {
		if len(b) < 4 {
			t.Fatalf("writeTo wrote %d entries, want %d", i, len(ref))
		}
		l := int(binary.LittleEndian.Uint32(b))
		if len(b) < 4+l || !bytes.Equal(b[4:4+l], entry(e)) {
			t.Fatalf("writeTo: entry %d is not entry %d", i, e)
		}
		b = b[4+l:]
	}
	if len(b) > 0 {
		t.Fatalf("writeTo wrote %d bytes past the %d entries", len(b), len(ref))
	}
}

// checkSegments checks the fifo's segments: their files are open, their
// sizes add up to diskBytes, and none is left in dir where the system lets a
// segment be removed at its creation.
func checkSegments(t *testing.T, q *fifo, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	linked := 0
	var disk uint64
	if q.spill != nil {
		for _, sg := range q.spill.segs {
			fi, err := sg.f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			disk += uint64(fi.Size())
			if sg.linked {
				linked++
			}
		}
	}
	if len(ents) != linked || disk != q.diskBytes() {
		t.Fatalf("%d files in the spill directory, %d segments still linked; %d bytes in the segments, diskBytes %d", len(ents), linked, disk, q.diskBytes())
	}
	if runtime.GOOS == "linux" && linked > 0 {
		t.Fatalf("%d segments left in the spill directory", linked)
	}
}

func TestLIFO(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	st := lifo{chunk: 64}
	var ref []int
	var last []byte
	lastWant := -1
	pushed := 0
	for range 100_000 {
		if rng.IntN(100) < 52 {
			st.push(entry(pushed), uint64(pushed)<<32, pushed%1000)
			ref = append(ref, pushed)
			pushed++
		} else {
			if lastWant >= 0 && !bytes.Equal(last, entry(lastWant)) {
				t.Fatalf("string %d changed before the next pop: %x", lastWant, last)
			}
			b, id, depth, ok := st.pop()
			if ok != (len(ref) > 0) {
				t.Fatalf("pop ok = %v with %d stacked", ok, len(ref))
			}
			lastWant = -1
			if ok {
				want := ref[len(ref)-1]
				if !bytes.Equal(b, entry(want)) || id != uint64(want)<<32 || depth != want%1000 {
					t.Fatalf("pop = %x, %d, %d; want entry %d", b, id, depth, want)
				}
				last, lastWant = b, want
				ref = ref[:len(ref)-1]
			}
		}
		if st.len() != uint64(len(ref)) {
			t.Fatalf("len = %d, want %d", st.len(), len(ref))
		}
	}
}

func TestStopString(t *testing.T) {
	for s, want := range map[Stop]string{
		Complete: "complete", StateLimit: "state limit", TimeLimit: "time limit",
		Canceled: "interrupted", Stopped: "stopped", Stop(9): "Stop(9)",
	} {
		if got := s.String(); got != want {
			t.Errorf("Stop(%d).String() = %q, want %q", int(s), got, want)
		}
	}
	if BFS.String() != "bfs" || DFS.String() != "dfs" {
		t.Errorf("Order strings = %q, %q", BFS, DFS)
	}
}
