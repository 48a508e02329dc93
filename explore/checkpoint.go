package explore

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"rdmasim/explore/ckpt"
	"rdmasim/store"
)

// Checkpoint configures the checkpoints of a search (Options.Checkpoint): the
// search saves itself to a directory periodically and when it ends, and a
// later search with Resume set continues from the last checkpoint as if it had
// never stopped. What a checkpoint saves of the caller's own state, and how
// the caller's search is told from another, are Options.Save, Restore and
// Meta.
//
// What the directory holds, file by file, and how a checkpoint is written
// so that a kill at any moment leaves the last one intact, is the format of
// package explore/ckpt. A traced search keeps its parent records in the
// checkpoint's parents.bin (its only copy of them): Path reads it after Run,
// until Close, so a later search resuming in the same directory must not run
// before the paths are rebuilt.
//
// # When
//
// The sequential search checkpoints between two expansions, where the visited
// set holds exactly the states it has discovered, the frontier those not yet
// expanded, and the caller's state (Options.Save) reflects the Visit calls of exactly
// those states. The parallel search checkpoints between the commits of two
// blocks of states (see Options.Workers), where the same holds: the states of
// the committed blocks are expanded, exactly as if the sequential search had
// expanded them, and the workers' results not yet committed are left out. A
// search canceled in a level checkpoints there too, so no work is done again
// on resume. A search that ends for any reason but a failure (an error)
// writes a last checkpoint: a finished one unless it was canceled.
//
// # Resuming
//
// A search with Resume set whose directory holds a checkpoint restores it: the
// visited set, the parent records, the frontier and the counters, then the
// caller's state through Options.Restore, and goes on; Visit is not called again for
// the states it restored. It reports what the uninterrupted search would have
// reported: the same States, Transitions, MaxDepth and Pruned, and the same
// ids for the same states (so Path and the caller's state agree). Elapsed and
// Timeout count the time of the earlier runs too. A resumed finished search
// does no work: it restores the parent records and the caller's state and
// returns the result it had. The order, MaxStates,
// Timeout and Meta must be those of the checkpoint, and Trace can only be
// dropped; Workers may differ, since a parallel search finds what a
// sequential one finds. Without Resume, a directory that holds a checkpoint
// is an error, so that a new search never silently continues an old one.
//
// A lock file (flock) keeps two processes from using one directory at once.
type Checkpoint struct {
	// Dir is the checkpoint directory, created if missing.
	Dir string

	// Every is the period of the checkpoints; zero checkpoints only when
	// the search ends.
	Every time.Duration

	// Resume makes the search continue from the checkpoint in Dir when
	// there is one; without one it starts afresh.
	Resume bool

	// everyStates, in tests, makes checkpoints due whenever this many
	// states were discovered since the last one, whatever the time.
	everyStates uint64
	// noSync, in tests that simulate kills by copying the directory,
	// skips the fsyncs, which take tens of milliseconds on a busy disk.
	noSync bool
}

// CheckpointFormat is the version of the checkpoint format (see package
// explore/ckpt). A search refuses to resume a checkpoint of another version.
const CheckpointFormat = ckpt.Format

// snapshot is what a checkpoint saves besides the files.
type snapshot struct {
	stats    Stats
	pruned   Pruned
	workers  int
	finished bool
	stop     Stop
	state    json.RawMessage

	// Breadth-first frontier: the id and depth of its first state, and how
	// many states are at that depth.
	firstID    uint64
	firstDepth int
	firstLevel uint64
}

// checkpointer is what a search keeps of its checkpoints: the directory,
// and when the next one is due.
type checkpointer struct {
	cfg     *Checkpoint
	dir     *ckpt.Dir
	save    func() (json.RawMessage, error)
	restore func(json.RawMessage) error
	every   time.Duration
	due     time.Time
	last    uint64 // states at the last checkpoint
}

