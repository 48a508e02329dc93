//go:build !js

package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"
)

// Pebble is a disk-backed Set: a visited set of fingerprints stored as the
// keys of a Pebble LSM tree. Each key is the 16 bytes of a fingerprint, Hi
// then Lo, big-endian, so keys spread uniformly over the key space; values
// are empty. Membership is exact, and Len is an exact count kept in memory.
//
// # Write path
//
// By default (PebbleOptions.BufferBytes >= 0) new fingerprints are not
// written to Pebble one by one: they go into an in-memory Mem table (the
// buffer). When it is full the table is frozen, a second table takes new
// fingerprints, and a background goroutine sorts the frozen table's contents
// range by range (a counting pass over the high bits of Hi then insertion
// sort: the fingerprints are uniform), writes them as sstables of at most
// sstKeys keys, adds them to the front filter and ingests them into Pebble with
// one DB.Ingest call. Ingestion skips the memtable, the write-ahead log and the
// flush, and places the sorted run as low in the tree as it can; compactions
// merge the runs later. Inserting therefore costs a hash-table insert, and the
// buffer doubles as a cache of the most recent fingerprints, which are the
// most likely duplicates.
//
// # Read path
//
// A fingerprint is looked up in the active table, then in the frozen table
// being ingested, then in an in-memory blocked Bloom filter over all the
// fingerprints on disk (12 bits each), and only if the filter says
// "maybe" with Pebble's Get, which consults the bloom filter Pebble keeps in
// each sstable (10 bits per key on every level) before reading any data block.
// Most new fingerprints therefore never reach Pebble; duplicates that have left
// the buffer and about 1% of new fingerprints do.
//
// # Configuration
//
// The defaults (an in-memory buffer of 256 MiB, a front filter of 12 bits per
// fingerprint, bloom filters of 10 bits per key in every sstable, no
// write-ahead log, no compression since random keys do not compress, Pebble's
// own block and index sizes) are the fastest configuration measured; the
// measurements, against Pebble's defaults and the other alternatives, are in
// BENCHMARKS.md ("The visited sets on disk").
//
// A Pebble is not safe for concurrent use, and must not be used after Close.
type Pebble struct {
	opt     PebbleOptions // resolved
	dir     string        // the database directory
	tempDir string        // removed by Close if not empty
	popts   *pebble.Options
	db      *pebble.DB // nil until opened (NewSpill opens at the first spill)
	wopts   sstable.WriterOptions
	n       uint64 // fingerprints in the set
	err     error  // sticky error of a failed spill or write
	key     [16]byte
	filter  *frontFilter // nil if disabled, or not yet created
	stored  bool         // whether the database may hold fingerprints

	// Without a buffer.
	batch   *pebble.Batch
	pending []Fingerprint // new fingerprints of the current batch

	// With a buffer.
	buffered bool
	maxSlots uint64 // slots of a full table
	active   *Mem   // takes new fingerprints
	old      *Mem   // while active grows, the table whose fingerprints move to it, or nil
	oldNext  int    // the next slot of old to move
	// jumpSlots is the table size from which active grows incrementally
	// (defaultJumpSlots).
	jumpSlots uint64
	frozen    *Mem // being ingested by spill, or nil
	done      chan spillResult
	spare     chan *Mem // a cleared table for the next swap
	spares    int       // tables sent or to be sent on spare
	seq       int       // spills started
	stats     SpillStats
	rest      []Fingerprint // InsertBatch's fingerprints found in no table
	sorter    fpSorter      // used by spill, which runs one at a time
	runBuf    []Fingerprint // likewise
}

// OpenPebble opens (creating it if needed) a disk-backed visited set in dir,
// or, with opt.Temp, in a new temporary directory inside dir. A set reopened
// from an existing directory starts with Len 0 whatever it holds: reopening is
// not supported.
func OpenPebble(dir string, opt PebbleOptions) (*Pebble, error) {
	p := newPebble(dir, opt)
	if err := p.open(); err != nil {
		return nil, err
	}
	p.stored = !p.buffered
	if !p.buffered && p.opt.FilterBitsPerKey > 0 {
		exp := p.opt.ExpectedEntries
		if exp == 0 {
			exp = 4 << 20
		}
		p.filter = newFrontFilter(p.opt.FilterBitsPerKey, exp)
	}
	return p, nil
}

