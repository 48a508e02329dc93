package store

import (
	"math/bits"
	"sync"
)

// DefaultShards is the number of shards NewSharded uses when asked for zero.
const DefaultShards = 64

// maxShards bounds the number of shards of a Sharded.
const maxShards = 1 << 12

// Sharded is an in-memory Set that is safe for concurrent use: a power-of-two
// number of Mem shards, each behind its own mutex. A fingerprint belongs to the
// shard selected by the high bits of its Hi word (Mem places fingerprints by
// the low bits of their Lo word, so the two choices are independent). With
// many more shards than concurrent callers, an insert rarely waits for a lock.
//
// Insert, InsertBatch, Contains, Len and Bytes may be called concurrently;
// Close must not be called concurrently with any other method, and the set
// must not be used after Close.
type Sharded struct {
	shards []shard
	shift  uint // fp.Hi >> shift is the shard index
	n      int  // len(shards)
	// scratch for InsertBatch, reused across calls
	pool sync.Pool
}

type shard struct {
	mu  sync.Mutex
	mem *Mem
	_   [48]byte // keep shards on separate cache lines
}

// batchScratch is the working memory of one InsertBatch call.
type batchScratch struct {
	count []int32 // per shard, then the start of its group
	order []int32 // indices of fps grouped by shard, stably
	fps   []Fingerprint
	added []bool
}

// NewSharded returns an empty Sharded set with the given number of shards,
// rounded up to a power of two (zero selects DefaultShards; at most 4096),
// sized to hold about capacityHint fingerprints in all before a shard first
// grows.
func NewSharded(shards int, capacityHint uint64) *Sharded {
	if shards <= 0 {
		shards = DefaultShards
	}
	shards = min(shards, maxShards)
	lg := bits.Len(uint(shards - 1)) // shards rounded up is 1<<lg
	n := 1 << lg
	s := &Sharded{shards: make([]shard, n), shift: uint(64 - lg), n: n}
	per := capacityHint / uint64(n)
	if capacityHint%uint64(n) != 0 {
		per++
	}
	for i := range s.shards {
		s.shards[i].mem = NewMem(per)
	}
	return s
}

// shardOf returns the index of the shard of fp. With one shard the shift is
// 64, and a Go shift by the word size yields 0.
func (s *Sharded) shardOf(fp Fingerprint) int { return int(fp.Hi >> s.shift) }

// Shards returns the number of shards.
func (s *Sharded) Shards() int { return s.n }

// Concurrent reports that s is safe for concurrent use. Explorers that insert
// from several goroutines check for this method.
func (s *Sharded) Concurrent() bool { return true }

// Insert adds fp to the set and reports whether it was absent before. It never
// returns an error.
func (s *Sharded) Insert(fp Fingerprint) (added bool, err error) {
	sh := &s.shards[s.shardOf(fp)]
	sh.mu.Lock()
	added, _ = sh.mem.Insert(fp)
	sh.mu.Unlock()
	return added, nil
}

// InsertBatch inserts each fingerprint of fps in turn, setting added[i] to
// whether fps[i] was absent before; a fingerprint repeated within fps is added
// only at its first occurrence. It groups the fingerprints by shard and takes
// each shard's lock once per batch. Concurrent batches are each atomic per
// shard but not as a whole. It panics if added is shorter than fps, and never
// returns an error.
func (s *Sharded) InsertBatch(fps []Fingerprint, added []bool) error {
	added = added[:len(fps)]
	if len(fps) < 8 || len(fps) < s.n/4 {
		// Too few to be worth grouping: lock per run of fingerprints of
		// the same shard.
		for i := 0; i < len(fps); {
			k := s.shardOf(fps[i])
			sh := &s.shards[k]
			sh.mu.Lock()
			for ; i < len(fps) && s.shardOf(fps[i]) == k; i++ {
				added[i], _ = sh.mem.Insert(fps[i])
			}
			sh.mu.Unlock()
		}
		return nil
	}

	sc, _ := s.pool.Get().(*batchScratch)
	if sc == nil {
		sc = &batchScratch{count: make([]int32, s.n+1)}
	}
	count := sc.count
	clear(count)
	for _, fp := range fps {
		count[s.shardOf(fp)+1]++
	}
	for k := 1; k <= s.n; k++ {
		count[k] += count[k-1]
	}
	// count[k] is now the start of shard k's group; place stably.
	if cap(sc.order) < len(fps) {
		sc.order = make([]int32, len(fps), 2*len(fps))
		sc.fps = make([]Fingerprint, len(fps), 2*len(fps))
		sc.added = make([]bool, len(fps), 2*len(fps))
	}
	order, gfps, gadded := sc.order[:len(fps)], sc.fps[:len(fps)], sc.added[:len(fps)]
	for i, fp := range fps {
		k := s.shardOf(fp)
		order[count[k]] = int32(i)
		gfps[count[k]] = fp
		count[k]++
	}
	// count[k] is now the end of shard k's group.
	start := int32(0)
	for k := range s.n {
		end := count[k]
		if end > start {
			sh := &s.shards[k]
			sh.mu.Lock()
			sh.mem.InsertBatch(gfps[start:end], gadded[start:end])
			sh.mu.Unlock()
			for j := start; j < end; j++ {
				added[order[j]] = gadded[j]
			}
		}
		start = end
	}
	s.pool.Put(sc)
	return nil
}

// Contains reports whether fp is in the set.
func (s *Sharded) Contains(fp Fingerprint) bool {
	sh := &s.shards[s.shardOf(fp)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.mem.Contains(fp)
}

// Len returns the number of fingerprints in the set. While inserts run
// concurrently, it is a sum of per-shard snapshots.
func (s *Sharded) Len() uint64 { return s.sum((*Mem).Len) }

// Bytes returns the size of the shards' tables in bytes.
func (s *Sharded) Bytes() uint64 { return s.sum((*Mem).Bytes) }

// sum adds f over the shards, each under its lock.
func (s *Sharded) sum(f func(*Mem) uint64) uint64 {
	var n uint64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += f(sh.mem)
		sh.mu.Unlock()
	}
	return n
}

// Close releases the shards. It always returns nil.
func (s *Sharded) Close() error {
	for i := range s.shards {
		s.shards[i].mem.Close()
	}
	return nil
}

var (
	_ Set           = (*Sharded)(nil)
	_ BatchInserter = (*Sharded)(nil)
)
