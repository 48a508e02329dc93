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

	"rdmasim/explore/ckpt"
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

// Cloning adapts to Cloner a machine whose Clone method returns its own type,
// as machines that know nothing of this package do: the machine it returns is
// m, and its Clone returns m.Clone() so adapted.
func Cloning[M interface {
	Machine
	Clone() M
}](m M) Machine {
	return cloning[M]{m}
}

// cloning is the machine Cloning returns.
type cloning[M interface {
	Machine
	Clone() M
}] struct{ m M }

func (c cloning[M]) Initial(dst []byte) []byte { return c.m.Initial(dst) }

func (c cloning[M]) Successors(s []byte, emit func(Label, []byte)) Pruned {
	return c.m.Successors(s, emit)
}

func (c cloning[M]) Clone() Machine { return cloning[M]{c.m.Clone()} }

// A parallel search is level-synchronous: the states of depth d (a level) are
// expanded by the workers, which find the states of depth d+1; once the level
// is exhausted the next one starts. A level is a list of blocks, in order; a
// block is a byte slice of entries, each an 8-byte state id, a 4-byte length
// and the state's encoding, little-endian.
//
// Workers claim blocks in order with an atomic counter and expand them on
// their own machines: they generate each state's successors and fingerprint
// them, into a batch. The batches go to the goroutine running the search,
// which hands them to the search's committer in block order: that is, in the
// order a sequential breadth-first search expands the states, so the search
// is the sequential one (see committer). Only that goroutine uses the visited
// set, the counts and the next level, so they need no lock.
//
// Workers do not look successors up in the visited set to spare the
// committer the known ones: in the state spaces of RDMA programs almost every
// successor of a state of depth d has depth d+1, so its duplicates are found
// in the same level, mostly in blocks not yet committed, and the lookups cost
// more than they save (see BENCHMARKS.md).
//
// At most window blocks are claimed and not yet committed: a worker takes a
// token before it claims a block, and the committer gives one back for each
// block it commits. That bounds the results waiting for an earlier block.
//
// With a frontier budget (Options.FrontierBudget and SpillDir), a commit that
// takes the blocks in memory of the level and of the next level over the
// budget moves the next level's blocks to its segment file (see levelQ);
// workers read spilled blocks back when they claim them.
const (
	blockBytes  = 64 << 10 // the committer closes a block of the next level when it holds this many bytes
	blockCap    = blockBytes + 4<<10
	blockStates = 256 // or this many states
	entryHeader = 12
	windowPer   = 4 // blocks claimed and not committed, per worker
)

// par is a parallel search: the commit core, fed by the workers' expanded
// blocks, and the next level being filled is its queue. Its fields are used
// by the committer (the goroutine running the search) only, except where
// noted.
type par struct {
	committer
	workers  int
	window   int
	spillDir string // where levels spill, if budget > 0
	budget   int64  // bytes of blocks in memory beyond which they spill
	diskPeak uint64 // the most bytes of the levels on disk at once

	// The level being expanded, fixed while workers run, and what its
	// workers share.
	level     levelQ
	depth     int
	nextBlock atomic.Int64      // the next block to claim
	tokens    chan struct{}     // see window
	results   chan *blockResult // expanded blocks, in any order
	free      chan *blockResult // results to reuse
	stopped   chan struct{}     // closed when the search halts during the level
	wake      chan struct{}     // a worker panicked
	wg        sync.WaitGroup

	mu       sync.Mutex
	panicked any // the first panic of a worker, under mu

	next       levelQ   // blocks of the next level
	out        []byte   // the next level's block being filled
	outStates  int      // entries in out
	nextStates uint64   // states in next and out
	blocks     [][]byte // recycled blocks
	pending    []*blockResult
	committed  int       // blocks of the level committed
	start      time.Time // when the search started, for Elapsed
}

// A blockResult is what a worker found expanding one block of the level: the
// states it expanded and their successors, with their fingerprints, as a
// batch for the committer.
type blockResult struct {
	batch
	idx  int
	err  error
	emit func(Label, []byte) // batch.emit, bound once
}

func newBlockResult() *blockResult {
	r := new(blockResult)
	r.emit = r.batch.emit
	return r
}

func (r *blockResult) reset(idx int) {
	r.idx, r.err = idx, nil
	r.batch.reset()
}

func (p *par) stats(elapsed time.Duration) Stats {
	return p.committer.stats(elapsed, uint64(p.level.size+p.next.size))
}

func (p *par) result() (Result, error) {
	stop := Complete
	if p.halted.Load() {
		stop = p.stop
	}
	return Result{Stats: p.stats(time.Since(p.start)), Stop: stop, Pruned: p.pruned, Workers: p.workers, FrontierDiskPeak: p.diskPeak}, p.err
}

