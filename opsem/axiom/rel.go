package axiom

import "math/bits"

// Rel is a binary relation over the events of one trace (at most 64): bit b
// of Rel[a] is set when a is related to b.
type Rel []uint64

// NewRel returns the empty relation over n events.
func NewRel(n int) Rel { return make(Rel, n) }

// Has reports whether a is related to b.
func (r Rel) Has(a, b int) bool { return a < len(r) && b < 64 && r[a]>>uint(b)&1 != 0 }

// Add relates a to b.
func (r Rel) Add(a, b int) { r[a] |= 1 << uint(b) }

// Union adds every pair of o to r.
func (r Rel) Union(o Rel) {
	for i := range r {
		r[i] |= o[i]
	}
}

// Clone returns a copy of r.
func (r Rel) Clone() Rel { return append(Rel(nil), r...) }

// Closure returns the transitive closure r+.
func (r Rel) Closure() Rel {
	c := r.Clone()
	for k := range c {
		bk := uint64(1) << uint(k)
		for i := range c {
			if c[i]&bk != 0 {
				c[i] |= c[k]
			}
		}
	}
	return c
}

// Reflexive reports whether some event is related to itself; for a
// transitively closed relation this means the relation is cyclic.
func (r Rel) Reflexive() bool {
	for i, row := range r {
		if row>>uint(i)&1 != 0 {
			return true
		}
	}
	return false
}

// Acyclic reports whether r has no cycle (r+ irreflexive).
func (r Rel) Acyclic() bool { return !r.Closure().Reflexive() }

// Pairs returns the pairs of r in order.
func (r Rel) Pairs() [][2]int {
	var out [][2]int
	for a, row := range r {
		for row != 0 {
			b := bits.TrailingZeros64(row)
			row &= row - 1
			out = append(out, [2]int{a, b})
		}
	}
	return out
}

// Len returns the number of pairs of r.
func (r Rel) Len() int {
	n := 0
	for _, row := range r {
		n += bits.OnesCount64(row)
	}
	return n
}

// Equal reports whether r and o hold the same pairs.
func (r Rel) Equal(o Rel) bool {
	if len(r) != len(o) {
		return false
	}
	for i := range r {
		if r[i] != o[i] {
			return false
		}
	}
	return true
}

// closure is the incrementally maintained transitive closure of a relation
// over at most 64 events; row[a] holds the events a reaches.
type closure [MaxEvents]uint64

// warshall closes c over its first n rows.
func (c *closure) warshall(n int) {
	for k := 0; k < n; k++ {
		bk := uint64(1) << uint(k)
		for i := 0; i < n; i++ {
			if c[i]&bk != 0 {
				c[i] |= c[k]
			}
		}
	}
}

// reflexive reports whether some of the first n events reaches itself.
func (c *closure) reflexive(n int) bool {
	for i := 0; i < n; i++ {
		if c[i]>>uint(i)&1 != 0 {
			return true
		}
	}
	return false
}

// addSet adds the edges X × R (bitsets) to the closed relation over n events,
// keeps it closed, and reports whether the result is cyclic. The update is
// exact even when a cycle appears: every new path goes z →* x → r →* y with
// x ∈ X and r ∈ R over old edges.
func (c *closure) addSet(n int, X, R uint64) bool {
	U := R
	for m := R; m != 0; m &= m - 1 {
		U |= c[bits.TrailingZeros64(m)]
	}
	Z := X
	for z := 0; z < n; z++ {
		if c[z]&X != 0 {
			Z |= 1 << uint(z)
		}
	}
	for m := Z; m != 0; m &= m - 1 {
		c[bits.TrailingZeros64(m)] |= U
	}
	return Z&U != 0
}

// preds returns the set of events that reach a, plus a itself.
func (c *closure) preds(n, a int) uint64 {
	S := uint64(1) << uint(a)
	ba := S
	for x := 0; x < n; x++ {
		if c[x]&ba != 0 {
			S |= 1 << uint(x)
		}
	}
	return S
}
