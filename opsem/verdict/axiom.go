package verdict

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/job"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
)

// DefaultModelUnroll is the loop bound of the declarative model (and of the
// machine when the two are compared) when none is given: the model
// enumerates label sequences, so its loops must be unrolled. It is
// job.DefaultModelUnroll, where the machines' recipes are.
const DefaultModelUnroll = job.DefaultModelUnroll

// LoopBound returns the loop bound to use for p where loops must be
// bounded (the model's label sequences, event graphs, comparisons of the
// two): unroll when given, DefaultModelUnroll when p has loops, else 0
// (job.LoopBound).
func LoopBound(p *prog.Program, unroll int) int { return job.LoopBound(p, unroll) }

// modelOptions derives the model's options from o.
func modelOptions(p *prog.Program, o Options) axiom.Options {
	return axiom.Options{Unroll: LoopBound(p, o.Machine.Unroll), InOrder: o.Machine.Placement == machine.PlaceInOrder}
}

// HasLoops reports whether some thread of p has a loop (job.HasLoops).
func HasLoops(p *prog.Program) bool { return job.HasLoops(p) }

// FinalConfig is a prog.Config over a final memory: every thread has ended.
type FinalConfig struct {
	P      *prog.Program
	Memory []uint8
}

// Mem returns the value of location l.
func (c FinalConfig) Mem(l int) uint8 { return c.Memory[l] }

// PC returns the end of thread t.
func (c FinalConfig) PC(t int) (int, bool) { return c.P.Threads[t].End(), false }

// ComputeModel answers p's query under RDMA and SC with the declarative
// model: the final memories of complete RDMA-consistent (ob acyclic) and
// SC-consistent (sc acyclic) traces (Finals counts them). What the machines
// find in the middle of runs, the model finds in consistent trace prefixes
// (axiom.Reach): a reach condition's answer, the error points reached
// (Errors, Failed, ErrorAt), and, when no trace completes, the deadlocks
// (Deadlocks), so that a verdict is vacuous under the model when it is
// under the machines. A query the model does not answer is refused with an
// *axiom.RefusedError (ModelRefused).
func ComputeModel(ctx context.Context, p *prog.Program, opt Options) (rdma, sc *Result, err error) {
	mo := modelOptions(p, opt)
	reach := p.Query.Kind == prog.QReach
	rm, sm, st, err := axiom.Outcomes(ctx, p, mo)
	if err != nil {
		return nil, nil, fmt.Errorf("enumerating traces of %s: %w", p.Name, err)
	}
	q := axiom.ReachQuery{Errors: HasErrorPoints(p), Deadlocks: len(rm) == 0 || len(sm) == 0}
	if reach {
		q.Cond, q.Locs = p.Query.Cond, ShownLocations(p)
	}
	var reached [2]axiom.Reached
	if q.Cond != nil || q.Errors || q.Deadlocks {
		var rst axiom.Stats
		reached[0], reached[1], rst, err = axiom.Reach(ctx, p, mo, q)
		if err != nil {
			return nil, nil, fmt.Errorf("enumerating trace prefixes of %s: %w", p.Name, err)
		}
		st.Candidates += rst.Candidates
		st.Bounded = st.Bounded || rst.Bounded
	}
	build := func(sem machine.Semantics, mems [][]uint8, rc axiom.Reached) *Result {
		r := &Result{Semantics: sem, Query: p.Query, Locs: ShownLocations(p), Model: true}
		for _, ep := range rc.Errors {
			r.Errors = append(r.Errors, ep.Describe(p))
		}
		r.Errors = sortedSet(r.Errors)
		// The model counts final memories, error points (by statement)
		// and deadlocked memories where the machines count configurations.
		r.Finals, r.Deadlocks, r.Failed = uint64(len(mems)), rc.Deadlocks, uint64(len(r.Errors))
		if len(rc.Errors) > 0 {
			r.ErrorAt = rc.Errors[0].Describe(p)
		}
		r.Complete = !st.Bounded && ctx.Err() == nil
		r.Search = explore.Result{Stats: explore.Stats{States: st.Candidates}}
		switch {
		case ctx.Err() != nil:
			r.Search.Stop, r.Bound = explore.Canceled, "interrupted"
		case st.Bounded:
			r.Bound = machine.UnrollBound.At(mo.Unroll)
		}
		cond := p.Query.Cond
		if cond == nil {
			cond = &prog.Cond{Op: prog.CTrue}
		}
		seen := map[string]bool{}
		for _, m := range mems {
			key := make([]uint8, len(r.Locs))
			for i, l := range r.Locs {
				key[i] = m[l]
			}
			if seen[string(key)] {
				continue
			}
			seen[string(key)] = true
			sat := cond.Eval(p, FinalConfig{p, m})
			r.Outcomes = append(r.Outcomes, Outcome{Values: key, Satisfies: sat})
			if p.Query.Kind != prog.QNone && !reach {
				if sat {
					r.Positive++
				} else {
					r.Negative++
				}
			}
		}
		sort.Slice(r.Outcomes, func(i, j int) bool { return bytes.Compare(r.Outcomes[i].Values, r.Outcomes[j].Values) < 0 })
		if reach {
			r.Positive, r.Negative = rc.Positive, rc.Negative
		}
		r.Allowed = r.Positive > 0
		return r
	}
	return build(machine.RDMA, rm, reached[0]), build(machine.SC, sm, reached[1]), nil
}

