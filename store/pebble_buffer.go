//go:build !js

package store

// defaultJumpSlots is the table size (64 MiB) from which a buffer that must
// grow doubles incrementally: a new table takes new fingerprints while those
// of the full one move over a few slots at each insertion (see moveOld),
// instead of all at once. (Pebble.jumpSlots; tests lower it.)
const defaultJumpSlots = 1 << 22

// touch loads the slot of every fingerprint of fps in m and returns a sum of
// what it loaded, for the caller to keep.
func touch(m *Mem, fps []Fingerprint) uint64 {
	slots, mask := m.slots, m.mask
	var sum uint64
	for _, fp := range fps {
		sum += slots[fp.Lo&mask].Lo
	}
	return sum
}

// inTables reports whether fp is in one of the in-memory tables.
func (p *Pebble) inTables(fp Fingerprint) bool {
	return p.active.Contains(fp) || p.old != nil && p.old.Contains(fp) || p.frozen != nil && p.frozen.Contains(fp)
}

// containsFP reports whether fps holds fp. Batches are the successors of one
// state: a handful, where a scan beats a map.
func containsFP(fps []Fingerprint, fp Fingerprint) bool {
	for _, x := range fps {
		if x == fp {
			return true
		}
	}
	return false
}

// insertBuffered is Insert with a buffer.
func (p *Pebble) insertBuffered(fp Fingerprint) (bool, error) {
	if a := p.active; !p.stored && p.frozen == nil && p.old == nil && a.used < a.limit {
		// Nothing has left the active table, and a new fingerprint
		// cannot fill it: one probe, as in a Mem. This is the whole
		// insertion path of a Spill that stays within its budget.
		added, _ := a.Insert(fp)
		if added {
			p.n++
		}
		return added, nil
	}
	if p.active.Contains(fp) {
		return false, nil
	}
	if p.old != nil {
		if p.old.Contains(fp) {
			p.moveOld()
			return false, nil
		}
		p.moveOld()
	}
	if p.frozen != nil {
		if p.frozen.Contains(fp) {
			return false, nil
		}
		if p.pollSpill(); p.err != nil {
			return false, p.err // the frozen table is lost
		}
	}
	if found, err := p.onDisk(fp); found || err != nil {
		return false, err
	}
	if a := p.active; a.used >= a.limit {
		switch slots := uint64(len(a.slots)); {
		case slots >= p.maxSlots:
			if err := p.startSpill(); err != nil {
				p.err = err
				return false, err
			}
		case slots >= p.jumpSlots && p.old == nil:
			// Rehashing a large table into a larger one takes
			// seconds (faulting its pages in): rather than rehash,
			// move the fingerprints over a few at each insertion.
			p.old, p.oldNext = a, 0
			p.active = NewMem(min(2*slots, p.maxSlots) / 4 * 3)
		}
	}
	p.active.Insert(fp)
	p.n++
	return true, nil
}

// moveSlots is the number of slots of the old table whose fingerprints an
// insertion moves to the active table while it grows: a table of n slots
// moves over n/64 insertions, long before the table twice its size fills.
const moveSlots = 64

// moveOld moves the fingerprints of the next moveSlots slots of the old table
// to the active one, and drops the old table once it is empty.
func (p *Pebble) moveOld() {
	o, a := p.old, p.active
	end := min(p.oldNext+moveSlots, len(o.slots))
	for _, fp := range o.slots[p.oldNext:end] {
		if fp != (Fingerprint{}) {
			a.Insert(fp)
		}
	}
	p.oldNext = end
	if end == len(o.slots) {
		if o.zero {
			a.Insert(Fingerprint{})
		}
		p.old = nil
	}
}

// inMemory returns the number of fingerprints held by the buffer's tables.
func (p *Pebble) inMemory() uint64 {
	var n uint64
	if p.active != nil {
		n += p.active.Len()
	}
	if p.frozen != nil {
		n += p.frozen.Len()
	}
	if p.old != nil {
		for _, fp := range p.old.slots[p.oldNext:] {
			if fp != (Fingerprint{}) {
				n++
			}
		}
		if p.old.zero {
			n++
		}
	}
	return n
}
