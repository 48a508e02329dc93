// Package check answers a program's query under RDMA and under SC and
// checks its expect lines, as `rdmasim check` does. The answers come from
// the machines (their exploration, package verdict), from the declarative
// model (its traces and trace prefixes), or from both, whose outcome sets,
// reach answers and error points are then compared (the machine the
// reference, the model the cross-check).
// The expect rdma and sc lines are checked against the answers, the expect
// robust line against enumeration on the machine (package robust).
// WriteText prints a Result in herd7's style, Result.JSON as JSON.
package check

import (
	"context"
	"fmt"
	"strings"

	"rdmasim/explore"
	"rdmasim/opsem/expect"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// Semantics says what answers the query.
type Semantics string

// Semantics.
const (
	Machine Semantics = "machine" // explore the RDMA and SC machines
	Axiom   Semantics = "axiom"   // enumerate the declarative model's traces
	Both    Semantics = "both"    // the machines, their outcome sets compared with the model's
)

// Options configure Answer.
type Options struct {
	// Semantics is what answers the query; empty means Machine.
	Semantics Semantics
	// Verdict are the machines' bounds and the search settings. With
	// Both, the machines bound loops as the model does (verdict.LoopBound),
	// so that like is compared with like, and list every outcome
	// (Verdict.FirstWitness is ignored: the sets are compared).
	Verdict verdict.Options
	// Deepen, with Verdict.FirstWitness, searches the RDMA machine with
	// max-inflight 1, 2, 4, … up to Verdict.Machine.MaxInflight, stopping
	// at the first bound that answers: a witness, or a search that no
	// max-inflight cut. Most violations need few operations in flight, and
	// a small bound's state space is a fraction of a large one's; the
	// answer says which bound it needed (verdict.Result.Inflight).
	Deepen bool
}

// Result is the answer to a program's query under RDMA and SC.
type Result struct {
	Program *prog.Program
	// Results are the answers under RDMA and SC.
	Results [2]*verdict.Result
	// Agreement (Both) says, one line per semantics, whether the machine's
	// outcomes agree with the model's ("Model rdma: agrees (2
	// outcomes)"), or why they were not compared.
	Agreement []string
	// Disagree (Both): the machines and the model have different outcome
	// sets, or the model failed.
	Disagree bool
	// Limited: the declarative model's size limit kept it from answering.
	Limited bool
	// Expect are the program's expect lines, checked (CheckExpect).
	Expect []expect.Expectation
	// Asymmetric (machines, with symmetry reduction on) says, for each
	// family of two or more threads that the searches could not reduce
	// by, which statement, value or location breaks its group
	// (prog.FindSymmetry): "client: ...".
	Asymmetric []string
	// SkipRobust makes CheckExpect leave the expect robust line unchecked
	// (expect.Skipped): its search, the decider or enumeration, can take
	// far longer than the query's (check --skip-robust).
	SkipRobust bool
	// KarpMiller (CheckExpect): the expect robust line was decided by the
	// decider's Karp–Miller search (a poll lies on a loop), which runs in
	// this process whatever the settings (no cluster, no checkpoint).
	KarpMiller bool
}

// Workers returns the most worker processes that took part in one of the
// machines' searches (explore.Result.Workers): on a cluster
// (Settings.Remote), how many expanded states; 0 for the model's answers.
func (r *Result) Workers() int {
	n := 0
	for _, res := range r.Results {
		if res != nil && !res.Model {
			n = max(n, res.Search.Workers)
		}
	}
	return n
}

// Answer answers p's query under RDMA and SC by opt.Semantics. A program
// too large for the declarative model is not an error: its answers are
// unknown, and Limited says so.
func Answer(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	r := &Result{Program: p}
	if opt.Semantics == Axiom {
		rdma, sc, err := verdict.ComputeModel(ctx, p, opt.Verdict)
		if lr, ls, ok := verdict.ModelLimited(p, err); ok {
			rdma, sc, err, r.Limited = lr, ls, nil, true
		}
		if err != nil {
			return nil, err
		}
		r.Results = [2]*verdict.Result{rdma, sc}
		return r, nil
	}
	mopt := opt.Verdict
	if opt.Semantics == Both {
		mopt.FirstWitness = false
	}
	if mopt.Symmetry {
		// The families that are no group, and why: the same whether or
		// not the searches run on a cluster, which reduces by none.
		_, r.Asymmetric = prog.FindSymmetry(p)
	}
	if opt.Semantics == Both {
		mopt.Machine.Unroll = verdict.LoopBound(p, mopt.Machine.Unroll)
	}
	compute := verdict.Compute
	if mopt.FirstWitness && opt.Deepen {
		compute = func(ctx context.Context, p *prog.Program, sem machine.Semantics, o verdict.Options) (*verdict.Result, error) {
			if sem == machine.RDMA {
				return deepen(ctx, p, sem, o)
			}
			return verdict.Compute(ctx, p, sem, o)
		}
	}
	res, errs := verdict.ComputeMachinesWith(ctx, p, mopt, compute)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	r.Results = res
	if opt.Semantics == Both {
		r.compare(ctx, mopt)
	}
	return r, nil
}

// deepen answers p's query under sem as verdict.Compute does, raising
// max-inflight from 1 by doubling up to opt's: it returns the first
// search that found a witness, was not cut by max-inflight, or was
// stopped by another bound; Result.Inflight is its max-inflight.
func deepen(ctx context.Context, p *prog.Program, sem machine.Semantics, opt verdict.Options) (*verdict.Result, error) {
	limit := opt.Machine.MaxInflight
	for k := 1; ; k *= 2 {
		if limit <= 0 || k > limit {
			k = limit
		}
		o := opt
		o.Machine.MaxInflight = k
		res, err := verdict.Compute(ctx, p, sem, o)
		if err != nil {
			return nil, err
		}
		res.Inflight = k
		cut := res.Search.Pruned&machine.PrunedInflight != 0
		if res.AtWitness || k == limit || !cut || res.Search.Stop != explore.Complete {
			return res, nil
		}
	}
}

// CheckExpect checks the program's expect lines: the rdma and sc lines
// against the answers, the robust line with robust.Decide's default method
// (the decider, complete with loops; on a loop-free program raced with
// enumeration on the machine) with opt. A checkpointed check keeps to
// enumeration on the machine, whose searches its checkpoint holds.
func (r *Result) CheckExpect(ctx context.Context, opt verdict.Options) error {
	p := r.Program
	r.Expect = expect.Check(p, r.Results)
	exp, ok := p.Expectation(prog.Robust)
	if !ok {
		return nil
	}
	if r.SkipRobust {
		expect.SetRobust(r.Expect, &expect.Expectation{Sem: prog.Robust.String(), Expected: exp.Word(),
			Status: expect.Skipped, Why: "--skip-robust"})
		return nil
	}
	method := robust.Auto
	if opt.Checkpoint != nil {
		method = robust.EnumMachine
	}
	rr, err := robust.Decide(ctx, p, robust.Options{Method: method, Verdict: opt})
	if err != nil {
		return err
	}
	expect.SetRobust(r.Expect, rr.Expect)
	r.KarpMiller = rr.KarpMiller
	return nil
}

// Failed reports whether the check failed: an expect line failed, or, when
// strict, one stayed unknown or a run deadlocks.
func (r *Result) Failed(strict bool) bool {
	for _, x := range r.Expect {
		if x.Status.Failed() || strict && x.Status == expect.Unknown {
			return true
		}
	}
	for _, res := range r.Results {
		if strict && res.Deadlocks > 0 {
			return true
		}
	}
	return false
}

// compare compares the machines' answers with the declarative model's,
// computed with opt: the outcome sets, a reach query's answer, and the
// error points reached (verdict.Result.Errors, by statement). The machine
// is the reference; the model's answer is the cross-check. Answers are
// compared only when the machine search covered everything the model
// covers (no max-inflight cut, not stopped); a program too large for the
// model has no model answer ("Model: unknown (model limit: 70 events >
// 64)", Limited), and a query the model does not answer (a reach condition
// on control points) is not compared, with the reason.
func (r *Result) compare(ctx context.Context, opt verdict.Options) {
	p := r.Program
	mr, ms, err := verdict.ComputeModel(ctx, p, opt)
	if lr, _, ok := verdict.ModelLimited(p, err); ok {
		r.Agreement, r.Limited = []string{"Model: unknown (" + lr.Bound + ")"}, true
		return
	}
	if why, ok := verdict.ModelRefused(err); ok {
		r.Agreement = []string{"Model: not compared (" + why + ")"}
		return
	}
	if err != nil {
		r.Agreement, r.Disagree = []string{"Model: " + err.Error()}, true
		return
	}
	for i, model := range []*verdict.Result{mr, ms} {
		mach := r.Results[i]
		sem := mach.Semantics
		if mach.Search.Stop != explore.Complete || mach.Search.Pruned&machine.PrunedInflight != 0 {
			r.Agreement = append(r.Agreement, fmt.Sprintf("Model %s: not compared (the machine search was cut by %s)", sem, mach.Bound))
			continue
		}
		diffs, what := Differences(p, mach, model)
		if len(diffs) == 0 {
			r.Agreement = append(r.Agreement, fmt.Sprintf("Model %s: agrees (%s)", sem, what))
			continue
		}
		r.Disagree = true
		r.Agreement = append(r.Agreement, fmt.Sprintf("Model %s: DISAGREES with the machine; %s", sem, strings.Join(diffs, "; ")))
	}
}

// Differences compares a machine's answer with the model's under one
// semantics, both complete: the final outcomes, a reach query's answer and
// the error points reached. It returns the differences, one phrase each
// ("only machine: x=1", "reach: machine allowed, model forbidden", "error
// point only model: T at line 7: ..."), and, when there is none, what
// agreed ("2 outcomes, reach allowed, 1 error point"). Under symmetry
// reduction the machine keeps one configuration per orbit, so error points
// are compared only when it reduced by none.
func Differences(p *prog.Program, mach, model *verdict.Result) (diffs []string, agreed string) {
	d := verdict.CompareOutcomes(mach, model)
	for _, o := range d.OnlyMachine {
		diffs = append(diffs, "only machine: "+report.Outcome(p, mach.Locs, o))
	}
	for _, o := range d.OnlyModel {
		diffs = append(diffs, "only model: "+report.Outcome(p, mach.Locs, o))
	}
	agreed = report.Plural(len(model.Outcomes), "outcome")
	if p.Query.Kind == prog.QReach {
		if mach.Allowed != model.Allowed {
			diffs = append(diffs, fmt.Sprintf("reach: machine %s, model %s", allowedWord(mach.Allowed), allowedWord(model.Allowed)))
		}
		agreed += ", reach " + allowedWord(model.Allowed)
	}
	if !verdict.HasErrorPoints(p) {
		return diffs, agreed
	}
	if mach.Symmetry != "" {
		return diffs, agreed + ", error points not compared (symmetry reduction)"
	}
	onlyMach, onlyModel := verdict.CompareErrors(mach, model)
	for _, e := range onlyMach {
		diffs = append(diffs, "error point only machine: "+e)
	}
	for _, e := range onlyModel {
		diffs = append(diffs, "error point only model: "+e)
	}
	return diffs, agreed + ", " + report.Plural(len(model.Errors), "error point")
}

func allowedWord(b bool) string {
	if b {
		return "allowed"
	}
	return "forbidden"
}
