package parse

import "rdmasim/opsem/prog"

// The domains of the locations (see special.go's comment "The domain of a
// location"): what the specialisation branches over when a statement reads
// memory, grown round by round by what the threads write, to a fixpoint
// with widening, or within the hop budget (budget.go).

// domains are the values each location may hold (see above).
type domains struct {
	vals [][prog.MaxValue + 1]bool
	// ranges are the declared ranges of the locations: a write of a value
	// outside its location's range stops the run (prog.Range), so that
	// value is never in the location's domain.
	ranges []ValRange
	edges  []domEdge // NIC and cas copies
	adds   []domEdge // rfaa(l, d): from = to = l, d the addend (l's values shifted by d, modulo 256)
	grew   bool
	// Within a hop budget (budget.go; budget >= 0), depth holds, per
	// location and value, the least number of hops found to produce it
	// (noDepth: none), and vals only the values of depth budget or less.
	budget int
	depth  [][prog.MaxValue + 1]uint8
}

// domEdge is a write whose value the lowering does not know: a copy of
// from's value into to (a put, a get, the landing of a cas's or a remote
// atomic's old value), or from's value plus d (an rfaa), by the statement w.
type domEdge struct {
	from, to, d int
	w           prog.Writer
}

func (d *domains) add(l, v int) { d.addAt(l, v, 0) }

// addAt adds v to l's domain as produced by depth hops (budget.go).
func (d *domains) addAt(l, v, depth int) {
	if d.budget >= 0 {
		if depth >= int(d.depth[l][v]) {
			return
		}
		d.depth[l][v] = uint8(depth)
		if depth > d.budget {
			return
		}
		// A value within the budget, new or reached by fewer hops: the
		// values computed from it are due again (budget.go).
		d.grew = true
	}
	if !d.vals[l][v] {
		d.vals[l][v] = true
		d.grew = true
	}
}

// close propagates the copy edges and the rfaa additions to a fixpoint:
// a copy keeps a value's depth, an addition adds one (budget.go).
func (d *domains) close() {
	for changed := true; changed; {
		changed = false
		for _, e := range d.edges {
			changed = d.propagate(e.from, e.to, 0, 0) || changed
		}
		for _, a := range d.adds {
			changed = d.propagate(a.from, a.from, a.d, 1) || changed
		}
	}
}

// propagate adds the values of from, plus add (modulo 256), to to, each
// at its depth plus hops, within to's range; it reports whether a value
// was added or reached with fewer hops.
func (d *domains) propagate(from, to, add, hops int) bool {
	changed := false
	for v := range d.vals[from] {
		w := (v + add) % (prog.MaxValue + 1)
		if !d.ranges[to].Has(w) {
			continue
		}
		if d.budget < 0 {
			if d.vals[from][v] && !d.vals[to][w] {
				d.vals[to][w] = true
				changed, d.grew = true, true
			}
			continue
		}
		if dv := int(d.depth[from][v]) + hops; d.depth[from][v] != noDepth && dv <= maxHops+1 && dv < int(d.depth[to][w]) {
			d.addAt(to, w, dv)
			changed = true
		}
	}
	return changed
}

// widenAfter is the number of consecutive rounds a domain may grow before
// it is widened to its whole declared range.
const widenAfter = 8

// widen gives every domain that grew in after consecutive rounds its
// whole declared range. A counter kept in memory (d := D; D := d + 1) is the
// usual case: the domain analysis does not follow control flow, so its
// domain gains one value per round until the range ends, and each round
// specialises every thread again (256 rounds for the default range 0..255).
// Widening jumps to where that chain ends. A domain only over-approximates
// what runs can hold, so a wider one costs code, never a wrong answer: a
// branch for a value memory never holds is never taken. before holds the
// domains at the start of the round; growing counts each location's
// consecutive rounds of growth; after = 0 never widens.
func (d *domains) widen(before [][prog.MaxValue + 1]bool, growing []int, after int) {
	if after == 0 {
		return
	}
	for l := range d.vals {
		if d.vals[l] == before[l] {
			growing[l] = 0
			continue
		}
		growing[l]++
		if growing[l] < after {
			continue
		}
		for v := d.ranges[l].Lo; v <= d.ranges[l].Hi; v++ {
			d.vals[l][v] = true
		}
		growing[l] = 0
	}
}

func (d *domains) list(l int) []int {
	var out []int
	for v, ok := range d.vals[l] {
		if ok {
			out = append(out, v)
		}
	}
	return out
}
