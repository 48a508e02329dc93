package repair

import "sort"

// minHitting returns a minimum-cost set of candidates (indices into cost)
// that meets every clause, by an exact branch and bound: take the first
// clause the partial set misses, branch on each of its candidates, cheapest
// first, and cut a branch once its cost reaches the best found. The search
// is count-boxed: after maxNodes branches it returns the best set found and
// exact=false. ok is false when no set qualifies.
//
// Two kinds of sets are ruled out. A set that contains one of nogoods (a
// set found to deadlock) is never chosen, nor is any superset of it. A set
// equal to one of except (a set the decider refuted, proveMinimal) is not
// chosen either, but its supersets may be: it is extended by each
// candidate not in it.
func minHitting(clauses, nogoods, except [][]int, cost []int, maxNodes int) (set []int, exact, ok bool) {
	excluded := map[string]bool{}
	for _, e := range except {
		e = append([]int(nil), e...)
		sort.Ints(e)
		excluded[setKey(e)] = true
	}
	best, bestCost := []int(nil), -1
	nodes := 0
	chosen := map[int]bool{}
	var rec func(c int)
	rec = func(c int) {
		nodes++
		if nodes > maxNodes || (bestCost >= 0 && c >= bestCost) {
			return
		}
		open := firstOpen(clauses, chosen)
		if open == nil {
			if containsAny(chosen, nogoods) {
				return
			}
			cur := make([]int, 0, len(chosen))
			for x := range chosen {
				cur = append(cur, x)
			}
			sort.Ints(cur)
			if !excluded[setKey(cur)] {
				best, bestCost = cur, c
				return
			}
			for x := range cost {
				open = append(open, x) // an excluded set: extend it by any other member
			}
		}
		alts := append([]int(nil), open...)
		sort.SliceStable(alts, func(i, j int) bool { return cost[alts[i]] < cost[alts[j]] })
		for _, x := range alts {
			if chosen[x] {
				continue
			}
			chosen[x] = true
			rec(c + cost[x])
			delete(chosen, x)
		}
	}
	rec(0)
	return best, nodes <= maxNodes, bestCost >= 0
}

// firstOpen returns the first clause that chosen does not meet, nil when
// it meets all.
func firstOpen(clauses [][]int, chosen map[int]bool) []int {
	for _, cl := range clauses {
		hit := false
		for _, x := range cl {
			if chosen[x] {
				hit = true
				break
			}
		}
		if !hit {
			return cl
		}
	}
	return nil
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
