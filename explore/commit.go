package explore

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"rdmasim/explore/ckpt"
	"rdmasim/store"
)

// A committer is the core of every search: it commits expanded states. For
// each expanded state, in the order given, it inserts the fingerprints of
// the state's successors into the visited set, and for each new successor,
// in emission order, it gives the successor the next id, records its parent
// (Options.Trace), logs its fingerprint for checkpoints, queues it for
// expansion and calls Visit; it stops the search at MaxStates, when Visit
// says so, or at the first failure.
//
// So the committer decides everything that makes a search what it is: ids,
// depths, parents, the order of the visits and where a bound stops. The
// sequential search feeds it each state as soon as it has expanded it; the
// parallel search feeds it the blocks its workers expanded, in the order the
// sequential search would have expanded their states. That is why the two
// are the same search.
//
// Only one goroutine commits; others may read halted.
type committer struct {
	set       store.Set
	batcher   store.BatchInserter // set, if it is one
	visit     func(id uint64, s []byte, depth int) bool
	trace     *trace        // nil unless tracing
	ck        *checkpointer // nil unless checkpointing
	maxStates uint64
	queue     queue // where new states go

	states      uint64
	transitions uint64
	frontier    uint64 // states discovered and not yet committed as expanded
	maxDepth    int
	pruned      Pruned

	halted atomic.Bool // the search must stop; stop and err say why
	stop   Stop
	err    error
}

// A queue holds the states a committer discovers until they are expanded.
type queue interface {
	// push queues the new state id of depth depth, whose encoding enc is
	// valid only during the call. It fails only if spilling to disk
	// fails, with an error that says so.
	push(enc []byte, id uint64, depth int) error
}

// insertChunk is the most fingerprints the committer inserts with one
// InsertBatch. A batch loads every slot it will probe first, so that the
// cache misses overlap; loading many more (a parallel search's block holds
// about 1,500 successors) evicts the first slots before they are probed (see
// BENCHMARKS.md).
const insertChunk = 256

// init sets up the committer of search s, with the visited set set, the
// checkpoints ck (or nil) and the queue q.
func (c *committer) init(s *Search, set store.Set, ck *checkpointer, q queue) {
	c.set, c.visit, c.maxStates, c.ck, c.queue = set, s.opt.Visit, s.opt.MaxStates, ck, q
	c.batcher, _ = set.(store.BatchInserter)
	if s.opt.Trace {
		c.trace = &s.trace
	}
}

// halt stops the search, for the reason stop or the failure err, unless it
// is already stopped.
func (c *committer) halt(stop Stop, err error) {
	if c.halted.Load() {
		return
	}
	c.stop, c.err = stop, err
	c.halted.Store(true)
}

// commitInitial commits the initial state init: it inserts it into the visited set
// and discovers it as state 0.
func (c *committer) commitInitial(init []byte) {
	fp := store.Of(init)
	added, err := c.set.Insert(fp)
	switch {
	case err != nil:
		c.halt(Complete, fmt.Errorf("explore: inserting the initial state: %w", err))
	case !added:
		c.halt(Complete, errors.New("explore: the initial state is already in the visited set"))
	default:
		c.discover(init, fp, 0, 0, 0)
	}
}

// A batch holds expanded states and their successors, as a search feeds
// them to its committer: the states in expansion order, and their
// successors, with their fingerprints, in the same order and within each
// state in emission order.
type batch struct {
	states []expansion
	enc    []byte // the successors' encodings, concatenated
	end    []int  // end[i] is the end of successor i in enc
	fps    []store.Fingerprint
	added  []bool // the committer's
	first  int    // the first successor of the state being expanded
}

// An expansion is one expanded state of a batch.
type expansion struct {
	id     uint64
	succs  uint32 // its successors in the batch
	pruned Pruned // what Successors returned
}

// emit adds a successor of the state being expanded: it is the callback a
// search passes to Machine.Successors.
func (b *batch) emit(_ Label, next []byte) {
	b.enc = append(b.enc, next...)
	b.end = append(b.end, len(b.enc))
	b.fps = append(b.fps, store.Of(next))
}

// expanded ends the expansion of state id, which returned pruned: the
// successors emitted since the last call are its.
func (b *batch) expanded(id uint64, pruned Pruned) {
	n := len(b.fps)
	b.states = append(b.states, expansion{id: id, succs: uint32(n - b.first), pruned: pruned})
	b.first = n
}

// reset empties the batch.
func (b *batch) reset() {
	b.states, b.enc, b.end, b.fps, b.first = b.states[:0], b.enc[:0], b.end[:0], b.fps[:0], 0
}

// owner returns the expanded state whose successor successor i of the
// batch is, and its ordinal among that state's successors.
func (b *batch) owner(i int) (id uint64, ord int) {
	for _, e := range b.states {
		if i < int(e.succs) {
			return e.id, i
		}
		i -= int(e.succs)
	}
	return 0, i
}