// getBlock returns an empty block.
func (p *par) getBlock() []byte {
	if n := len(p.blocks); n > 0 {
		b := p.blocks[n-1]
		p.blocks[n-1] = nil
		p.blocks = p.blocks[:n-1]
		return b
	}
	return make([]byte, 0, blockCap)
}

// minFreeBlocks is the number of free blocks a parallel search always keeps
// for reuse: with a frontier budget the next level spills a block at a time,
// and allocating (and zeroing) each anew cost 3% of the time.
const minFreeBlocks = 8

// release keeps the buffer of a block that is no longer in use for
// reuse, if it is a standard one and no more than the blocks in memory of the
// next level and minFreeBlocks more are kept; with a budget, no more than fit
// in what the levels leave of it either (minFreeBlocks at least).
func (p *par) release(b []byte) {
	if cap(b) != blockCap {
		return
	}
	keep := p.next.nmem + minFreeBlocks
	if p.budget > 0 {
		keep = min(keep, max(minFreeBlocks, int((p.budget-p.level.mem-p.next.mem)/blockCap)))
	}
	if len(p.blocks) < keep {
		p.blocks = append(p.blocks, b[:0])
	}
}

// addNext appends a block to the next level, spilling the next level's
// blocks in memory if the frontier is then over its budget.
func (p *par) addNext(b []byte) error {
	p.next.add(b)
	if p.budget > 0 && p.level.mem+p.next.mem > p.budget {
		return p.spillLevel(&p.next)
	}
	return nil
}

// spillLevel spills the blocks in memory of l, p.level or p.next.
func (p *par) spillLevel(l *levelQ) error {
	if err := l.spill(p.spillDir, p.release); err != nil {
		return fmt.Errorf("explore: %w", err)
	}
	p.diskPeak = max(p.diskPeak, uint64(p.level.size+p.next.size))
	return nil
}

// closeOut appends the block being filled, if it holds states, to the next
// level.
func (p *par) closeOut() error {
	if p.outStates == 0 {
		return nil
	}
	err := p.addNext(p.out)
	p.out, p.outStates = p.getBlock(), 0
	return err
}

// push appends a new state to the next level: the committer's queue. The
// initial state (depth 0) makes the first level, a block of its own.
func (p *par) push(enc []byte, id uint64, depth int) error {
	if depth == 0 {
		p.level.add(appendEntry(nil, id, enc))
		return nil
	}
	p.nextStates++
	p.out = appendEntry(p.out, id, enc)
	p.outStates++
	if len(p.out) >= blockBytes || p.outStates >= blockStates {
		return p.closeOut()
	}
	return nil
}

// appendEntry appends the entry of state id, with encoding enc, to the block
// b.
func appendEntry(b []byte, id uint64, enc []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, id)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(enc)))
	return append(b, enc...)
}

// worker is one goroutine of a parallel search, with its own machine.
type worker struct {
	p    *par
	m    Machine
	res  *blockResult // being filled
	rbuf []byte       // a block of the level read back from disk
}

// run expands blocks of the current level until there are none left or the
// search halts.
func (w *worker) run() {
	p := w.p
	defer p.wg.Done()
	defer func() {
		// A panic in the machine is re-raised by Run on its own
		// goroutine, as in a sequential search.
		if v := recover(); v != nil {
			p.mu.Lock()
			if p.panicked == nil {
				p.panicked = fmt.Sprintf("%v\n\nworker goroutine stack:\n%s", v, debug.Stack())
			}
			p.mu.Unlock()
			select {
			case p.wake <- struct{}{}:
			default:
			}
		}
	}()
	for {
		select {
		case <-p.tokens:
		case <-p.stopped:
			return
		}
		i := p.nextBlock.Add(1) - 1
		if i >= int64(p.level.len()) {
			return
		}
		var r *blockResult
		select {
		case r = <-p.free:
		default:
			r = newBlockResult()
		}
		r.reset(int(i))
		w.res = r
		if b, err := p.level.block(int(i), &w.rbuf); err != nil {
			r.err = fmt.Errorf("explore: %w", err)
		} else {
			w.expand(b)
		}
		p.results <- r // never blocks: it has room for the window
	}
}

// expand expands the states of block b into w.res.
func (w *worker) expand(b []byte) {
	r := w.res
	for off := 0; off < len(b); {
		if w.p.halted.Load() {
			return
		}
		id := binary.LittleEndian.Uint64(b[off:])
		l := int(binary.LittleEndian.Uint32(b[off+8:]))
		st := b[off+entryHeader : off+entryHeader+l]
		off += entryHeader + l
		r.expanded(id, w.m.Successors(st, r.emit))
	}
}

// commitBlock commits the result of one block.
func (p *par) commitBlock(r *blockResult) {
	if r.err != nil {
		p.halt(Complete, r.err)
		return
	}
	p.commit(&r.batch, p.depth)
}