// openCheckpoint opens the checkpoint directory of a search configured by opt,
// and returns the checkpoint to resume, if any.
func openCheckpoint(opt *Options, now time.Time) (*checkpointer, *ckpt.Manifest, error) {
	cfg := opt.Checkpoint
	if cfg.Dir == "" {
		return nil, nil, errors.New("explore: Checkpoint.Dir is empty")
	}
	p := ckpt.Params{Order: opt.Order.String(), MaxStates: opt.MaxStates, Timeout: opt.Timeout, Trace: opt.Trace, Meta: opt.Meta}
	d, m, err := ckpt.Open(cfg.Dir, p, cfg.Resume)
	if err != nil {
		return nil, nil, fmt.Errorf("explore: %w", err)
	}
	d.NoSync = cfg.noSync
	c := &checkpointer{cfg: cfg, dir: d, save: opt.Save, restore: opt.Restore, every: cfg.Every}
	if c.every > 0 {
		c.due = now.Add(c.every)
	}
	return c, m, nil
}

// close releases the directory.
func (c *checkpointer) close() { c.dir.Close() }

// isDue reports whether a periodic checkpoint is due at now, with states
// discovered.
func (c *checkpointer) isDue(now time.Time, states uint64) bool {
	if c.cfg.everyStates > 0 {
		return states >= c.last+c.cfg.everyStates
	}
	return c.every > 0 && !now.Before(c.due)
}

// logFP records the fingerprint of the next state discovered.
func (c *checkpointer) logFP(fp store.Fingerprint) { c.dir.AddFingerprint(fp) }

// frontierWriter writes the frontier of a checkpoint as the records of
// package ckpt: it returns the number of states written.
type frontierWriter func(w io.Writer) (uint64, error)

// write writes a checkpoint of the snapshot s; frontier writes its frontier
// unless s is finished. tr holds at least s.stats.States parent records if the
// search traces.
func (c *checkpointer) write(s *snapshot, tr *trace, frontier frontierWriter) error {
	n := s.stats.States
	var parents *os.File
	if tr != nil {
		if tr.n < n {
			return fmt.Errorf("explore: writing a checkpoint to %s: %d parent records for %d states", c.cfg.Dir, tr.n, n)
		}
		if err := tr.flush(); err != nil {
			return fmt.Errorf("explore: writing a checkpoint to %s: %w", c.cfg.Dir, err)
		}
		parents = tr.f
	}
	m := &ckpt.Manifest{
		Workers:     s.workers,
		Finished:    s.finished,
		States:      n,
		Transitions: s.stats.Transitions,
		MaxDepth:    s.stats.MaxDepth,
		Pruned:      s.pruned,
		Elapsed:     s.stats.Elapsed,
		StoreBytes:  s.stats.StoreBytes,
		State:       s.state,
	}
	if s.finished {
		m.Stop = s.stop.String()
		m.Frontier.Count = s.stats.Frontier
	} else {
		m.Frontier.FirstID, m.Frontier.FirstDepth, m.Frontier.FirstLevel = s.firstID, s.firstDepth, s.firstLevel
	}
	if err := c.dir.Write(m, parents, frontier); err != nil {
		return fmt.Errorf("explore: %w", err)
	}
	c.last = n
	if c.every > 0 {
		c.due = time.Now().Add(c.every)
	}
	return nil
}

// restoreVisited inserts the fingerprints of the checkpoint m into set, which
// must not hold any of them.
func (c *checkpointer) restoreVisited(set store.Set, m *ckpt.Manifest) error {
	batcher, _ := set.(store.BatchInserter)
	var (
		added []bool
		done  uint64
	)
	return c.dir.ReadVisited(m, func(fps []store.Fingerprint) error {
		if cap(added) < len(fps) {
			added = make([]bool, len(fps))
		}
		added = added[:len(fps)]
		var err error
		if batcher != nil {
			err = batcher.InsertBatch(fps, added)
		} else {
			for i, fp := range fps {
				if added[i], err = set.Insert(fp); err != nil {
					break
				}
			}
		}
		if err != nil {
			return fmt.Errorf("explore: restoring the visited set: %w", err)
		}
		for i, ok := range added {
			if !ok {
				return fmt.Errorf("explore: checkpoint: fingerprint %d of %s is a duplicate (a corrupt checkpoint, or a visited set that was not empty)",
					done+uint64(i), ckpt.VisitedName)
			}
		}
		done += uint64(len(fps))
		return nil
	})
}

