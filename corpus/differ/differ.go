// Package differ compares the semantics of rdmasim on one program and
// reports every disagreement between them:
//
//   - outcomes: the final outcomes of the RDMA and SC machines (package
//     opsem/machine) equal those of the declarative model's RDMA- and
//     SC-consistent traces (package opsem/axiom), every location shown;
//   - inside runs: the error points the machines reach (failed assertions,
//     values out of their range) are those of the model's consistent trace
//     prefixes, by statement, and reach queries — the program's own, or
//     ones made of its condition — get the same answers (axiom.Reach,
//     SEMANTICS-REACH.md); the machines are the reference;
//   - robustness by enumeration: exploring the RDMA machine with event
//     graphs and enumerating the model's traces give the same certain answer,
//     or, on programs with loops, the same answer for the loop bound they
//     share when nothing else cut either search;
//   - the decider (package opsem/decide) agrees with both enumerations: on
//     loop-free programs exactly; with loops (which the enumerations bound,
//     DefaultModelUnroll iterations per entry, and the decider does not)
//     whenever an enumeration finds a violation the decider must find one
//     too, and a complete robust answer of an enumeration must not meet a
//     decider violation. Every violation the decider reports comes with a
//     witness it has checked against the model and replayed on the machine;
//     Decide fails otherwise, and that failure is a disagreement too;
//   - SPIN (optional): the Promela model of each machine (package
//     opsem/promela) reaches the machine's outcomes, is cut by a bound
//     alike, and stores as many states as the machine explores.
//
// Options.MaxModelCost leaves the model out of programs where its search
// for reads-from could run away (many reads and writes of one location,
// ModelCost): its search notices a deadline only between event sets.
//
// Machines and model are compared with the same loop bound
// (verdict.LoopBound). A comparison whose search a bound cut (max-inflight
// on the machine side only, max-states, the decider's state limit) is not
// made, and the Report says why (Report.Skipped): a cut search answers
// nothing certain.
package differ

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"rdmasim/explore"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/promela"
	"rdmasim/opsem/repair"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// Kind is the kind of a disagreement: which semantics disagree, and on
// what.
type Kind string

// Kinds of disagreement.
const (
	// OutcomesRDMA: the RDMA machine and the model's RDMA-consistent traces
	// have different final outcomes.
	OutcomesRDMA Kind = "outcomes-rdma"
	// OutcomesSC: the SC machine and the model's SC-consistent traces have
	// different final outcomes.
	OutcomesSC Kind = "outcomes-sc"
	// OutcomesReduced: the RDMA machine under its partial-order reduction
	// (machine.Options.Reduce) and the full RDMA machine have different
	// final outcomes, or the reduced search was cut where the full one
	// was not.
	OutcomesReduced Kind = "outcomes-reduced"
	// RobustEnum: robustness by enumeration on the machine and of the
	// model's traces give different certain answers.
	RobustEnum Kind = "robust-enum"
	// RobustDecide: the decider contradicts an enumeration, or, on a
	// finite instrumented machine, its search and the Karp–Miller search
	// give different certain answers.
	RobustDecide Kind = "robust-decide"
	// RobustSymmetry: on a program with a verified group of symmetries
	// (prog.FindSymmetry), the decider's search reduced by it
	// (explore.Settings.Symmetry) and the plain search give different
	// certain answers, or the reduced one fails (its witness, rebuilt as
	// a real run, does not check or replay).
	RobustSymmetry Kind = "robust-symmetry"
	// OutcomesSymmetry: on a program with a verified group of
	// symmetries, check's searches reduced by it (one configuration per
	// orbit, outcomes closed under the group) and the plain ones give
	// different outcomes, bounds or ends (final, filtered, deadlocked or
	// not), on the RDMA machine (with and without its partial-order
	// reduction) or the SC machine, or a reduced search fails (a witness
	// rebuilt as a real run is not one).
	OutcomesSymmetry Kind = "outcomes-symmetry"
	// DeciderError: the decider failed, e.g. its witness is not a
	// violation of the model or does not replay on the machine ("decider
	// bug").
	DeciderError Kind = "decider-error"
	// Deadlocks: the program is robust, yet its RDMA machine deadlocks
	// and its SC machine does not, or the other way round. A robust
	// program's RDMA runs are SC runs of the same traces, which stop at
	// the same statements with the same memory, so both deadlock or
	// neither; rdmasim robust reports the SC machine's deadlocks on that
	// ground.
	Deadlocks Kind = "deadlocks"
	// SpinRDMA and SpinSC: SPIN's search of the exported Promela model
	// differs from the machine's exploration.
	// ErrorsRDMA, ErrorsSC: the machine and the model's consistent trace
	// prefixes reach different error points (failed assertions, values
	// out of their range), by statement (verdict.Result.Errors).
	ErrorsRDMA Kind = "errors-rdma"
	ErrorsSC   Kind = "errors-sc"
	// ReachRDMA, ReachSC: the machine and the model's consistent trace
	// prefixes answer a reach query differently: the program's own (an
	// assertion is one), or one made of its condition (Report.reach).
	ReachRDMA Kind = "reach-rdma"
	ReachSC   Kind = "reach-sc"
	SpinRDMA  Kind = "spin-rdma"
	SpinSC    Kind = "spin-sc"
	// Repair: on a program the decider finds not robust, rdmasim repair's
	// answer does not stand a second method (Report.repair): the repaired
	// text is not robust by enumeration on the RDMA machine, deadlocks, or
	// stays robust without one of its insertions; or repair fails.
	Repair Kind = "repair"
)

