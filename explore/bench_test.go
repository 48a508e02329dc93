package explore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkBFS measures complete searches of grid machines: 4 counters in
// [0, 24) (331,776 states, 1,216,512 transitions) and 5 counters in [0, 18)
// (1,889,568 states), with encodings padded to the given size. It reports the
// rate of distinct states, the bytes allocated per state (frontier, visited
// set and its growth, trace) and the size of the visited set per state.
func BenchmarkBFS(b *testing.B) {
	for _, bc := range []struct {
		k, n, size int
		opt        Options
	}{
		{4, 24, 8, Options{}},
		{4, 24, 64, Options{}},
		{4, 24, 8, Options{Trace: true}},
		{4, 24, 8, Options{Order: DFS}},
		{5, 18, 8, Options{}},
	} {
		name := fmt.Sprintf("grid%dx%d/%dB", bc.k, bc.n, bc.size)
		if bc.opt.Trace {
			name += "/trace"
		}
		if bc.opt.Order == DFS {
			name += "/dfs"
		}
		b.Run(name, func(b *testing.B) {
			benchSearch(b, &grid{k: bc.k, n: bc.n, pad: bc.size - bc.k}, bc.opt)
		})
	}
}

func benchSearch(b *testing.B, m Machine, opt Options) {
	var (
		states, storeBytes uint64
		before, after      runtime.MemStats
	)
	runtime.ReadMemStats(&before)
	for b.Loop() {
		res, err := New(m, opt).Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if res.Stop != Complete {
			b.Fatalf("Stop = %v", res.Stop)
		}
		states += res.States
		storeBytes += res.StoreBytes
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(states), "bytes/state")
	b.ReportMetric(float64(storeBytes)/float64(states), "store-bytes/state")
}

// BenchmarkWalk measures random walks on a grid machine, reporting steps per
// second.
func BenchmarkWalk(b *testing.B) {
	m := &grid{k: 8, n: 1000, pad: 56}
	w := NewWalker(m, rand.New(rand.NewPCG(1, 2)), WalkerOptions{MaxSteps: 1000})
	var steps int
	for b.Loop() {
		steps += w.Walk(nil).Steps
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkBFSWorkers measures complete breadth-first searches of the grid
// machine with 4 counters in [0, 24) (331,776 states) by 1, 2 and 4 workers,
// reporting the rate of distinct states. One worker is the sequential search;
// more run the level-synchronous parallel search. Both use a store.Mem.
func BenchmarkBFSWorkers(b *testing.B) {
	for _, workers := range []int{1, 2, 4} {
		for _, trace := range []bool{false, true} {
			name := fmt.Sprintf("grid4x24/workers=%d", workers)
			if trace {
				name = fmt.Sprintf("grid4x24-trace/workers=%d", workers)
			}
			b.Run(name, func(b *testing.B) {
				benchSearch(b, &grid{k: 4, n: 24, pad: 4}, Options{Workers: workers, Trace: trace})
			})
		}
	}
}
