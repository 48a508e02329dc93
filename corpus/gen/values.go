package gen

import (
	"math/bits"

	"rdmasim/opsem/prog"
)

// valueSet is a set of values 0..255.
type valueSet [4]uint64

func (s *valueSet) add(v uint8) { s[v>>6] |= 1 << (v & 63) }

func (s *valueSet) has(v uint8) bool { return s[v>>6]&(1<<(v&63)) != 0 }

func (s *valueSet) unionInto(o valueSet, changed *bool) {
	for i := range s {
		if n := s[i] | o[i]; n != s[i] {
			s[i] = n
			*changed = true
		}
	}
}

func (s *valueSet) len() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// nth returns the i-th smallest member.
func (s *valueSet) nth(i int) uint8 {
	for v := range 256 {
		if s.has(uint8(v)) {
			if i == 0 {
				return uint8(v)
			}
			i--
		}
	}
	panic("valueSet.nth out of range")
}

// possible over-approximates, ignoring order, the values every location can
// hold: its initial value and everything written to it, leaving out the
// statements of thread t from the upto-th of stmts on (those that come after
// a statement of t in program order, and some of other branches); t < 0
// leaves out none.
func (g *generator) possible(t, upto int) []valueSet {
	poss := make([]valueSet, len(g.p.Locs))
	for i, l := range g.p.Locs {
		poss[i].add(l.Init)
	}
	for changed := true; changed; {
		changed = false
		for i, s := range g.stmts {
			if g.threadOf[i] == t && i >= upto {
				continue
			}
			switch s.Kind {
			case prog.SWrite:
				var v valueSet
				v.add(s.A)
				poss[s.X].unionInto(v, &changed)
			case prog.SCAS:
				var v valueSet
				v.add(s.B)
				poss[s.Z].unionInto(v, &changed)
				poss[s.X].unionInto(poss[s.Z], &changed)
			case prog.SGet:
				poss[s.X].unionInto(poss[s.Y], &changed)
			case prog.SRCAS:
				var v valueSet
				v.add(s.B)
				poss[s.Y].unionInto(v, &changed)
				poss[s.X].unionInto(poss[s.Y], &changed)
			case prog.SRFAA:
				var v valueSet
				for k := 0; k <= prog.MaxValue; k++ {
					if poss[s.Y].has(uint8(k)) {
						v.add(uint8(k) + s.A)
					}
				}
				poss[s.Y].unionInto(v, &changed)
				poss[s.X].unionInto(poss[s.Y], &changed)
			case prog.SPut:
				poss[s.Y].unionInto(poss[s.X], &changed)
			}
		}
	}
	return poss
}

// fillValues chooses the values tested by assumes and the expected values of
// cas, mostly among those the location can hold when they run.
func (g *generator) fillValues() {
	all := g.possible(-1, 0)
	for i, s := range g.stmts {
		switch s.Kind {
		case prog.SAssume:
			s.A = g.testValue(g.valuesAt(i, s.X, all), s.Ne)
		case prog.SCAS:
			s.A = g.testValue(g.valuesAt(i, s.Z, all), false)
		case prog.SRCAS:
			s.A = g.testValue(all[s.Y], false)
		}
	}
}

// valuesAt over-approximates the values loc can hold when the i-th of stmts,
// an assume or cas of a thread on loc's node, runs: what the thread's own
// earlier statements left there and what other threads write there when the
// former is known; otherwise everything but the thread's later writes.
func (g *generator) valuesAt(i, loc int, all []valueSet) valueSet {
	t := g.threadOf[i]
	own := g.ownAt[i]
	if !own.known {
		return g.possible(t, i)[loc]
	}
	poss := own.set
	var v valueSet
	for j, s := range g.stmts {
		if g.threadOf[j] == t {
			continue
		}
		switch {
		case s.Kind == prog.SWrite && s.X == loc:
			poss.add(s.A)
		case s.Kind == prog.SCAS && s.Z == loc:
			poss.add(s.B)
		}
		switch {
		case s.Kind == prog.SCAS && s.X == loc:
			v = all[s.Z]
		case s.Kind == prog.SGet && s.X == loc:
			v = all[s.Y]
		case s.Kind == prog.SPut && s.Y == loc:
			v = all[s.X]
		default:
			continue
		}
		for k := range poss {
			poss[k] |= v[k]
		}
	}
	return poss
}

// testValue returns a value to compare a location with, given the values it
// can hold: for ne false one of them, for ne true one such that the location
// can hold another; mostly.
func (g *generator) testValue(poss valueSet, ne bool) uint8 {
	if !g.chance(sensibleValue) {
		return g.value()
	}
	if !ne {
		return poss.nth(g.rng.IntN(poss.len()))
	}
	if poss.len() == 1 && g.cfg.Values > 1 {
		only := poss.nth(0)
		v := uint8(g.rng.IntN(g.cfg.Values - 1))
		if v >= only {
			v++
		}
		return v
	}
	return g.value()
}

// cond draws the query's condition: atoms over one to three distinct
// locations, preferring locations some instruction writes, combined with
// /\ and \/, sometimes negated.
func (g *generator) cond() *prog.Cond {
	written := make([]bool, len(g.p.Locs))
	var wl []int
	for _, s := range g.stmts {
		l := -1
		switch s.Kind {
		case prog.SWrite, prog.SGet:
			l = s.X
		case prog.SRCAS, prog.SRFAA:
			l = s.Y
		case prog.SCAS:
			l = s.Z
		case prog.SPut:
			l = s.Y
		}
		if l >= 0 && !written[l] {
			written[l] = true
			wl = append(wl, l)
		}
	}
	k := 1 + g.rng.IntN(min(3, len(g.p.Locs)))
	chosen := make([]bool, len(g.p.Locs))
	var locs []int
	for len(locs) < k {
		var l int
		if len(wl) > 0 && g.chance(75) {
			l = wl[g.rng.IntN(len(wl))]
		} else {
			l = g.rng.IntN(len(g.p.Locs))
		}
		if !chosen[l] {
			chosen[l] = true
			locs = append(locs, l)
		}
	}
	poss := g.possible(-1, 0)
	var c *prog.Cond
	for _, l := range locs {
		a := &prog.Cond{Op: prog.CEq, Loc: l}
		if g.chance(15) {
			a.Op, a.Val = prog.CNe, g.value()
		} else {
			a.Val = g.testValue(poss[l], false)
		}
		switch {
		case c == nil:
			c = a
		case g.chance(75):
			c = &prog.Cond{Op: prog.CAnd, L: c, R: a}
		default:
			c = &prog.Cond{Op: prog.COr, L: c, R: a}
		}
	}
	if g.chance(5) {
		c = &prog.Cond{Op: prog.CNot, L: c}
	}
	return c
}