// Kinds lists every kind, in the order comparisons are made.
var Kinds = []Kind{OutcomesRDMA, OutcomesSC, ErrorsRDMA, ErrorsSC, ReachRDMA, ReachSC, OutcomesReduced, OutcomesSymmetry, RobustEnum, RobustDecide, RobustSymmetry, DeciderError, Deadlocks, SpinRDMA, SpinSC, Repair}

// Checks selects the comparisons Check makes.
type Checks uint8

// Comparisons.
const (
	// CheckOutcomes: machine and model outcomes, under RDMA and SC, and
	// the reduced RDMA machine's against the full one's.
	CheckOutcomes Checks = 1 << iota
	// CheckRobust: robustness by the two enumerations.
	CheckRobust
	// CheckDecide: the decider, against the enumerations when CheckRobust
	// is on too.
	CheckDecide
	// CheckSpin: SPIN on the Promela models of both machines.
	CheckSpin
	// CheckRepair: rdmasim repair on a program the decider finds not
	// robust, its answer checked by enumeration (with CheckDecide).
	CheckRepair
	// CheckAll is every comparison but SPIN, which needs spin and a C
	// compiler and takes about a second per program.
	CheckAll = CheckOutcomes | CheckRobust | CheckDecide
)

// For returns the comparisons that can show a disagreement of kind k.
func For(k Kind) Checks {
	switch k {
	case OutcomesRDMA, OutcomesSC, OutcomesReduced, OutcomesSymmetry, ErrorsRDMA, ErrorsSC, ReachRDMA, ReachSC:
		return CheckOutcomes
	case RobustEnum:
		return CheckRobust
	case RobustDecide:
		return CheckRobust | CheckDecide
	case DeciderError, RobustSymmetry:
		return CheckDecide
	case Deadlocks:
		return CheckOutcomes | CheckRobust | CheckDecide
	case Repair:
		return CheckDecide | CheckRepair
	}
	return CheckSpin
}

// Options configure Check. The zero value makes every comparison but SPIN,
// with the machine's default max-inflight, loops bounded by
// verdict.DefaultModelUnroll and no state limit.
type Options struct {
	// Checks selects the comparisons; zero means CheckAll.
	Checks Checks
	// Unroll bounds every loop on every side (verdict.LoopBound: 0 means
	// verdict.DefaultModelUnroll for programs with loops).
	Unroll int
	// MaxInflight is the machines' bound (machine.Options); 0 means the
	// default.
	MaxInflight int
	// Placement is the order in which the words of a multi-word put or
	// get are placed (machine.Options.Placement), for the machines and
	// the model alike; the zero value is the default, any.
	Placement machine.Placement
	// MaxStates bounds each machine search and the decider's search; 0
	// means no bound. A search it cuts is not compared.
	MaxStates uint64
	// Spin configures the SPIN runs of CheckSpin; zero values take small,
	// fast settings (-O0, a 2^18-slot hash table).
	Spin promela.RunOptions
	// MaxModelCost, when positive, leaves the declarative model out (and
	// so the outcome comparisons and the model's enumeration) on programs
	// whose ModelCost exceeds it. The model's search checks for
	// cancellation only between event sets, so on such programs a deadline
	// may not stop it. 0: no limit.
	MaxModelCost float64
	// DeciderAtomics compares the decider on programs with remote atomics
	// too, with its experimental instrumentation of them
	// (robust.Options.AtomicsExperimental); without it the decider is
	// skipped on them.
	DeciderAtomics bool
	// DeciderMaxStates, when positive, bounds the decider's searches
	// (its own and its Karp–Miller one) instead of MaxStates, which then
	// bounds the machines only: make agree bounds the experimental
	// decider on remote atomics, whose instrumented machine grows much
	// faster than the machines (SEMANTICS-ATOMICS.md, 5.4), without
	// bounding the machine searches it compares. A cut search is not
	// compared.
	DeciderMaxStates uint64
}

