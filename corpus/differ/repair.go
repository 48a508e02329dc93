package differ

import (
	"context"
	"fmt"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/repair"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// repair checks rdmasim repair on a program the decider found not robust:
// repair must either say why it cannot, or give a text that a second
// method proves — robustness by enumeration on the RDMA machine, complete
// and with no deadlock the original does not have — and from which no
// single insertion can be dropped (without it the decider finds a
// violation, or the text deadlocks where the original does not). The
// repair itself decides with the decider; the enumeration is the
// independent side, so a repair that the decider wrongly accepts shows
// here. Programs with remote atomics are left out (the decider refuses
// them, and repair's proof is then the model's enumeration, bounded on
// loops).
func (r *Report) repair(ctx context.Context, vopt verdict.Options) error {
	switch {
	case r.Decide == nil || !r.Decide.Certain():
		return nil // the decider did not answer: decide's Skipped says why
	case r.Decide.Robust:
		return nil
	case prog.HasAtomics(r.Program):
		r.Skipped = append(r.Skipped, Skip{string(Repair), "remote atomics"})
		return nil
	}
	text := []byte(r.Program.String())
	parseText := func(ctx context.Context, text []byte) (*prog.Program, error) {
		return parse.ParseContext(ctx, "repaired.rdma", text, parse.Options{})
	}
	res, err := repair.Repair(ctx, text, repair.Options{Parse: parseText, Costs: repair.DefaultCosts})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.Problems = append(r.Problems, Problem{Repair, fmt.Sprintf("repair: %v", err)})
		return nil
	}
	r.Repaired = res
	switch {
	case res.Cut != "":
		r.Skipped = append(r.Skipped, Skip{string(Repair), "repair cut by " + res.Cut})
		return nil
	case !res.Found():
		return nil // a reason, which repair.Result.Why gives
	}
	decideText := func(m robust.Method, text []byte) (*robust.Result, error) {
		p, err := parseText(ctx, text)
		if err != nil {
			return nil, fmt.Errorf("the repaired text does not parse: %v", err)
		}
		o := robust.Options{Method: m, Deadlocks: true, Verdict: vopt}
		return robust.Decide(ctx, p, o)
	}
	// A deadlock counts against a text only when the original has none:
	// a poll with nothing to wait for blocks the original too.
	orig, err := decideText(robust.EnumMachine, text)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.Problems = append(r.Problems, Problem{Repair, fmt.Sprintf("the original text: %v", err)})
		return nil
	}
	deadlocks := orig.Deadlock != nil
	e, err := decideText(robust.EnumMachine, res.Text)
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		r.Problems = append(r.Problems, Problem{Repair, err.Error()})
		return nil
	case !e.Certain():
		r.Skipped = append(r.Skipped, Skip{string(Repair), "enumeration of the repaired text cut by " + e.Bound})
		return nil
	case !e.Robust:
		r.Problems = append(r.Problems, Problem{Repair, fmt.Sprintf("the repaired text (%d insertions) is not robust by enumeration on the RDMA machine", len(res.Insertions))})
		return nil
	case e.Deadlock != nil && !deadlocks:
		r.Problems = append(r.Problems, Problem{Repair, "the repaired text deadlocks, the original does not"})
		return nil
	}
	for i, in := range res.Insertions {
		d, err := decideText(robust.Decider, res.Without(i))
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			r.Problems = append(r.Problems, Problem{Repair, fmt.Sprintf("without %q: %v", in.Stmt, err)})
		case d.Certain() && d.Robust && (d.Deadlock == nil || deadlocks):
			r.Problems = append(r.Problems, Problem{Repair, fmt.Sprintf("the repair is not irredundant: without %q (line %d) it is still robust", in.Stmt, in.Line)})
		}
	}
	return nil
}