// ModelRefused reports whether err, from ComputeModel, says that the model
// does not answer the program's query (an *axiom.RefusedError), and why.
// (It runs every program, registers kept at run time included.)
func ModelRefused(err error) (why string, ok bool) {
	var r *axiom.RefusedError
	if errors.As(err, &r) {
		return r.Why, true
	}
	return "", false
}

// sortedSet sorts s and drops its duplicates.
func sortedSet(s []string) []string {
	sort.Strings(s)
	return slices.Compact(s)
}

// CompareErrors compares the error points two results reached (Errors):
// those only the first has, and those only the second has.
func CompareErrors(machine, model *Result) (onlyMachine, onlyModel []string) {
	in := func(s []string, x string) bool { _, ok := slices.BinarySearch(s, x); return ok }
	for _, e := range machine.Errors {
		if !in(model.Errors, e) {
			onlyMachine = append(onlyMachine, e)
		}
	}
	for _, e := range model.Errors {
		if !in(machine.Errors, e) {
			onlyModel = append(onlyModel, e)
		}
	}
	return onlyMachine, onlyModel
}

// ModelLimited turns an error of ComputeModel that says p is too large for
// the declarative model (it matches axiom.ErrTooLarge) into the results the
// model gives: unknown under both semantics, nothing found, with Limit and
// Bound ("model limit: 70 events > 64") saying why. The program is valid
// and other semantics may answer it, so a caller reports these rather than
// an error. ok is false, and the results nil, for any other error.
func ModelLimited(p *prog.Program, err error) (rdma, sc *Result, ok bool) {
	var limit *axiom.LimitError
	if !errors.As(err, &limit) {
		return nil, nil, false
	}
	build := func(sem machine.Semantics) *Result {
		return &Result{Semantics: sem, Query: p.Query, Locs: ShownLocations(p), Model: true,
			Bound: LimitBound(limit), Limit: limit}
	}
	return build(machine.RDMA), build(machine.SC), true
}

// RobustLimited is ModelLimited for RobustModel: the enum-axiom answer
// "unknown" of a program too large for the model (Robust is true, as for
// any search that found no violation, and not Complete).
func RobustLimited(err error) (*RobustResult, bool) {
	var limit *axiom.LimitError
	if !errors.As(err, &limit) {
		return nil, false
	}
	return &RobustResult{Robust: true, Method: "enum-axiom", Bound: LimitBound(limit), Limit: limit}, true
}

// LimitBound names a limit of the model as the bound that cut a search:
// "model limit: 70 events > 64".
func LimitBound(limit *axiom.LimitError) string { return "model limit: " + limit.Summary() }

// Disagreement lists the outcomes one side has and the other lacks.
type Disagreement struct {
	OnlyMachine, OnlyModel [][]uint8
}

// Empty reports whether the two sides agreed.
func (d Disagreement) Empty() bool { return len(d.OnlyMachine) == 0 && len(d.OnlyModel) == 0 }

// CompareOutcomes compares the outcome sets of a machine result and a model
// result over the same locations.
func CompareOutcomes(machine, model *Result) Disagreement {
	set := func(r *Result) map[string]bool {
		s := map[string]bool{}
		for _, o := range r.Outcomes {
			s[string(o.Values)] = true
		}
		return s
	}
	a, b := set(machine), set(model)
	var d Disagreement
	for k := range a {
		if !b[k] {
			d.OnlyMachine = append(d.OnlyMachine, []uint8(k))
		}
	}
	for k := range b {
		if !a[k] {
			d.OnlyModel = append(d.OnlyModel, []uint8(k))
		}
	}
	sort.Slice(d.OnlyMachine, func(i, j int) bool { return bytes.Compare(d.OnlyMachine[i], d.OnlyMachine[j]) < 0 })
	sort.Slice(d.OnlyModel, func(i, j int) bool { return bytes.Compare(d.OnlyModel[i], d.OnlyModel[j]) < 0 })
	return d
}

// RobustModel decides robustness by enumeration of the declarative model's
// traces (partial ones included): robust iff no RDMA-consistent trace has an
// sc cycle. Loops are unrolled (DefaultModelUnroll when opt gives none).
func RobustModel(ctx context.Context, p *prog.Program, opt Options) (*RobustResult, *axiom.Trace, error) {
	mo := modelOptions(p, opt)
	robust, w, st, err := axiom.Robust(ctx, p, mo)
	if err != nil {
		return nil, nil, fmt.Errorf("enumerating traces of %s: %w", p.Name, err)
	}
	r := &RobustResult{Robust: robust, Method: "enum-axiom"}
	r.Search = explore.Result{Stats: explore.Stats{States: st.Candidates}}
	switch {
	case ctx.Err() != nil:
		r.Search.Stop, r.Bound = explore.Canceled, "interrupted"
	case st.Bounded:
		r.Bound = machine.UnrollBound.At(mo.Unroll)
	default:
		r.Complete = true
	}
	return r, w, nil
}