// deciderMaxStates is the bound of the decider's searches.
func (o Options) deciderMaxStates() uint64 {
	if o.DeciderMaxStates > 0 {
		return o.DeciderMaxStates
	}
	return o.MaxStates
}

// Problem is one disagreement.
type Problem struct {
	Kind   Kind
	Detail string // what differed, in one line
}

// String returns the detail.
func (p Problem) String() string { return p.Detail }

// Skip says that a comparison was not made, and why.
type Skip struct {
	What string // "outcomes-rdma", "robust-enum", "decider", "spin-sc"...
	Why  string // the bound that cut a search
}

// Report is what Check found.
type Report struct {
	// Program is the program compared: the input with a query that shows
	// every location (exists true).
	Program *prog.Program
	// Unroll is the loop bound used on every side.
	Unroll int
	// Machine and Model are the RDMA and SC results (nil when not
	// computed).
	Machine, Model [2]*verdict.Result
	// Reduced is the RDMA machine's result under its partial-order
	// reduction (nil when not computed).
	Reduced *verdict.Result
	// RobustMachine and RobustModel are robustness by enumeration; Decide
	// the decider's answer (nil when not computed or failed).
	RobustMachine, RobustModel, Decide *robust.Result
	// DecideErr is the decider's failure, if any.
	DecideErr error
	// Repaired is rdmasim repair's answer on a program the decider found
	// not robust (CheckRepair; nil when not run).
	Repaired *repair.Result
	// Symmetric: the program has a verified group of symmetries and the
	// decider's search reduced by it was compared with the plain one
	// (RobustSymmetry), unless Skipped says it was cut.
	Symmetric bool
	// OutcomesSymmetric: the program has a verified group of symmetries
	// and check's searches reduced by it were compared with the plain
	// ones (OutcomesSymmetry), unless Skipped says they were cut.
	OutcomesSymmetric bool
	// ReachQuery: a reach query (the program's own, or made of its
	// condition) was answered by the model and compared (ReachRDMA,
	// ReachSC), unless Skipped says a machine search was cut.
	ReachQuery bool
	// Reach are the reach queries compared, with both sides' answers.
	Reach []ReachAnswer
	// Spin are SPIN's results under RDMA and SC (nil when not run).
	Spin [2]*promela.Result
	// Problems are the disagreements found; Skipped the comparisons not
	// made.
	Problems []Problem
	Skipped  []Skip

	noModel string // why the model is left out (Options.MaxModelCost), or ""
}

// ReachAnswer is a reach query compared by Check: the program with it, and
// the machines' and the model's answers under RDMA and SC (a machine's nil
// when its search was cut).
type ReachAnswer struct {
	Program        *prog.Program
	Machine, Model [2]*verdict.Result
}

// Has reports whether r has a problem of kind k.
func (r *Report) Has(k Kind) bool {
	return slices.ContainsFunc(r.Problems, func(p Problem) bool { return p.Kind == k })
}

// Kinds returns the kinds of r's problems, each once, in the order of Kinds.
func (r *Report) Kinds() []Kind {
	var out []Kind
	for _, k := range Kinds {
		if r.Has(k) {
			out = append(out, k)
		}
	}
	return out
}

// WasSkipped reports whether the comparison called what was not made.
func (r *Report) WasSkipped(what string) bool {
	return slices.ContainsFunc(r.Skipped, func(s Skip) bool { return s.What == what })
}

