package explore

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"rdmasim/store"
)

// Checkpoint configures the checkpoints of a search (Options.Checkpoint): the
// search saves itself to a directory periodically and when it ends, and a
// later search with Resume set continues from the last checkpoint as if it had
// never stopped.
//
// # What a checkpoint holds
//
// A checkpoint directory belongs to one search. It holds:
//
//   - manifest.json: the format version (CheckpointFormat), the fingerprint
//     seed (store.FingerprintSeed), the search's parameters (order, workers,
//     MaxStates, Timeout, Trace), the caller's Meta, the counters (states,
//     transitions, depth, pruned bounds, elapsed time), whether the search
//     has finished and why, the caller's State, and the names, lengths and
//     CRC-32C of the files below. It is the only file that makes a checkpoint
//     valid: it is written to tmp-SEQ.json, synced, renamed over
//     manifest.json, and the directory synced.
//   - visited.fp: the visited set, as the 16-byte fingerprints (Lo then Hi,
//     little-endian) of the states in discovery (id) order. It only grows:
//     each checkpoint syncs the fingerprints discovered since the last one,
//     and the manifest counts the valid prefix, so a checkpoint costs time in
//     proportion to the new states, not to all of them. A resumed search
//     truncates the file to that prefix and inserts it into its (empty)
//     visited set, whatever kind of store.Set that is.
//   - parents.bin: with Trace, the parent records (8 bytes each, little-
//     endian, in id order) that Path replays, likewise append-only. It is
//     the search's only copy of them: the search appends to it as it goes
//     (through a buffer of 1 MiB), a checkpoint syncs it, and a resumed
//     search truncates it to the manifest's count and goes on appending,
//     without reading it. Path reads it after Run (until Close), so a
//     later search resuming in the same directory must not run before the
//     paths are rebuilt.
//   - frontier-SEQ.bin: the discovered but unexpanded states, in expansion
//     order. Breadth-first, each is a 4-byte little-endian length and the
//     encoding; the states have consecutive ids from the manifest's first_id,
//     the first first_level of them at depth first_depth and the others one
//     deeper. Depth-first, each is an 8-byte id, a 4-byte depth, a 4-byte
//     length and the encoding, from the bottom of the stack to its top. A
//     new checkpoint writes a new file, and removes the previous one once its
//     manifest is in place. A finished search has none.
//
// A kill at any moment leaves the last checkpoint whose manifest was renamed
// into place intact: the files it names are synced before it, the append-only
// files are only appended to past the prefix it counts, and its frontier file
// is removed only after a later manifest replaced it.
//
// # When
//
// The sequential search checkpoints between two expansions, where the visited
// set holds exactly the states it has discovered, the frontier those not yet
// expanded, and the caller's state (Save) reflects the Visit calls of exactly
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
// caller's state through Restore, and goes on; Visit is not called again for
// the states it restored. It reports what the uninterrupted search would have
// reported: the same States, Transitions, MaxDepth and Pruned, and the same
// ids for the same states (so Path and the caller's state agree). Elapsed and Timeout count the time of the earlier runs too. A
// resumed finished search does no work: it restores the parent records and
// the caller's state and returns the result it had. The order, MaxStates,
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

	// Meta describes the search for the caller (a JSON value, or nil). It
	// is stored in the manifest, and a resumed search refuses a checkpoint
	// whose Meta differs.
	Meta json.RawMessage

	// Save, if non-nil, returns the caller's state that Visit built from
	// the states visited so far (a JSON value). It is called at each
	// checkpoint, never concurrently with Visit.
	Save func() (json.RawMessage, error)

	// Restore, if non-nil, is called on resume, before the search goes on,
	// with the state that Save returned for the checkpoint (nil if Save was
	// nil).
	Restore func(json.RawMessage) error

	// everyStates, in tests, makes checkpoints due whenever this many
	// states were discovered since the last one, whatever the time.
	everyStates uint64
	// noSync, in tests that simulate kills by copying the directory,
	// skips the fsyncs, which take tens of milliseconds on a busy disk.
	noSync bool
}

// CheckpointFormat is the version of the checkpoint format described at
// Checkpoint. A search refuses to resume a checkpoint of another version.
const CheckpointFormat = 1

