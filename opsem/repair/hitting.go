package repair

import "sort"

// minHitting returns a minimum-cost set of candidates (indices into cost)
// that meets every clause, by an exact branch and bound: take the first
// clause the partial set misses, branch on each of its candidates, cheapest
// first, and cut a branch once its cost reaches the best found. The search
// is count-boxed: after maxNodes branches it returns the best set found and
// exact=false. A set that contains one of nogoods (a set found to deadlock)
// is never chosen. ok is false when no set meets every clause.
func minHitting(clauses [][]int, nogoods [][]int, cost []int, maxNodes int) (set []int, exact, ok bool) {
	best, bestCost := []int(nil), -1
	nodes := 0
	chosen := map[int]bool{}
	var cur []int
	var rec func(c int)
	rec = func(c int) {
		nodes++
		if nodes > maxNodes || (bestCost >= 0 && c >= bestCost) {
			return
		}
		var open []int
		for _, cl := range clauses {
			hit := false
			for _, x := range cl {
				if chosen[x] {
					hit = true
					break
				}
			}
			if !hit {
				open = cl
				break
			}
		}
		if open == nil {
			if containsAny(chosen, nogoods) {
				return
			}
			best, bestCost = append([]int(nil), cur...), c
			return
		}
		alts := append([]int(nil), open...)
		sort.SliceStable(alts, func(i, j int) bool { return cost[alts[i]] < cost[alts[j]] })
		for _, x := range alts {
			chosen[x] = true
			cur = append(cur, x)
			rec(c + cost[x])
			cur = cur[:len(cur)-1]
			delete(chosen, x)
		}
	}
	rec(0)
	sort.Ints(best)
	return best, nodes <= maxNodes, bestCost >= 0
}

// containsAny reports whether chosen contains every element of one of sets.
func containsAny(chosen map[int]bool, sets [][]int) bool {
	for _, s := range sets {
		all := true
		for _, x := range s {
			all = all && chosen[x]
		}
		if all {
			return true
		}
	}
	return false
}