// Robust returns the reference answer on robustness and whether there is
// one: the model's enumeration when certain, else the decider's when
// certain, else the machine enumeration's when certain. The declarative
// model is the paper's definition, so it is the reference wherever it is
// complete.
func (r *Report) Robust() (robust, ok bool) {
	switch {
	case r.RobustModel != nil && r.RobustModel.Certain():
		return r.RobustModel.Robust, true
	case r.Decide != nil && r.Decide.Certain():
		return r.Decide.Robust, true
	case r.RobustMachine != nil && r.RobustMachine.Certain():
		return r.RobustMachine.Robust, true
	}
	return false, false
}

// ShowAll returns a copy of p whose query is `exists true`: outcomes then
// cover every location, and no location is left untracked.
func ShowAll(p *prog.Program) *prog.Program {
	q := *p
	q.Query = prog.Query{Kind: prog.QExists, Cond: &prog.Cond{Op: prog.CTrue}}
	return &q
}

// Check compares the semantics selected by opt on p. Disagreements are in
// the report's Problems; an error means a semantics failed to answer (a
// cancelled or expired ctx among other causes: the caller tells them apart
// with ctx.Err()). The decider's failures are Problems of kind
// DeciderError, not errors.
func Check(ctx context.Context, p *prog.Program, opt Options) (*Report, error) {
	checks := opt.Checks
	if checks == 0 {
		checks = CheckAll
	}
	orig := p
	p = ShowAll(p)
	unroll := verdict.LoopBound(p, opt.Unroll)
	vopt := verdict.Options{Machine: machine.DefaultOptions(), Settings: explore.Settings{MaxStates: opt.MaxStates}}
	vopt.Machine.Unroll = unroll
	if opt.MaxInflight > 0 {
		vopt.Machine.MaxInflight = opt.MaxInflight
	}
	vopt.Machine.Placement = opt.Placement
	r := &Report{Program: p, Unroll: unroll}
	if c := ModelCost(p, unroll); opt.MaxModelCost > 0 && c > opt.MaxModelCost {
		// The reason names the bound, not the cost, so that a fuzz
		// summary counts these programs on one line.
		r.noModel = fmt.Sprintf("model cost over %.0f", opt.MaxModelCost)
	}
	if checks&(CheckOutcomes|CheckSpin) != 0 {
		res, errs := verdict.ComputeMachines(ctx, p, vopt)
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("differ: %w", err)
			}
		}
		r.Machine = res
	}
	if checks&CheckOutcomes != 0 {
		ropt := vopt
		ropt.Machine.Reduce = true
		res, err := verdict.Compute(ctx, p, machine.RDMA, ropt)
		if err != nil {
			return nil, fmt.Errorf("differ: %w", err)
		}
		r.Reduced = res
		if err := r.outcomes(ctx, vopt); err != nil {
			return nil, err
		}
		if err := r.reach(ctx, orig, vopt); err != nil {
			return nil, err
		}
		r.reduced()
		if err := r.symmetricOutcomes(ctx, vopt); err != nil {
			return nil, err
		}
	}
	if checks&CheckRobust != 0 {
		if err := r.robustEnum(ctx, vopt); err != nil {
			return nil, err
		}
	}
	if checks&CheckDecide != 0 {
		if err := r.decide(ctx, opt); err != nil {
			return nil, err
		}
	}
	if checks&CheckOutcomes != 0 && checks&(CheckRobust|CheckDecide) != 0 {
		r.deadlocks()
	}
	if checks&CheckRepair != 0 && checks&CheckDecide != 0 {
		if err := r.repair(ctx, vopt); err != nil {
			return nil, err
		}
	}
	if checks&CheckSpin != 0 {
		if err := r.spin(ctx, vopt, opt.Spin); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		// Searches stopped by ctx answer nothing certain: no comparison
		// of them stands.
		return nil, err
	}
	return r, nil
}

