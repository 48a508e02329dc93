// Package store holds visited sets: sets of 128-bit state fingerprints that an
// explorer consults to decide whether a state is new.
//
// A Set knows nothing about what the fingerprints stand for. The in-memory Set
// returned by NewMem is an open-addressing hash table with no per-insert
// allocation; OpenPebble returns a set on disk (a Pebble database fed with
// sorted runs from in-memory tables), and NewSpill an in-memory set that
// spills to such a database beyond a memory budget.
package store

import farm "github.com/dgryski/go-farm"

// Fingerprint is a 128-bit hash of a canonical state encoding. Two states with
// equal fingerprints are treated as equal; with 128 bits the chance of a
// collision among 10^9 states is about 10^-21.
type Fingerprint struct {
	Lo, Hi uint64
}

// Of returns the fingerprint of a canonical state encoding.
func Of(state []byte) Fingerprint {
	lo, hi := farm.Hash128WithSeed(state, seedLo, seedHi)
	return Fingerprint{Lo: lo, Hi: hi}
}

// The fixed fingerprint seed. Runs that are checkpointed record it so that a
// resumed run fingerprints states identically.
const (
	seedLo = 0x9e3779b97f4a7c15
	seedHi = 0xc2b2ae3d27d4eb4f
)

// FingerprintSeed returns the seed of the hash behind Of. A checkpoint records
// it, and a resumed search refuses a checkpoint made with another seed, whose
// visited set would not recognise the states it holds.
func FingerprintSeed() [2]uint64 { return [2]uint64{seedLo, seedHi} }

// Set is a visited set of fingerprints.
type Set interface {
	// Insert adds fp to the set and reports whether it was absent before.
	Insert(fp Fingerprint) (added bool, err error)
	// Len returns the number of fingerprints in the set.
	Len() uint64
	// Bytes returns the memory (or disk) the set currently occupies, in bytes.
	Bytes() uint64
	// Close releases the set's resources.
	Close() error
}

// BatchInserter is implemented by Sets that insert a batch of fingerprints
// faster than one at a time. An explorer that has the fingerprints of all the
// successors of a state in hand uses it in place of Insert.
type BatchInserter interface {
	// InsertBatch inserts each fingerprint of fps in turn, setting added[i]
	// to whether fps[i] was absent before; a fingerprint repeated within
	// fps is added only at its first occurrence. len(added) must be at
	// least len(fps). After an error, which fingerprints were inserted is
	// unspecified.
	InsertBatch(fps []Fingerprint, added []bool) error
}