// commit commits the states of b, expanded at depth depth, until the search
// halts.
func (c *committer) commit(b *batch, depth int) {
	n := len(b.fps)
	if cap(b.added) < n {
		b.added = make([]bool, n, 2*n)
	}
	added := b.added[:n]
	if n > 0 { // a state without successors inserts nothing
		if err := c.insert(b, added); err != nil {
			c.halt(Complete, err)
			return
		}
	}
	i, start := 0, 0
	for k := range b.states {
		e := &b.states[k]
		c.frontier--
		c.pruned |= e.pruned
		for ord := range e.succs {
			end := b.end[i]
			if added[i] {
				if c.discover(b.enc[start:end], b.fps[i], depth+1, e.id, ord); c.halted.Load() {
					c.transitions += uint64(i) + 1
					return
				}
			}
			i++
			start = end
		}
	}
	c.transitions += uint64(n)
}

// insert inserts the fingerprints of b's successors into the visited set,
// setting added[i] if successor i was new.
func (c *committer) insert(b *batch, added []bool) error {
	if c.batcher != nil {
		for i := 0; i < len(b.fps); i += insertChunk {
			j := min(i+insertChunk, len(b.fps))
			if err := c.batcher.InsertBatch(b.fps[i:j], added[i:j]); err != nil {
				return b.insertError(i, j, err)
			}
		}
		return nil
	}
	for i, fp := range b.fps {
		var err error
		if added[i], err = c.set.Insert(fp); err != nil {
			id, ord := b.owner(i)
			return fmt.Errorf("explore: inserting successor %d of state %d: %w", ord, id, err)
		}
	}
	return nil
}

// insertError is the error of a batch insert of successors i to j-1 of b
// that failed with err.
func (b *batch) insertError(i, j int, err error) error {
	first, _ := b.owner(i)
	if last, _ := b.owner(j - 1); last != first {
		return fmt.Errorf("explore: inserting the successors of states %d to %d: %w", first, last, err)
	}
	return fmt.Errorf("explore: inserting the successors of state %d: %w", first, err)
}

// discover records a new distinct state with encoding enc and fingerprint
// fp, of depth depth, found as successor number ord of state parent: it
// gives it the next id, records its parent, logs its fingerprint, queues it
// and visits it.
func (c *committer) discover(enc []byte, fp store.Fingerprint, depth int, parent uint64, ord uint32) {
	if c.maxStates != 0 && c.states >= c.maxStates {
		c.halt(StateLimit, nil)
		return
	}
	if len(enc) > maxEncoding {
		if depth == 0 {
			c.halt(Complete, fmt.Errorf("explore: the initial state has a %d-byte encoding; the limit is %d", len(enc), maxEncoding))
		} else {
			c.halt(Complete, fmt.Errorf("explore: successor %d of state %d has a %d-byte encoding; the limit is %d", ord, parent, len(enc), maxEncoding))
		}
		return
	}
	id := c.states
	if c.trace != nil {
		if ord > maxOrd {
			c.halt(Complete, fmt.Errorf("explore: state %d has more than %d successors, too many to trace", parent, maxOrd+1))
			return
		}
		if id >= maxTraced {
			c.halt(Complete, fmt.Errorf("explore: more than %d states, too many to trace", uint64(maxTraced)))
			return
		}
		if err := c.trace.add(parent, ord); err != nil {
			c.halt(Complete, err)
			return
		}
	}
	if c.ck != nil {
		c.ck.logFP(fp)
	}
	c.states++
	c.frontier++
	c.maxDepth = max(c.maxDepth, depth)
	if err := c.queue.push(enc, id, depth); err != nil {
		c.halt(Complete, err)
		return
	}
	if c.visit != nil && !c.visit(id, enc, depth) {
		c.halt(Stopped, nil)
	}
}

// stats returns the statistics of the search after elapsed, whose frontier
// holds frontierDisk bytes on disk.
func (c *committer) stats(elapsed time.Duration, frontierDisk uint64) Stats {
	disk := frontierDisk
	if c.trace != nil {
		disk += c.trace.diskBytes()
	}
	return Stats{
		States:      c.states,
		Transitions: c.transitions,
		Frontier:    c.frontier,
		MaxDepth:    c.maxDepth,
		Elapsed:     elapsed,
		StoreBytes:  c.set.Bytes(),
		DiskBytes:   disk,
	}
}

// restore restores the visited set and the counts of the checkpoint m.
func (c *committer) restore(m *ckpt.Manifest) error {
	if err := c.ck.restoreVisited(c.set, m); err != nil {
		return err
	}
	c.states, c.transitions, c.maxDepth, c.pruned, c.frontier = m.States, m.Transitions, m.MaxDepth, m.Pruned, m.Frontier.Count
	return nil
}

// snapshot returns what a checkpoint of the search saves besides its
// frontier, whose position the search fills in: the statistics stats, the
// bounds that cut it, the caller's state.
func (c *committer) snapshot(stats Stats, workers int) (*snapshot, error) {
	s := &snapshot{stats: stats, pruned: c.pruned, workers: workers}
	var err error
	s.state, err = c.ck.saveState()
	return s, err
}
