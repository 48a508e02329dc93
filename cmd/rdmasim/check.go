package main

import (
	"context"
	"fmt"
	"io"

	"rdmasim/explore"
	"rdmasim/opsem/expect"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

func cmdCheck(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("check", e)
	var sf searchFlags
	sf.register(fs)
	witness := fs.BoolP("witness", "w", false, "print the shortest witness run of each verdict, step by step")
	strict := fs.Bool("strict", false, "exit 1 also when an expect line stays unknown (a bound cut the search) or a run deadlocks")
	semFlag := fs.String("semantics", "machine", "machine (explore the RDMA and SC machines), axiom (enumerate the declarative model's traces) or both (compare their outcome sets; exit 1 on any difference)")
	opt, code := parseSearch(fs, &sf, args, e, "check")
	if code >= 0 {
		return code
	}
	opt.Witness = *witness || sf.json
	switch *semFlag {
	case "machine", "axiom", "both":
	default:
		fmt.Fprintf(e.stderr, "rdmasim check: --semantics %q: want machine, axiom or both\n", *semFlag)
		return exitUsage
	}
	code = exitOK
	limited := false // the model's size limit kept it from answering some file
files:
	for _, file := range fs.Args() {
		p, err := parse.File(file)
		if err != nil {
			code = max(code, fileFailed(e, sf.json, file, report.ErrorText(err), err))
			continue
		}
		var results [2]*verdict.Result
		var agreement []string
		switch *semFlag {
		case "axiom":
			rdma, sc, err := verdict.ComputeModel(ctx, p, opt)
			if lr, ls, ok := verdict.ModelLimited(p, err); ok {
				rdma, sc, err, limited = lr, ls, nil, true
			}
			if err != nil {
				code = max(code, fileFailed(e, sf.json, file, fmt.Sprintf("rdmasim check: %v", err), err))
				continue
			}
			results = [2]*verdict.Result{rdma, sc}
		default:
			mopt := opt
			if *semFlag == "both" {
				mopt.Machine.Unroll = verdict.LoopBound(p, mopt.Machine.Unroll) // compare like with like
			}
			for i, sem := range []verdict.Semantics{verdict.RDMA, verdict.SC} {
				r, err := verdict.Compute(ctx, p, sem, mopt)
				if err != nil {
					code = max(code, fileFailed(e, sf.json, file, fmt.Sprintf("rdmasim check: %v", err), err))
					continue files
				}
				results[i] = r
			}
			if *semFlag == "both" {
				var disagree, unknown bool
				agreement, disagree, unknown = compareWithModel(ctx, p, mopt, results)
				if disagree {
					code = max(code, exitFailed)
				}
				limited = limited || unknown
			}
		}
		exps, err := fileExpectations(ctx, p, opt, results)
		if err != nil {
			code = max(code, fileFailed(e, sf.json, file, fmt.Sprintf("rdmasim check: %s: %v", file, err), err))
			continue
		}
		failed := false
		for _, x := range exps {
			failed = failed || x.Status.Failed() || *strict && x.Status == expect.Unknown
		}
		for _, r := range results {
			failed = failed || *strict && r.Deadlocks > 0
		}
		if sf.json {
			writeCheckJSON(e.stdout, file, p, results, exps, agreement)
		} else {
			writeCheckText(e.stdout, p, results, exps, *witness, agreement)
		}
		if failed {
			code = max(code, exitFailed)
		}
		if ctx.Err() != nil {
			sf.interrupted(e, "check", "the verdicts above cover what was explored")
			return exitInterrupt
		}
	}
	if code == exitOK && limited {
		return exitLimit
	}
	return code
}

// fileExpectations checks every expect line of p: the rdma and sc lines
// against results (machine or model), the robust line against enumeration
// on the machine.
func fileExpectations(ctx context.Context, p *prog.Program, opt verdict.Options, results [2]*verdict.Result) ([]expect.Expectation, error) {
	exps := expect.Check(p, results)
	if _, ok := p.Expectation(prog.Robust); !ok {
		return exps, nil
	}
	r, err := robust.Decide(ctx, p, robust.Options{Method: robust.EnumMachine, Verdict: opt})
	if err != nil {
		return nil, err
	}
	expect.SetRobust(exps, r.Expect)
	return exps, nil
}

// testKind is herd7's word for the kind of test a quantifier makes.
func testKind(k prog.QueryKind) string {
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

func writeCheckText(w io.Writer, p *prog.Program, results [2]*verdict.Result, exps []expect.Expectation, witness bool, agreement []string) {
	fmt.Fprintf(w, "Test %s %s\n", p.Name, testKind(p.Query.Kind))
	for _, r := range results {
		writeResultText(w, p, r)
		if witness && r.Witness != nil {
			report.WriteRun(w, "Witness", r.Semantics, r.Witness)
		}
		if witness && r.DeadlockRun != nil {
			report.WriteRun(w, "Deadlock run", r.Semantics, r.DeadlockRun)
		}
	}
	for _, line := range agreement {
		fmt.Fprintln(w, line)
	}
	for _, x := range exps {
		fmt.Fprintln(w, x)
	}
	fmt.Fprintln(w)
}

func writeResultText(w io.Writer, p *prog.Program, r *verdict.Result) {
	fmt.Fprintf(w, "Semantics %s\n", r.Semantics)
	if r.Limit != nil {
		fmt.Fprintf(w, "Unknown (%s)\n", r.Bound) // no trace was enumerated
		return
	}
	fmt.Fprintf(w, "States %d\n", len(r.Outcomes))
	for _, o := range r.Outcomes {
		fmt.Fprintln(w, outcomeText(p, r.Locs, o.Values))
	}
	if r.Query.Kind == prog.QNone {
		fmt.Fprintln(w, completeness(r))
		return
	}
	holds, certain := r.Holds()
	switch {
	case !certain:
		fmt.Fprintln(w, "Unknown")
	case holds:
		fmt.Fprintln(w, "Ok")
	default:
		fmt.Fprintln(w, "No")
	}
	fmt.Fprintln(w, "Witnesses")
	fmt.Fprintf(w, "Positive: %d Negative: %d\n", r.Positive, r.Negative)
	fmt.Fprintf(w, "Condition %s %s\n", r.Query.Kind, p.CondString(r.Query.Cond))
	fmt.Fprintf(w, "Observation %s %s %d %d\n", p.Name, observation(r), r.Positive, r.Negative)
	fmt.Fprintln(w, completeness(r))
	writeEnds(w, r)
}

// writeEnds prints how the runs of a machine search ended when some did not
// reach a final configuration: the counts, where the first deadlock waits,
// and, when no run ends at all, that the verdicts are vacuous.
func writeEnds(w io.Writer, r *verdict.Result) {
	if r.Model || r.Filtered == 0 && r.Deadlocks == 0 && (r.Finals > 0 || !r.Complete) {
		return
	}
	fmt.Fprintf(w, "Ends %d final, %d filtered by an assume, %d deadlocked\n", r.Finals, r.Filtered, r.Deadlocks)
	if r.Deadlocks > 0 {
		fmt.Fprintf(w, "Deadlock %s: waits for ever, nothing left to complete\n", r.DeadlockAt)
	}
	if r.Vacuous() {
		fmt.Fprintln(w, "Vacuous: no run of the program ends and some deadlock, so every verdict on final configurations holds vacuously")
	}
}

func outcomeText(p *prog.Program, locs []int, vals []uint8) string {
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

// observation is herd7's Never / Sometimes / Always. Never and Always claim
// that every configuration was seen, so a search cut by a bound says
// Unknown instead (Sometimes, having seen both, is certain).
func observation(r *verdict.Result) string {
	switch {
	case r.Positive > 0 && r.Negative > 0:
		return "Sometimes"
	case !r.Complete:
		return "Unknown"
	case r.Positive == 0:
		return "Never"
	case r.Negative == 0:
		return "Always"
	}
	return "Sometimes"
}

func completeness(r *verdict.Result) string {
	s := fmt.Sprintf("Explored %s configurations, %s transitions, depth %d: ", report.Count(r.Search.States), report.Count(r.Search.Transitions), r.Search.MaxDepth)
	if r.Model {
		s = fmt.Sprintf("Enumerated %s candidate traces (declarative model): ", report.Count(r.Search.States))
	}
	switch r.Coverage() {
	case verdict.Complete:
		return s + "complete"
	case verdict.WithinBounds:
		return s + "complete within bounds, cut by " + r.Bound
	}
	return s + "unknown, stopped by " + r.Bound
}

// checkJSON is the JSON form of a check result.
type checkJSON struct {
	Agreement []string             `json:"agreement,omitempty"`
	File      string               `json:"file"`
	Name      string               `json:"name"`
	Query     string               `json:"query"`
	RDMA      *semJSON             `json:"rdma"`
	SC        *semJSON             `json:"sc"`
	Expect    []expect.Expectation `json:"expect"`
	ExpectOK  *bool                `json:"expect_ok"`
}

type semJSON struct {
	// Allowed is null when the search was cut before it found a witness.
	Allowed     *bool              `json:"allowed"`
	Complete    bool               `json:"complete"`
	Coverage    verdict.Coverage   `json:"coverage"`
	Bound       string             `json:"bound"`
	Holds       *bool              `json:"holds"`
	States      uint64             `json:"states"`
	Transitions uint64             `json:"transitions"`
	Positive    uint64             `json:"positive"`
	Negative    uint64             `json:"negative"`
	Outcomes    []map[string]uint8 `json:"outcomes"`
	Witness     *report.Run        `json:"witness,omitempty"`
	// How the runs ended: final configurations, stuck ones filtered out
	// by an assume, deadlocks (with where the first waits and, with a
	// witness, the run to it); vacuous when no run ends.
	Finals      uint64      `json:"finals"`
	Filtered    uint64      `json:"filtered"`
	Deadlocks   uint64      `json:"deadlocks"`
	DeadlockAt  string      `json:"deadlock_at,omitempty"`
	DeadlockRun *report.Run `json:"deadlock_run,omitempty"`
	Vacuous     bool        `json:"vacuous"`
}

func writeCheckJSON(w io.Writer, file string, p *prog.Program, results [2]*verdict.Result, exps []expect.Expectation, agreement []string) {
	out := checkJSON{File: file, Name: p.Name, Expect: exps, Agreement: agreement}
	if p.Query.Kind != prog.QNone {
		out.Query = p.Query.Kind.String() + " " + p.CondString(p.Query.Cond)
	}
	if out.Expect == nil {
		out.Expect = []expect.Expectation{}
	}
	sems := [2]*semJSON{}
	for i, r := range results {
		s := &semJSON{Complete: r.Complete, Coverage: r.Coverage(), Bound: r.Bound, States: r.Search.States,
			Transitions: r.Search.Transitions, Positive: r.Positive, Negative: r.Negative, Outcomes: []map[string]uint8{},
			Finals: r.Finals, Filtered: r.Filtered, Deadlocks: r.Deadlocks, DeadlockAt: r.DeadlockAt, Vacuous: r.Vacuous()}
		if r.Certain() {
			s.Allowed = &r.Allowed
		}
		if holds, certain := r.Holds(); certain && r.Query.Kind != prog.QNone {
			s.Holds = &holds
		}
		for _, o := range r.Outcomes {
			m := map[string]uint8{}
			for k, l := range r.Locs {
				m[p.Locs[l].Name] = o.Values[k]
			}
			s.Outcomes = append(s.Outcomes, m)
		}
		s.Witness = report.NewRun(r.Witness, p.ThreadName)
		s.DeadlockRun = report.NewRun(r.DeadlockRun, p.ThreadName)
		sems[i] = s
	}
	out.RDMA, out.SC = sems[0], sems[1]
	// expect_ok: null without expect lines to decide, false when one is
	// contradicted, true when every decidable one is confirmed.
	out.ExpectOK = expect.AllOK(exps)
	writeJSON(w, out)
}

// compareWithModel compares the machines' outcome sets with the declarative
// model's and returns one line per semantics, whether they disagree, and
// whether the model's size limit kept it from answering (then nothing is
// compared: "Model: unknown (model limit: 70 events > 64)"). Sets are
// compared only when the machine search covered everything the model
// covers (no max-inflight cut, not stopped); reach queries have no model
// answer.
func compareWithModel(ctx context.Context, p *prog.Program, opt verdict.Options, results [2]*verdict.Result) (lines []string, disagree, limited bool) {
	if p.Query.Kind == prog.QReach {
		return []string{"Model: not compared (reach queries are answered by the machines only)"}, false, false
	}
	mr, ms, err := verdict.ComputeModel(ctx, p, opt)
	if lr, _, ok := verdict.ModelLimited(p, err); ok {
		return []string{"Model: unknown (" + lr.Bound + ")"}, false, true
	}
	if err != nil {
		return []string{"Model: " + err.Error()}, true, false
	}
	for i, model := range []*verdict.Result{mr, ms} {
		mach := results[i]
		sem := mach.Semantics
		if mach.Search.Stop != explore.Complete || mach.Search.Pruned&machine.PrunedInflight != 0 {
			lines = append(lines, fmt.Sprintf("Model %s: not compared (the machine search was cut by %s)", sem, mach.Bound))
			continue
		}
		d := verdict.CompareOutcomes(mach, model)
		if d.Empty() {
			lines = append(lines, fmt.Sprintf("Model %s: agrees (%s)", sem, report.Plural(len(model.Outcomes), "outcome")))
			continue
		}
		disagree = true
		line := fmt.Sprintf("Model %s: DISAGREES with the machine", sem)
		for _, o := range d.OnlyMachine {
			line += "; only machine: " + outcomeText(p, mach.Locs, o)
		}
		for _, o := range d.OnlyModel {
			line += "; only model: " + outcomeText(p, mach.Locs, o)
		}
		lines = append(lines, line)
	}
	return lines, disagree, false
}
