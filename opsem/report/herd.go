package report

import (
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// TestKind is herd7's word for the kind of test a quantifier makes:
// Allowed, Forbidden, Required, Reachable, or Final without a query.
func TestKind(k prog.QueryKind) string {
	switch k {
	case prog.QExists:
		return "Allowed"
	case prog.QNotExists:
		return "Forbidden"
	case prog.QForall:
		return "Required"
	case prog.QReach:
		return "Reachable"
	}
	return "Final"
}

// Outcome prints a final outcome, vals being the values of locs: "x=1;
// y=0;", or "(final)" over no location.
func Outcome(p *prog.Program, locs []int, vals []uint8) string {
	if len(locs) == 0 {
		return "(final)"
	}
	return p.Outcome(locs, func(i int) uint8 {
		for k, l := range locs {
			if l == i {
				return vals[k]
			}
		}
		return 0
	})
}

// Observation is herd7's Never / Sometimes / Always over pos configurations
// (or outcomes, or walks) that satisfy the condition and neg that do not.
// Never and Always claim that every one was seen, so a search that was not
// complete says Unknown instead (Sometimes, having seen both, is certain).
func Observation(pos, neg uint64, complete bool) string {
	switch {
	case pos > 0 && neg > 0:
		return "Sometimes"
	case !complete:
		return "Unknown"
	case pos == 0:
		return "Never"
	case neg == 0:
		return "Always"
	}
	return "Sometimes"
}

// Holds is herd7's word on whether the query's claim holds: Ok or No, and
// Unknown when a bound cut the search before it could tell.
func Holds(r *verdict.Result) string {
	holds, certain := r.Holds()
	switch {
	case !certain:
		return "Unknown"
	case holds:
		return "Ok"
	}
	return "No"
}
