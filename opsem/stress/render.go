package stress

import (
	"fmt"
	"io"
	"strings"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
)

// JSON is the JSON form of a stress test of one file (stress --json).
type JSON struct {
	File      string  `json:"file"`
	Name      string  `json:"name"`
	Semantics string  `json:"semantics"`
	Seed      uint64  `json:"seed"`
	Depth     int     `json:"depth"`
	Bias      float64 `json:"bias"`
	Query     string  `json:"query"` // "" without a query
	Walks     uint64  `json:"walks"` // walks taken
	Steps     uint64  `json:"steps"`
	Final     uint64  `json:"final"`
	Blocked   uint64  `json:"blocked"`
	// Deadlocked counts the blocked walks that ended in a deadlock.
	Deadlocked uint64 `json:"deadlocked"`
	CutDepth   uint64 `json:"cut_depth"`
	CutBound   uint64 `json:"cut_bound"`
	Stopped    uint64 `json:"stopped"` // reach --first: stopped at the condition
	Bound      string `json:"bound"`   // machine bounds that cut some transition
	// Interrupted: Ctrl-C stopped the test before every walk was taken.
	Interrupted bool          `json:"interrupted"`
	Positive    uint64        `json:"positive"`
	Negative    uint64        `json:"negative"`
	Validated   *bool         `json:"validated"` // null without a query
	Outcomes    []OutcomeJSON `json:"outcomes"`
	First       *FirstJSON    `json:"first,omitempty"`
}

// OutcomeJSON is an outcome of the histogram in JSON.
type OutcomeJSON struct {
	Values    map[string]uint8 `json:"values"`
	Count     uint64           `json:"count"`
	Frequency float64          `json:"frequency"` // among the walks that reached a final configuration
	Satisfies bool             `json:"satisfies"`
}

// FirstJSON is the first witness (--first) in JSON.
type FirstJSON struct {
	Walk uint64      `json:"walk"`
	End  string      `json:"end"` // final, or reach
	Run  *report.Run `json:"run"`
}

// observation is herd7's Never / Sometimes / Always over the walks' final
// outcomes. A search stopped at its first witness (Options.First) saw one
// walk decide the query and stopped: that shows the condition can hold
// (Sometimes), never that it always does, nor, for a forall's
// counterexample, that it never does (Unknown).
func observation(r *Result) string {
	if r.First == nil {
		return report.Observation(r.Positive, r.Negative, true)
	}
	if r.Positive > 0 {
		return "Sometimes"
	}
	return report.Observation(r.Positive, r.Negative, false)
}