// control is what a level's committer watches besides the results: the
// context, the deadline and the progress ticker, each nil once fired or if
// unused.
type control struct {
	done     <-chan struct{}
	deadline <-chan time.Time
	tick     <-chan time.Time
	progress func()
}

// expandLevel has the workers expand the level of depth p.depth while the
// calling goroutine commits their results in order, until the level is
// committed or the search halts. The workers have stopped when it returns,
// also when Visit panics.
func (p *par) expandLevel(workers []*worker, c *control) {
	nblocks := p.level.len()
	p.nextBlock.Store(0)
	p.tokens = make(chan struct{}, p.window)
	for range p.window {
		p.tokens <- struct{}{}
	}
	p.stopped = make(chan struct{})
	clear(p.pending)
	n := min(len(workers), nblocks)
	p.wg.Add(n)
	for _, w := range workers[:n] {
		go w.run()
	}
	defer func() {
		close(p.stopped)
		p.wg.Wait()
		for len(p.results) > 0 {
			<-p.results // left over by a halt
		}
	}()
	for p.committed < nblocks && !p.halted.Load() {
		select {
		case r := <-p.results:
			p.pending[r.idx%p.window] = r
			for !p.halted.Load() {
				r := p.pending[p.committed%p.window]
				if r == nil || r.idx != p.committed {
					break
				}
				p.pending[p.committed%p.window] = nil
				p.commitBlock(r)
				p.committed++
				p.tokens <- struct{}{}
				select {
				case p.free <- r:
				default:
				}
			}
			if p.ck != nil && !p.halted.Load() && p.ck.isDue(time.Now(), p.states) {
				if err := p.checkpoint(false, Complete); err != nil {
					p.halt(Complete, err)
				}
			}
		case <-p.wake:
			p.halt(Complete, nil) // Run re-raises the panic
		case <-c.done:
			p.halt(Canceled, nil)
			c.done = nil
		case <-c.deadline:
			p.halt(TimeLimit, nil)
			c.deadline = nil
		case <-c.tick:
			c.progress()
		}
	}
	if !p.halted.Load() {
		if err := p.closeOut(); err != nil {
			p.halt(Complete, err)
		}
	}
}

// runParallel runs a level-synchronous parallel breadth-first search of s
// with s.opt.Workers workers and the visited set set, checkpointing with ck if
// it is not nil, from the checkpoint from if that is not nil.
func (s *Search) runParallel(ctx context.Context, start time.Time, set store.Set, cl Cloner, ck *checkpointer, from *ckpt.Manifest) (res Result, err error) {
	nw := s.opt.Workers
	p := &par{
		workers: nw,
		window:  windowPer * nw,
		wake:    make(chan struct{}, 1),
		start:   start,
	}
	p.init(s, set, ck, p)
	p.results = make(chan *blockResult, p.window)
	p.free = make(chan *blockResult, p.window)
	p.pending = make([]*blockResult, p.window)
	p.out = p.getBlock()
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

	firstDepth := 0
	if from == nil {
		if p.commitInitial(s.m.Initial(nil)); p.halted.Load() {
			return p.end()
		}
	} else {
		if err := p.resume(from); err != nil {
			res, _ := p.result()
			return res, err
		}
		firstDepth = from.Frontier.FirstDepth
	}

	workers := make([]*worker, nw)
	for i := range workers {
		// Every worker has a clone: the original machine is left to
		// Visit, which may use it, and to Path.
		workers[i] = &worker{p: p, m: cl.Clone()}
	}

	c := &control{done: ctx.Done()}
	if s.opt.Timeout > 0 {
		t := time.NewTimer(time.Until(start.Add(s.opt.Timeout)))
		defer t.Stop()
		c.deadline = t.C
	}
	if s.opt.Progress != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		c.tick = t.C
		c.progress = func() { s.report(p.stats(time.Since(start))) }
	}
	for depth := firstDepth; p.level.len() > 0 && !p.halted.Load(); depth++ {
		p.depth = depth
		if ck != nil && ck.isDue(time.Now(), p.states) {
			if err := p.checkpoint(false, Complete); err != nil {
				p.halt(Complete, err)
				break
			}
		}
		if ctx.Err() != nil {
			p.halt(Canceled, nil)
			break
		}
		select {
		case <-c.deadline:
			p.halt(TimeLimit, nil)
			c.deadline = nil
		default:
		}
		if p.halted.Load() {
			break
		}
		p.expandLevel(workers, c)
		if p.panicked != nil {
			panic(p.panicked)
		}
		if p.halted.Load() {
			break // keep the level: a canceled search checkpoints its rest
		}

		// Recycle the blocks of the expanded level, keeping about as
		// many as the next level holds in memory, and drop its file.
		err := p.level.reset(p.release)
		p.level, p.next = p.next, p.level
		p.nextStates, p.committed = 0, 0
		if err != nil {
			p.halt(Complete, fmt.Errorf("explore: %w", err))
			break
		}
	}
	return p.end()
}
