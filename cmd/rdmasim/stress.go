package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/stress"
)

// stressJSON is the JSON form of a stress test of one file.
type stressJSON struct {
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
	Interrupted bool                `json:"interrupted"`
	Positive    uint64              `json:"positive"`
	Negative    uint64              `json:"negative"`
	Validated   *bool               `json:"validated"` // null without a query
	Outcomes    []stressOutcomeJSON `json:"outcomes"`
	First       *stressFirstJSON    `json:"first,omitempty"`
}

type stressOutcomeJSON struct {
	Values    map[string]uint8 `json:"values"`
	Count     uint64           `json:"count"`
	Frequency float64          `json:"frequency"` // among the walks that reached a final configuration
	Satisfies bool             `json:"satisfies"`
}

type stressFirstJSON struct {
	Walk uint64      `json:"walk"`
	End  string      `json:"end"` // final, or reach
	Run  *report.Run `json:"run"`
}

func cmdStress(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("stress", e)
	jsonOut := fs.Bool("json", false, "print one JSON object per file on one line")
	walks := fs.Uint64("walks", 100000, "random walks to take")
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same walks and output")
	depth := fs.Int("depth", stress.DefaultDepth, "steps per walk at most (loops make runs unbounded)")
	bias := fs.Float64("bias", 0, "probability (0..1) that a step where CPU and NIC transitions are both enabled takes a CPU step, chosen uniformly among the CPU steps; otherwise steps are uniform over all enabled transitions")
	first := fs.Bool("first", false, "stop at the first walk that decides the query (satisfies the condition; violates it for forall; reach: stops at the first configuration satisfying it) and print it step by step")
	sem := fs.String("semantics", "rdma", "machine to walk: rdma or sc")
	unroll := fs.Int("unroll", 0, "iterations of each loop per entry, 0 = unbounded")
	inflight := fs.Int("max-inflight", machine.DefaultOptions().MaxInflight, "operations in the buffers of one queue pair")
	progress := fs.Bool("progress", false, "print progress (walks, steps/s) on stderr once a second (default when stderr is a terminal)")
	if code := parseFlags(fs, args, e, "stress [flags] FILE..."); code >= 0 {
		return code
	}
	s, err := semantics(*sem)
	if err == nil {
		err = checkStressFlags(*walks, *depth, *bias, *unroll, *inflight)
	}
	if err == nil && fs.NArg() == 0 {
		err = fmt.Errorf("no input files")
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim stress: %v\n", err)
		return exitUsage
	}
	opt := stress.Options{
		Semantics: s,
		Machine:   machine.Options{MaxInflight: *inflight, Unroll: *unroll},
		Walks:     *walks,
		Depth:     *depth,
		Bias:      *bias,
		Seed:      *seed,
		First:     *first,
	}
	showProgress := *progress || e.isTerminal && !*jsonOut
	current := "" // the program being stressed, for progress
	if showProgress {
		opt.Progress = func(p stress.Progress) {
			e.progress.work(current+" stress", "walks", p.Walks, uint64(opt.Walks), p.Elapsed, report.Count(p.Steps)+" steps")
		}
	}
	code := exitOK
	for _, file := range fs.Args() {
		p, err := parse.File(file)
		if err != nil {
			code = max(code, fileFailed(e, *jsonOut, file, report.ErrorText(err), err))
			continue
		}
		current = p.Name
		r, err := stress.Run(ctx, p, opt)
		if err != nil {
			code = max(code, fileFailed(e, *jsonOut, file, fmt.Sprintf("rdmasim stress: %v", err), err))
			continue
		}
		if *jsonOut {
			writeStressJSON(e.stdout, file, p, opt, r)
		} else {
			writeStressText(e.stdout, p, opt, r)
		}
		if showProgress && r.Elapsed > 0 {
			fmt.Fprintf(e.stderr, "rdmasim: %s: %s steps in %.2fs, %s steps/s\n",
				file, report.Count(r.Steps), r.Elapsed.Seconds(), report.Count(uint64(float64(r.Steps)/r.Elapsed.Seconds())))
		}
		if r.Interrupted {
			fmt.Fprintf(e.stderr, "rdmasim stress: interrupted; the histogram above covers %s\n", report.Plural(int(r.Walks), "walk"))
			return exitInterrupt
		}
	}
	return code
}

// checkStressFlags checks the values of stress's numeric flags.
func checkStressFlags(walks uint64, depth int, bias float64, unroll, inflight int) error {
	switch {
	case walks < 1:
		return fmt.Errorf("--walks %d: want at least 1", walks)
	case depth < 1:
		return fmt.Errorf("--depth %d: want at least 1", depth)
	case !(bias >= 0 && bias <= 1): // also rejects NaN
		return fmt.Errorf("--bias %g: want a probability in 0..1", bias)
	case unroll < 0 || unroll > 254:
		return fmt.Errorf("--unroll %d: want 0..254", unroll)
	case inflight < 1 || inflight > 250:
		return fmt.Errorf("--max-inflight %d: want 1..250", inflight)
	}
	return nil
}

// writeStressText prints a litmus7-style report: the histogram of final
// outcomes (count, *> for outcomes satisfying the condition, :> for the
// others, frequency among the walks that reached a final configuration),
// then herd7's verdict lines over walks, then how the walks ended.
func writeStressText(w io.Writer, p *prog.Program, opt stress.Options, r *stress.Result) {
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
		fmt.Fprintf(w, "Observation %s %s %d %d\n", p.Name, report.Observation(r.Positive, r.Negative, true), r.Positive, r.Negative)
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
		writeIndented(w, r.First.FinalText)
	case opt.First && !r.Interrupted:
		fmt.Fprintf(w, "No witness in %s\n", report.Plural(int(r.Walks), "walk"))
	}
	fmt.Fprintln(w)
}

// writeIndented prints a configuration, each line after "  | ".
func writeIndented(w io.Writer, text string) {
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(w, "  | %s\n", line)
	}
}

// percent is 100*n/of, or 0 when of is 0.
func percent(n, of uint64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

func writeStressJSON(w io.Writer, file string, p *prog.Program, opt stress.Options, r *stress.Result) {
	out := stressJSON{
		File: file, Name: p.Name, Semantics: r.Semantics.String(), Seed: opt.Seed, Depth: opt.Depth, Bias: opt.Bias,
		Walks: r.Walks, Steps: r.Steps, Final: r.Final, Blocked: r.Blocked, Deadlocked: r.Deadlocked, CutDepth: r.CutDepth, CutBound: r.CutBound,
		Stopped: r.Stopped, Bound: r.Bound, Interrupted: r.Interrupted, Positive: r.Positive, Negative: r.Negative,
		Outcomes: []stressOutcomeJSON{},
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
		out.Outcomes = append(out.Outcomes, stressOutcomeJSON{Values: vals, Count: o.Count, Frequency: percent(o.Count, r.Final) / 100, Satisfies: o.Satisfies})
	}
	if r.First != nil {
		out.First = &stressFirstJSON{Walk: r.First.Walk, End: r.First.End, Run: report.NewRun(r.First.Run, p.ThreadName)}
	}
	writeJSON(w, out)
}

// blockedText counts the walks that ended with no step enabled, and among
// them the deadlocks.
func blockedText(r *stress.Result) string {
	if r.Deadlocked == 0 {
		return fmt.Sprintf("%d blocked", r.Blocked)
	}
	return fmt.Sprintf("%d blocked (%d deadlocked)", r.Blocked, r.Deadlocked)
}
