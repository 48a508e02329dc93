package play

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/draw"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/repair"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
	"rdmasim/store"
)

// runOutcome looks for a run of p under want.Semantics that ends in the
// final outcome want.Values, and for an execution of the declarative model
// that ends in it, to draw: check's witness and graph for a condition
// "exists (x=1 /\ y=0)" made of the outcome, put in place of p's query.
// That is how the page shows any row of check's outcomes, including when
// p's own condition is forbidden (check then has no witness to show).
func runOutcome(ctx context.Context, p *prog.Program, o Options, want *OutcomeRequest, progress func(Progress), resp *Response) error {
	if want == nil || len(want.Values) == 0 {
		return errors.New("outcome: no outcome named (want location values, such as {\"x\": 1})")
	}
	sem, err := semantics(want.Semantics)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(want.Values))
	for n := range want.Values {
		names = append(names, n)
	}
	sort.Strings(names)
	var cond *prog.Cond
	for _, n := range names {
		l := p.LocIndex(n)
		if l < 0 {
			return fmt.Errorf("outcome: %s has no location %q", p.Name, n)
		}
		eq := &prog.Cond{Op: prog.CEq, Loc: l, Val: want.Values[n]}
		if cond == nil {
			cond = eq
		} else {
			cond = &prog.Cond{Op: prog.CAnd, L: cond, R: eq}
		}
	}
	p.Query = prog.Query{Kind: prog.QExists, Cond: cond}
	outcome := p.CondString(cond)
	resp.Query = "exists " + outcome
	opt, err := searchOptions(o, progress)
	if err != nil {
		return err
	}
	opt.Witness = true
	r, err := verdict.Compute(ctx, p, sem, opt)
	if err != nil {
		return err
	}
	resp.explored = configurations(r.Search.States, sem.String())
	resp.Verdicts = []Verdict{{Name: "outcome under " + sem.String(), Value: allowedWord(&r.Allowed), Detail: string(r.Coverage())}}
	var text bytes.Buffer
	fmt.Fprintf(&text, "Outcome %s under %s: ", outcome, sem)
	if r.Witness == nil {
		fmt.Fprintf(&text, "not reached (%s)\n", r.Coverage())
		resp.Text = text.String()
		resp.GraphNote = "no run under " + sem.String() + " ends in this outcome: nothing to draw"
		return nil
	}
	fmt.Fprintf(&text, "reached\n")
	title := fmt.Sprintf("Run to %s (%s, %s)", outcome, sem, report.Plural(len(r.Witness.Steps), "step"))
	report.WriteRun(&text, title, sem, r.Witness)
	resp.Text = text.String()
	resp.Trace = newTrace(title, sem, r.Witness, p)
	resp.Graph, resp.GraphNote = executionGraph(ctx, p, sem, o)
	if resp.Graph != nil {
		// The drawing says which outcome it is of ("execution 1" of the
		// condition made of the outcome reads as the program's own).
		resp.Graph.Title = fmt.Sprintf("%s: an %s execution ending in %s", p.Name, sem, outcome)
	}
	return nil
}

// executionGraph draws the first execution of the declarative model under
// sem whose final memory satisfies p's condition (violates it for forall);
// else it says why there is no drawing.
func executionGraph(ctx context.Context, p *prog.Program, sem machine.Semantics, o Options) (*Graph, string) {
	d, err := draw.Executions(ctx, p, draw.Options{Show: draw.ShowCond, Semantics: sem, Unroll: verdict.LoopBound(p, o.Unroll)})
	switch {
	case errors.Is(err, axiom.ErrTooLarge):
		return nil, "the program is beyond the declarative model's limit of 64 events: no execution drawn"
	case err != nil:
		return nil, err.Error()
	case len(d.Graphs) == 0:
		return nil, "the declarative model has no execution that witnesses the condition within the loop bound"
	}
	return newGraph(d.Graphs[0]), ""
}