// WriteText prints a litmus7-style report of r, the stress test of p with
// opt: the histogram of final outcomes (count, *> for outcomes satisfying
// the condition, :> for the others, frequency among the walks that reached
// a final configuration), then herd7's verdict lines over walks (what the
// walks observed: sampling, never a proof), then how the walks ended and
// the first witness.
func WriteText(w io.Writer, p *prog.Program, opt Options, r *Result) {
	fmt.Fprintf(w, "Test %s %s\n", p.Name, report.TestKind(p.Query.Kind))
	fmt.Fprintf(w, "Stress %s, seed %d, %s, depth %d, bias %g\n", r.Semantics, opt.Seed, report.Plural(int(opt.Walks), "walk"), opt.Depth, opt.Bias)
	fmt.Fprintf(w, "Histogram (%s)\n", report.Plural(len(r.Outcomes), "state"))
	cw, ow := 1, 0
	for _, o := range r.Outcomes {
		cw = max(cw, len(fmt.Sprint(o.Count)))
		ow = max(ow, len(report.Outcome(p, r.Locs, o.Values)))
	}
	for _, o := range r.Outcomes {
		mark := ":>"
		if o.Satisfies {
			mark = "*>"
		}
		fmt.Fprintf(w, "%*d %s%-*s  %6.2f%%\n", cw, o.Count, mark, ow, report.Outcome(p, r.Locs, o.Values), percent(o.Count, r.Final))
	}
	if p.Query.Kind != prog.QNone {
		if r.Validated() {
			fmt.Fprintln(w, "Ok")
		} else {
			fmt.Fprintln(w, "No")
		}
		fmt.Fprintln(w, "Witnesses")
		fmt.Fprintf(w, "Positive: %d, Negative: %d\n", r.Positive, r.Negative)
		validated := "is validated"
		if !r.Validated() {
			validated = "is NOT validated"
		}
		fmt.Fprintf(w, "Condition %s %s %s\n", r.Query.Kind, p.CondString(r.Query.Cond), validated)
		fmt.Fprintf(w, "Observation %s %s %d %d\n", p.Name, observation(r), r.Positive, r.Negative)
	}
	ends := []string{fmt.Sprintf("%d final", r.Final), blockedText(r), fmt.Sprintf("%d cut by depth", r.CutDepth)}
	if r.CutBound > 0 {
		ends = append(ends, fmt.Sprintf("%d cut by %s", r.CutBound, r.Bound))
	}
	if r.Stopped > 0 {
		ends = append(ends, fmt.Sprintf("%d stopped at the condition", r.Stopped))
	}
	fmt.Fprintf(w, "Walks %d: %s\n", r.Walks, strings.Join(ends, ", "))
	fmt.Fprintf(w, "Steps %d\n", r.Steps)
	if r.Bound != "" {
		fmt.Fprintf(w, "Bounds: %s disabled some transitions (outcomes beyond it are not sampled)\n", r.Bound)
	}
	if r.Interrupted {
		fmt.Fprintf(w, "Interrupted after %s\n", report.Plural(int(r.Walks), "walk"))
	}
	switch {
	case r.First != nil:
		fmt.Fprintf(w, "First witness: walk %d, %s, %s\n", r.First.Walk, report.Plural(len(r.First.Run.Steps), "step"), r.First.End)
		report.WriteRun(w, "", r.Semantics, r.First.Run)
		fmt.Fprintln(w, "End configuration:")
		report.WriteConfig(w, r.First.FinalText)
	case opt.First && !r.Interrupted:
		fmt.Fprintf(w, "No witness in %s\n", report.Plural(int(r.Walks), "walk"))
	}
	fmt.Fprintln(w)
}

// percent is 100*n/of, or 0 when of is 0.
func percent(n, of uint64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// JSON returns the JSON form of r, the stress test of p in file with opt.
func (r *Result) JSON(file string, p *prog.Program, opt Options) JSON {
	out := JSON{
		File: file, Name: p.Name, Semantics: r.Semantics.String(), Seed: opt.Seed, Depth: opt.Depth, Bias: opt.Bias,
		Walks: r.Walks, Steps: r.Steps, Final: r.Final, Blocked: r.Blocked, Deadlocked: r.Deadlocked, CutDepth: r.CutDepth, CutBound: r.CutBound,
		Stopped: r.Stopped, Bound: r.Bound, Interrupted: r.Interrupted, Positive: r.Positive, Negative: r.Negative,
		Outcomes: []OutcomeJSON{},
	}
	if p.Query.Kind != prog.QNone {
		out.Query = p.Query.Kind.String() + " " + p.CondString(p.Query.Cond)
		v := r.Validated()
		out.Validated = &v
	}
	for _, o := range r.Outcomes {
		vals := map[string]uint8{}
		for k, l := range r.Locs {
			vals[p.Locs[l].Name] = o.Values[k]
		}
		out.Outcomes = append(out.Outcomes, OutcomeJSON{Values: vals, Count: o.Count, Frequency: percent(o.Count, r.Final) / 100, Satisfies: o.Satisfies})
	}
	if r.First != nil {
		out.First = &FirstJSON{Walk: r.First.Walk, End: r.First.End, Run: report.NewRun(r.First.Run, p.ThreadName)}
	}
	return out
}

// blockedText counts the walks that ended with no step enabled, and among
// them the deadlocks.
func blockedText(r *Result) string {
	if r.Deadlocked == 0 {
		return fmt.Sprintf("%d blocked", r.Blocked)
	}
	return fmt.Sprintf("%d blocked (%d deadlocked)", r.Blocked, r.Deadlocked)
}
