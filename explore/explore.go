package explore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"rdmasim/explore/ckpt"
	"rdmasim/store"
)

// Order is the order in which a Search expands discovered states.
type Order int

const (
	// BFS expands states breadth-first, in discovery order, so every state
	// is discovered at its least depth and Path returns shortest runs.
	BFS Order = iota
	// DFS expands the most recently discovered state first: it pops a
	// state, pushes all its new successors, and repeats. Its frontier stays
	// small on deep state spaces, but its runs are not shortest.
	DFS
)

// String returns "bfs" or "dfs".
func (o Order) String() string {
	switch o {
	case BFS:
		return "bfs"
	case DFS:
		return "dfs"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// Stop says why a search ended.
type Stop int

const (
	// Complete means the frontier was exhausted: every state reachable
	// within the machine's bounds was discovered and expanded.
	Complete Stop = iota
	// StateLimit means a distinct state beyond Options.MaxStates was found.
	StateLimit
	// TimeLimit means Options.Timeout elapsed.
	TimeLimit
	// Canceled means the context passed to Run was done.
	Canceled
	// Stopped means Options.Visit returned false.
	Stopped
	// MemoryLimit means the memory a search must keep in memory reached
	// its bound (used by searches that keep every state, such as
	// explore/cover's).
	MemoryLimit
)

var stopNames = [...]string{
	Complete:    "complete",
	StateLimit:  "state limit",
	TimeLimit:   "time limit",
	Canceled:    "canceled",
	Stopped:     "stopped",
	MemoryLimit: "memory limit",
}

// String returns a short lower-case description of s, such as "state limit".
func (s Stop) String() string {
	if s >= 0 && int(s) < len(stopNames) {
		return stopNames[s]
	}
	return fmt.Sprintf("Stop(%d)", int(s))
}

// Options configure a Search. The zero value is a breadth-first search with no
// bounds, an in-memory visited set and no trace.
type Options struct {
	// Order is the expansion order.
	Order Order

	// MaxStates bounds the number of distinct states. When a state beyond
	// the first MaxStates is discovered, the search stops with StateLimit;
	// that state is not counted or visited. Zero means no limit.
	MaxStates uint64

	// Timeout bounds the duration of Run; when it elapses the search stops
	// with TimeLimit. Zero means no limit.
	Timeout time.Duration

	// Set is the visited set. It should be empty; Run does not close it.
	// If nil, Run uses a store.NewMem(0) and closes it before returning.
	Set store.Set

	// Trace makes the search keep a parent record (8 bytes) per state, so
	// that Path can rebuild the run to any visited state. The records are
	// in memory, unless the search has a directory to use: with Checkpoint
	// they are the checkpoint's parents.bin, else with SpillDir a file
	// there. Either way Close releases the file.
	Trace bool

	// SpillDir, if not empty, is a directory where the search keeps on
	// disk what would otherwise grow in memory with the state space: the
	// parent records of Trace, in a file removed from the directory at
	// once (so nothing is left behind even after a kill; Close closes
	// it), and the part of the breadth-first frontier beyond
	// FrontierBudget, in segment files named rdmasim-frontier-*.seg,
	// each removed once it is read back, and all by the time Run returns.
	SpillDir string

	// FrontierBudget bounds the memory of the breadth-first frontier, in
	// bytes, when SpillDir is set; zero (or no SpillDir) keeps it all in
	// memory. The sequential search keeps the frontier in chunks of an
	// eighth of the budget (from 4 KiB to 1 MiB), at least the chunk
	// being drained and the chunk being filled in memory, and spills the
	// chunks between them, in queue order, whenever a new chunk takes it
	// over the budget. The parallel search bounds the blocks (64 KiB) of
	// the level being expanded and of the next level together: when
	// committing a block takes them over the budget, the next level's
	// blocks in memory are appended to its segment file, from which
	// workers read them back. Spilling changes neither the order of the
	// states nor the result. Depth-first frontiers are never spilled.
	FrontierBudget int64

	// Visit, if non-nil, is called once for every new distinct state, the
	// initial state included, in discovery order, with the state's id (0,
	// 1, 2, ... in discovery order), its encoding (valid only during the
	// call) and its depth (the number of transitions from the initial
	// state along the run that discovered it). Returning false stops the
	// search with Stopped; the state is counted.
	Visit func(id uint64, s []byte, depth int) bool

	// Progress, if non-nil, is called about once per second from the
	// goroutine running the search with a snapshot of its statistics.
	Progress func(Stats)

	// Workers is the number of goroutines that expand states. Zero or one
	// selects the sequential search. A greater value runs a
	// level-synchronous parallel breadth-first search if Order is BFS and
	// the machine implements Cloner; otherwise the search is sequential,
	// and Result.Workers and Result.Fallback say so.
	//
	// A parallel search is the sequential breadth-first search, done
	// faster: the workers expand states and fingerprint their successors,
	// and the goroutine that called Run commits their results in the
	// order the sequential search would, inserting the successors into
	// the set and calling Visit. So it discovers the same
	// states with the same ids, depths and parents (Path returns the same
	// runs), calls Visit in the same order, from the goroutine that called
	// Run, and when MaxStates or Visit stops it, it stops at the same
	// state with the same counts. Each worker expands states on its own
	// clone of the machine; the machine passed to New is never expanded by
	// a worker, so Visit may call its methods (HasSCCycle, say).
	//
	// Only the goroutine that called Run uses the visited set: any Set
	// will do. If Set is nil, a parallel search uses a store.NewMem set.
	Workers int

	// Checkpoint, if non-nil, makes the search save checkpoints to a
	// directory, periodically and when it ends, and resume from one: see
	// Checkpoint. A resumed search needs an empty Set, into which it
	// inserts the visited states of the checkpoint.
	Checkpoint *Checkpoint

	// frontierChunk, in tests, overrides the size of the chunks of a
	// sequential search's frontier (defaultChunk).
	frontierChunk int
}

// Stats describe the progress of a search.
type Stats struct {
	// Search names the search in progress reports (Caller.Name); empty
	// unless the search was opened with a name.
	Search string
	// States is the number of distinct states discovered, the initial
	// state included.
	States uint64
	// Transitions is the number of successors emitted by expanded states,
	// including those that were already visited.
	Transitions uint64
	// Frontier is the number of states discovered but not yet expanded.
	Frontier uint64
	// MaxDepth is the greatest depth of a discovered state.
	MaxDepth int
	// Elapsed is the time since Run began.
	Elapsed time.Duration
	// StoreBytes is the size of the visited set, as reported by its Bytes
	// method.
	StoreBytes uint64
	// DiskBytes is what the search itself holds on disk in
	// Options.SpillDir or the checkpoint directory: the spilled frontier
	// and the file of parent records (the visited set aside).
	DiskBytes uint64
}

// Result describes a finished search.
type Result struct {
	Stats
	// Stop says why the search ended.
	Stop Stop
	// Pruned is the bitwise OR of the values returned by Successors for
	// every expanded state. If it is non-zero, some successors were cut by
	// the machine's bounds, and a Complete search covered only the bounded
	// state space.
	Pruned Pruned
	// Workers is the number of goroutines that expanded states: 1 for a
	// sequential search.
	Workers int
	// Fallback says why the search was sequential although
	// Options.Workers asked for more than one worker; it is empty
	// otherwise.
	Fallback string
	// FrontierDiskPeak is the most bytes of the frontier that were on
	// disk at once (see Options.FrontierBudget); zero if it never
	// spilled.
	FrontierDiskPeak uint64
}

// Step is one step of a run: the label of the transition taken and the
// encoding of the state it reached.
type Step struct {
	Label Label  // the transition's label; 0 for the initial state
	State []byte // the encoding of the state reached, owned by the caller
}

// A Search explores the state space of a Machine. Create one with New and
// call Run once; after Run returns, Path rebuilds runs to the visited states
// if Options.Trace was set.
//
// A Search is not safe for concurrent use.
type Search struct {
	m      Machine
	opt    Options
	ran    bool
	closed bool
	trace  trace // parent records, one per state, if opt.Trace
}

// New returns a search of the state space of m configured by opt.
func New(m Machine, opt Options) *Search {
	return &Search{m: m, opt: opt}
}

// A search checks the context, the timeout and the progress clock between
// expansions, at intervals of 1 to checkEvery expansions, adapted so that
// checks fall about every checkPeriod however fast or slow the machine is.
const (
	checkEvery  = 1024
	checkPeriod = 10 * time.Millisecond
)

// maxEncoding bounds the length of a state encoding the frontier (and a
// checkpoint's frontier) can hold.
const maxEncoding = ckpt.MaxEncoding

// Run explores the state space from the initial state until the frontier is
// exhausted or a bound in the options, the context or the Visit callback stops
// it. The reason is in Result.Stop; a cancelled context yields Canceled and a
// nil error. Run returns an error only if the search failed: if the visited set
// failed, if the initial state was already in it, or if the machine misbehaved;
// the Result then describes the search up to the failure.
//
// Run checks the context and the timeout between expansions: about every 10ms,
// and at least once every 1024 expansions.
//
// Run may be called only once per Search.
func (s *Search) Run(ctx context.Context) (Result, error) {
	if s.ran {
		return Result{}, errors.New("explore: Search.Run called more than once")
	}
	s.ran = true

	start := time.Now()
	var (
		ck   *checkpointer
		from *ckpt.Manifest // the checkpoint to resume
	)
	if s.opt.Checkpoint != nil {
		var err error
		if ck, from, err = openCheckpoint(&s.opt, start); err != nil {
			return Result{}, err
		}
		defer ck.close()
		if f, n := ck.dir.Parents(); f != nil {
			s.trace.useFile(f, n)
		}
		if from != nil {
			if from.Finished {
				return s.resumeFinished(ck, from)
			}
			start = start.Add(-from.Elapsed)
		}
	}
	if s.opt.Trace && s.trace.f == nil && s.opt.SpillDir != "" {
		if err := s.trace.createFile(s.opt.SpillDir); err != nil {
			return Result{}, err
		}
	}
	var fallback string
	if s.opt.Workers > 1 {
		cl, ok := s.m.(Cloner)
		switch {
		case s.opt.Order == DFS:
			fallback = "depth-first search is sequential"
		case !ok:
			fallback = fmt.Sprintf("the machine (%T) does not implement explore.Cloner", s.m)
		default:
			return s.runParallel(ctx, start, cl, ck, from)
		}
	}

	r := &run{
		m:         s.m,
		set:       s.opt.Set,
		bfs:       s.opt.Order != DFS,
		maxStates: s.opt.MaxStates,
		visit:     s.opt.Visit,
		ck:        ck,
	}
	if s.opt.Trace {
		r.trace = &s.trace
	}
	if r.set == nil {
		mem := store.NewMem(0)
		defer mem.Close()
		r.set = mem
	}
	r.batcher, _ = r.set.(store.BatchInserter)
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
		err = r.restore(from)
	}
	if err == nil {
		res, err = r.search(ctx, start, s.opt.Timeout, s.opt.Progress, from)
	}
	if cerr := r.fifo.close(); cerr != nil && err == nil {
		err = fmt.Errorf("explore: %w", cerr)
	}
	res.Workers, res.Fallback = 1, fallback
	return res, err
}

// run is the state of one call to Run.
type run struct {
	m         Machine
	set       store.Set
	batcher   store.BatchInserter // set, if it is one
	bfs       bool
	maxStates uint64
	visit     func(id uint64, s []byte, depth int) bool
	trace     *trace        // nil unless tracing
	ck        *checkpointer // nil unless checkpointing

	fifo fifo // BFS frontier
	lifo lifo // DFS frontier

	// The state being expanded: its id and depth, and its successors.
	cur   uint64
	depth int
	succ  successors

	states      uint64
	transitions uint64
	maxDepth    int
	pruned      Pruned

	halted bool // stop expanding; stop and err say why
	stop   Stop
	err    error
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
		init := r.m.Initial(nil)
		fp := store.Of(init)
		added, err := r.set.Insert(fp)
		if err != nil {
			return r.result(start, Complete), fmt.Errorf("explore: inserting the initial state: %w", err)
		}
		if !added {
			return r.result(start, Complete), errors.New("explore: the initial state is already in the visited set")
		}
		r.discover(init, fp, 0, 0)
		if r.halted {
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
	emit := r.emit // one closure for the whole run

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

		var st []byte
		var ok bool
		if r.bfs {
			var err error
			if st, ok, err = r.fifo.pop(); err != nil {
				r.fail(fmt.Errorf("explore: %w", err))
				return end(Complete, next, levelEnd)
			} else if !ok {
				break
			}
			r.cur = next
			next++
			if r.cur == levelEnd {
				r.depth++
				levelEnd = r.states
			}
		} else {
			if st, r.cur, r.depth, ok = r.lifo.pop(); !ok {
				break
			}
		}
		r.pruned |= r.m.Successors(st, emit)
		r.insertSuccessors()
		if r.halted {
			return end(r.stop, next, levelEnd)
		}
	}
	return end(Complete, next, levelEnd)
}

// successors buffers the successors emitted by the state being expanded, so
// that their fingerprints can be inserted into the visited set together: the
// cache misses of a batch overlap.
type successors struct {
	enc   []byte // the encodings, concatenated
	end   []int  // end[i] is the end of successor i in enc
	fps   []store.Fingerprint
	added []bool
}

// emit is the callback passed to Machine.Successors.
func (r *run) emit(_ Label, next []byte) {
	b := &r.succ
	b.enc = append(b.enc, next...)
	b.end = append(b.end, len(b.enc))
	b.fps = append(b.fps, store.Of(next))
}

// insertSuccessors inserts the successors of the state being expanded into the
// visited set, discovers the new ones in emission order, and empties the
// buffer.
func (r *run) insertSuccessors() {
	b := &r.succ
	n := len(b.fps)
	if n == 0 {
		return
	}
	if cap(b.added) < n {
		b.added = make([]bool, n, 2*n)
	}
	added := b.added[:n]
	var err error
	if r.batcher != nil {
		if err = r.batcher.InsertBatch(b.fps, added); err != nil {
			err = fmt.Errorf("explore: inserting the successors of state %d: %w", r.cur, err)
		}
	} else {
		for i, fp := range b.fps {
			if added[i], err = r.set.Insert(fp); err != nil {
				err = fmt.Errorf("explore: inserting successor %d of state %d: %w", i, r.cur, err)
				break
			}
		}
	}
	if err != nil {
		r.fail(err)
	} else {
		start := 0
		for i, end := range b.end {
			r.transitions++
			if added[i] {
				if r.discover(b.enc[start:end], b.fps[i], r.depth+1, uint32(i)); r.halted {
					break
				}
			}
			start = end
		}
	}
	b.enc, b.end, b.fps = b.enc[:0], b.end[:0], b.fps[:0]
}

// discover records a new distinct state with fingerprint fp, found as
// successor number ord of the state being expanded, and queues it for
// expansion.
func (r *run) discover(enc []byte, fp store.Fingerprint, depth int, ord uint32) {
	if r.maxStates != 0 && r.states >= r.maxStates {
		r.halt(StateLimit)
		return
	}
	if len(enc) > maxEncoding {
		r.fail(fmt.Errorf("explore: successor %d of state %d has a %d-byte encoding; the limit is %d", ord, r.cur, len(enc), maxEncoding))
		return
	}
	id := r.states
	if r.trace != nil {
		if ord > maxOrd {
			r.fail(fmt.Errorf("explore: state %d has more than %d successors, too many to trace", r.cur, maxOrd+1))
			return
		}
		if id >= maxTraced {
			r.fail(fmt.Errorf("explore: more than %d states, too many to trace", uint64(maxTraced)))
			return
		}
		if err := r.trace.add(r.cur, ord); err != nil {
			r.fail(err)
			return
		}
	}
	if r.ck != nil {
		r.ck.logFP(fp)
	}
	r.states++
	r.maxDepth = max(r.maxDepth, depth)
	if r.bfs {
		if err := r.fifo.push(enc); err != nil {
			r.fail(fmt.Errorf("explore: %w", err))
			return
		}
	} else {
		r.lifo.push(enc, id, depth)
	}
	if r.visit != nil && !r.visit(id, enc, depth) {
		r.halt(Stopped)
	}
}

func (r *run) halt(stop Stop) {
	r.halted = true
	r.stop = stop
}

func (r *run) fail(err error) {
	r.halted = true
	r.err = err
}

func (r *run) stats(elapsed time.Duration) Stats {
	frontier := r.fifo.len()
	if !r.bfs {
		frontier = r.lifo.len()
	}
	disk := r.fifo.diskBytes()
	if r.trace != nil {
		disk += r.trace.diskBytes()
	}
	return Stats{
		States:      r.states,
		Transitions: r.transitions,
		Frontier:    frontier,
		MaxDepth:    r.maxDepth,
		Elapsed:     elapsed,
		StoreBytes:  r.set.Bytes(),
		DiskBytes:   disk,
	}
}

func (r *run) result(start time.Time, stop Stop) Result {
	return Result{Stats: r.stats(time.Since(start)), Stop: stop, Pruned: r.pruned, FrontierDiskPeak: r.fifo.diskPeak()}
}

// Path rebuilds the run from the initial state to the state with the given id,
// which requires Options.Trace. The first step is the initial state, with label
// 0; each later step holds the label of a transition and the state it reached,
// the last one being state id. After a BFS search the run is a shortest one.
//
// Path replays the run by calling Successors along it, so it relies on the
// machine being deterministic; it reports an error if a replayed state emits
// fewer successors than were recorded.
func (s *Search) Path(id uint64) ([]Step, error) {
	switch {
	case !s.opt.Trace:
		return nil, errors.New("explore: Path requires Options.Trace")
	case !s.ran:
		return nil, errors.New("explore: Path called before Run")
	case s.closed:
		return nil, errors.New("explore: Path called after Close")
	case id >= s.trace.n:
		return nil, fmt.Errorf("explore: Path to state %d: only %d states were visited", id, s.trace.n)
	}

	// Collect the ordinals of the steps, from the target back to the root.
	var ords []uint32
	for x := id; x != 0; {
		parent, ord, err := s.trace.get(x)
		if err != nil {
			return nil, fmt.Errorf("explore: Path to state %d: %w", id, err)
		}
		if parent >= x {
			return nil, fmt.Errorf("explore: Path to state %d: corrupt parent record %d -> %d", id, x, parent)
		}
		ords = append(ords, ord)
		x = parent
	}

	path := make([]Step, 0, len(ords)+1)
	path = append(path, Step{State: s.m.Initial(nil)})
	var (
		want  uint32
		seen  uint32
		found bool
		step  Step
	)
	emit := func(l Label, next []byte) {
		if seen == want {
			step = Step{Label: l, State: bytes.Clone(next)}
			found = true
		}
		seen++
	}
	for i := len(ords) - 1; i >= 0; i-- {
		want, seen, found = ords[i], 0, false
		s.m.Successors(path[len(path)-1].State, emit)
		if !found {
			return nil, fmt.Errorf("explore: Path to state %d: replayed step %d emitted %d successors, want more than %d; is the machine deterministic?",
				id, len(path), seen, want)
		}
		path = append(path, step)
	}
	return path, nil
}

// Close releases the file of parent records that a search with Options.Trace
// keeps in Options.SpillDir or its checkpoint directory; Path fails after it.
// A Search without such a file needs no Close, and Close may be called more
// than once.
func (s *Search) Close() error {
	s.closed = true
	return s.trace.close()
}