// newPebble resolves the options; it touches no file.
func newPebble(dir string, opt PebbleOptions) *Pebble {
	if opt.BufferBytes == 0 {
		opt.BufferBytes = DefaultPebbleBuffer
	}
	if opt.FilterBitsPerKey == 0 {
		opt.FilterBitsPerKey = DefaultFilterBitsPerKey
	}
	if opt.BloomBitsPerKey == 0 {
		opt.BloomBitsPerKey = DefaultBloomBitsPerKey
	}
	if opt.MemTableBytes == 0 {
		opt.MemTableBytes = DefaultMemTableBytes
	}
	if opt.CacheBytes == 0 {
		opt.CacheBytes = DefaultCacheBytes
	}
	p := &Pebble{opt: opt, dir: dir, jumpSlots: defaultJumpSlots}
	if opt.BufferBytes > 0 {
		p.buffered = true
		p.maxSlots = minSlots
		for p.maxSlots < 1<<40 && 2*(2*p.maxSlots)*16 <= uint64(opt.BufferBytes) {
			p.maxSlots *= 2
		}
		p.active = NewMem(0)
		p.done = make(chan spillResult, 1)
		p.spare = make(chan *Mem, 1)
	}
	return p
}

// open opens the database in p.dir, first creating a temporary directory in
// it if the options ask for one.
func (p *Pebble) open() error {
	if p.dir == "" && !p.opt.Temp {
		return errors.New("store: no directory for the pebble set")
	}
	if p.opt.Temp {
		removeStale(p.dir, time.Now())
		d, err := os.MkdirTemp(p.dir, tempPrefix)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		p.dir, p.tempDir = d, d
	}
	o := &pebble.Options{
		DisableWAL:         !p.opt.WAL,
		MemTableSize:       p.opt.MemTableBytes,
		CacheSize:          p.opt.CacheBytes,
		FormatMajorVersion: pebble.FormatNewest,
		Logger:             quietLogger{},
		NoSyncOnClose:      true,
		// The set only ever adds distinct keys in sorted runs, which
		// compactions would rewrite again and again for nothing but
		// fewer L0 sublevels: a lookup that reaches the disk (one the
		// in-memory tables and the front filter did not answer)
		// consults the Bloom filter of one sstable per spill.
		DisableAutomaticCompactions: true,
	}
	o.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionNone })
	if p.opt.BloomBitsPerKey > 0 {
		for i := range o.Levels {
			o.Levels[i].FilterPolicy = bloom.FilterPolicy(p.opt.BloomBitsPerKey)
		}
	}
	o.EnsureDefaults()
	db, err := pebble.Open(p.dir, o)
	if err != nil {
		p.removeTemp()
		return fmt.Errorf("store: opening pebble in %s: %w", p.dir, err)
	}
	p.db, p.popts = db, o
	p.wopts = o.MakeWriterOptions(0, db.TableFormat())
	return nil
}

// quietLogger drops Pebble's informational messages.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)           {}
func (quietLogger) Errorf(format string, a ...any) { log.Printf("pebble: "+format, a...) }
func (quietLogger) Fatalf(format string, a ...any) { log.Fatalf("pebble: "+format, a...) }

// keyOf encodes fp as its 16-byte key into k.
func keyOf(k *[16]byte, fp Fingerprint) []byte {
	binary.BigEndian.PutUint64(k[:8], fp.Hi)
	binary.BigEndian.PutUint64(k[8:], fp.Lo)
	return k[:]
}

// onDisk reports whether fp is in the database.
func (p *Pebble) onDisk(fp Fingerprint) (bool, error) {
	if !p.stored {
		return false, nil
	}
	if p.filter != nil && !p.filter.mayContain(fp) {
		return false, nil
	}
	p.stats.DiskLookups++
	_, closer, err := p.db.Get(keyOf(&p.key, fp))
	if err != nil {
		if errors.Is(err, pebble.ErrNotFound) {
			return false, nil
		}
		return false, fmt.Errorf("store: pebble get: %w", err)
	}
	p.stats.DiskHits++
	return true, closer.Close()
}

// Insert adds fp to the set and reports whether it was absent before.
func (p *Pebble) Insert(fp Fingerprint) (added bool, err error) {
	if p.err != nil {
		return false, p.err
	}
	if p.buffered {
		return p.insertBuffered(fp)
	}
	if found, err := p.onDisk(fp); found || err != nil {
		return false, err
	}
	if err := p.db.Set(keyOf(&p.key, fp), nil, pebble.NoSync); err != nil {
		p.err = fmt.Errorf("store: pebble set: %w", err)
		return false, p.err
	}
	if p.filter != nil {
		p.filter.add(fp)
	}
	p.n++
	return true, nil
}

