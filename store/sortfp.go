package store

import (
	"cmp"
	"math/bits"
	"slices"
)

// less orders fingerprints as their keys on disk do: by Hi, then by Lo.
func less(a, b Fingerprint) bool {
	return a.Hi < b.Hi || a.Hi == b.Hi && a.Lo < b.Lo
}

func compareFP(a, b Fingerprint) int {
	if c := cmp.Compare(a.Hi, b.Hi); c != 0 {
		return c
	}
	return cmp.Compare(a.Lo, b.Lo)
}

// fpSorter sorts fingerprints by (Hi, Lo), keeping its scratch space between
// calls.
type fpSorter struct {
	tmp    []Fingerprint
	counts []uint32
}

// sort sorts a, all of whose Hi words share their top prefix bits, and
// returns the sorted fingerprints, which are in a or in the sorter's scratch
// space (valid until the next call).
//
// The fingerprints of Of are uniform, so one counting pass over the next
// log2(len(a)) bits of Hi leaves buckets of one or two fingerprints, which
// insertion sort finishes: expected linear time, about five times faster than
// a comparison sort for a spill of millions. A bucket that turns out large
// (non-uniform input, such as the small Hi words of tests) is sorted with a
// comparison sort, so the worst case stays O(n log n).
func (s *fpSorter) sort(a []Fingerprint, prefix uint) []Fingerprint {
	n := len(a)
	if n < 64 || prefix >= 64 {
		slices.SortFunc(a, compareFP)
		return a
	}
	b := uint(bits.Len(uint(n))) - 1
	b = min(b, 64-prefix, 26)
	nb := 1 << b
	if cap(s.counts) < nb+1 {
		s.counts = make([]uint32, nb+1)
	}
	counts := s.counts[:nb+1]
	clear(counts)
	shift := 64 - b
	for _, fp := range a {
		counts[(fp.Hi<<prefix)>>shift+1]++
	}
	for i := 1; i <= nb; i++ {
		counts[i] += counts[i-1]
	}
	if cap(s.tmp) < n {
		s.tmp = make([]Fingerprint, n, n+n/8)
	}
	out := s.tmp[:n]
	for _, fp := range a {
		j := (fp.Hi << prefix) >> shift
		out[counts[j]] = fp
		counts[j]++
	}
	// counts[j] is now the end of bucket j, and the start of bucket j+1.
	start := uint32(0)
	for j := range nb {
		end := counts[j]
		bucket := out[start:end]
		switch {
		case len(bucket) <= 1:
		case len(bucket) <= 16:
			for x := 1; x < len(bucket); x++ {
				v := bucket[x]
				y := x
				for ; y > 0 && less(v, bucket[y-1]); y-- {
					bucket[y] = bucket[y-1]
				}
				bucket[y] = v
			}
		default:
			slices.SortFunc(bucket, compareFP)
		}
		start = end
	}
	return out
}