// readFrontier calls f for each state of the checkpoint's frontier, in order,
// with its id and depth for a depth-first search, and stops at f's first
// error.
func (c *checkpointer) readFrontier(m *ckpt.Manifest, f func(enc []byte, id uint64, depth int) error) error {
	var ferr error
	err := c.dir.ReadFrontier(m, func(enc []byte, id uint64, depth int) error {
		ferr = f(enc, id, depth)
		return ferr
	})
	switch {
	case ferr != nil:
		return ferr
	case err != nil:
		return fmt.Errorf("explore: %w", err)
	}
	return nil
}

// restored returns the result of a finished search from its manifest.
func restored(m *ckpt.Manifest) Result {
	res := Result{
		Stats: Stats{States: m.States, Transitions: m.Transitions, Frontier: m.Frontier.Count, MaxDepth: m.MaxDepth,
			Elapsed: m.Elapsed, StoreBytes: m.StoreBytes},
		Pruned:  m.Pruned,
		Workers: m.Workers,
	}
	for i, name := range stopNames {
		if name == m.Stop {
			res.Stop = Stop(i)
		}
	}
	return res
}

// resumeFinished restores what a finished search left for its caller: the
// caller's state (the parent records are the checkpoint's file, which Run
// handed to the trace).
func (s *Search) resumeFinished(c *checkpointer, m *ckpt.Manifest) (Result, error) {
	res := restored(m)
	if err := c.restoreState(m); err != nil {
		return res, err
	}
	return res, nil
}

// restoreState hands the caller's state of the checkpoint to Restore.
func (c *checkpointer) restoreState(m *ckpt.Manifest) error {
	if c.restore == nil {
		return nil
	}
	if err := c.restore(m.State); err != nil {
		return fmt.Errorf("explore: checkpoint %s: restoring the caller's state: %w", c.cfg.Dir, err)
	}
	return nil
}

// saveState returns the caller's state, for a snapshot.
func (c *checkpointer) saveState() (json.RawMessage, error) {
	if c.save == nil {
		return nil, nil
	}
	st, err := c.save()
	if err != nil {
		return nil, fmt.Errorf("explore: checkpoint: saving the caller's state: %w", err)
	}
	if len(st) > 0 && !json.Valid(st) {
		return nil, errors.New("explore: checkpoint: Save returned invalid JSON")
	}
	return st, nil
}

// checkpoint writes a checkpoint of a sequential search, between two
// expansions: a finished one, ended by stop, if finished. next and levelEnd
// are those of the breadth-first loop (see run.search).
func (r *run) checkpoint(start, now time.Time, finished bool, stop Stop, next, levelEnd uint64) error {
	s, err := r.snapshot(r.stats(now.Sub(start)), 1)
	if err != nil {
		return err
	}
	s.finished, s.stop = finished, stop
	if !finished && r.bfs {
		s.firstID = next
		if next < levelEnd {
			s.firstDepth, s.firstLevel = r.depth, levelEnd-next
		} else {
			s.firstDepth, s.firstLevel = r.depth+1, r.fifo.len()
		}
	}
	return r.ck.write(s, r.trace, r.writeFrontier)
}

// writeFrontier writes the frontier of a sequential search as the records of
// a checkpoint. (A fifo's chunks are breadth-first records already.)
func (r *run) writeFrontier(w io.Writer) (uint64, error) {
	if r.bfs {
		return r.fifo.len(), r.fifo.writeTo(w)
	}
	return r.lifo.len(), r.lifo.each(func(b []byte, id uint64, depth int) error {
		return ckpt.WriteDFSRecord(w, b, id, depth)
	})
}