// RepairAnswer is a repair for the page: the insertions in the program's
// own terms (each with its line, the statement it follows and what it
// breaks), and the repaired text to put in the editor.
type RepairAnswer struct {
	Goal string `json:"goal"`
	// Found: a verified repair (Text); Already: nothing to insert, the
	// program is robust (or its query holds) as it is.
	Found      bool               `json:"found"`
	Already    bool               `json:"already,omitempty"`
	Insertions []repair.Insertion `json:"insertions"`
	Cost       int                `json:"cost"`
	Minimal    string             `json:"minimal,omitempty"`
	// Text is the repaired program, when a repair was found.
	Text string `json:"text,omitempty"`
	// Why no repair exists (a violation no insertion breaks), or Cut, the
	// bound that stopped the search.
	Why string `json:"why,omitempty"`
	Cut string `json:"cut,omitempty"`
	// Proof says how the repaired text was shown right: "robust by
	// decide, complete", or the claims check proved.
	Proof string `json:"proof,omitempty"`
}

// runRepair repairs src for o.Goal, as rdmasim repair does (its progress
// is that of each decision). A stopped repair is no error: it answers that
// no repair was verified.
func runRepair(ctx context.Context, src string, o Options, progress func(Progress), resp *Response) error {
	goal := o.Goal
	if goal == "" {
		goal = "robust"
	}
	g, err := repair.ParseGoal(goal)
	if err != nil {
		return fmt.Errorf("goal %q: want robust or query", o.Goal)
	}
	opt, err := searchOptions(o, progress)
	if err != nil {
		return err
	}
	costs, err := repair.ParseCosts("") // the CLI's default costs: a zero cost would make every set minimal
	if err != nil {
		return err
	}
	file := resp.File
	res, err := repair.Repair(ctx, []byte(src), repair.Options{
		Costs: costs,
		Parse: func(ctx context.Context, text []byte) (*prog.Program, error) {
			return parse.ParseContext(ctx, file, text, parse.Options{})
		},
		Goal:   g,
		Robust: robust.Options{Verdict: opt, MaxBytes: store.DefaultBudget()},
	})
	if err != nil {
		if ctx.Err() != nil {
			resp.Text = "repair: stopped before a repair was verified\n"
			resp.Verdicts = []Verdict{{Name: "repair", Value: "unknown", Detail: "stopped"}}
			return nil
		}
		return err
	}
	a := &RepairAnswer{Goal: g.String(), Found: res.Found(), Already: res.Already, Insertions: res.Insertions, Cost: res.Cost,
		Why: res.Why, Cut: res.Cut}
	if a.Insertions == nil {
		a.Insertions = []repair.Insertion{}
	}
	if a.Found {
		a.Text, a.Minimal = string(res.Text), res.Minimal
		switch {
		case res.Verified != nil:
			a.Proof = fmt.Sprintf("robust by %s, %s", res.Verified.Method, report.Plural(int(res.Verified.Search.States), res.Verified.Unit()))
			if res.Bounded {
				a.Proof += ", bounded: " + res.Verified.Bound
			} else {
				a.Proof += ", complete"
			}
		case len(res.Claims) > 0:
			a.Proof = strings.Join(res.Claims, "; ") + " (check's complete search of the RDMA machine)"
		}
	}
	resp.Repair = a
	resp.explored = fmt.Sprintf("%s, %s", report.Plural(res.Rounds, "round"), report.Plural(res.Decisions, "decision"))
	var text bytes.Buffer
	res.WriteText(&text, resp.File)
	resp.Text = text.String()
	v := Verdict{Name: "repair (" + a.Goal + ")"}
	switch {
	case res.Already:
		v.Value, v.Detail = "none needed", "holds as it is"
	case a.Found:
		v.Value, v.Detail = report.Plural(len(a.Insertions), "insertion"), fmt.Sprintf("cost %d, %s", a.Cost, a.Minimal)
	case res.Why != "":
		v.Value, v.Detail = "none", res.Why
	default:
		v.Value, v.Detail = "unknown", res.Cut
	}
	resp.Verdicts = []Verdict{v}
	return nil
}
