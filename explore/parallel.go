package explore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"rdmasim/store"
)

// Cloner is implemented by machines that a parallel search (Options.Workers >
// 1) can run on several goroutines at once.
//
// Clone returns a machine that is independent of the receiver: the two may be
// used concurrently, each by one goroutine, so they share no mutable state
// (scratch buffers, caches, counters, random sources). Shared state that is
// only read is fine. The clone must behave exactly like the receiver: same
// initial state, and for every state the same successors, with the same
// labels, in the same order, and the same Pruned value. Path replays a run
// recorded by any worker on the original machine, relying on this.
type Cloner interface {
	Clone() Machine
}

// concurrentSet is implemented by Sets that are safe for concurrent use, such
// as *store.Sharded.
type concurrentSet interface {
	Concurrent() bool
}

// A parallel search is level-synchronous: the states of depth d (a level) are
// expanded by all the workers, which discover the states of depth d+1; once the
// level is exhausted the next one starts. A level is a list of blocks; workers
// claim whole blocks with an atomic counter. A block is a byte slice of
// entries, each an 8-byte state id, a 4-byte length and the state's encoding,
// little-endian.
//
// A worker buffers the successors of the states it expands, inserts their
// fingerprints into the shared visited set in batches, and appends the new
// ones to a block of its own. It commits that block under the search's lock
// when it fills and when the worker runs out of work: the commit assigns ids,
// records parents, calls Visit and appends the block to the next level.
//
// With a frontier budget (Options.FrontierBudget and SpillDir), a commit that
// takes the blocks in memory of the level and of the next level over the
// budget moves the next level's blocks to its segment file (see levelQ);
// workers read spilled blocks back when they claim them.
const (
	blockBytes  = 64 << 10 // a worker commits its block when it holds this many bytes
	blockCap    = blockBytes + 4<<10
	blockStates = 256      // or this many states
	batchFps    = 256      // a worker inserts its buffered successors when there are this many
	batchBytes  = 64 << 10 // or their encodings fill this many bytes
	entryHeader = 12
)

// insertFunc inserts a batch into the shared visited set; it is safe for
// concurrent use.
type sharedSet struct {
	set     store.Set
	batcher store.BatchInserter
	mu      *sync.Mutex // nil if set is safe for concurrent use
}

func (s *sharedSet) insert(fps []store.Fingerprint, added []bool) error {
	if s.mu != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	if s.batcher != nil {
		return s.batcher.InsertBatch(fps, added)
	}
	for i, fp := range fps {
		var err error
		if added[i], err = s.set.Insert(fp); err != nil {
			return err
		}
	}
	return nil
}

func (s *sharedSet) bytes() uint64 {
	if s.mu != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return s.set.Bytes()
}

// par is the state of a parallel search.
type par struct {
	set       sharedSet
	visit     func(id uint64, s []byte, depth int) bool
	trace     *trace
	ck        *checkpointer // nil unless checkpointing; logFP under mu
	maxStates uint64
	workers   int
	spillDir  string // where levels spill, if budget > 0
	budget    int64  // bytes of blocks in memory beyond which they spill
	diskPeak  uint64 // the most bytes of the levels on disk at once, under mu

	halted atomic.Bool // set (under mu) when the search must stop

	// The level being expanded, fixed while workers run.
	level     levelQ
	depth     int
	nextBlock atomic.Int64
	running   atomic.Int32
	levelDone chan struct{}

	mu sync.Mutex
	// Guarded by mu:
	states      uint64
	transitions uint64
	frontier    uint64
	maxDepth    int
	pruned      Pruned
	stop        Stop
	err         error
	panicked    any      // the first panic of a worker
	next        levelQ   // blocks of the next level
	free        [][]byte // recycled blocks

	// A search resumed from a checkpoint taken in the middle of a level
	// starts with the rest of that level, and with the first carried
	// blocks of next (carriedStates states) restored from the checkpoint
	// too; zero otherwise.
	carried       int
	carriedStates uint64
}

func (p *par) haltLocked(stop Stop, err error) {
	if p.halted.Load() {
		return
	}
	p.stop, p.err = stop, err
	p.halted.Store(true)
}

func (p *par) halt(stop Stop, err error) {
	p.mu.Lock()
	p.haltLocked(stop, err)
	p.mu.Unlock()
}

func (p *par) statsLocked(elapsed time.Duration) Stats {
	return Stats{
		States:      p.states,
		Transitions: p.transitions,
		Frontier:    p.frontier,
		MaxDepth:    p.maxDepth,
		Elapsed:     elapsed,
		StoreBytes:  p.set.bytes(),
		DiskBytes:   p.diskBytesLocked(),
	}
}