// InsertBatch inserts each fingerprint of fps in turn, setting added[i] to
// whether fps[i] was absent before; a fingerprint repeated within fps is added
// only at its first occurrence. Without a buffer it looks all of fps up, then
// writes the new ones with a single pebble.Batch committed with NoSync.
func (p *Pebble) InsertBatch(fps []Fingerprint, added []bool) error {
	added = added[:len(fps)]
	if p.err != nil {
		return p.err
	}
	if p.buffered {
		// Load what the lookups will read first: the slot in the
		// active table and, once there is more, in the other tables and
		// the block of the front filter, so that the cache misses of
		// the batch overlap.
		a := p.active
		sum := touch(a, fps)
		if p.old != nil {
			sum += touch(p.old, fps)
		}
		if p.frozen != nil {
			sum += touch(p.frozen, fps)
		}
		if p.stored && p.filter != nil {
			// Most fingerprints of a search are duplicates found
			// in the tables: only the others need the front
			// filter, whose block is a cache miss of its own once
			// the filter outgrows the cache. Find them first, then
			// load their blocks together. A fingerprint in a table
			// stays in the set, so added[i] = false is final even
			// if a spill moves the tables meanwhile; the others
			// (added[i] true for now) take the whole path.
			rest := p.rest[:0]
			for i, fp := range fps {
				added[i] = !p.inTables(fp)
				if added[i] {
					rest = append(rest, fp)
				}
			}
			p.rest = rest
			sum += p.filter.touch(rest)
		} else {
			for i := range added {
				added[i] = true
			}
		}
		a.touched += sum
		for i, fp := range fps {
			if !added[i] {
				continue
			}
			var err error
			if added[i], err = p.insertBuffered(fp); err != nil {
				return err
			}
		}
		return nil
	}
	pending := p.pending[:0]
	for i, fp := range fps {
		added[i] = false
		found, err := p.onDisk(fp)
		if err != nil {
			return err
		}
		if found || containsFP(pending, fp) {
			continue
		}
		added[i] = true
		pending = append(pending, fp)
	}
	p.pending = pending
	if len(pending) == 0 {
		return nil
	}
	if p.batch == nil {
		p.batch = p.db.NewBatch()
	}
	b := p.batch
	for _, fp := range pending {
		if err := b.Set(keyOf(&p.key, fp), nil, nil); err != nil {
			p.err = fmt.Errorf("store: pebble batch: %w", err)
			return p.err
		}
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		p.err = fmt.Errorf("store: pebble commit: %w", err)
		return p.err
	}
	b.Reset()
	for _, fp := range pending {
		if p.filter != nil {
			p.filter.add(fp)
		}
	}
	p.n += uint64(len(pending))
	return nil
}

// Len returns the number of fingerprints in the set.
func (p *Pebble) Len() uint64 { return p.n }

// Bytes returns the disk space of the database plus the memory of Pebble's
// memtables, of the buffer's tables and of the front filter. It does not count
// the block cache.
func (p *Pebble) Bytes() uint64 {
	var n uint64
	if p.db != nil {
		m := p.db.Metrics()
		n += m.DiskSpaceUsage() + m.MemTable.Size
	}
	if p.filter != nil {
		n += p.filter.bytes()
	}
	if p.buffered {
		tables := uint64(p.spares)
		if p.frozen != nil {
			tables-- // counted below
			n += p.frozen.Bytes()
		}
		n += p.active.Bytes() + tables*p.maxSlots*16
		if p.old != nil {
			n += p.old.Bytes()
		}
	}
	return n
}

// Stats returns statistics of the spills so far.
func (p *Pebble) Stats() SpillStats { return p.stats }

// Close waits for a running spill, closes the database and, if the set made
// its directory itself, removes it.
func (p *Pebble) Close() error {
	var err error
	if p.frozen != nil {
		r := <-p.done
		err = r.err
		p.frozen = nil
	}
	if p.batch != nil {
		p.batch.Close()
		p.batch = nil
	}
	if p.db != nil {
		if cerr := p.db.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("store: closing pebble: %w", cerr)
		}
		p.db = nil
	}
	if rerr := p.removeTemp(); err == nil {
		err = rerr
	}
	p.active, p.old, p.filter = nil, nil, nil
	if p.err == nil {
		p.err = errors.New("store: set is closed")
	}
	return err
}

func (p *Pebble) removeTemp() error {
	if p.tempDir == "" {
		return nil
	}
	d := p.tempDir
	p.tempDir = ""
	if err := os.RemoveAll(d); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

var (
	_ Set           = (*Pebble)(nil)
	_ BatchInserter = (*Pebble)(nil)
)

// diskBytes returns the disk space of the database.
func (p *Pebble) diskBytes() uint64 {
	if p.db == nil {
		return 0
	}
	return p.db.Metrics().DiskSpaceUsage()
}