// Checkpoint file names.
const (
	manifestName = "manifest.json"
	visitedName  = "visited.fp"
	parentsName  = "parents.bin"
	lockName     = "lock"
)

// manifest is the JSON form of manifest.json.
type manifest struct {
	Format          int             `json:"format"`
	Seq             uint64          `json:"seq"`
	Written         time.Time       `json:"written"`
	FingerprintSeed [2]uint64       `json:"fingerprint_seed"`
	Order           string          `json:"order"`
	Workers         int             `json:"workers"`
	MaxStates       uint64          `json:"max_states"`
	Timeout         time.Duration   `json:"timeout_ns"`
	Trace           bool            `json:"trace"`
	Meta            json.RawMessage `json:"meta,omitempty"`

	Finished    bool          `json:"finished"`
	Stop        string        `json:"stop,omitempty"` // why a finished search ended
	States      uint64        `json:"states"`
	Transitions uint64        `json:"transitions"`
	MaxDepth    int           `json:"max_depth"`
	Pruned      Pruned        `json:"pruned"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	StoreBytes  uint64        `json:"store_bytes"`

	Frontier frontierInfo `json:"frontier"`
	Visited  fileInfo     `json:"visited"`
	Parents  fileInfo     `json:"parents"`

	State json.RawMessage `json:"state,omitempty"`
}

// frontierInfo describes a frontier file.
type frontierInfo struct {
	File       string `json:"file,omitempty"`
	Count      uint64 `json:"count"`
	Bytes      uint64 `json:"bytes"`
	CRC32C     uint32 `json:"crc32c"`
	FirstID    uint64 `json:"first_id"`
	FirstDepth int    `json:"first_depth"`
	FirstLevel uint64 `json:"first_level"`
}

// fileInfo describes an append-only file: its valid prefix holds Count
// records.
type fileInfo struct {
	File  string `json:"file,omitempty"`
	Count uint64 `json:"count"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

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

	written bool // the checkpoint of this snapshot is on disk
}

// checkpointer writes the checkpoints of one search.
type checkpointer struct {
	cfg   *Checkpoint
	opt   *Options
	dir   string
	lock  *os.File
	seq   uint64 // of the last checkpoint written or restored
	every time.Duration
	due   time.Time
	last  uint64 // states at the last checkpoint

	visited *os.File
	fpBuf   []byte // fingerprints not yet written to visited
	fpFile  uint64 // fingerprints written to visited
	fpErr   error  // a failed write of fpBuf

	parents  *os.File // parents.bin, opened for Run to hand to the trace
	parFile  uint64   // the records it holds
	frontier string   // the file of the last checkpoint, if any
}

// fpFlush is the size of the buffer of fingerprints written at once between
// checkpoints.
const fpFlush = 1 << 20

// openCheckpoint opens the checkpoint directory of a search configured by opt,
// and returns the checkpoint to resume, if any.
func openCheckpoint(opt *Options, now time.Time) (c *checkpointer, m *manifest, err error) {
	cfg := opt.Checkpoint
	if cfg.Dir == "" {
		return nil, nil, errors.New("explore: Checkpoint.Dir is empty")
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("explore: checkpoint: %w", err)
	}
	c = &checkpointer{cfg: cfg, opt: opt, dir: cfg.Dir, every: cfg.Every}
	if c.every > 0 {
		c.due = now.Add(c.every)
	}
	defer func() {
		if err != nil {
			c.close()
			c, m = nil, nil
		}
	}()
	if c.lock, err = os.OpenFile(c.path(lockName), os.O_CREATE|os.O_RDWR, 0o644); err != nil {
		return c, nil, fmt.Errorf("explore: checkpoint: %w", err)
	}
	if err := syscall.Flock(int(c.lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return c, nil, fmt.Errorf("explore: checkpoint directory %s is in use by another process: %w", c.dir, err)
	}
	data, err := os.ReadFile(c.path(manifestName))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return c, nil, fmt.Errorf("explore: checkpoint: %w", err)
	case !cfg.Resume:
		return c, nil, fmt.Errorf("explore: %s already holds a checkpoint", c.dir)
	default:
		m = new(manifest)
		if err := json.Unmarshal(data, m); err != nil {
			return c, nil, fmt.Errorf("explore: checkpoint %s: reading the manifest: %w", c.dir, err)
		}
		if err := c.check(m); err != nil {
			return c, nil, fmt.Errorf("explore: checkpoint %s: %w", c.dir, err)
		}
		c.seq, c.frontier = m.Seq, m.Frontier.File
	}
	c.removeStale()
	var visited, parents uint64
	if m != nil {
		visited = m.Visited.Count
		if m.Trace {
			parents = m.Parents.Count
		}
	}
	if c.visited, err = openLog(c.path(visitedName), 16*visited); err != nil {
		return c, nil, err
	}
	c.fpFile = visited
	if opt.Trace {
		if c.parents, err = openLog(c.path(parentsName), 8*parents); err != nil {
			return c, nil, err
		}
		c.parFile = parents
	}
	return c, m, nil
}