// resume restores a sequential search from the checkpoint m.
func (r *run) resume(m *ckpt.Manifest) error {
	if err := r.restore(m); err != nil {
		return err
	}
	err := r.ck.readFrontier(m, func(enc []byte, id uint64, depth int) error {
		return r.push(enc, id, depth)
	})
	if err != nil {
		return err
	}
	return r.ck.restoreState(m)
}

// checkpoint writes a checkpoint of the parallel search between two commits,
// or a finished one once it has ended (but for a cancel, which leaves it
// between two commits). Between two commits, the states of the first
// p.committed blocks of the level of depth p.depth are expanded; the rest of
// the level and the states of the next level found so far make the frontier,
// whose ids are the last ones given.
func (p *par) checkpoint(finished bool, stop Stop) error {
	s, err := p.snapshot(p.stats(time.Since(p.start)), p.workers)
	if err != nil {
		return err
	}
	s.finished, s.stop = finished, stop
	if !finished {
		s.firstID, s.firstDepth, s.firstLevel = p.states-p.frontier, p.depth, p.frontier-p.nextStates
		if s.firstLevel == 0 {
			// The level is all committed: the frontier is the next one.
			s.firstDepth, s.firstLevel = p.depth+1, p.frontier
		}
	}
	return p.ck.write(s, p.trace, p.writeFrontier)
}

// writeFrontier writes the frontier of a parallel search between two commits
// as the records of a checkpoint: the blocks of the level not yet committed,
// and the next level's blocks and the one being filled.
func (p *par) writeFrontier(w io.Writer) (uint64, error) {
	var n uint64
	write := func(b []byte) error {
		for off := 0; off < len(b); {
			l := int(binary.LittleEndian.Uint32(b[off+8:]))
			if err := ckpt.WriteRecord(w, b[off+entryHeader:off+entryHeader+l]); err != nil {
				return err
			}
			off += entryHeader + l
			n++
		}
		return nil
	}
	var buf []byte
	for i := p.committed; i < p.level.len(); i++ {
		b, err := p.level.block(i, &buf)
		if err == nil {
			err = write(b)
		}
		if err != nil {
			return n, err
		}
	}
	for i := range p.next.len() {
		b, err := p.next.block(i, &buf)
		if err == nil {
			err = write(b)
		}
		if err != nil {
			return n, err
		}
	}
	return n, write(p.out)
}

// end returns the result of a parallel search, after writing its last
// checkpoint unless it failed: one that resumes it if it was canceled (which
// happens between two commits), a finished one otherwise.
func (p *par) end() (Result, error) {
	res, err := p.result()
	if err != nil || p.ck == nil {
		return res, err
	}
	return res, p.checkpoint(res.Stop != Canceled, res.Stop)
}

// resume restores a parallel search from the checkpoint m: the first
// m.Frontier.FirstLevel states of its frontier make the level to expand, the
// others start the next one.
func (p *par) resume(m *ckpt.Manifest) error {
	if err := p.restore(m); err != nil {
		return err
	}
	id, levelEnd := m.Frontier.FirstID, m.Frontier.FirstID+m.Frontier.FirstLevel
	var b []byte // a block of states of the level (ids below levelEnd) or of the next
	flush := func() error {
		if len(b) == 0 {
			return nil
		}
		blk := b
		b = nil
		if id <= levelEnd {
			p.level.add(blk)
			if p.budget > 0 && p.level.mem > p.budget {
				return p.spillLevel(&p.level)
			}
			return nil
		}
		return p.addNext(blk)
	}
	err := p.ck.readFrontier(m, func(enc []byte, _ uint64, _ int) error {
		if id == levelEnd || len(b) >= blockBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		if b == nil {
			b = p.getBlock()
		}
		b = appendEntry(b, id, enc)
		id++
		return nil
	})
	if err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	p.nextStates = m.Frontier.Count - m.Frontier.FirstLevel
	return p.ck.restoreState(m)
}
