package check

import (
	"fmt"
	"io"

	"rdmasim/opsem/expect"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// WriteText prints r as herd7 prints a test (Test, then per semantics
// States, the outcomes, Ok/No/Unknown, Witnesses, Condition, Observation),
// with how completely each search covered the state space, how its runs
// ended, the shortest witness runs when witness is set, the agreement with
// the model, and the expect lines.
func WriteText(w io.Writer, r *Result, witness bool) {
	p := r.Program
	fmt.Fprintf(w, "Test %s %s\n", p.Name, report.TestKind(p.Query.Kind))
	for _, res := range r.Results {
		writeResult(w, p, res)
		if witness && res.Witness != nil {
			report.WriteRun(w, "Witness", res.Semantics, res.Witness)
		}
		if witness && res.DeadlockRun != nil {
			report.WriteRun(w, "Deadlock run", res.Semantics, res.DeadlockRun)
		}
	}
	for _, line := range r.Agreement {
		fmt.Fprintln(w, line)
	}
	for _, why := range r.Asymmetric {
		fmt.Fprintf(w, "No symmetry for %s\n", why)
	}
	for _, x := range r.Expect {
		fmt.Fprintln(w, x)
	}
	fmt.Fprintln(w)
}

// writeResult prints the answer under one semantics.
func writeResult(w io.Writer, p *prog.Program, r *verdict.Result) {
	fmt.Fprintf(w, "Semantics %s\n", r.Semantics)
	if r.ErrorAt != "" {
		// An error point leads: the rest of the report is about the runs
		// that did not stop at one.
		fmt.Fprintf(w, "Error %s\n", r.ErrorAt)
	}
	if r.Limit != nil {
		fmt.Fprintf(w, "Unknown (%s)\n", r.Bound) // no trace was enumerated
		return
	}
	fmt.Fprintf(w, "States %d\n", len(r.Outcomes))
	for _, o := range r.Outcomes {
		fmt.Fprintln(w, report.Outcome(p, r.Locs, o.Values))
	}
	if r.Query.Kind == prog.QNone {
		fmt.Fprintln(w, completeness(r))
		return
	}
	fmt.Fprintln(w, report.Holds(r))
	fmt.Fprintln(w, "Witnesses")
	fmt.Fprintf(w, "Positive: %d Negative: %d\n", r.Positive, r.Negative)
	fmt.Fprintf(w, "Condition %s %s\n", r.Query.Kind, p.CondString(r.Query.Cond))
	obs := report.Observation(r.Positive, r.Negative, r.Complete)
	if r.AtWitness && r.Positive > 0 {
		obs = "Sometimes" // some outcome satisfies the condition; the others were not all listed
	}
	fmt.Fprintf(w, "Observation %s %s %d %d\n", p.Name, obs, r.Positive, r.Negative)
	fmt.Fprintln(w, completeness(r))
	writeEnds(w, r)
}

// writeEnds prints how the runs of a machine search ended when some did not
// reach a final configuration: the counts, where the first deadlock waits,
// and, when no run ends at all, that the verdicts are vacuous.
func writeEnds(w io.Writer, r *verdict.Result) {
	if r.Model {
		// The model has traces, not configurations: it says how many
		// error points and deadlocks it found only when no trace ends.
		if r.Vacuous() {
			fmt.Fprintf(w, "Ends 0 final outcomes, %s reached, %s (declarative model)\n", report.Plural(int(r.Failed), "error point"), report.Plural(int(r.Deadlocks), "deadlocked trace"))
			fmt.Fprintf(w, "Vacuous: no trace of the program completes and some %s, so every verdict on final configurations holds vacuously\n", vacuousWhy(r))
		}
		return
	}
	if r.Filtered == 0 && r.Deadlocks == 0 && r.Failed == 0 && (r.Finals > 0 || !r.Complete) {
		return
	}
	fmt.Fprintf(w, "Ends %s\n", report.Ends(r.Finals, r.Filtered, r.Deadlocks, r.Failed))
	if r.Deadlocks > 0 {
		fmt.Fprintln(w, report.Deadlock(r.DeadlockAt))
	}
	if r.Vacuous() {
		fmt.Fprintf(w, "Vacuous: no run of the program ends and some %s, so every verdict on final configurations holds vacuously\n", vacuousWhy(r))
	}
}

// vacuousWhy names what ends the runs of a vacuous result: "deadlock",
// "stop at an error point" or both.
func vacuousWhy(r *verdict.Result) string {
	switch {
	case r.Model && r.Deadlocks == 0:
		return "trace prefix stops at an error point"
	case r.Model && r.Failed == 0:
		return "trace deadlocks"
	case r.Model:
		return "trace prefix deadlocks or stops at an error point"
	case r.Failed == 0:
		return "deadlock"
	case r.Deadlocks == 0:
		return "stop at an error point"
	}
	return "deadlock or stop at an error point"
}

// completeness says what a search explored and how completely.
func completeness(r *verdict.Result) string {
	s := fmt.Sprintf("Explored %s configurations, %s transitions, depth %d: ", report.Count(r.Search.States), report.Count(r.Search.Transitions), r.Search.MaxDepth)
	if r.Model {
		s = fmt.Sprintf("Enumerated %s candidate traces (declarative model): ", report.Count(r.Search.States))
	}
	switch r.Coverage() {
	case verdict.Complete:
		s += "complete"
	case verdict.Unknown:
		if r.AtWitness {
			s += "stopped at the first witness, which settles the query (--all-outcomes lists every outcome)"
			break
		}
		s += "unknown, stopped by " + r.Bound
	case verdict.WithinBounds:
		s += "complete within bounds, cut by " + r.Bound
	}
	if r.Inflight > 0 {
		s += fmt.Sprintf("\nAnswered at max-inflight %d (the search began at 1 and doubled until one answered)", r.Inflight)
	}
	if r.Symmetry != "" {
		s += "\nSymmetry " + r.Symmetry + ": one configuration per orbit, outcomes closed under it"
	}
	return s
}

// JSON is the JSON form of a Result (check --json).
type JSON struct {
	Agreement []string `json:"agreement,omitempty"`
	// Asymmetric: the families that are no group of symmetries, and why.
	Asymmetric []string             `json:"asymmetric,omitempty"`
	File       string               `json:"file"`
	Name       string               `json:"name"`
	Query      string               `json:"query"`
	RDMA       *SemanticsJSON       `json:"rdma"`
	SC         *SemanticsJSON       `json:"sc"`
	Expect     []expect.Expectation `json:"expect"`
	// ExpectOK is null without expect lines to decide, false when one
	// failed, true when every decidable one holds (expect.AllOK).
	ExpectOK *bool `json:"expect_ok"`
	// Workers, for searches on a cluster, is the most worker processes
	// that took part in one (Result.Workers); absent otherwise. It is the
	// one field in which a cluster's report differs from one process's.
	Workers int `json:"workers,omitempty"`
}

// SemanticsJSON is the JSON form of the answer under one semantics.
type SemanticsJSON struct {
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
	// witness, the run to it), stopped at an error point; vacuous when
	// no run ends (see verdict.Result.Vacuous).
	Finals     uint64 `json:"finals"`
	Filtered   uint64 `json:"filtered"`
	Deadlocks  uint64 `json:"deadlocks"`
	Failed     uint64 `json:"failed"` // stopped at an error point
	DeadlockAt string `json:"deadlock_at,omitempty"`
	ErrorAt    string `json:"error_at,omitempty"`
	// Errors are the error points reached, by statement (the machine's
	// with every outcome listed, or the model's); absent when none was.
	Errors      []string    `json:"errors,omitempty"`
	DeadlockRun *report.Run `json:"deadlock_run,omitempty"`
	Vacuous     bool        `json:"vacuous"`
	// Symmetry describes the group the search reduced by (one
	// configuration per orbit: States, Finals, Filtered, Deadlocks and a
	// reach query's Positive and Negative count those; the outcomes are
	// closed under it); absent when it reduced by none.
	Symmetry string `json:"symmetry,omitempty"`
	// AtWitness: the search stopped at the first witness, which settles
	// the query (the outcomes are those met until then); Inflight: the
	// max-inflight of the search that answered, when it was raised from 1.
	AtWitness bool `json:"at_witness,omitempty"`
	Inflight  int  `json:"inflight,omitempty"`
}

// JSON returns the JSON form of r, for the program in file.
func (r *Result) JSON(file string) JSON {
	p := r.Program
	out := JSON{File: file, Name: p.Name, Expect: r.Expect, Agreement: r.Agreement, Asymmetric: r.Asymmetric, ExpectOK: expect.AllOK(r.Expect)}
	if p.Query.Kind != prog.QNone {
		out.Query = p.Query.Kind.String() + " " + p.CondString(p.Query.Cond)
	}
	if out.Expect == nil {
		out.Expect = []expect.Expectation{}
	}
	var sems [2]*SemanticsJSON
	for i, res := range r.Results {
		s := &SemanticsJSON{Complete: res.Complete, Coverage: res.Coverage(), Bound: res.Bound, States: res.Search.States,
			Transitions: res.Search.Transitions, Positive: res.Positive, Negative: res.Negative, Outcomes: []map[string]uint8{},
			Finals: res.Finals, Filtered: res.Filtered, Deadlocks: res.Deadlocks, Failed: res.Failed, DeadlockAt: res.DeadlockAt, ErrorAt: res.ErrorAt, Errors: res.Errors, Vacuous: res.Vacuous(),
			Symmetry: res.Symmetry, AtWitness: res.AtWitness, Inflight: res.Inflight}
		if res.Certain() {
			s.Allowed = &res.Allowed
		}
		if holds, certain := res.Holds(); certain && res.Query.Kind != prog.QNone {
			s.Holds = &holds
		}
		for _, o := range res.Outcomes {
			m := map[string]uint8{}
			for k, l := range res.Locs {
				m[p.Locs[l].Name] = o.Values[k]
			}
			s.Outcomes = append(s.Outcomes, m)
		}
		s.Witness = report.NewRun(res.Witness, p.ThreadName)
		s.DeadlockRun = report.NewRun(res.DeadlockRun, p.ThreadName)
		sems[i] = s
	}
	out.RDMA, out.SC = sems[0], sems[1]
	return out
}
