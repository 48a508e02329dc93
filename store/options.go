package store

import "time"

// Defaults of PebbleOptions. BENCHMARKS.md ("The visited sets on disk") has
// the measurements behind them.
const (
	// DefaultPebbleBuffer is the default PebbleOptions.BufferBytes: two
	// in-memory tables of 128 MiB, about 6.3 million fingerprints per
	// ingested run.
	DefaultPebbleBuffer = 256 << 20
	// DefaultFilterBitsPerKey is the default PebbleOptions.FilterBitsPerKey:
	// a false-positive rate of about 1% (the filter is blocked, one cache
	// line per fingerprint).
	DefaultFilterBitsPerKey = 12
	// DefaultBloomBitsPerKey is the default PebbleOptions.BloomBitsPerKey,
	// the bits per key of the bloom filters Pebble keeps in every sstable.
	DefaultBloomBitsPerKey = 10
	// DefaultMemTableBytes is the default PebbleOptions.MemTableBytes.
	DefaultMemTableBytes = 64 << 20
	// DefaultCacheBytes is the default PebbleOptions.CacheBytes.
	DefaultCacheBytes = 256 << 20
)

// PebbleOptions configures the on-disk visited sets of OpenPebble and NewSpill.
// The zero value selects the fastest configuration measured; the other values
// exist to measure the alternatives, and for unusual machines.
type PebbleOptions struct {
	// Temp makes the set create a fresh directory inside the directory it
	// is given (inside os.TempDir() if that is empty) and remove it on
	// Close. It first removes the directories there that earlier sets
	// could not (their process was killed), if no open set holds them.
	// Without Temp the directory given is the database directory.
	Temp bool

	// BufferBytes bounds the in-memory write buffer: new fingerprints go
	// into a Mem table; when it is full its contents are sorted and
	// ingested into Pebble as sstables in the background while a second
	// table of the same size takes new fingerprints. The two tables together
	// use at most BufferBytes (each is a power of two of at least 256
	// bytes). Zero selects DefaultPebbleBuffer. A negative value disables
	// the buffer: every new fingerprint is written to Pebble's memtable
	// (with one batch per InsertBatch). NewSpill ignores the field and uses
	// its budget.
	BufferBytes int64

	// FilterBitsPerKey sets the bits per fingerprint of the in-memory
	// front Bloom filter over the fingerprints on disk, which answers most
	// lookups of new fingerprints without asking Pebble. Zero selects
	// DefaultFilterBitsPerKey; a negative value disables the filter.
	FilterBitsPerKey int

	// ExpectedEntries sizes the first segment of the front filter. Zero
	// sizes it for eight times the fingerprints of one buffer (four Mi if
	// there is no buffer); the filter grows by adding segments, each of
	// which costs a lookup one more cache miss.
	ExpectedEntries uint64

	// BloomBitsPerKey sets the bits per key of the bloom filter Pebble
	// writes into each sstable, at every level. Zero selects
	// DefaultBloomBitsPerKey; a negative value leaves sstables without
	// filters, Pebble's own default.
	BloomBitsPerKey int

	// WAL enables Pebble's write-ahead log. The set is rebuilt from a
	// checkpoint after a crash, so it needs no durability, and the log is
	// off by default. It matters only without a buffer.
	WAL bool

	// MemTableBytes is the size of Pebble's memtables. Zero selects
	// DefaultMemTableBytes. It matters only without a buffer.
	MemTableBytes uint64

	// CacheBytes is the size of Pebble's block cache. Zero selects
	// DefaultCacheBytes.
	CacheBytes int64
}

// SpillStats describes the spills of a buffered Pebble or a Spill.
type SpillStats struct {
	// Spills is the number of spills completed.
	Spills int
	// Total and Max are the total and the longest time a spill took in the
	// background, from freezing the table to the end of the ingestion.
	Total, Max time.Duration
	// Stalled and MaxStall are the total and the longest time an insertion
	// waited: for a spill to finish (the second table filled first), for
	// a cleared table, or to open the database.
	Stalled, MaxStall time.Duration
	// DiskLookups counts the lookups that reached Pebble (the front filter
	// said "maybe"), DiskHits those that found the fingerprint there.
	DiskLookups, DiskHits uint64
}

// tempPrefix begins the names of the directories of sets opened with
// PebbleOptions.Temp.
const tempPrefix = "pebbleset-"

// TempPattern matches, in filepath.Glob, the directories of sets opened
// with PebbleOptions.Temp.
const TempPattern = tempPrefix + "*"
