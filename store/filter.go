package store

import (
	"math"
	"math/bits"
	"sync/atomic"
)

// frontFilter is an in-memory blocked Bloom filter over the fingerprints a
// disk-backed set holds on disk. A negative answer is exact ("certainly not on
// disk"), so a lookup that misses the in-memory tables and the filter needs no
// disk access at all; a positive answer is checked against the disk.
//
// Each fingerprint touches one 64-byte block (one cache line): the block is
// chosen by the high bits of Hi, so adding fingerprints in sorted order walks
// the filter sequentially, and up to seven bit positions inside the block are
// taken from Lo. The fingerprints of Of are uniformly distributed, so neither
// word needs hashing.
//
// The filter does not know its final size. It is a sequence of segments, each
// sized for twice as many fingerprints as the previous one; fingerprints go
// into the newest segment, and a lookup asks every segment. With a good
// PebbleOptions.ExpectedEntries there is a single segment.
//
// One goroutine adds while others may query: the bits are set and read with
// atomic operations, and the segment list is replaced atomically.
type frontFilter struct {
	segs atomic.Pointer[[]*filterSeg]
	bpk  int // bits per key
	k    uint
}

// filterSeg is one segment of a frontFilter.
type filterSeg struct {
	words   []uint64 // 8 words (one 512-bit block) per block
	nblocks uint64
	cap     uint64 // fingerprints it is sized for
	n       uint64 // fingerprints added; writer only
}

// newFrontFilter returns an empty filter with bitsPerKey bits per fingerprint
// whose first segment is sized for capacity fingerprints.
func newFrontFilter(bitsPerKey int, capacity uint64) *frontFilter {
	if bitsPerKey < 1 {
		bitsPerKey = 1
	}
	k := uint(math.Round(float64(bitsPerKey) * math.Ln2))
	k = max(1, min(k, 7)) // seven 9-bit positions fit in Lo
	f := &frontFilter{bpk: bitsPerKey, k: k}
	segs := []*filterSeg{newFilterSeg(bitsPerKey, max(capacity, 1<<10))}
	f.segs.Store(&segs)
	return f
}

func newFilterSeg(bpk int, capacity uint64) *filterSeg {
	nblocks := (capacity*uint64(bpk) + 511) / 512
	return &filterSeg{words: make([]uint64, nblocks*8), nblocks: nblocks, cap: capacity}
}

// add inserts fp. Only one goroutine may add at a time.
func (f *frontFilter) add(fp Fingerprint) {
	segs := *f.segs.Load()
	s := segs[len(segs)-1]
	if s.n >= s.cap {
		s = newFilterSeg(f.bpk, 2*s.cap)
		grown := append(segs[:len(segs):len(segs)], s)
		f.segs.Store(&grown)
	}
	s.n++
	blk, _ := bits.Mul64(fp.Hi, s.nblocks)
	w := s.words[blk*8 : blk*8+8 : blk*8+8]
	lo := fp.Lo
	for range f.k {
		b := lo & 511
		atomic.OrUint64(&w[b>>6], 1<<(b&63))
		lo >>= 9
	}
}

// mayContain reports whether fp may have been added; false is exact.
func (f *frontFilter) mayContain(fp Fingerprint) bool {
	for _, s := range *f.segs.Load() {
		blk, _ := bits.Mul64(fp.Hi, s.nblocks)
		w := s.words[blk*8 : blk*8+8 : blk*8+8]
		lo, hit := fp.Lo, true
		for range f.k {
			b := lo & 511
			if atomic.LoadUint64(&w[b>>6])&(1<<(b&63)) == 0 {
				hit = false
				break
			}
			lo >>= 9
		}
		if hit {
			return true
		}
	}
	return false
}

// touch loads the word of every fingerprint of fps that mayContain reads
// first, in every segment, so that the cache misses of a batch of lookups
// overlap, and returns a sum of what it loaded for the caller to keep.
func (f *frontFilter) touch(fps []Fingerprint) uint64 {
	var sum uint64
	for _, s := range *f.segs.Load() {
		for _, fp := range fps {
			blk, _ := bits.Mul64(fp.Hi, s.nblocks)
			sum += atomic.LoadUint64(&s.words[blk*8+(fp.Lo&511)>>6])
		}
	}
	return sum
}

// bytes returns the memory the filter occupies.
func (f *frontFilter) bytes() uint64 {
	var n uint64
	for _, s := range *f.segs.Load() {
		n += uint64(len(s.words)) * 8
	}
	return n
}