// diskBytesLocked returns the bytes of the search's files: the levels'
// segments and the parent records.
func (p *par) diskBytesLocked() uint64 {
	n := uint64(p.level.size + p.next.size)
	if p.trace != nil {
		n += p.trace.diskBytes()
	}
	return n
}

func (p *par) result(start time.Time, workers int) (Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	stop := Complete
	if p.halted.Load() {
		stop = p.stop
	}
	return Result{Stats: p.statsLocked(time.Since(start)), Stop: stop, Pruned: p.pruned, Workers: workers, FrontierDiskPeak: p.diskPeak}, p.err
}

// getBlockLocked returns an empty block.
func (p *par) getBlockLocked() []byte {
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		return b
	}
	return make([]byte, 0, blockCap)
}

// releaseLocked keeps the buffer of a block that is no longer in use for
// reuse, if it is a standard one and no more than the blocks in memory of the
// next level and one per worker are kept; with a budget, no more than fit in
// what the levels leave of it either (one per worker at least).
func (p *par) releaseLocked(b []byte) {
	if cap(b) != blockCap {
		return
	}
	keep := p.next.nmem + p.workers
	if p.budget > 0 {
		keep = min(keep, max(p.workers, int((p.budget-p.level.mem-p.next.mem)/blockCap)))
	}
	if len(p.free) < keep {
		p.free = append(p.free, b[:0])
	}
}

// addNextLocked appends a block to the next level, spilling the next level's
// blocks in memory if the frontier is then over its budget.
func (p *par) addNextLocked(b []byte) error {
	p.next.add(b)
	if p.budget > 0 && p.level.mem+p.next.mem > p.budget {
		return p.spillLocked(&p.next)
	}
	return nil
}

// spillLocked spills the blocks in memory of l, p.level or p.next.
func (p *par) spillLocked(l *levelQ) error {
	if err := l.spill(p.spillDir, p.releaseLocked); err != nil {
		return fmt.Errorf("explore: %w", err)
	}
	p.diskPeak = max(p.diskPeak, uint64(p.level.size+p.next.size))
	return nil
}

// worker is one goroutine of a parallel search, with its own machine.
type worker struct {
	p    *par
	m    Machine
	emit func(Label, []byte)

	// The state being expanded, and the number of successors it emitted.
	cur  uint64
	nord uint32

	rbuf []byte // a block of the level read back from disk

	// Buffered successors, of one or more expanded states.
	enc   []byte
	end   []int
	fps   []store.Fingerprint
	added []bool
	par   []uint64 // id of the parent
	ord   []uint32 // ordinal among the parent's successors

	// New states, not yet committed: a block, and each entry's parent and
	// ordinal.
	out    []byte
	outPar []uint64
	outOrd []uint32
	outFp  []store.Fingerprint // only when checkpointing

	// Counts not yet added to the search's.
	transitions uint64
	expanded    uint64
	pruned      Pruned
}

func (w *worker) emitSucc(_ Label, next []byte) {
	w.enc = append(w.enc, next...)
	w.end = append(w.end, len(w.enc))
	w.fps = append(w.fps, store.Of(next))
	w.par = append(w.par, w.cur)
	w.ord = append(w.ord, w.nord)
	w.nord++
}

// run expands blocks of the current level until there are none left or the
// search halts.
func (w *worker) run() {
	p := w.p
	defer func() {
		// A panic in the machine or in Visit is re-raised by Run on
		// its own goroutine, as in a sequential search.
		if v := recover(); v != nil {
			p.mu.Lock()
			if p.panicked == nil {
				p.panicked = fmt.Sprintf("%v\n\nworker goroutine stack:\n%s", v, debug.Stack())
			}
			p.haltLocked(Complete, nil)
			p.mu.Unlock()
		}
		if p.running.Add(-1) == 0 {
			p.levelDone <- struct{}{}
		}
	}()
	for !p.halted.Load() {
		i := p.nextBlock.Add(1) - 1
		if i >= int64(p.level.len()) {
			break
		}
		b, err := p.level.block(int(i), &w.rbuf)
		if err != nil {
			p.halt(Complete, fmt.Errorf("explore: %w", err))
			break
		}
		w.expand(b)
	}
	w.flush()
	w.commit()
}

// expand expands the states of block b.
func (w *worker) expand(b []byte) {
	p := w.p
	for off := 0; off < len(b); {
		if p.halted.Load() {
			return
		}
		id := binary.LittleEndian.Uint64(b[off:])
		l := int(binary.LittleEndian.Uint32(b[off+8:]))
		st := b[off+entryHeader : off+entryHeader+l]
		off += entryHeader + l
		w.cur, w.nord = id, 0
		w.pruned |= w.m.Successors(st, w.emit)
		w.expanded++
		if len(w.fps) >= batchFps || len(w.enc) >= batchBytes {
			w.flush()
		}
	}
}

