package differ

import (
	"context"
	"fmt"

	"rdmasim/explore"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// symmetricOutcomes compares check's searches (the RDMA machine, full and
// under its partial-order reduction, and the SC machine) with the same
// searches reduced by the program's symmetry, when it has one: the
// outcomes (closed under the group) are the same, the same bounds cut
// them, and their runs end the same ways. Witnesses are rebuilt (as real
// runs, which Compute checks step by step against the machine).
func (r *Report) symmetricOutcomes(ctx context.Context, vopt verdict.Options) error {
	if sym, _ := prog.FindSymmetry(r.Program); sym == nil {
		return nil
	}
	r.OutcomesSymmetric = true
	for _, c := range []struct {
		plain  *verdict.Result
		sem    machine.Semantics
		reduce bool
	}{{r.Machine[0], machine.RDMA, false}, {r.Reduced, machine.RDMA, true}, {r.Machine[1], machine.SC, false}} {
		if c.plain == nil {
			continue
		}
		name := c.sem.String()
		if c.reduce {
			name += " reduced"
		}
		if c.plain.Search.Stop != explore.Complete {
			r.Skipped = append(r.Skipped, Skip{string(OutcomesSymmetry), name + " machine search cut by " + c.plain.Bound})
			continue
		}
		sopt := vopt
		sopt.Machine.Reduce = c.reduce
		sopt.Symmetry, sopt.Witness = true, true
		res, err := verdict.Compute(ctx, r.Program, c.sem, sopt)
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			r.Problems = append(r.Problems, Problem{OutcomesSymmetry, fmt.Sprintf("%s machine reduced by symmetry: %v", name, err)})
			continue
		case res.Symmetry == "":
			r.Problems = append(r.Problems, Problem{OutcomesSymmetry, name + " machine: the search did not reduce by the program's symmetry"})
			continue
		}
		if d := verdict.CompareOutcomes(res, c.plain); !d.Empty() {
			r.Problems = append(r.Problems, Problem{OutcomesSymmetry, fmt.Sprintf("%s outcomes: only with symmetry (%s) %v, only without %v", name, res.Symmetry, d.OnlyMachine, d.OnlyModel)})
		}
		if res.Complete != c.plain.Complete || res.Bound != c.plain.Bound {
			r.Problems = append(r.Problems, Problem{OutcomesSymmetry, fmt.Sprintf("%s machine: with symmetry complete=%v bound %q, without complete=%v bound %q", name, res.Complete, res.Bound, c.plain.Complete, c.plain.Bound)})
		}
		if (res.Finals > 0) != (c.plain.Finals > 0) || (res.Filtered > 0) != (c.plain.Filtered > 0) || (res.Deadlocks > 0) != (c.plain.Deadlocks > 0) {
			r.Problems = append(r.Problems, Problem{OutcomesSymmetry, fmt.Sprintf("%s ends (final, filtered, deadlocked): with symmetry %d, %d, %d; without %d, %d, %d",
				name, res.Finals, res.Filtered, res.Deadlocks, c.plain.Finals, c.plain.Filtered, c.plain.Deadlocks)})
		}
		if res.Search.States > c.plain.Search.States {
			r.Problems = append(r.Problems, Problem{OutcomesSymmetry, fmt.Sprintf("%s machine: %d configurations with symmetry, %d without", name, res.Search.States, c.plain.Search.States)})
		}
	}
	return nil
}

// symmetric compares the decider's answer rd with its search reduced by
// the program's symmetry, when it has one.
func (r *Report) symmetric(ctx context.Context, opt Options, rd *robust.Result) error {
	if sym, _ := prog.FindSymmetry(r.Program); sym == nil || rd.KarpMiller {
		return nil // nothing to compare: no group, or a search that is not reduced
	}
	r.Symmetric = true
	rp, _ := prog.WithoutRangeChecks(r.Program) // as robust.Decide
	rs, err := decide.Decide(ctx, rp, decide.Options{Settings: explore.Settings{MaxStates: opt.deciderMaxStates(), Symmetry: true}})
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		r.Problems = append(r.Problems, Problem{RobustSymmetry, fmt.Sprintf("decider reduced by symmetry: %v", err)})
	case !rs.Certain():
		r.Skipped = append(r.Skipped, Skip{string(RobustSymmetry), "reduced decider cut by " + rs.Bound})
	case rs.Robust != rd.Robust:
		r.Problems = append(r.Problems, Problem{RobustSymmetry, fmt.Sprintf("robustness: the decider says robust=%v, reduced by symmetry (%s) robust=%v", rd.Robust, rs.Symmetry, rs.Robust)})
	case rs.Symmetry == "":
		r.Problems = append(r.Problems, Problem{RobustSymmetry, "the decider did not reduce by the program's symmetry"})
	}
	return nil
}