// deadlocks compares whether the RDMA and SC machines deadlock when neither
// search was cut: for every program, an SC deadlock is an RDMA one (the
// RDMA machine follows any SC run by draining its queue pairs at once), and
// for a robust program (see Deadlocks) the converse holds too.
func (r *Report) deadlocks() {
	rdma, sc := r.Machine[0], r.Machine[1]
	for _, m := range []*verdict.Result{rdma, sc} {
		if why := cut(m); why != "" {
			r.Skipped = append(r.Skipped, Skip{string(Deadlocks), m.Semantics.String() + " machine search cut by " + why})
			return
		}
	}
	if sc.Deadlocks > 0 && rdma.Deadlocks == 0 {
		r.Problems = append(r.Problems, Problem{Deadlocks, fmt.Sprintf("the sc machine deadlocks (%s), the rdma machine does not", sc.DeadlockAt)})
		return
	}
	if robust, ok := r.Robust(); !ok || !robust {
		return // a program that is not robust may deadlock under RDMA only
	}
	if (rdma.Deadlocks > 0) != (sc.Deadlocks > 0) {
		r.Problems = append(r.Problems, Problem{Deadlocks, fmt.Sprintf("robust, but deadlocked configurations: rdma %d (%s), sc %d (%s)",
			rdma.Deadlocks, rdma.DeadlockAt, sc.Deadlocks, sc.DeadlockAt)})
	}
}

// cut returns the bound that cut a machine search, or "" when the machine
// covered everything the model covers (the loop bound is shared).
func cut(m *verdict.Result) string {
	if m.Search.Pruned&machine.PrunedInflight != 0 || m.Search.Stop != 0 {
		return m.Bound
	}
	return ""
}

// reduced compares the reduced RDMA machine with the full one. Every state
// the reduced search reaches is one the full search reaches, so a full search
// that no bound cut must be matched by a reduced one that no bound cut, with
// the same outcomes.
func (r *Report) reduced() {
	full, red := r.Machine[0], r.Reduced
	if why := cut(full); why != "" {
		r.Skipped = append(r.Skipped, Skip{string(OutcomesReduced), "machine search cut by " + why})
		return
	}
	if why := cut(red); why != "" {
		r.Problems = append(r.Problems, Problem{OutcomesReduced, fmt.Sprintf("reduced RDMA machine cut by %s, full machine complete", why)})
		return
	}
	if d := verdict.CompareOutcomes(red, full); !d.Empty() {
		r.Problems = append(r.Problems, Problem{OutcomesReduced, fmt.Sprintf("rdma outcomes: only reduced machine %v, only full machine %v", d.OnlyMachine, d.OnlyModel)})
	}
	// The reduction expands a step alone only when it is enabled, so a
	// configuration with no step enabled is never passed over: both
	// searches see the same final and stuck configurations.
	if red.Finals != full.Finals || red.Filtered != full.Filtered || red.Deadlocks != full.Deadlocks {
		r.Problems = append(r.Problems, Problem{OutcomesReduced, fmt.Sprintf("rdma ends (final, filtered, deadlocked): reduced machine %d, %d, %d; full machine %d, %d, %d",
			red.Finals, red.Filtered, red.Deadlocks, full.Finals, full.Filtered, full.Deadlocks)})
	}
}

func (r *Report) outcomes(ctx context.Context, vopt verdict.Options) error {
	if r.noModel != "" {
		r.Skipped = append(r.Skipped, Skip{string(OutcomesRDMA), r.noModel}, Skip{string(OutcomesSC), r.noModel})
		return nil
	}
	ar, as, err := verdict.ComputeModel(ctx, r.Program, vopt)
	if why, ok := verdict.ModelRefused(err); ok {
		r.Skipped = append(r.Skipped, Skip{string(OutcomesRDMA), "model refuses: " + why}, Skip{string(OutcomesSC), "model refuses: " + why})
		return nil
	}
	if err != nil {
		return fmt.Errorf("differ: %w", err)
	}
	r.Model = [2]*verdict.Result{ar, as}
	for i, k := range []Kind{OutcomesRDMA, OutcomesSC} {
		m, a := r.Machine[i], r.Model[i]
		if why := cut(m); why != "" {
			r.Skipped = append(r.Skipped, Skip{string(k), "machine search cut by " + why})
			continue
		}
		if d := verdict.CompareOutcomes(m, a); !d.Empty() {
			r.Problems = append(r.Problems, Problem{k, fmt.Sprintf("%s outcomes: only machine %v, only model %v", m.Semantics, d.OnlyMachine, d.OnlyModel)})
		}
	}
	if !verdict.HasErrorPoints(r.Program) {
		return nil
	}
	for i, k := range []Kind{ErrorsRDMA, ErrorsSC} {
		m, a := r.Machine[i], r.Model[i]
		if why := cut(m); why != "" {
			r.Skipped = append(r.Skipped, Skip{string(k), "machine search cut by " + why})
			continue
		}
		if onlyM, onlyA := verdict.CompareErrors(m, a); len(onlyM)+len(onlyA) > 0 {
			r.Problems = append(r.Problems, Problem{k, fmt.Sprintf("%s error points: only machine %q, only model %q", m.Semantics, onlyM, onlyA)})
		}
	}
	return nil
}