// flush inserts the buffered successors into the visited set and moves the new
// ones to the worker's block, committing it when it fills.
func (w *worker) flush() {
	p := w.p
	n := len(w.fps)
	defer func() {
		w.enc, w.end, w.fps, w.par, w.ord = w.enc[:0], w.end[:0], w.fps[:0], w.par[:0], w.ord[:0]
	}()
	if n == 0 || p.halted.Load() {
		return
	}
	if cap(w.added) < n {
		w.added = make([]bool, n, 2*n)
	}
	added := w.added[:n]
	if err := p.set.insert(w.fps, added); err != nil {
		p.halt(Complete, fmt.Errorf("explore: inserting the successors of state %d: %w", w.par[0], err))
		return
	}
	w.transitions += uint64(n)
	start := 0
	for i, end := range w.end {
		if added[i] {
			enc := w.enc[start:end]
			if len(enc) > maxEncoding {
				p.halt(Complete, fmt.Errorf("explore: successor %d of state %d has a %d-byte encoding; the limit is %d", w.ord[i], w.par[i], len(enc), maxEncoding))
				return
			}
			if p.trace != nil && w.ord[i] > maxOrd {
				p.halt(Complete, fmt.Errorf("explore: state %d has more than %d successors, too many to trace", w.par[i], maxOrd+1))
				return
			}
			w.out = binary.LittleEndian.AppendUint64(w.out, 0) // id assigned by commit
			w.out = binary.LittleEndian.AppendUint32(w.out, uint32(len(enc)))
			w.out = append(w.out, enc...)
			w.outPar = append(w.outPar, w.par[i])
			w.outOrd = append(w.outOrd, w.ord[i])
			if p.ck != nil {
				w.outFp = append(w.outFp, w.fps[i])
			}
			if len(w.out) >= blockBytes || len(w.outPar) >= blockStates {
				if w.commit(); p.halted.Load() {
					return
				}
			}
		}
		start = end
	}
}

// commit publishes the worker's counts and its new states: it assigns their
// ids, records their parents, visits them and queues them for the next level.
// Commits are serialized by the search's lock, so Visit is never called
// concurrently.
func (w *worker) commit() {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.transitions += w.transitions
	p.pruned |= w.pruned
	p.frontier -= w.expanded
	w.transitions, w.pruned, w.expanded = 0, 0, 0
	if len(w.outPar) == 0 || p.halted.Load() {
		w.out, w.outPar, w.outOrd, w.outFp = w.out[:0], w.outPar[:0], w.outOrd[:0], w.outFp[:0]
		return
	}
	depth := p.depth + 1
	off, n := 0, uint64(0)
	for i, parent := range w.outPar {
		if p.maxStates != 0 && p.states >= p.maxStates {
			p.haltLocked(StateLimit, nil)
			break
		}
		id := p.states
		if p.trace != nil {
			if id >= maxTraced {
				p.haltLocked(Complete, fmt.Errorf("explore: more than %d states, too many to trace", uint64(maxTraced)))
				break
			}
			if err := p.trace.add(parent, w.outOrd[i]); err != nil {
				p.haltLocked(Complete, err)
				break
			}
		}
		if p.ck != nil {
			p.ck.logFP(w.outFp[i])
		}
		binary.LittleEndian.PutUint64(w.out[off:], id)
		l := int(binary.LittleEndian.Uint32(w.out[off+8:]))
		st := w.out[off+entryHeader : off+entryHeader+l]
		off += entryHeader + l
		p.states++
		n++
		if p.visit != nil && !p.visit(id, st, depth) {
			p.haltLocked(Stopped, nil)
			break
		}
	}
	if n > 0 {
		p.maxDepth = max(p.maxDepth, depth)
		p.frontier += n
		if err := p.addNextLocked(w.out[:off]); err != nil {
			p.haltLocked(Complete, err)
		}
		w.out = p.getBlockLocked()
	} else {
		w.out = w.out[:0]
	}
	w.outPar, w.outOrd, w.outFp = w.outPar[:0], w.outOrd[:0], w.outFp[:0]
}

