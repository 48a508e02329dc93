package fuzz

import (
	"context"
	"sort"
	"sync"
	"time"
)

// runner is one Run: workers take program indices from a feeder, check
// each program and count it into the summary, while a watchdog gives up
// on a worker whose program runs past its deadline (and starts another in
// its place). mu guards the summary, the slots and the flags.
type runner struct {
	ctx        context.Context
	opt        Options
	n          int // programs to check, 0: until Duration passes or ctx ends
	workers    int
	stuckAfter time.Duration // the grace after a program's timeout before it is given up on
	start      time.Time

	mu          sync.Mutex
	sum         *Summary
	slots       []*slot // one per worker started
	live        int     // workers not given up on
	stuck       int     // workers given up on, still running
	interrupted bool    // ctx stopped the run early
	ended       bool    // Run gave up waiting: workers drop their results

	quit    chan struct{} // closed when Run ends early
	indices chan int      // the indices of the programs to check, from feed
	exited  chan struct{} // a worker not given up on ran out of indices
}

// slot says what a worker checks and when to give up on it.
type slot struct {
	seed      uint64
	deadline  time.Time // zero: idle
	abandoned bool      // given up on: its result is dropped
}

func newRunner(ctx context.Context, opt Options) *runner {
	r := &runner{
		ctx: ctx, opt: opt, n: opt.Count, workers: max(opt.Workers, 1), stuckAfter: opt.StuckAfter, start: time.Now(),
		sum:  &Summary{Seed: opt.Seed, Skipped: map[string]int{}, Compared: map[string]int{}},
		quit: make(chan struct{}), indices: make(chan int), exited: make(chan struct{}),
	}
	if len(opt.ProgramSeeds) > 0 {
		r.n = len(opt.ProgramSeeds)
	}
	if r.stuckAfter <= 0 {
		r.stuckAfter = defaultStuckAfter
	}
	return r
}

// reportProgress calls Options.Progress every second, if set, until the
// function it returns is called (which waits for the last call to end).
func (r *runner) reportProgress() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	if r.opt.Progress != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					r.mu.Lock()
					p := Progress{Programs: r.sum.Programs, Disagreements: len(r.sum.Disagreements), Elapsed: time.Since(r.start)}
					r.mu.Unlock()
					r.opt.Progress(p)
				}
			}
		}()
	}
	return func() {
		close(done)
		wg.Wait()
	}
}

// feed sends the indices of the programs to check, until n are sent,
// Duration has passed, Run ends early or ctx is done (which interrupts
// the run), and closes indices.
func (r *runner) feed() {
	defer close(r.indices)
	for i := 0; r.n == 0 || i < r.n; i++ {
		if r.opt.Duration > 0 && time.Since(r.start) >= r.opt.Duration {
			return
		}
		select {
		case r.indices <- i:
		case <-r.quit:
			return
		case <-r.ctx.Done():
			r.mu.Lock()
			r.interrupted = true
			r.mu.Unlock()
			return
		}
	}
}

// startWorker starts a worker with a slot of its own; mu is held.
func (r *runner) startWorker() {
	sl := &slot{}
	r.slots = append(r.slots, sl)
	r.live++
	go r.work(sl)
}

// work checks programs from indices and counts them, until indices is
// closed or the worker is given up on (its result then dropped), and
// tells the watchdog it exited unless it was given up on.
func (r *runner) work(sl *slot) {
	// extend sets the deadline d from now (0: none).
	extend := func(d time.Duration) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if d <= 0 {
			d = 1 << 62
		}
		sl.deadline = time.Now().Add(d + r.stuckAfter)
	}
	for i := range r.indices {
		// i counts the programs of this Run; index is the program's
		// place in the whole run (a batch's programs start at first).
		index := r.opt.first + i
		seed := ProgramSeed(r.opt.Seed, index)
		if len(r.opt.ProgramSeeds) > 0 {
			seed = r.opt.ProgramSeeds[i]
		}
		r.mu.Lock()
		sl.seed = seed
		r.mu.Unlock()
		extend(r.opt.Timeout)
		res := checkOne(r.ctx, r.opt, index, seed, extend)
		r.mu.Lock()
		sl.deadline = time.Time{}
		if sl.abandoned || r.ended {
			if sl.abandoned {
				r.stuck--
			}
			r.mu.Unlock()
			return
		}
		if res.stopped {
			r.interrupted = true
		} else {
			r.sum.add(res)
		}
		r.mu.Unlock()
		if res.disagree != nil && r.opt.Found != nil {
			r.opt.Found(res.disagree)
		}
	}
	r.mu.Lock()
	abandoned := sl.abandoned
	r.mu.Unlock()
	if !abandoned {
		select {
		case r.exited <- struct{}{}:
		case <-r.quit:
		}
	}
}

// watch waits for the live workers to exit, giving up every second on
// those past their deadline (abandonStuck).
func (r *runner) watch() {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var cancelled time.Time // when ctx was first seen done
	for r.live > 0 {
		select {
		case <-r.exited:
			r.mu.Lock()
			r.live--
			r.mu.Unlock()
		case <-tick.C:
			now := time.Now()
			if r.ctx.Err() != nil && cancelled.IsZero() {
				cancelled = now
			}
			r.mu.Lock()
			r.abandonStuck(now, cancelled)
			r.mu.Unlock()
		}
	}
}

// abandonStuck gives up on each worker past its deadline at now (once ctx
// is done, stuckAfter after it was cancelled at the latest): its program's
// seed is reported stuck and a new worker goes on with the run, unless ctx
// is done or more workers than Workers are stuck, which ends the run. mu
// is held.
func (r *runner) abandonStuck(now, cancelled time.Time) {
	for _, sl := range r.slots {
		d := sl.deadline
		if sl.abandoned || d.IsZero() {
			continue
		}
		if !cancelled.IsZero() && d.After(cancelled.Add(r.stuckAfter)) {
			d = cancelled.Add(r.stuckAfter)
		}
		if now.Before(d) {
			continue
		}
		r.sum.Stuck = append(r.sum.Stuck, sl.seed)
		sl.abandoned = true
		r.live--
		r.stuck++
		switch {
		case r.ctx.Err() != nil || r.stuck > r.workers:
			r.ended = true
		default:
			r.startWorker()
		}
	}
	if r.ended {
		r.interrupted = r.interrupted || r.ctx.Err() != nil
		close(r.quit)
		r.live = 0
	}
}

// summary completes the summary: how the run ended and how long it took,
// the disagreements and slow programs in order.
func (r *runner) summary() *Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	sum := r.sum
	sum.Ended = r.ended
	sum.Elapsed = time.Since(r.start)
	sum.Interrupted = r.interrupted
	sort.Slice(sum.Disagreements, func(i, j int) bool { return sum.Disagreements[i].Index < sum.Disagreements[j].Index })
	sort.Slice(sum.Slow, func(i, j int) bool { return sum.Slow[i] < sum.Slow[j] })
	return sum
}
