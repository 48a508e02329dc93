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
// ordinal). merge calls commit with every expanded state in id order, with
// its new successors (a state's first discoverer is its parent) in ordinal
// order, until commit returns false. The committer numbers the new states
// in that order from first, so merge returns the ids of each partition's new
// states, in the order of news[k], as far as it got; halted says that commit
// stopped it.
func merge(exps, news [][]byte, first uint64, commit func(*explore.Expansion) bool) (ids [][]uint64, halted bool, err error) {
	n := len(exps)
	ids = make([][]uint64, n)
	type head struct {
		parent uint64
		ord    uint32
		enc    []byte
		rest   []byte
		ok     bool
	}
	heads := make([]head, n)
	advance := func(j int) error {
		h := &heads[j]
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
		heads[j].rest = news[j]
		if err := advance(j); err != nil {
			return nil, false, fmt.Errorf("partition %d's new states: %w", j, err)
		}
	}
	for k := range exps {
		if len(exps[k])%expSize != 0 {
			return nil, false, fmt.Errorf("partition %d: expansion records of %d bytes", k, len(exps[k]))
		}
	}
	pos := make([]int, n)
	next := first
	var e explore.Expansion
	for {
		// The expanded state of least id, across the partitions.
		k, least := -1, uint64(math.MaxUint64)
		for j := range exps {
			if pos[j] < len(exps[j]) {
				if id := decodeExp(exps[j][pos[j]:]).id; k < 0 || id < least {
					k, least = j, id
				}
			}
		}
		if k < 0 {
			break
		}
		x := decodeExp(exps[k][pos[k]:])
		pos[k] += expSize
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
