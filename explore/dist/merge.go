package dist

import (
	"fmt"
	"math"

	"rdmasim/explore"
)

// merge hands a level to the search's committer in the order of the
// sequential breadth-first search. exps[k] holds the expansion records of
// partition k's states of the level, in id order; news[k] the state records
// of partition k's new states of the next level, sorted by (parent,
// ordinal); each as the bodies of the messages that brought them, which end
// at record boundaries. merge calls commit with every expanded state in id order, with
// its new successors (a state's first discoverer is its parent) in ordinal
// order, until commit returns false. The committer numbers the new states
// in that order from first, so merge returns the ids of each partition's new
// states, in the order of news[k], as far as it got; halted says that commit
// stopped it.
func merge(exps, news [][][]byte, first uint64, commit func(*explore.Expansion) bool) (ids [][]uint64, halted bool, err error) {
	n := len(exps)
	ids = make([][]uint64, n)
	type head struct {
		parent uint64
		ord    uint32
		enc    []byte
		rest   []byte   // of the current body
		bodies [][]byte // the next ones
		ok     bool
	}
	heads := make([]head, n)
	advance := func(j int) error {
		h := &heads[j]
		for len(h.rest) == 0 && len(h.bodies) > 0 {
			h.rest, h.bodies = h.bodies[0], h.bodies[1:]
		}
		if len(h.rest) == 0 {
			h.ok = false
			return nil
		}
		var err error
		h.parent, h.ord, h.enc, h.rest, err = nextState(h.rest)
		h.ok = err == nil
		return err
	}
	for j := range news {
		heads[j].bodies = news[j]
		if err := advance(j); err != nil {
			return nil, false, fmt.Errorf("partition %d's new states: %w", j, err)
		}
	}
	// The expansion records, one cursor per partition.
	type cursor struct {
		body   []byte
		bodies [][]byte
	}
	cur := make([]cursor, n)
	for k := range exps {
		cur[k].bodies = exps[k]
		for _, b := range exps[k] {
			if len(b)%expSize != 0 {
				return nil, false, fmt.Errorf("partition %d: a message of expansion records of %d bytes", k, len(b))
			}
		}
	}
	peek := func(k int) (exp, bool) {
		c := &cur[k]
		for len(c.body) == 0 && len(c.bodies) > 0 {
			c.body, c.bodies = c.bodies[0], c.bodies[1:]
		}
		if len(c.body) == 0 {
			return exp{}, false
		}
		return decodeExp(c.body), true
	}
	next := first
	var e explore.Expansion
	for {
		// The expanded state of least id, across the partitions.
		k, least := -1, uint64(math.MaxUint64)
		var x exp
		for j := range cur {
			if e, ok := peek(j); ok && (k < 0 || e.id < least) {
				k, least, x = j, e.id, e
			}
		}
		if k < 0 {
			break
		}
		cur[k].body = cur[k].body[expSize:]
		e = explore.Expansion{ID: x.id, Succs: x.succs, Pruned: x.pruned, New: e.New[:0]}
		for {
			// Its new successors, in ordinal order, across the
			// partitions.
			j := -1
			for i := range heads {
				if h := &heads[i]; h.ok && (j < 0 || h.parent < heads[j].parent || h.parent == heads[j].parent && h.ord < heads[j].ord) {
					j = i
				}
			}
			if j < 0 || heads[j].parent > x.id {
				break
			}
			h := &heads[j]
			if h.parent < x.id || h.ord >= x.succs {
				return ids, false, fmt.Errorf("partition %d has a new state from successor %d of state %d, which was not expanded so", j, h.ord, h.parent)
			}
			e.New = append(e.New, explore.NewState{Ord: h.ord, Enc: h.enc})
			ids[j] = append(ids[j], next)
			next++
			if err := advance(j); err != nil {
				return ids, false, fmt.Errorf("partition %d's new states: %w", j, err)
			}
		}
		if !commit(&e) {
			return ids, true, nil
		}
	}
	for j, h := range heads {
		if h.ok {
			return ids, false, fmt.Errorf("partition %d has a new state from state %d, which was not expanded", j, h.parent)
		}
	}
	return ids, false, nil
}
