// Package robust answers whether a program is robust: whether every
// behaviour (trace) of the program on the RDMA machine is also a
// behaviour under sequential consistency. It is the one entry point to
// every way rdmasim has of deciding it, and Result is the one answer they
// give:
//
//   - Decider: the decider of package decide, the paper's instrumented SC
//     machine; complete on every program, loops and polls included. A
//     violation comes as τ = τ1 τ2, checked against the declarative model
//     and replayed on the RDMA machine.
//   - EnumMachine: enumeration on the RDMA machine (verdict.RobustMachine),
//     which explores every run with its event graph and stops at the first
//     graph with an sc cycle.
//   - EnumAxiom: enumeration of the declarative model's traces
//     (verdict.RobustModel); a program beyond the model's 64 events gets
//     the answer unknown, with Result.Limit.
//   - Auto: the fastest complete way, as far as it can tell. Both the
//     decider and enumeration on the machine are complete on a loop-free
//     program (enumeration unless a machine bound, max-inflight, cuts it).
//     Enumeration is often the faster on small programs, the decider on
//     large ones, robust or not (BENCHMARKS.md, "Time to verdict"). Auto
//     therefore lets enumeration run first, with every worker, for at most
//     EnumBudget configurations, and hands the program to the decider when
//     that gave no certain answer (see staged). With loops, enumeration
//     bounds the iterations of each loop, so that its "robust" holds only
//     within that bound; only the decider is complete, and it runs alone.
//     It also runs alone when the searches are checkpointed (a checkpoint
//     directory numbers its searches in the order they are opened) and
//     when the program has a symmetry group, which reduces the decider's
//     search and not enumeration's, or a queue pair with more operations
//     than max-inflight lets be in flight (enumeration could be cut by it). The decider refuses remote atomics:
//     enumeration then answers, and when it is not certain the decider's
//     experimental instrumentation of atomics hunts for a violation with
//     a checked witness (autoAtomics).
//
// DecideAll runs several methods on one program and says whether their
// certain answers agree. WriteText and Result.JSON render an answer as the
// robust command prints it.
package robust