// openLog opens an append-only file, keeping its first size bytes (which
// must be there) and dropping the rest, and positions it at its end.
func openLog(path string, size uint64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("explore: checkpoint: %w", err)
	}
	fail := func(err error) (*os.File, error) {
		f.Close()
		return nil, fmt.Errorf("explore: checkpoint: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if uint64(fi.Size()) < size {
		return fail(fmt.Errorf("%s holds %d bytes, the manifest counts %d", path, fi.Size(), size))
	}
	if err := f.Truncate(int64(size)); err != nil {
		return fail(err)
	}
	if _, err := f.Seek(int64(size), io.SeekStart); err != nil {
		return fail(err)
	}
	return f, nil
}

// check validates a manifest against the search's options.
func (c *checkpointer) check(m *manifest) error {
	opt := c.opt
	switch {
	case m.Format != CheckpointFormat:
		return fmt.Errorf("format %d, this version reads format %d", m.Format, CheckpointFormat)
	case m.FingerprintSeed != store.FingerprintSeed():
		return fmt.Errorf("fingerprint seed %#x, this version uses %#x", m.FingerprintSeed, store.FingerprintSeed())
	case m.Order != opt.Order.String():
		return fmt.Errorf("made by a %s search, resumed by a %s one", m.Order, opt.Order)
	case m.MaxStates != opt.MaxStates:
		return fmt.Errorf("made with MaxStates %d, resumed with %d", m.MaxStates, opt.MaxStates)
	case m.Timeout != opt.Timeout:
		return fmt.Errorf("made with Timeout %v, resumed with %v", m.Timeout, opt.Timeout)
	case opt.Trace && !m.Trace:
		return errors.New("made without Trace, resumed with it")
	case !sameJSON(m.Meta, c.cfg.Meta):
		return fmt.Errorf("made by another search (%s), resumed by %s", m.Meta, c.cfg.Meta)
	case m.Visited.Count != m.States || m.Trace && m.Parents.Count != m.States:
		return fmt.Errorf("the manifest counts %d states, %d fingerprints and %d parent records", m.States, m.Visited.Count, m.Parents.Count)
	case !m.Finished && m.Frontier.File == "" && m.Frontier.Count > 0:
		return errors.New("the manifest names no frontier file")
	case !m.Finished && m.Order == BFS.String() && m.Frontier.Count > 0 &&
		(m.Frontier.FirstLevel == 0 || m.Frontier.FirstLevel > m.Frontier.Count):
		return fmt.Errorf("a frontier of %d states whose first level has %d", m.Frontier.Count, m.Frontier.FirstLevel)
	}
	return nil
}

// sameJSON reports whether two JSON values are equal up to insignificant
// white space (nil and empty are equal).
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if len(a) > 0 {
		if err := json.Compact(&ca, a); err != nil {
			return false
		}
	}
	if len(b) > 0 {
		if err := json.Compact(&cb, b); err != nil {
			return false
		}
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// removeStale removes the temporary manifests and the frontier files of
// checkpoints that were never completed or have been replaced.
func (c *checkpointer) removeStale() {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "tmp-") || strings.HasPrefix(n, "frontier-") && n != c.frontier {
			os.Remove(c.path(n))
		}
	}
}

func (c *checkpointer) path(name string) string { return filepath.Join(c.dir, name) }

