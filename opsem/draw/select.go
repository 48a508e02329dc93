package draw

import (
	"context"
	"fmt"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/dot"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// Show says which executions of a program Executions draws.
type Show int

// The selections of Executions.
const (
	// ShowCond draws the consistent executions whose final memory
	// satisfies the query's condition; for a forall query, those that
	// violate it (its counterexamples). Reach conditions look at
	// configurations in the middle of runs, which executions do not
	// describe: with a reach query ShowCond is an error.
	ShowCond Show = iota
	// ShowAll draws every consistent execution, condition or not.
	ShowAll
	// ShowViolation draws the RDMA-consistent executions that are not
	// SC-consistent (sc = po ∪ rf ∪ rb ∪ mo has a cycle): the behaviours
	// that make a program not robust. Like every selection it looks at
	// complete executions only; robustness also counts partial ones
	// (axiom.Robust), so a program can be non-robust with nothing to show
	// here.
	ShowViolation
)

var showNames = [...]string{ShowCond: "cond", ShowAll: "all", ShowViolation: "violation"}

// String returns cond, all or violation, as --show spells them.
func (s Show) String() string {
	if s < 0 || int(s) >= len(showNames) {
		return fmt.Sprintf("Show(%d)", int(s))
	}
	return showNames[s]
}

// ParseShow reads a selection as --show spells it.
func ParseShow(s string) (Show, error) {
	for i, name := range showNames {
		if s == name {
			return Show(i), nil
		}
	}
	return 0, fmt.Errorf("--show %q: want cond, all or violation", s)
}

// Options say which executions Executions draws.
type Options struct {
	Show Show
	// Semantics is the consistency an execution needs: RDMA (ib and ob
	// acyclic) or SC (sc acyclic). ShowViolation needs RDMA.
	Semantics machine.Semantics
	// Unroll is the number of iterations of each loop per entry (see
	// axiom.Options.Unroll).
	Unroll int
	// Every draws every selected execution; otherwise the first only.
	Every bool
}

// Result is what Executions drew.
type Result struct {
	// Graphs holds one drawing per selected execution, in the order the
	// model enumerates them, each distinct (two traces with the same
	// events and relations are one execution).
	Graphs []*dot.Graph
	// Bounded reports that Options.Unroll cut a loop: executions that
	// iterate more were not looked at.
	Bounded bool
}

// Executions enumerates the complete executions (traces) of p in the
// declarative model (package axiom), keeps those opt selects and draws
// them, the edges of an sc cycle bold and with a legend. Only the first is
// drawn unless opt.Every. An error means the selection makes no sense for
// p (a reach condition under ShowCond, ShowViolation under SC) or the
// model cannot enumerate p (too many events).
func Executions(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	if opt.Show == ShowCond && p.Query.Kind == prog.QReach {
		return nil, fmt.Errorf("%s: reach conditions are machine-only: they look at configurations in the middle of runs, "+
			"which the declarative model's executions do not describe (rdmasim check -w answers them, with a witness run); "+
			"use --show all to draw executions without the condition, or --show violation for those with an sc cycle", p.Name)
	}
	if opt.Show == ShowViolation && opt.Semantics != machine.RDMA {
		return nil, fmt.Errorf("--show violation draws RDMA-consistent executions with an sc cycle: no SC-consistent execution has one (use --semantics rdma)")
	}
	want := opt.selects(p)
	res := &Result{}
	seen := map[string]bool{}
	st, err := axiom.Enumerate(ctx, p, axiom.Options{Unroll: opt.Unroll}, false, func(t *axiom.Trace, rdma, sc bool) bool {
		consistent := rdma
		if opt.Semantics == machine.SC {
			consistent = sc
		}
		if !consistent || !t.Complete || !want(t, sc) {
			return true
		}
		key := t.Format(p)
		if seen[key] {
			return true
		}
		seen[key] = true
		n := len(res.Graphs) + 1
		title := fmt.Sprintf("%s: %s execution %d", p.Name, opt.Semantics, n)
		if opt.Show == ShowViolation {
			title = fmt.Sprintf("%s: rdma execution %d with an sc cycle", p.Name, n)
		}
		d := Trace(p, t, t.SCCycle(), title)
		d.Legend = true
		res.Graphs = append(res.Graphs, d)
		return opt.Every
	})
	if err != nil {
		return nil, fmt.Errorf("enumerating the executions of %s: %w", p.Name, err)
	}
	res.Bounded = st.Bounded
	return res, nil
}

// selects returns the test, beyond consistency, an execution must pass to
// be drawn: t is a complete trace, sc whether it is SC-consistent.
func (opt Options) selects(p *prog.Program) func(t *axiom.Trace, sc bool) bool {
	switch {
	case opt.Show == ShowViolation:
		return func(_ *axiom.Trace, sc bool) bool { return !sc }
	case opt.Show == ShowAll || p.Query.Cond == nil:
		return func(*axiom.Trace, bool) bool { return true }
	}
	cond := p.Query.Cond
	return func(t *axiom.Trace, _ bool) bool {
		sat := cond.Eval(p, verdict.FinalConfig{P: p, Memory: t.Memory(len(p.Locs))})
		if p.Query.Kind == prog.QForall {
			return !sat // counterexamples are what a forall user wants to see
		}
		return sat
	}
}

// Nothing says that p has no execution opt selects, as a sentence for an
// error message: "no rdma-consistent execution of LW-PUT satisfies exists
// z = 0".
func (opt Options) Nothing(p *prog.Program) string {
	what := fmt.Sprintf("no %s-consistent execution of %s", opt.Semantics, p.Name)
	switch {
	case opt.Show == ShowViolation:
		return what + " has an sc cycle (rdmasim robust also looks at partial executions)"
	case opt.Show == ShowAll || p.Query.Cond == nil:
		return what
	case p.Query.Kind == prog.QForall:
		return fmt.Sprintf("%s violates %s %s", what, p.Query.Kind, p.CondString(p.Query.Cond))
	}
	return fmt.Sprintf("%s satisfies %s %s", what, p.Query.Kind, p.CondString(p.Query.Cond))
}
