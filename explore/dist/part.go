package dist

import (
	"fmt"
	"slices"
	"sync"

	"rdmasim/explore"
	"rdmasim/store"
)

// A partition is what one worker owns of a distributed search: the states
// that Owner maps to it, its part of the visited set, the states of the
// level being expanded that are its own, and, while successors arrive, the
// new states of the next level. It knows nothing of the transport: the
// worker feeds it and ships what it returns.
type partition struct {
	k, n int
	m    explore.Machine
	set  store.Set

	level []byte   // the level's states as state records, in id order
	ids   []uint64 // their ids

	mu    sync.Mutex                // over receive: the receiver and the expander deliver
	index map[store.Fingerprint]int // new states of the next level, into cands
	cands []cand
	arena []byte // the encodings of cands
}

// A cand is a new state of the next level: its first discoverer so far and
// where its encoding lies in the arena.
type cand struct {
	parent   uint64
	ord      uint32
	off, len int
}

func (c *cand) before(parent uint64, ord uint32) bool {
	return c.parent < parent || c.parent == parent && c.ord < ord
}

func newPartition(k, n int, m explore.Machine, set store.Set) *partition {
	return &partition{k: k, n: n, m: m, set: set, index: map[store.Fingerprint]int{}}
}

// remember inserts the states of the records b into the visited set: the
// states of a level of the partition, read back when a worker recovers it.
func (p *partition) remember(b []byte) error {
	var ierr error
	err := forStates(b, func(_ uint64, _ uint32, enc []byte) {
		if _, err := p.set.Insert(store.Of(enc)); err != nil && ierr == nil {
			ierr = fmt.Errorf("dist: partition %d: inserting a state: %w", p.k, err)
		}
	})
	if err != nil {
		return err
	}
	return ierr
}

// setLevel makes the states of the records b, numbered ids, the level to
// expand.
func (p *partition) setLevel(b []byte, ids []uint64) error {
	n := 0
	if err := forStates(b, func(uint64, uint32, []byte) { n++ }); err != nil {
		return err
	}
	if n != len(ids) {
		return fmt.Errorf("dist: partition %d: %d states in its level and %d ids", p.k, n, len(ids))
	}
	p.level, p.ids = b, ids
	return nil
}

// expand expands the states of the level in id order: it calls succ with
// every successor, its owner, its parent's id and its ordinal, and exp with
// every expanded state's id, successor count and pruned bounds. Encodings
// are valid only during the call.
//
// A successor this partition already emitted in the level is not emitted
// again: its first emission had the least (parent, ordinal), all its owner
// keeps. (In the state spaces of RDMA programs a level emits each successor
// several times.)
func (p *partition) expand(succ func(to int, parent uint64, ord uint32, enc []byte) error, exp func(id uint64, succs uint32, pruned explore.Pruned) error) error {
	sent := store.NewMem(uint64(len(p.ids)))
	defer sent.Close()
	var ferr error
	i := 0
	err := forStates(p.level, func(_ uint64, _ uint32, enc []byte) {
		if ferr != nil {
			return
		}
		id := p.ids[i]
		i++
		var ord uint32
		pruned := p.m.Successors(enc, func(_ explore.Label, next []byte) {
			if ferr == nil {
				fp := store.Of(next)
				if added, _ := sent.Insert(fp); added {
					ferr = succ(Owner(fp, p.n), id, ord, next)
				}
			}
			ord++
		})
		if ferr == nil {
			ferr = exp(id, ord, pruned)
		}
	})
	if err != nil {
		return err
	}
	return ferr
}

// receive takes the successors of the records b, sent to this partition:
// each one not in the visited set is a new state of the next level, whose
// first discoverer is the least (parent, ordinal) it arrives with. Records
// may arrive in any order, and more than once.
func (p *partition) receive(b []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ierr error
	err := forStates(b, func(parent uint64, ord uint32, enc []byte) {
		if ierr != nil {
			return
		}
		fp := store.Of(enc)
		if i, ok := p.index[fp]; ok {
			if c := &p.cands[i]; !c.before(parent, ord) {
				c.parent, c.ord = parent, ord
			}
			return
		}
		added, err := p.set.Insert(fp)
		if err != nil {
			ierr = fmt.Errorf("dist: partition %d: inserting a state: %w", p.k, err)
			return
		}
		if !added {
			return // a state of an earlier level
		}
		p.index[fp] = len(p.cands)
		p.cands = append(p.cands, cand{parent: parent, ord: ord, off: len(p.arena), len: len(enc)})
		p.arena = append(p.arena, enc...)
	})
	if err != nil {
		return err
	}
	return ierr
}

// next returns the new states of the next level as state records sorted by
// (parent, ordinal), and forgets them.
func (p *partition) next() []byte {
	slices.SortFunc(p.cands, func(a, b cand) int {
		switch {
		case a.before(b.parent, b.ord):
			return -1
		case b.before(a.parent, a.ord):
			return 1
		}
		return 0
	})
	var out []byte
	for _, c := range p.cands {
		out = appendState(out, c.parent, c.ord, p.arena[c.off:c.off+c.len])
	}
	clear(p.index)
	p.cands, p.arena = p.cands[:0], p.arena[:0]
	return out
}