// close releases the files and the lock.
func (c *checkpointer) close() {
	for _, f := range []*os.File{c.visited, c.parents, c.lock} {
		if f != nil {
			f.Close()
		}
	}
	c.visited, c.parents, c.lock = nil, nil, nil
}

// isDue reports whether a periodic checkpoint is due at now, with states
// discovered.
func (c *checkpointer) isDue(now time.Time, states uint64) bool {
	if c.cfg.everyStates > 0 {
		return states >= c.last+c.cfg.everyStates
	}
	return c.every > 0 && !now.Before(c.due)
}

// logFP records the fingerprint of the next state discovered.
func (c *checkpointer) logFP(fp store.Fingerprint) {
	c.fpBuf = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(c.fpBuf, fp.Lo), fp.Hi)
	if len(c.fpBuf) >= fpFlush {
		c.flushFPs()
	}
}

// flushFPs writes the buffered fingerprints to the visited file, unsynced.
func (c *checkpointer) flushFPs() {
	if c.fpErr != nil || len(c.fpBuf) == 0 {
		return
	}
	if _, err := c.visited.Write(c.fpBuf); err != nil {
		c.fpErr = fmt.Errorf("explore: checkpoint: %w", err)
		return
	}
	c.fpFile += uint64(len(c.fpBuf) / 16)
	c.fpBuf = c.fpBuf[:0]
}

// frontierWriter writes the frontier of a checkpoint: it returns the number of
// states written.
type frontierWriter func(w io.Writer) (uint64, error)

// write writes a checkpoint of the snapshot s; frontier writes its frontier
// unless s is finished. tr holds at least s.stats.States parent records if the
// search traces.
func (c *checkpointer) write(s *snapshot, tr *trace, frontier frontierWriter) error {
	if err := c.writeFiles(s, tr, frontier); err != nil {
		return fmt.Errorf("explore: writing checkpoint %d to %s: %w", c.seq+1, c.dir, err)
	}
	s.written = true
	c.last = s.stats.States
	if c.every > 0 {
		c.due = time.Now().Add(c.every)
	}
	return nil
}

func (c *checkpointer) writeFiles(s *snapshot, tr *trace, frontier frontierWriter) error {
	n := s.stats.States
	c.flushFPs()
	if c.fpErr != nil {
		return c.fpErr
	}
	if c.fpFile < n {
		return fmt.Errorf("%d fingerprints logged for %d states", c.fpFile, n)
	}
	if err := c.sync(c.visited); err != nil {
		return err
	}
	if tr != nil {
		if tr.n < n {
			return fmt.Errorf("%d parent records for %d states", tr.n, n)
		}
		if err := tr.flush(); err != nil {
			return err
		}
		if err := c.sync(tr.f); err != nil {
			return err
		}
	}

	seq := c.seq + 1
	m := &manifest{
		Format:          CheckpointFormat,
		Seq:             seq,
		Written:         time.Now().UTC(),
		FingerprintSeed: store.FingerprintSeed(),
		Order:           c.opt.Order.String(),
		Workers:         s.workers,
		MaxStates:       c.opt.MaxStates,
		Timeout:         c.opt.Timeout,
		Trace:           tr != nil,
		Meta:            c.cfg.Meta,
		Finished:        s.finished,
		States:          n,
		Transitions:     s.stats.Transitions,
		MaxDepth:        s.stats.MaxDepth,
		Pruned:          s.pruned,
		Elapsed:         s.stats.Elapsed,
		StoreBytes:      s.stats.StoreBytes,
		Visited:         fileInfo{File: visitedName, Count: n},
		State:           s.state,
	}
	if s.finished {
		m.Stop = s.stop.String()
		m.Frontier.Count = s.stats.Frontier
	} else {
		fi, err := c.writeFrontier(seq, frontier)
		if err != nil {
			return err
		}
		fi.FirstID, fi.FirstDepth, fi.FirstLevel = s.firstID, s.firstDepth, s.firstLevel
		m.Frontier = fi
	}
	if m.Trace {
		m.Parents = fileInfo{File: parentsName, Count: n}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := c.path(fmt.Sprintf("tmp-%d.json", seq))
	if err := c.writeSynced(tmp, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	}); err != nil {
		return err
	}
	if err := os.Rename(tmp, c.path(manifestName)); err != nil {
		return err
	}
	if err := c.syncDir(); err != nil {
		return err
	}
	if c.frontier != "" && c.frontier != m.Frontier.File {
		os.Remove(c.path(c.frontier))
	}
	c.seq, c.frontier = seq, m.Frontier.File
	return nil
}

