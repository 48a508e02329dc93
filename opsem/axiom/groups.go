package axiom

import (
	"math/bits"

	"rdmasim/opsem/prog"
)

// Multi-word puts and gets (SEMANTICS-VERBS.md 1) have events that the
// machines make in one step: a put's k nrW are issued at one instant (N4),
// a get's k nlW too (N8), and the SC machine performs the whole work
// request, its 2k events, in one step. (Their reads are not: a put's k nlR
// (N1) and a get's k nrR (N6) are k steps in any order, the machine's
// torn reads, machine/tear.go.) Events of one instant are one node for the
// purpose of cycles: a cycle that enters such a group at one event and
// leaves it at another is a cycle (the group happens at once), one inside
// the group is not. The relations contract them so: PPO orders each group
// along program order (its first event, the leader, reaches every other),
// and every edge from outside into a member also enters the leader
// (contraction.add, contraction.rows), as sc contracts a remote atomic's
// naR and naW (atomic.go). Which groups each relation contracts:
//   - ib (issue): a WR's writes, issued at one instant.
//   - ob (observation): none; its reads are separate instants, and its
//     writes become visible one by one (F1, F2), in an order the placement
//     decides (PPO).
//   - sc: the whole work request.

// Relations that contract groups.
const (
	relIB = iota
	relOB
	relSC
	nRel
)

// contraction holds, per relation, each event's group leader (-1 for none,
// and for the leader itself) and its group's members.
type contraction struct {
	any  bool
	lead [nRel][]int
	mask [nRel][]uint64
}

// build sets c from the events ev (their WR fields).
func (c *contraction) build(ev []Event) {
	c.any = false
	for r := range c.lead {
		c.lead[r] = c.lead[r][:0]
		c.mask[r] = c.mask[r][:0]
		for range ev {
			c.lead[r] = append(c.lead[r], -1)
			c.mask[r] = append(c.mask[r], 0)
		}
	}
	type key struct {
		t, wr int
		k     prog.EventKind
	}
	first := map[key]int{}
	for i := range ev {
		e := &ev[i]
		if e.WR == 0 || e.Thread < 0 {
			continue
		}
		c.any = true
		for r := 0; r < nRel; r++ {
			k := key{e.Thread, e.WR, e.Kind}
			switch {
			case r == relSC:
				k.k = prog.EvNone // the whole work request
			case r == relOB || e.Kind == prog.EvNLR || e.Kind == prog.EvNRR:
				continue // reads tear: one instant each
			}
			k.wr = k.wr*nRel + r
			l, ok := first[k]
			if !ok {
				first[k] = i
				l = i
			}
			if l != i {
				c.lead[r][i] = l
			}
			c.mask[r][l] |= 1 << uint(i)
		}
	}
	for r := 0; r < nRel; r++ {
		for i, l := range c.lead[r] {
			if l >= 0 {
				c.mask[r][i] = c.mask[r][l]
			}
		}
	}
}

// add adds X × R to the closed relation g of relation rel over n events,
// and for each member b of R of a group whose leader is not in R, X × {the
// leader} from the events of X outside the group; it reports whether g is
// then cyclic.
func (c *contraction) add(g *closure, rel, n int, X, R uint64) bool {
	cyc := g.addSet(n, X, R)
	if !c.any {
		return cyc
	}
	for m := R; m != 0; m &= m - 1 {
		b := bits.TrailingZeros64(m)
		l := c.lead[rel][b]
		if l < 0 {
			continue
		}
		if Y := X &^ c.mask[rel][b]; Y != 0 && g.addSet(n, Y, 1<<uint(l)) {
			cyc = true
		}
	}
	return cyc
}

// rows adds to each row a of the base relation r (before its closure), for
// each member b of a group that a reaches and is outside of, the edge a ->
// the leader of b's group.
func (c *contraction) rows(r []uint64, rel int) {
	if !c.any {
		return
	}
	for a := range r {
		for m := r[a]; m != 0; m &= m - 1 {
			b := bits.TrailingZeros64(m)
			if l := c.lead[rel][b]; l >= 0 && c.mask[rel][b]>>uint(a)&1 == 0 {
				r[a] |= 1 << uint(l)
			}
		}
	}
}
