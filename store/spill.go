//go:build !js

package store

import "math"

// Spill is a Set with a memory budget: it keeps fingerprints in an in-memory
// Mem table until the table would outgrow its share of the budget, then moves
// them to a Pebble database on disk and keeps going with an empty table.
//
// A Spill is a buffered Pebble (see Pebble) whose buffer is the budget and
// whose database is opened only at the first spill, so a set that stays within
// its budget never touches the disk. A spill freezes the full table, installs
// a second, empty one, and ingests the frozen table's sorted contents as
// sstables in a background goroutine, after which the frozen table is cleared
// and kept for the next spill. The two tables together stay within the budget:
// each is the largest power of two of 16-byte slots not above half of it (at
// least 256 bytes), filled to three quarters, so a budget of 1 GiB spills
// about 25 million fingerprints at a time. On top of the budget come the front
// filter (1.5 bytes per fingerprint, sized for eight spills or
// PebbleOptions.ExpectedEntries, growing by doubling segments), the sort
// buffers of a spill (up to about 150 MiB), and Pebble's block cache
// (PebbleOptions.CacheBytes, 256 MiB by default) and memtables. The active
// table grows by doubling, as a Mem does, so that a small set takes little
// memory whatever the budget; from 64 MiB on it doubles incrementally: a table
// twice the size takes the new fingerprints, and those of the full table move
// to it 64 slots at each insertion, so that no rehash of a large table pauses
// the insertions; lookups ask both tables while they move.
//
// Lookups ask the active table, then the table moving into it if any, then
// the frozen table while a spill runs,
// then the front filter and, on a "maybe", Pebble. Insert's "added" result is
// exact throughout: a fingerprint is a member until the end of the spill that
// moves it through the frozen table, and in the database after that.
//
// Inserting never waits for a spill unless the second table fills up before
// the spill of the first ends (the wait then shows in Stats); BENCHMARKS.md
// ("The visited sets on disk") has the pauses and rates measured.
//
// A Spill is not safe for concurrent use, and must not be used after Close.
type Spill struct {
	p *Pebble
}

// NewSpill returns an empty Spill that keeps at most about budgetBytes of
// fingerprint tables in memory and spills the rest to a Pebble database in
// dir (in a new temporary directory inside dir if popt.Temp), configured by
// popt; popt.BufferBytes is ignored. An error opening the database is
// returned by the Insert or InsertBatch that first spills.
func NewSpill(budgetBytes uint64, dir string, popt PebbleOptions) *Spill {
	popt.BufferBytes = int64(min(budgetBytes, math.MaxInt64))
	if popt.BufferBytes == 0 {
		popt.BufferBytes = 1
	}
	return &Spill{p: newPebble(dir, popt)}
}

// Insert adds fp to the set and reports whether it was absent before.
func (s *Spill) Insert(fp Fingerprint) (added bool, err error) { return s.p.Insert(fp) }

// InsertBatch inserts each fingerprint of fps in turn, setting added[i] to
// whether fps[i] was absent before; a fingerprint repeated within fps is added
// only at its first occurrence.
func (s *Spill) InsertBatch(fps []Fingerprint, added []bool) error {
	return s.p.InsertBatch(fps, added)
}

// Len returns the number of fingerprints in the set.
func (s *Spill) Len() uint64 { return s.p.Len() }

// Bytes returns the memory of the in-memory tables and of the front filter,
// plus, once the set has spilled, the disk space of the database and the
// memory of its memtables.
func (s *Spill) Bytes() uint64 { return s.p.Bytes() }

// Spilled reports whether the set has started spilling to disk.
func (s *Spill) Spilled() bool { return s.p.seq > 0 }

// Stats returns statistics of the spills so far.
func (s *Spill) Stats() SpillStats { return s.p.Stats() }

// Close waits for a running spill, closes the database if the set opened one
// and, if the set made its directory itself, removes it.
func (s *Spill) Close() error { return s.p.Close() }

var (
	_ Set           = (*Spill)(nil)
	_ BatchInserter = (*Spill)(nil)
)