import (
	"context"
	"fmt"

	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/dot"
	"rdmasim/opsem/draw"
	"rdmasim/opsem/expect"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// Method is a way of deciding robustness.
type Method string

// Methods.
const (
	Auto        Method = "auto"         // EnumMachine within EnumBudget then Decider on a loop-free program, else one of them alone
	Decider     Method = "decide"       // package decide's decider
	EnumMachine Method = "enum-machine" // enumeration on the RDMA machine
	EnumAxiom   Method = "enum-axiom"   // enumeration of the declarative model's traces
)

// Methods returns the methods a name stands for: a method's own name, both
// (the two enumerations) or all (the decider and both enumerations); ok is
// false for any other name.
func Methods(name string) (methods []Method, ok bool) {
	switch m := Method(name); m {
	case Auto, Decider, EnumMachine, EnumAxiom:
		return []Method{m}, true
	case "both":
		return []Method{EnumMachine, EnumAxiom}, true
	case "all":
		return []Method{Decider, EnumMachine, EnumAxiom}, true
	}
	return nil, false
}

// Options configure Decide and DecideAll.
type Options struct {
	// Method is how to decide; empty means Auto. DecideAll ignores it.
	Method Method
	// Verdict are the machine's bounds and the search settings; the
	// decider searches with the same settings. Auto runs its two methods
	// in turn, each with every worker (the first within EnumBudget
	// configurations, the second with the Timeout that is left). The
	// enumerations bound loops (verdict.LoopBound).
	Verdict verdict.Options
	// MaxBytes bounds the memory of the decider's Karp–Miller search (see
	// decide.Options); zero means no bound.
	MaxBytes uint64
	// Deadlocks also searches p's SC machine for deadlocks (see
	// Result.Deadlock).
	Deadlocks bool
	// AtomicsExperimental lets the decider answer on programs with remote
	// atomics (decide.Options.AllowAtomics) instead of refusing them:
	// EXPERIMENTAL, its normal form is not proved for atomics
	// (SEMANTICS-ATOMICS.md section 5). With it, method Auto treats a
	// loop-free program with atomics as any loop-free program
	// (enumeration within its budget, then the decider); programs with
	// atomics and loops are still answered by enumeration alone.
	AtomicsExperimental bool
	// Started and Answered, when not nil, are called by DecideAll before
	// method i of its methods runs and after it answered (r) or failed
	// (err), from the goroutine that runs it: a caller can say which
	// method is running and show each answer as soon as it is found, so
	// that stopping a later method loses none of the earlier answers (the
	// playground's robust --method all does).
	Started  func(i int, m Method)
	Answered func(i int, r *Result, err error)
}

// Result is an answer on robustness, whichever method gave it.
type Result struct {
	// Program is the program the answer is about.
	Program *prog.Program
	// Method is the method that answered: with Auto, Decider or
	// EnumMachine.
	Method Method
	Robust bool
	// Complete: the search covered every reachable state, so that
	// "robust" is certain. A violation is always certain.
	Complete bool
	// Bound names what cut an incomplete search ("max-states=5",
	// "unroll=2", "model limit: 70 events > 64").
	Bound string
	// Search is the search's statistics and how it stopped; Search.States
	// counts what Unit names.
	Search explore.Result
	// KarpMiller (Decider): the decider's search was the Karp–Miller
	// construction, as a poll lies on a loop; it ran in memory on one core
	// and was not checkpointed.
	KarpMiller bool
	// Limit (EnumAxiom): the limit of the model that kept it from
	// answering at all; Bound then says it too.
	Limit *axiom.LimitError
	// Stopped (Auto) lists the method that ran before or after this one
	// and whose answer was not taken, with what cut it; empty when the
	// method ran alone or answered first.
	Stopped []Stopped
	// Symmetry (Decider) describes the group the decider's search reduced
	// by: "4 instances of client (24 permutations)"; empty without.
	Symmetry string
	// Blocks (Decider), when the decider searched once per block of
	// threads that can share an SC cycle, lists them (decide.Result.Blocks).
	Blocks string
	// Asymmetric lists the families of two or more threads that are no
	// group of symmetries, each with why (prog.FindSymmetry): "client:
	// ...", when symmetry reduction was on and the search reduced by none.
	Asymmetric []string
	// Alone (Auto) says why one method ran alone (AloneLoops,
	// AloneCheckpoint, AloneSymmetry, AloneInflight: the decider;
	// AloneAtomics, AloneVerbs: enum-machine); empty when they ran in turn.
	Alone string
	// AtomicsExperimental: the decider answered on a program with remote
	// atomics with its experimental instrumentation of them
	// (Options.AtomicsExperimental); the headline says so.
	AtomicsExperimental bool
	// Hunt (Auto, EnumMachine on remote atomics) is what the decider's
	// experimental instrumentation of atomics said after enumeration gave
	// no certain answer, when it found no violation (see autoAtomics); nil
	// when it did not run.
	Hunt *Hunt

	// The violation, when not robust. Cycle is an sc cycle of it, each
	// event with the relation to the next.
	Cycle []report.CycleEvent
	// Tau1 and Tau2 (Decider) are the events of τ1 and τ2, in order, each
	// with its thread ("T0:nlR(x,2,B)").
	Tau1, Tau2 []string
	// Run is the run to the violation on the RDMA machine: the shortest
	// (EnumMachine), or the decider's trace replayed (Decider).
	Run *verdict.Run
	// Trace is the violating trace of the declarative model (EnumAxiom,
	// Decider).
	Trace *axiom.Trace
	// WitnessCut (Decider) names the bound that cut the search for a
	// concrete run behind a violation the Karp–Miller search found with
	// pumped counters: the violation is certain, its witness missing.
	WitnessCut string
	// Graph is the event graph of Run with its sc cycle, and Full
	// (EnumMachine) the violating execution run on to a final
	// configuration, when one is reachable.
	Graph, Full *machine.Graph

	// Expect is p's expect robust line checked against this answer; nil
	// when p has none.
	Expect *expect.Expectation
	// Deadlock (Options.Deadlocks) is the search of p's SC machine when it
	// found a deadlock, else nil: see deadlocks.
	Deadlock *verdict.Result
	// Unchecked names the ranges of locations that NIC writes may leave
	// (prog.Range), which check stops runs at and robustness does not:
	// every method answers on the program without them
	// (prog.WithoutRangeChecks). Empty when there is none.
	Unchecked string
}

// Stopped is a method that method Auto ran besides the one that answered
// and whose answer was not taken.
type Stopped struct {
	Method Method `json:"method"`
	// Bound is what cut its search: "auto's budget of 500,000
	// configurations", or a bound of the machine or of the settings.
	Bound string `json:"bound,omitempty"`
}

// Certain reports whether Robust is certain: a violation was found, or the
// search was complete.
func (r *Result) Certain() bool { return !r.Robust || r.Complete }

// Coverage classifies the search behind r: complete (a violation, or a
// complete search), within bounds (every configuration within the
// machine's bounds was explored: "robust within bounds"), or unknown.
func (r *Result) Coverage() verdict.Coverage {
	switch {
	case r.Certain():
		return verdict.Complete
	case r.Limit != nil:
		return verdict.Unknown
	case r.Search.Stop == explore.Complete || r.Search.Stop == explore.Stopped:
		return verdict.WithinBounds
	}
	return verdict.Unknown
}

// Unit names what Search.States counts: the decider's states of its
// instrumented machine, enum-axiom's candidate traces, enum-machine's
// configurations of the RDMA machine.
func (r *Result) Unit() string { return r.Method.unit() }

func (m Method) unit() string {
	switch m {
	case Decider:
		return "state"
	case EnumAxiom:
		return "candidate trace"
	}
	return "configuration"
}

// Dot draws the violation: the model's trace with its sc cycle when there
// is one, else the machine's execution (run on to its end when it could
// be); nil when robust.
func (r *Result) Dot() *dot.Graph {
	p := r.Program
	switch {
	case r.Robust:
		return nil
	case r.Trace != nil:
		return draw.Trace(p, r.Trace, r.Trace.SCCycle(), p.Name+": an RDMA-consistent trace with an sc cycle")
	case r.Full != nil:
		return draw.MachineRun(p, r.Full, r.Run, p.Name+": an RDMA execution with an sc cycle")
	}
	return draw.MachineRun(p, r.Graph, r.Run, p.Name+": an RDMA execution with an sc cycle")
}

// Decide answers whether p is robust by opt.Method. An answer that a bound
// cut is not an error (it is uncertain), nor is a program too large for the
// declarative model (EnumAxiom answers unknown, with Limit).
func Decide(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	p, unchecked := prog.WithoutRangeChecks(p)
	var dl *verdict.Result
	if opt.Deadlocks {
		dl = deadlocks(ctx, p, opt.Verdict)
	}
	r, err := byMethod(ctx, p, opt)
	if err != nil {
		return nil, err
	}
	r.Deadlock = dl
	r.Unchecked = unchecked
	if opt.Verdict.Settings.Symmetry && r.Symmetry == "" {
		_, r.Asymmetric = prog.FindSymmetry(p)
	}
	return r, nil
}

// byMethod answers by opt.Method, with the expect robust line checked.
func byMethod(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	var (
		r   *Result
		err error
	)
	switch opt.Method {
	case Decider:
		r, err = byDecider(ctx, p, opt)
	case EnumMachine:
		var m *verdict.RobustResult
		if m, err = verdict.RobustMachine(ctx, p, opt.Verdict); err == nil {
			r = enumerated(p, EnumMachine, m, nil)
		}
	case EnumAxiom:
		m, t, merr := verdict.RobustModel(ctx, p, opt.Verdict)
		if lr, ok := verdict.RobustLimited(merr); ok {
			m, merr = lr, nil
		}
		if err = merr; err == nil {
			r = enumerated(p, EnumAxiom, m, t)
		}
	default:
		return auto(ctx, p, opt)
	}
	if err != nil {
		return nil, err
	}
	r.Expect = expect.Robust(p, expect.Answer{Robust: r.Robust, Certain: r.Certain(), Limited: r.Limit != nil, Bound: r.Bound})
	return r, nil
}

// byDecider answers with the decider.
func byDecider(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	d, err := decide.Decide(ctx, p, decide.Options{MaxBytes: opt.MaxBytes, Settings: opt.Verdict.Settings, AllowAtomics: opt.AtomicsExperimental})
	if err != nil {
		return nil, err
	}
	r := &Result{Program: p, Method: Decider, Robust: d.Robust, Complete: d.Complete, Bound: d.Bound, KarpMiller: d.KarpMiller,
		Search: explore.Result{Stats: d.Search.Stats, Stop: d.Search.Stop, Workers: d.Workers}}
	r.AtomicsExperimental = opt.AtomicsExperimental && prog.HasAtomics(p)
	r.WitnessCut, r.Symmetry, r.Blocks = d.WitnessCut, d.Symmetry, d.Blocks
	w := d.Witness
	if w == nil {
		return r, nil
	}
	if rp := w.Replay; rp != nil {
		labels := make([]explore.Label, 0, len(rp.Path)-1)
		for _, st := range rp.Path[1:] {
			labels = append(labels, st.Label)
		}
		r.Run, r.Graph = verdict.Explain(rp.Machine, rp.Path[0].State, labels), rp.Graph
	}
	r.Trace, r.Cycle = w.Trace, traceCycle(p, w.Trace)
	for i, e := range w.Tau {
		if i < w.Split {
			r.Tau1 = append(r.Tau1, w.EventString(p, e))
		} else {
			r.Tau2 = append(r.Tau2, w.EventString(p, e))
		}
	}
	return r, nil
}

// enumerated is the Result of an enumeration: on the machine, or of the
// model's traces with t the violating trace.
func enumerated(p *prog.Program, method Method, m *verdict.RobustResult, t *axiom.Trace) *Result {
	r := &Result{Program: p, Method: method, Robust: m.Robust, Complete: m.Complete, Bound: m.Bound, Search: m.Search,
		Limit: m.Limit, Run: m.Witness, Graph: m.Graph, Full: m.Full, Trace: t}
	switch {
	case m.Robust:
	case t != nil:
		r.Cycle = traceCycle(p, t)
	case m.Graph != nil:
		r.Cycle = graphCycle(p, m.Graph)
	}
	return r
}

// graphCycle is the sc cycle of a machine's event graph.
func graphCycle(p *prog.Program, g *machine.Graph) []report.CycleEvent {
	var cyc []report.CycleEvent
	for k, i := range g.Cycle {
		e := g.Events[i]
		next := g.Cycle[(k+1)%len(g.Cycle)]
		cyc = append(cyc, report.CycleEvent{Thread: p.Threads[e.Thread].Name, Event: p.EventString(e.Event), Rel: g.EdgeKind(i, next)})
	}
	return cyc
}

// traceCycle is the sc cycle of a model trace.
func traceCycle(p *prog.Program, t *axiom.Trace) []report.CycleEvent {
	cyc := t.SCCycle()
	rel := t.Relations()
	var out []report.CycleEvent
	for k, a := range cyc {
		ev := t.Events[a]
		who := "init"
		if ev.Thread >= 0 {
			who = p.Threads[ev.Thread].Name
		}
		ce := report.CycleEvent{Thread: who, Event: p.EventString(ev.Event), Rel: rel.EdgeKind(a, cyc[(k+1)%len(cyc)])}
		if ev.Thread >= 0 && ev.PC >= 0 {
			if s := p.Threads[ev.Thread].Code[ev.PC].Stmt; s != nil && s.Src != nil {
				ce.Source = fmt.Sprintf("line %d: %s", s.Pos.Line, p.SourceString(s))
				if s.Src.Regs != "" {
					ce.Source += " [" + s.Src.Regs + "]"
				}
			}
		}
		out = append(out, ce)
	}
	return out
}

// deadlocks explores p's SC machine for deadlocks (a thread waiting at a
// poll with nothing left to complete): robustness is about every run,
// including those that stop there, so a robust program may still deadlock,
// which a user should hear. The SC machine is enough: its runs are RDMA
// runs, and when the program is robust every RDMA run's trace is an SC
// trace, whose SC run ends in the same control points, memory and unpolled
// operations, so the RDMA machine deadlocks exactly where the SC machine
// does. (A program that is not robust may deadlock under RDMA only.) The
// search is never checkpointed and keeps its visited set in memory (or on
// the cluster's workers, with Settings.Remote), whatever the settings; nil
// when it fails or finds no deadlock.
func deadlocks(ctx context.Context, p *prog.Program, opt verdict.Options) *verdict.Result {
	opt.Witness, opt.Unchecked = false, true
	opt.Checkpoint, opt.NewSet, opt.SpillDir, opt.FrontierBudget = nil, nil, "", 0
	r, err := verdict.Compute(ctx, p, machine.SC, opt)
	if err != nil || r.Deadlocks == 0 {
		return nil
	}
	return r
}

// All is the answer of several methods on one program.
type All struct {
	Program *prog.Program
	// Methods are the methods run, in order; Results and Errs hold each
	// one's answer, or its error (then its Result is nil).
	Methods []Method
	Results []*Result
	Errs    []error
	// Disagreements pairs the first certain answer with every later
	// certain answer that differs from it.
	Disagreements [][2]*Result
	// Expect is p's expect robust line checked against the methods'
	// answer (Answer): it fails when they disagree; nil when p has no
	// such line or no method answered.
	Expect *expect.Expectation
}

// DecideAll runs each of methods on p in turn (opt.Method is ignored) and
// compares their certain answers. A method's error does not stop the
// others: it is in Errs. With opt.Deadlocks, p's SC machine is searched
// once, and every answer has its Deadlock.
func DecideAll(ctx context.Context, p *prog.Program, methods []Method, opt Options) *All {
	p, unchecked := prog.WithoutRangeChecks(p)
	a := &All{Program: p, Methods: methods, Results: make([]*Result, len(methods)), Errs: make([]error, len(methods))}
	var dl *verdict.Result
	if opt.Deadlocks {
		dl = deadlocks(ctx, p, opt.Verdict)
	}
	for i, m := range methods {
		o := opt
		o.Method = m
		if opt.Started != nil {
			opt.Started(i, m)
		}
		r, err := byMethod(ctx, p, o)
		if err != nil {
			a.Errs[i] = err
		} else {
			r.Deadlock, r.Unchecked = dl, unchecked
			a.Results[i] = r
		}
		if opt.Answered != nil {
			opt.Answered(i, r, err)
		}
	}
	a.compare()
	return a
}

// compare fills in Disagreements and Expect from the answers.
func (a *All) compare() {
	var first *Result // the first certain answer
	for _, r := range a.Results {
		switch {
		case r == nil || !r.Certain():
		case first == nil:
			first = r
		case r.Robust != first.Robust:
			a.Disagreements = append(a.Disagreements, [2]*Result{first, r})
		}
	}
	if best := a.best(); best != nil && best.Expect != nil {
		x := *best.Expect
		if !a.Agree() {
			x.Status, x.Why = expect.Fail, "the methods disagree"
		}
		a.Expect = &x
	}
}

// Agree reports whether no two certain answers differ.
func (a *All) Agree() bool { return len(a.Disagreements) == 0 }

// Answer returns the methods' answer and whether it is certain: the first
// certain answer when they agree; uncertain when none is certain or they
// disagree.
func (a *All) Answer() (robust, certain bool) {
	best := a.best()
	if best == nil || !best.Certain() || !a.Agree() {
		return false, false
	}
	return best.Robust, true
}

// best is the first certain answer, else the first answer; nil when no
// method answered.
func (a *All) best() *Result {
	var first *Result
	for _, r := range a.Results {
		switch {
		case r == nil:
		case r.Certain():
			return r
		case first == nil:
			first = r
		}
	}
	return first
}