// writeFrontier writes the frontier file of checkpoint seq.
func (c *checkpointer) writeFrontier(seq uint64, frontier frontierWriter) (frontierInfo, error) {
	fi := frontierInfo{File: fmt.Sprintf("frontier-%d.bin", seq)}
	crc := crc32.New(castagnoli)
	err := c.writeSynced(c.path(fi.File), func(w io.Writer) error {
		cw := &countWriter{w: io.MultiWriter(w, crc)}
		n, err := frontier(cw)
		fi.Count, fi.Bytes = n, cw.n
		return err
	})
	fi.CRC32C = crc.Sum32()
	return fi, err
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n uint64
}

func (w *countWriter) Write(b []byte) (int, error) {
	n, err := w.w.Write(b)
	w.n += uint64(n)
	return n, err
}

// writeSynced creates the file path, writes it through a buffer with write,
// and syncs and closes it.
func (c *checkpointer) writeSynced(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = c.sync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir syncs the checkpoint directory, making the renames and creations in
// it durable.
func (c *checkpointer) syncDir() error {
	d, err := os.Open(c.dir)
	if err != nil {
		return err
	}
	err = c.sync(d)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// sync syncs a file, unless a test asked for no syncs.
func (c *checkpointer) sync(f *os.File) error {
	if c.cfg.noSync {
		return nil
	}
	return f.Sync()
}

// restoreVisited inserts the m.Visited.Count fingerprints of the checkpoint
// into set, which must not hold any of them.
func (c *checkpointer) restoreVisited(set store.Set, m *manifest) error {
	f, err := os.Open(c.path(visitedName))
	if err != nil {
		return fmt.Errorf("explore: checkpoint: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	batcher, _ := set.(store.BatchInserter)
	const batch = 4096
	var (
		buf   [16 * batch]byte
		fps   = make([]store.Fingerprint, batch)
		added = make([]bool, batch)
	)
	for left := m.Visited.Count; left > 0; {
		k := min(left, batch)
		if _, err := io.ReadFull(r, buf[:16*k]); err != nil {
			return fmt.Errorf("explore: checkpoint: reading %s: %w", visitedName, err)
		}
		for i := range k {
			fps[i] = store.Fingerprint{Lo: binary.LittleEndian.Uint64(buf[16*i:]), Hi: binary.LittleEndian.Uint64(buf[16*i+8:])}
		}
		if batcher != nil {
			err = batcher.InsertBatch(fps[:k], added)
		} else {
			for i, fp := range fps[:k] {
				if added[i], err = set.Insert(fp); err != nil {
					break
				}
			}
		}
		if err != nil {
			return fmt.Errorf("explore: restoring the visited set: %w", err)
		}
		for i := range k {
			if !added[i] {
				return fmt.Errorf("explore: checkpoint: fingerprint %d of %s is a duplicate (a corrupt checkpoint, or a visited set that was not empty)",
					m.Visited.Count-left+i, visitedName)
			}
		}
		left -= k
	}
	return nil
}

// readFrontier calls f for each state of the checkpoint's frontier, in order,
// with its id and depth for a depth-first search; the encoding is valid only
// during the call. It checks the file's length, count and checksum.
func (c *checkpointer) readFrontier(m *manifest, f func(enc []byte, id uint64, depth int)) error {
	fi := m.Frontier
	if fi.Count == 0 {
		return nil
	}
	file, err := os.Open(c.path(fi.File))
	if err != nil {
		return fmt.Errorf("explore: checkpoint: %w", err)
	}
	defer file.Close()
	crc := crc32.New(castagnoli)
	r := bufio.NewReaderSize(io.TeeReader(file, crc), 1<<20)
	if err := readRecords(r, m.Order == DFS.String(), fi.Count, f); err != nil {
		return fmt.Errorf("explore: checkpoint: reading %s: %w", fi.File, err)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return fmt.Errorf("explore: checkpoint: %s is longer than its %d states", fi.File, fi.Count)
	}
	if got := crc.Sum32(); got != fi.CRC32C {
		return fmt.Errorf("explore: checkpoint: %s has checksum %#x, the manifest says %#x", fi.File, got, fi.CRC32C)
	}
	return nil
}

func readRecords(r *bufio.Reader, dfs bool, count uint64, f func(enc []byte, id uint64, depth int)) error {
	var (
		hdr [16]byte
		buf []byte
	)
	for range count {
		var id uint64
		var depth int
		var l uint32
		if dfs {
			if _, err := io.ReadFull(r, hdr[:16]); err != nil {
				return err
			}
			id = binary.LittleEndian.Uint64(hdr[:])
			depth = int(binary.LittleEndian.Uint32(hdr[8:]))
			l = binary.LittleEndian.Uint32(hdr[12:])
		} else {
			if _, err := io.ReadFull(r, hdr[:4]); err != nil {
				return err
			}
			l = binary.LittleEndian.Uint32(hdr[:])
		}
		if l > maxEncoding {
			return fmt.Errorf("a %d-byte encoding", l)
		}
		if cap(buf) < int(l) {
			buf = make([]byte, l)
		}
		buf = buf[:l]
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		f(buf, id, depth)
	}
	return nil
}

// restored returns the result of a finished search from its manifest.
func restored(m *manifest) Result {
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
func (s *Search) resumeFinished(c *checkpointer, m *manifest) (Result, error) {
	res := restored(m)
	if err := restoreState(c.cfg, m); err != nil {
		return res, err
	}
	return res, nil
}

// restoreState hands the caller's state of the checkpoint to Restore.
func restoreState(cfg *Checkpoint, m *manifest) error {
	if cfg.Restore == nil {
		return nil
	}
	if err := cfg.Restore(m.State); err != nil {
		return fmt.Errorf("explore: checkpoint %s: restoring the caller's state: %w", cfg.Dir, err)
	}
	return nil
}

// saveState returns the caller's state, for a snapshot.
func saveState(cfg *Checkpoint) (json.RawMessage, error) {
	if cfg.Save == nil {
		return nil, nil
	}
	st, err := cfg.Save()
	if err != nil {
		return nil, fmt.Errorf("explore: checkpoint: saving the caller's state: %w", err)
	}
	if len(st) > 0 && !json.Valid(st) {
		return nil, errors.New("explore: checkpoint: Save returned invalid JSON")
	}
	return st, nil
}

// writeRecord writes one breadth-first frontier record: length and encoding.
func writeRecord(w io.Writer, enc []byte) error {
	var hdr [4]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(len(enc)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(enc)
	return err
}

// checkpoint writes a checkpoint of a sequential search, between two
// expansions: a finished one, ended by stop, if finished. next and levelEnd
// are those of Run's breadth-first loop.
func (r *run) checkpoint(start, now time.Time, finished bool, stop Stop, next, levelEnd uint64) error {
	s := &snapshot{stats: r.stats(now.Sub(start)), pruned: r.pruned, workers: 1, finished: finished, stop: stop}
	var err error
	if s.state, err = saveState(r.ck.cfg); err != nil {
		return err
	}
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

// writeFrontier writes the frontier of a sequential search in the format of
// a checkpoint.
func (r *run) writeFrontier(w io.Writer) (uint64, error) {
	if r.bfs {
		return r.fifo.len(), r.fifo.writeTo(w)
	}
	var hdr [16]byte
	return r.lifo.len(), r.lifo.each(func(b []byte, id uint64, depth int) error {
		binary.LittleEndian.PutUint64(hdr[:], id)
		binary.LittleEndian.PutUint32(hdr[8:], uint32(depth))
		binary.LittleEndian.PutUint32(hdr[12:], uint32(len(b)))
		if _, err := w.Write(hdr[:]); err != nil {
			return err
		}
		_, err := w.Write(b)
		return err
	})
}

// restore restores a sequential search from the checkpoint m.
func (r *run) restore(m *manifest) error {
	if err := r.ck.restoreVisited(r.set, m); err != nil {
		return err
	}
	r.states, r.transitions, r.maxDepth, r.pruned = m.States, m.Transitions, m.MaxDepth, m.Pruned
	var perr error // of pushing onto a frontier that spills
	err := r.ck.readFrontier(m, func(enc []byte, id uint64, depth int) {
		switch {
		case perr != nil:
		case r.bfs:
			if err := r.fifo.push(enc); err != nil {
				perr = fmt.Errorf("explore: %w", err)
			}
		default:
			r.lifo.push(enc, id, depth)
		}
	})
	if err != nil {
		return err
	}
	if perr != nil {
		return perr
	}
	return restoreState(r.ck.cfg, m)
}

// snapshot returns the state of a parallel search between two commits, for a
// checkpoint: the states of the first p.committed blocks of the level of depth
// p.depth are expanded; the rest of the level and the states of the next level
// found so far make the frontier, whose ids are the last ones given.
func (p *par) snapshot() (*snapshot, error) {
	s := &snapshot{stats: p.stats(time.Since(p.start)), pruned: p.pruned, workers: p.workers,
		firstID: p.states - p.frontier, firstDepth: p.depth, firstLevel: p.frontier - p.nextStates}
	if s.firstLevel == 0 {
		// The level is all committed: the frontier is the next one.
		s.firstDepth, s.firstLevel = p.depth+1, p.frontier
	}
	var err error
	s.state, err = saveState(p.ck.cfg)
	return s, err
}

// checkpoint writes a checkpoint of the parallel search between two commits.
func (p *par) checkpoint() error {
	s, err := p.snapshot()
	if err != nil {
		return err
	}
	return p.ck.write(s, p.trace, p.writeFrontier)
}

// writeFrontier writes the frontier of a parallel search between two commits,
// in the format of a checkpoint's frontier: the blocks of the level not yet
// committed, and the next level's blocks and the one being filled.
func (p *par) writeFrontier(w io.Writer) (uint64, error) {
	var n uint64
	write := func(b []byte) error {
		for off := 0; off < len(b); {
			l := int(binary.LittleEndian.Uint32(b[off+8:]))
			if err := writeRecord(w, b[off+entryHeader:off+entryHeader+l]); err != nil {
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
	res, err := p.result(p.workers)
	if err != nil || p.ck == nil {
		return res, err
	}
	if res.Stop == Canceled {
		return res, p.checkpoint()
	}
	s := &snapshot{stats: res.Stats, pruned: res.Pruned, workers: p.workers, finished: true, stop: res.Stop}
	if s.state, err = saveState(p.ck.cfg); err != nil {
		return res, err
	}
	return res, p.ck.write(s, p.trace, p.writeFrontier)
}

// restore restores a parallel search from the checkpoint m: the first
// m.Frontier.FirstLevel states of its frontier make the level to expand, the
// others start the next one.
func (p *par) restore(m *manifest) error {
	if err := p.ck.restoreVisited(p.set, m); err != nil {
		return err
	}
	p.states, p.transitions, p.maxDepth, p.pruned, p.frontier = m.States, m.Transitions, m.MaxDepth, m.Pruned, m.Frontier.Count
	id, levelEnd := m.Frontier.FirstID, m.Frontier.FirstID+m.Frontier.FirstLevel
	var (
		b    []byte // a block of states of the level (ids below levelEnd) or of the next
		ferr error  // of spilling a block
	)
	flush := func() {
		if len(b) > 0 && ferr == nil {
			if id <= levelEnd {
				p.level.add(b)
				if p.budget > 0 && p.level.mem > p.budget {
					ferr = p.spillLevel(&p.level)
				}
			} else if err := p.addNext(b); err != nil {
				ferr = err
			}
			b = nil
		}
	}
	err := p.ck.readFrontier(m, func(enc []byte, _ uint64, _ int) {
		if id == levelEnd || len(b) >= blockBytes {
			flush()
		}
		if b == nil {
			b = p.getBlock()
		}
		b = binary.LittleEndian.AppendUint64(b, id)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(enc)))
		b = append(b, enc...)
		id++
	})
	if err != nil {
		return err
	}
	flush()
	if ferr != nil {
		return ferr
	}
	p.nextStates = m.Frontier.Count - m.Frontier.FirstLevel
	return restoreState(p.ck.cfg, m)
}
