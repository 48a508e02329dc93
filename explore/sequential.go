package explore

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"rdmasim/explore/ckpt"
	"rdmasim/store"
)

// A sequential search checks the context, the timeout and the progress clock
// between expansions, at intervals of 1 to checkEvery expansions, adapted so
// that checks fall about every checkPeriod however fast or slow the machine
// is.
const (
	checkEvery  = 1024
	checkPeriod = 10 * time.Millisecond
)

// run is a sequential search: the commit core, fed by the search's own
// goroutine, which expands one state at a time and commits it at once. It is
// the core's queue: breadth-first a fifo, depth-first a lifo.
type run struct {
	committer
	m   Machine
	bfs bool

	fifo fifo // BFS frontier
	lifo lifo // DFS frontier

	depth int   // of the state being expanded
	b     batch // the state being expanded and its successors
}

// runSequential runs a sequential search of s with the visited set set,
// checkpointing with ck if it is not nil, from the checkpoint from if that is
// not nil.
func (s *Search) runSequential(ctx context.Context, start time.Time, set store.Set, ck *checkpointer, from *ckpt.Manifest) (Result, error) {
	r := &run{m: s.m, bfs: s.opt.Order != DFS}
	r.init(s, set, ck, r)
	r.fifo.chunk = cmp.Or(s.opt.frontierChunk, defaultChunk)
	r.lifo.chunk = cmp.Or(s.opt.frontierChunk, defaultChunk)
	if s.opt.SpillDir != "" && s.opt.FrontierBudget > 0 {
		// Chunks of an eighth of the budget, so that the two that stay
		// in memory are a small part of it.
		r.fifo.chunk = cmp.Or(s.opt.frontierChunk, int(min(max(s.opt.FrontierBudget/8, minSpillChunk), defaultChunk)))
		r.fifo.setSpill(s.opt.SpillDir, s.opt.FrontierBudget)
	}

	var res Result
	var err error
	if from != nil {
		err = r.resume(from)
	}
	if err == nil {
		var progress func(Stats)
		if s.opt.Progress != nil {
			progress = s.report
		}
		res, err = r.search(ctx, start, s.opt.Timeout, progress, from)
	}
	if cerr := r.fifo.close(); cerr != nil && err == nil {
		err = fmt.Errorf("explore: %w", cerr)
	}
	return res, err
}

// push queues a new state: the committer's queue.
func (r *run) push(enc []byte, id uint64, depth int) error {
	if !r.bfs {
		r.lifo.push(enc, id, depth)
		return nil
	}
	if err := r.fifo.push(enc); err != nil {
		return fmt.Errorf("explore: %w", err)
	}
	return nil
}

// search runs the search from the initial state, or from the checkpoint from
// that restore has restored.
func (r *run) search(ctx context.Context, start time.Time, timeout time.Duration, progress func(Stats), from *ckpt.Manifest) (Result, error) {
	// In BFS order states are expanded in id order, and the states of
	// depth d+1 are exactly those discovered before the first of them is
	// expanded: next is the id of the next state to expand, and levelEnd
	// the id of the first state of the next depth.
	var next, levelEnd uint64 = 0, 1

	// end ends the search, with a last checkpoint unless it failed.
	end := func(stop Stop, next, levelEnd uint64) (Result, error) {
		res := r.result(start, stop)
		if r.err != nil || r.ck == nil {
			return res, r.err
		}
		return res, r.checkpoint(start, time.Now(), stop != Canceled, stop, next, levelEnd)
	}

	if from == nil {
		if r.commitInitial(r.m.Initial(nil)); r.halted.Load() {
			return end(r.stop, next, levelEnd)
		}
	} else if r.bfs {
		fr := from.Frontier
		next = fr.FirstID
		if fr.FirstLevel < fr.Count {
			r.depth, levelEnd = fr.FirstDepth, next+fr.FirstLevel
		} else {
			// Popping state next starts depth FirstDepth.
			r.depth, levelEnd = fr.FirstDepth-1, next
		}
	}

	var deadline time.Time
	if timeout > 0 {
		deadline = start.Add(timeout)
	}
	nextProgress := start.Add(time.Second)
	emit := r.b.emit // one closure for the whole run

	var (
		every     uint64 = 1 // expansions between checks
		nextCheck uint64     // expansion count at the next check
		lastCheck = start
	)
	for n := uint64(0); ; n++ {
		if n == nextCheck {
			if ctx.Err() != nil {
				return end(Canceled, next, levelEnd)
			}
			now := time.Now()
			if !deadline.IsZero() && !now.Before(deadline) {
				return end(TimeLimit, next, levelEnd)
			}
			if r.ck != nil && r.ck.isDue(now, r.states) {
				if err := r.checkpoint(start, now, false, Complete, next, levelEnd); err != nil {
					return r.result(start, Complete), err
				}
				now = time.Now()
			}
			if progress != nil && !now.Before(nextProgress) {
				progress(r.stats(now.Sub(start)))
				now = time.Now()
				nextProgress = now.Add(time.Second)
			}
			switch d := now.Sub(lastCheck); {
			case d < checkPeriod/2 && every < checkEvery:
				every *= 2
			case d > 2*checkPeriod && every > 1:
				every /= 2
			}
			lastCheck = now
			nextCheck = n + every
		}

		var (
			st  []byte
			cur uint64
			ok  bool
		)
		if r.bfs {
			var err error
			if st, ok, err = r.fifo.pop(); err != nil {
				r.halt(Complete, fmt.Errorf("explore: %w", err))
				return end(Complete, next, levelEnd)
			} else if !ok {
				break
			}
			cur = next
			next++
			if cur == levelEnd {
				r.depth++
				levelEnd = r.states
			}
		} else {
			if st, cur, r.depth, ok = r.lifo.pop(); !ok {
				break
			}
		}
		r.b.expanded(cur, r.m.Successors(st, emit))
		r.commit(&r.b, r.depth)
		r.b.reset()
		if r.halted.Load() {
			return end(r.stop, next, levelEnd)
		}
	}
	return end(Complete, next, levelEnd)
}

// stats returns the statistics of the search after elapsed.
func (r *run) stats(elapsed time.Duration) Stats {
	return r.committer.stats(elapsed, r.fifo.diskBytes())
}

func (r *run) result(start time.Time, stop Stop) Result {
	return Result{Stats: r.stats(time.Since(start)), Stop: stop, Pruned: r.pruned, FrontierDiskPeak: r.fifo.diskPeak()}
}