// runParallel runs a level-synchronous parallel breadth-first search with
// s.opt.Workers workers, checkpointing with ck if it is not nil, from the
// checkpoint from if that is not nil.
func (s *Search) runParallel(ctx context.Context, start time.Time, cl Cloner, ck *checkpointer, from *manifest) (res Result, err error) {
	nw := s.opt.Workers
	p := &par{
		visit:     s.opt.Visit,
		maxStates: s.opt.MaxStates,
		levelDone: make(chan struct{}, 1),
		ck:        ck,
		workers:   nw,
	}
	if s.opt.SpillDir != "" && s.opt.FrontierBudget > 0 {
		p.spillDir, p.budget = s.opt.SpillDir, s.opt.FrontierBudget
	}
	defer func() {
		// Whatever the level files held is no longer needed.
		drop := func([]byte) {}
		cerr := errors.Join(p.level.reset(drop), p.next.reset(drop))
		if cerr != nil && err == nil {
			err = fmt.Errorf("explore: %w", cerr)
		}
	}()
	if s.opt.Trace {
		p.trace = &s.trace
	}
	set := s.opt.Set
	if set == nil {
		// Few shards: each worker's batches then hold many fingerprints
		// per shard, which lowers the cost of grouping them and overlaps
		// more cache misses, while two shards per worker keep lock waits
		// rare.
		sh := store.NewSharded(2*nw, 0)
		defer sh.Close()
		set = sh
	}
	p.set.set = set
	p.set.batcher, _ = set.(store.BatchInserter)
	if cs, ok := set.(concurrentSet); !ok || !cs.Concurrent() {
		p.set.mu = new(sync.Mutex)
	}

	firstDepth := 0
	if from == nil {
		// The initial state.
		init := s.m.Initial(nil)
		fp := store.Of(init)
		added, err := set.Insert(fp)
		if err != nil {
			res, _ := p.result(start, 1)
			return res, fmt.Errorf("explore: inserting the initial state: %w", err)
		}
		if !added {
			res, _ := p.result(start, 1)
			return res, errors.New("explore: the initial state is already in the visited set")
		}
		if len(init) > maxEncoding {
			res, _ := p.result(start, 1)
			return res, fmt.Errorf("explore: the initial state has a %d-byte encoding; the limit is %d", len(init), maxEncoding)
		}
		p.states, p.frontier = 1, 1
		if p.trace != nil {
			p.trace.add(0, 0)
		}
		if ck != nil {
			ck.logFP(fp)
		}
		root := binary.LittleEndian.AppendUint64(nil, 0)
		root = binary.LittleEndian.AppendUint32(root, uint32(len(init)))
		p.level.add(append(root, init...))
		if p.visit != nil && !p.visit(0, init, 0) {
			p.halt(Stopped, nil)
			return p.end(start, nw, nil)
		}
	} else {
		if err := p.restore(from); err != nil {
			res, _ := p.result(start, nw)
			return res, err
		}
		firstDepth = from.Frontier.FirstDepth
	}

	workers := make([]*worker, nw)
	for i := range workers {
		// Every worker has a clone: the original machine is left to
		// Visit, which may use it (calls are serialized), and to Path.
		w := &worker{p: p, m: cl.Clone()}
		w.emit = w.emitSucc
		w.out = make([]byte, 0, blockBytes+4<<10)
		workers[i] = w
	}

	var deadline <-chan time.Time
	if s.opt.Timeout > 0 {
		t := time.NewTimer(time.Until(start.Add(s.opt.Timeout)))
		defer t.Stop()
		deadline = t.C
	}
	var tick <-chan time.Time
	if s.opt.Progress != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	done := ctx.Done()
	var snap *snapshot // the state at the start of the current level
	for depth := firstDepth; p.level.len() > 0 && !p.halted.Load(); depth++ {
		if ck != nil {
			var err error
			if snap, err = p.snapshot(start, nw, depth); err == nil && ck.isDue(time.Now(), snap.stats.States) {
				err = ck.write(snap, p.trace, p.writeLevel)
			}
			if err != nil {
				p.halt(Complete, err)
				break
			}
		}
		if ctx.Err() != nil {
			p.halt(Canceled, nil)
			break
		}
		select {
		case <-deadline:
			p.halt(TimeLimit, nil)
			deadline = nil
		default:
		}
		if p.halted.Load() {
			break
		}
		p.depth = depth
		p.nextBlock.Store(0)
		n := min(nw, p.level.len())
		p.running.Store(int32(n))
		for _, w := range workers[:n] {
			go w.run()
		}
		for waiting := true; waiting; {
			select {
			case <-p.levelDone:
				waiting = false
			case <-done:
				p.halt(Canceled, nil)
				done = nil
			case <-deadline:
				p.halt(TimeLimit, nil)
				deadline = nil
			case <-tick:
				p.mu.Lock()
				st := p.statsLocked(time.Since(start))
				p.mu.Unlock()
				s.opt.Progress(st)
			}
		}

		if p.panicked != nil {
			panic(p.panicked)
		}
		if p.halted.Load() {
			break // keep the level for the checkpoint of its start
		}

		// Recycle the blocks of the expanded level, keeping about as
		// many as the next level holds in memory, and drop its file.
		p.mu.Lock()
		err := p.level.reset(p.releaseLocked)
		p.level, p.next = p.next, p.level
		p.carried, p.carriedStates = 0, 0
		p.mu.Unlock()
		if err != nil {
			p.halt(Complete, fmt.Errorf("explore: %w", err))
			break
		}
	}
	return p.end(start, nw, snap)
}