// reach compares the answers of the machines and of the model to reach
// queries of p (the program as given, before ShowAll): its own when it has
// one (an assertion is one); otherwise, when its query has a condition on
// memory, reach queries made of it — the condition alone, and with the
// first thread at its end — so that generated programs, whose queries are
// about final outcomes, exercise the model's prefixes too (configurations
// with writes in flight, control points). The machines are the reference;
// a query the model refuses is skipped.
func (r *Report) reach(ctx context.Context, p *prog.Program, vopt verdict.Options) error {
	var queries []*prog.Program
	switch {
	case p.Query.Kind == prog.QReach:
		queries = append(queries, p)
	case p.Query.Cond != nil && p.Query.Kind != prog.QNone && len(p.Threads) > 0:
		for _, c := range []*prog.Cond{p.Query.Cond, {Op: prog.CAnd, L: &prog.Cond{Op: prog.CEnd, Thread: 0}, R: p.Query.Cond}} {
			q := *p
			q.Query = prog.Query{Kind: prog.QReach, Cond: c}
			queries = append(queries, &q)
		}
	default:
		return nil
	}
	if r.noModel != "" {
		r.Skipped = append(r.Skipped, Skip{string(ReachRDMA), r.noModel}, Skip{string(ReachSC), r.noModel})
		return nil
	}
	for _, q := range queries {
		ar, as, err := verdict.ComputeModel(ctx, q, vopt)
		if why, ok := verdict.ModelRefused(err); ok {
			r.Skipped = append(r.Skipped, Skip{string(ReachRDMA), "model refuses: " + why}, Skip{string(ReachSC), "model refuses: " + why})
			continue
		}
		if err != nil {
			return fmt.Errorf("differ: %w", err)
		}
		r.ReachQuery = true
		ans := ReachAnswer{Program: q, Model: [2]*verdict.Result{ar, as}}
		mach, errs := verdict.ComputeMachines(ctx, q, vopt)
		for i, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
			k := []Kind{ReachRDMA, ReachSC}[i]
			m, err := mach[i], errs[i]
			if err != nil {
				return fmt.Errorf("differ: %w", err)
			}
			if why := cut(m); why != "" {
				r.Skipped = append(r.Skipped, Skip{string(k), "machine search cut by " + why})
				continue
			}
			ans.Machine[i] = m
			if a := []*verdict.Result{ar, as}[i]; m.Allowed != a.Allowed {
				r.Problems = append(r.Problems, Problem{k, fmt.Sprintf("%s reach %s: machine %v, model %v", sem, q.CondString(q.Query.Cond), m.Allowed, a.Allowed)})
			}
		}
		r.Reach = append(r.Reach, ans)
	}
	return nil
}

func (r *Report) robustEnum(ctx context.Context, vopt verdict.Options) error {
	rm, err := robust.Decide(ctx, r.Program, robust.Options{Method: robust.EnumMachine, Verdict: vopt})
	if err != nil {
		return fmt.Errorf("differ: %w", err)
	}
	if r.noModel != "" {
		r.RobustMachine = rm
		r.Skipped = append(r.Skipped, Skip{string(RobustEnum), r.noModel})
		return nil
	}
	// A program beyond the model's size limit gets an uncertain answer,
	// not compared.
	ra, err := robust.Decide(ctx, r.Program, robust.Options{Method: robust.EnumAxiom, Verdict: vopt})
	if why, ok := verdict.ModelRefused(err); ok {
		r.RobustMachine = rm
		r.Skipped = append(r.Skipped, Skip{string(RobustEnum), "model refuses: " + why})
		return nil
	}
	if err != nil {
		return fmt.Errorf("differ: %w", err)
	}
	r.RobustMachine, r.RobustModel = rm, ra
	switch {
	case unrollOnly(rm, ra):
		// Both searched the same bounded program completely: their answers
		// within the bound must agree.
		if rm.Robust != ra.Robust {
			r.Problems = append(r.Problems, Problem{RobustEnum, fmt.Sprintf("robustness within %s: machine %v, model %v", machine.UnrollBound.At(r.Unroll), rm.Robust, ra.Robust)})
		}
	case !rm.Certain():
		r.Skipped = append(r.Skipped, Skip{string(RobustEnum), "machine enumeration cut by " + rm.Bound})
	case !ra.Certain():
		r.Skipped = append(r.Skipped, Skip{string(RobustEnum), "model enumeration cut by " + ra.Bound})
	case rm.Robust != ra.Robust:
		r.Problems = append(r.Problems, Problem{RobustEnum, fmt.Sprintf("robustness: machine %v, model %v", rm.Robust, ra.Robust)})
	}
	return nil
}

