package explore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"rdmasim/store"
)

// Remote expands the levels of a breadth-first search outside the search:
// on other processes or machines, each owning part of the states and their
// part of the visited set (package explore/dist does it on NATS JetStream).
//
// The search keeps what makes it the sequential search: its committer
// numbers the states, records their parents (Options.Trace), calls Visit and
// stops at Options.MaxStates, exactly as for the states it expands itself.
// For that, a Remote hands it each level's states in the order a sequential
// breadth-first search expands them (by id), each with its new successors in
// the order the sequential search discovers them: a state of depth d+1 is
// the new successor of its first discoverer, the least (parent id, ordinal)
// among the states of depth d that emit it. Ids then follow: the k-th new
// state a level hands over gets the next id after those of all earlier
// states, so a Remote knows the id of every state it handed over without
// being told.
type Remote interface {
	// Start starts a search from the initial state initial (id 0).
	Start(ctx context.Context, initial []byte) error

	// Expand expands the states of depth depth: every state handed over
	// by the previous call (the initial state for depth 0). It calls
	// commit with each of them in id order; commit returns false once the
	// search has halted, and Expand then returns nil without calling it
	// again. While it waits for the expansion it calls wait, from the
	// goroutine that called Expand, about every 100ms. It returns ctx's
	// error if ctx is done first, or the error of a failed expansion.
	Expand(ctx context.Context, depth int, commit func(*Expansion) bool, wait func()) error

	// Stats returns the remote side's share of the statistics.
	Stats() RemoteStats
}

// RemoteStats are what a Remote adds to a search's statistics.
type RemoteStats struct {
	// Workers is the number of processes that expanded states, restarted
	// ones counted again.
	Workers int
	// StoreBytes is the size of the visited sets of every partition.
	StoreBytes uint64
}

// An Expansion is one expanded state of a Remote's level: its id, the number
// of successors it emitted (its transitions), the bounds that cut some (what
// Machine.Successors returned) and its new successors, in discovery order.
type Expansion struct {
	ID     uint64
	Succs  uint32
	Pruned Pruned
	New    []NewState
}

// A NewState is a state discovered by the expansion of its parent: its
// ordinal among the parent's successors (as Path replays it) and its
// encoding.
type NewState struct {
	Ord uint32
	Enc []byte
}

// remoteRun is a search whose levels a Remote expands: the commit core, fed
// with the Remote's expansions. It queues nothing: the Remote holds the
// frontier.
type remoteRun struct {
	committer
	r Remote
}

func (*remoteRun) push([]byte, uint64, int) error { return nil }

// checkRemote says why the options cannot run a remote search, or nil.
func checkRemote(opt *Options) error {
	switch {
	case opt.Order != BFS:
		return errors.New("explore: a remote search is breadth-first")
	case opt.Checkpoint != nil:
		return errors.New("explore: a remote search does not checkpoint (its partitions recover from the remote's streams)")
	}
	return nil
}

// runRemote runs the search of s whose levels opt.Remote expands.
func (s *Search) runRemote(ctx context.Context, start time.Time, set store.Set) (Result, error) {
	r := &remoteRun{r: s.opt.Remote}
	r.init(s, set, nil, r)
	end := func() (Result, error) {
		rs := r.r.Stats()
		st := r.committer.stats(time.Since(start), 0)
		st.StoreBytes = rs.StoreBytes
		stop := Complete
		if r.halted.Load() {
			stop = r.stop
		}
		return Result{Stats: st, Stop: stop, Pruned: r.pruned, Workers: rs.Workers}, r.err
	}
	initial := s.m.Initial(nil)
	if r.commitInitial(initial); r.halted.Load() {
		return end()
	}
	ectx := ctx
	if s.opt.Timeout > 0 {
		var cancel context.CancelFunc
		ectx, cancel = context.WithDeadline(ctx, start.Add(s.opt.Timeout))
		defer cancel()
	}
	if err := r.r.Start(ectx, initial); err != nil {
		r.halt(r.stopFor(ctx, ectx, err))
		return end()
	}
	nextProgress := start.Add(time.Second)
	progress := func() {
		if s.opt.Progress != nil && time.Now().After(nextProgress) {
			s.report(r.committer.stats(time.Since(start), 0))
			nextProgress = time.Now().Add(time.Second)
		}
	}
	levelStart, levelEnd := uint64(0), uint64(1)
	for depth := 0; levelEnd > levelStart && !r.halted.Load(); depth++ {
		next := levelStart
		err := r.r.Expand(ectx, depth, func(e *Expansion) bool {
			if e.ID != next || next >= levelEnd {
				r.halt(Complete, fmt.Errorf("explore: the remote expanded state %d at depth %d, want %d (depth %d: states %d to %d)",
					e.ID, depth, next, depth, levelStart, levelEnd-1))
				return false
			}
			next++
			r.commitExpansion(e, depth)
			progress()
			return !r.halted.Load()
		}, progress)
		switch {
		case err != nil:
			r.halt(r.stopFor(ctx, ectx, err))
		case !r.halted.Load() && next != levelEnd:
			r.halt(Complete, fmt.Errorf("explore: the remote expanded %d states of depth %d, want %d", next-levelStart, depth, levelEnd-levelStart))
		}
		levelStart, levelEnd = levelEnd, r.states
	}
	return end()
}

// stopFor says how a search whose Remote failed with err stops: canceled
// when ctx is done, at its time limit when ectx (ctx with the search's
// deadline) is, else failed.
func (r *remoteRun) stopFor(ctx, ectx context.Context, err error) (Stop, error) {
	switch {
	case ctx.Err() != nil:
		return Canceled, nil
	case ectx.Err() != nil:
		return TimeLimit, nil
	}
	return Complete, fmt.Errorf("explore: %w", err)
}

// commitExpansion commits the expansion e of a state of depth depth, as
// commit commits a batch: the transitions of e count once it is committed,
// or up to the new state that halted the search.
func (c *committer) commitExpansion(e *Expansion, depth int) {
	c.frontier--
	c.pruned |= e.Pruned
	for _, n := range e.New {
		if c.discover(n.Enc, store.Of(n.Enc), depth+1, e.ID, n.Ord); c.halted.Load() {
			c.transitions += uint64(n.Ord) + 1
			return
		}
	}
	c.transitions += uint64(e.Succs)
}
