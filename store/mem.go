package store

// minSlots is the smallest table NewMem allocates.
const minSlots = 16

// Mem is an in-memory Set: an open-addressing hash table with linear probing
// over a flat slice of fingerprints whose length is a power of two. It grows by
// doubling when more than three quarters of its slots are occupied, so an
// Insert costs amortised constant time and allocates only when the table grows.
//
// The all-zero fingerprint marks an empty slot. Mem records whether the zero
// fingerprint itself is a member in a separate flag, so every Fingerprint
// value, zero included, is stored exactly and no two distinct fingerprints
// are ever confused.
//
// Fingerprints are placed by their Lo word, which must therefore be well mixed;
// those returned by Of are.
//
// A Mem is not safe for concurrent use, and must not be used after Close.
type Mem struct {
	slots []Fingerprint // len(slots) is a power of two; zero value = empty
	mask  uint64        // len(slots) - 1
	used  uint64        // occupied slots
	limit uint64        // grow when used exceeds limit
	zero  bool          // whether the zero fingerprint is a member

	touched uint64 // sink for the loads of InsertBatch
}

// NewMem returns an empty in-memory Set sized to hold about capacityHint
// fingerprints before it first grows. A zero hint selects a small table.
func NewMem(capacityHint uint64) *Mem {
	n := uint64(minSlots)
	for n/4*3 < capacityHint && n < 1<<62 {
		n <<= 1
	}
	m := new(Mem)
	m.alloc(n)
	return m
}

func (m *Mem) alloc(n uint64) {
	m.slots = make([]Fingerprint, n)
	m.mask = n - 1
	m.limit = n / 4 * 3
}

// Insert adds fp to the set and reports whether it was absent before. It never
// returns an error.
func (m *Mem) Insert(fp Fingerprint) (added bool, err error) {
	if fp == (Fingerprint{}) {
		if m.zero {
			return false, nil
		}
		m.zero = true
		return true, nil
	}
	slots, mask := m.slots, m.mask
	i := fp.Lo & mask
	for {
		s := &slots[i]
		if *s == fp {
			return false, nil
		}
		if *s == (Fingerprint{}) {
			*s = fp
			break
		}
		i = (i + 1) & mask
	}
	m.used++
	if m.used > m.limit {
		m.grow()
	}
	return true, nil
}

// InsertBatch inserts each fingerprint of fps in turn, setting added[i] to
// whether fps[i] was absent before; a fingerprint repeated within fps is added
// only at its first occurrence. It first loads the slot of every fingerprint,
// so that the cache misses of a batch overlap instead of following one
// another. It panics if added is shorter than fps, and never returns an error.
func (m *Mem) InsertBatch(fps []Fingerprint, added []bool) error {
	added = added[:len(fps)]
	slots, mask := m.slots, m.mask
	var sum uint64
	for _, fp := range fps {
		sum += slots[fp.Lo&mask].Lo
	}
	m.touched += sum // keep the loads
	for i, fp := range fps {
		added[i], _ = m.Insert(fp)
	}
	return nil
}

// Contains reports whether fp is in the set.
func (m *Mem) Contains(fp Fingerprint) bool {
	if fp == (Fingerprint{}) {
		return m.zero
	}
	for i := fp.Lo & m.mask; ; i = (i + 1) & m.mask {
		switch m.slots[i] {
		case fp:
			return true
		case Fingerprint{}:
			return false
		}
	}
}

// grow doubles the table and rehashes every occupied slot into it.
func (m *Mem) grow() { m.growTo(2 * uint64(len(m.slots))) }

// growTo rehashes every occupied slot into a new table of n slots, a power of
// two larger than the current one.
func (m *Mem) growTo(n uint64) {
	old := m.slots
	m.alloc(n)
	slots, mask := m.slots, m.mask
	for _, fp := range old {
		if fp == (Fingerprint{}) {
			continue
		}
		i := fp.Lo & mask
		for slots[i] != (Fingerprint{}) {
			i = (i + 1) & mask
		}
		slots[i] = fp
	}
}

// Len returns the number of fingerprints in the set.
func (m *Mem) Len() uint64 {
	if m.zero {
		return m.used + 1
	}
	return m.used
}

// Bytes returns the size of the table in bytes: 16 bytes per slot, occupied
// or not.
func (m *Mem) Bytes() uint64 {
	return uint64(len(m.slots)) * 16
}

// Close releases the table. It always returns nil.
func (m *Mem) Close() error {
	*m = Mem{}
	return nil
}

var (
	_ Set           = (*Mem)(nil)
	_ BatchInserter = (*Mem)(nil)
)