// unrollOnly reports whether the two enumerations, not both certain, are
// uncertain only because the loop bound they share cut them: each either
// found a violation or searched completely up to the loop bound (the
// machine enumeration pruned by the loop bound alone, not by max-inflight,
// which the model does not have, nor stopped by max-states). Their answers
// are then about the same bounded program.
func unrollOnly(rm, ra *robust.Result) bool {
	if rm.Certain() && ra.Certain() {
		return false
	}
	// A violation is one whatever cut the rest of the search.
	machineOK := rm.Certain() || rm.Search.Stop == explore.Complete && rm.Search.Pruned == machine.PrunedUnroll
	modelOK := ra.Certain() || ra.Search.Stop == explore.Complete && strings.HasPrefix(ra.Bound, machine.UnrollBound.Name+"=")
	return machineOK && modelOK
}

func (r *Report) decide(ctx context.Context, opt Options) error {
	if s := prog.FirstVerbs(r.Program); s != nil {
		// The decider refuses the verbs features it does not cover
		// (instr.FeatureError): the enumerations alone answer.
		r.Skipped = append(r.Skipped, Skip{"decider", "the decider refuses " + prog.VerbsFeature(s)})
		return nil
	}
	atomics := prog.HasAtomics(r.Program)
	if atomics && !opt.DeciderAtomics {
		// The decider refuses remote atomics (instr.AtomicsError): the
		// enumerations alone answer, and are compared with each other.
		r.Skipped = append(r.Skipped, Skip{"decider", "the decider refuses remote atomics"})
		return nil
	}
	rd, err := robust.Decide(ctx, r.Program, robust.Options{Method: robust.Decider, Verdict: verdict.Options{Settings: explore.Settings{MaxStates: opt.deciderMaxStates()}}, AtomicsExperimental: atomics})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.DecideErr = err
		r.Problems = append(r.Problems, Problem{DeciderError, fmt.Sprintf("decider: %v", err)})
		return nil
	}
	r.Decide = rd
	if !rd.Certain() {
		r.Skipped = append(r.Skipped, Skip{"decider", "decider cut by " + rd.Bound})
		return nil
	}
	if err := r.symmetric(ctx, opt, rd); err != nil {
		return err
	}
	if !rd.KarpMiller {
		// The instrumented machine is finite: the Karp–Miller search of it
		// must give explore's answer.
		// As robust.Decide, on the program without its range checks
		// (prog.WithoutRangeChecks), which the decider refuses.
		rp, _ := prog.WithoutRangeChecks(r.Program)
		km, err := decide.Decide(ctx, rp, decide.Options{KarpMiller: true, NoWitness: true, Settings: explore.Settings{MaxStates: opt.deciderMaxStates()}, AllowAtomics: atomics})
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			r.Problems = append(r.Problems, Problem{DeciderError, fmt.Sprintf("decider, Karp–Miller search: %v", err)})
		case km.Certain() && km.Robust != rd.Robust:
			r.Problems = append(r.Problems, Problem{RobustDecide, fmt.Sprintf("robustness: the decider's search says robust=%v, its Karp–Miller search robust=%v", rd.Robust, km.Robust)})
		}
	}
	for _, e := range []*robust.Result{r.RobustMachine, r.RobustModel} {
		switch {
		case e == nil:
		case !e.Robust && rd.Robust:
			r.Problems = append(r.Problems, Problem{RobustDecide, fmt.Sprintf("robustness: %s finds a violation, the decider says robust", e.Method)})
		case e.Robust && e.Complete && !rd.Robust:
			r.Problems = append(r.Problems, Problem{RobustDecide, fmt.Sprintf("robustness: %s says robust (complete), the decider finds a violation", e.Method)})
		}
	}
	return nil
}
