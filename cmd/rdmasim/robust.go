package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/dot"
	"rdmasim/opsem/draw"
	"rdmasim/opsem/expect"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// robustJSON is the JSON form of a robustness verdict.
type robustJSON struct {
	File     string           `json:"file,omitempty"`
	Name     string           `json:"name,omitempty"`
	Robust   *bool            `json:"robust"`   // null when unknown
	Complete bool             `json:"complete"` // the verdict is certain: a violation, or a complete search
	Coverage verdict.Coverage `json:"coverage"`
	Bound    string           `json:"bound"`
	Method   string           `json:"method"` // the method that answered (with auto: decide or enum-machine)
	// Stopped (method auto): the method that raced the one that answered,
	// and what cut it when neither answer was certain.
	Stopped []verdict.StoppedMethod `json:"stopped,omitempty"`
	States  uint64                  `json:"states"`
	Witness *witnessJSON            `json:"witness"`
	Expect  *expect.Expectation     `json:"expect"`
	// Error is why the method gave no answer (with several methods).
	Error *errorJSON `json:"error,omitempty"`
	// Deadlocks counts the SC machine's deadlocked configurations, and
	// DeadlockAt says where the first waits (see deadlocks).
	Deadlocks  uint64 `json:"deadlocks"`
	DeadlockAt string `json:"deadlock_at,omitempty"`
}

// withDeadlocks adds the SC machine's deadlocks to j.
func (j robustJSON) withDeadlocks(dl *verdict.Result) robustJSON {
	if dl != nil {
		j.Deadlocks, j.DeadlockAt = dl.Deadlocks, dl.DeadlockAt
	}
	return j
}

// deadlocks explores p's SC machine for deadlocks (a thread waiting at a
// poll with nothing left to complete): robustness is about every run,
// including those that stop there, so a robust program may still deadlock,
// which a user should hear. The SC machine is enough: its runs are RDMA
// runs, and when the program is robust every RDMA run's trace is an SC
// trace, whose SC run ends in the same control points, memory and unpolled
// operations, so the RDMA machine deadlocks exactly where the SC machine
// does. (A program that is not robust may deadlock under RDMA only.) The
// search is in memory and never checkpointed, whatever the settings; nil
// when it fails or finds no deadlock.
func deadlocks(ctx context.Context, p *prog.Program, opt verdict.Options) *verdict.Result {
	opt.Witness = false
	opt.Checkpoint, opt.NewSet, opt.SpillDir, opt.FrontierBudget = nil, nil, "", 0
	r, err := verdict.Compute(ctx, p, verdict.SC, opt)
	if err != nil || r.Deadlocks == 0 {
		return nil
	}
	return r
}

// writeRobustDeadlocks says where the SC machine of a program deadlocks.
func writeRobustDeadlocks(w io.Writer, r *verdict.RobustResult, dl *verdict.Result) {
	if dl == nil {
		return
	}
	where := "under SC (a program that is not robust may deadlock under RDMA elsewhere too)"
	if r.Certain() && r.Robust {
		where = "under SC and, the program being robust, under RDMA alike"
	}
	fmt.Fprintf(w, "Deadlock %s: waits for ever %s; robustness covers the runs up to it\n", dl.DeadlockAt, where)
}

type witnessJSON struct {
	Cycle []string    `json:"cycle"`           // events of the sc cycle, each followed by the edge to the next
	Tau1  []string    `json:"tau1,omitempty"`  // decide: the events of τ1, in order
	Tau2  []string    `json:"tau2,omitempty"`  // decide: the events of τ2, in order
	Run   *report.Run `json:"run,omitempty"`   // the run to the violation (decide: replayed on the RDMA machine)
	Trace []string    `json:"trace,omitempty"` // enum-axiom: the violating trace
}

func cmdRobust(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("robust", e)
	var sf searchFlags
	sf.register(fs)
	method := fs.String("method", "auto", "how to decide: auto (on a loop-free program, decide and enum-machine race, each on half the workers, and the first certain answer wins; with loops, or with --checkpoint, decide alone), decide (the paper's instrumentation: complete, loops and polls included), enum-machine (explore the RDMA machine with event graphs), enum-axiom (enumerate the declarative model's traces), both (the two enumerations) or all (the decider and both enumerations); with several, exit 1 if certain answers disagree")
	dotFile := fs.String("dot", "", "write the violation's execution graph as Graphviz DOT to this file (one file: use with one input)")
	svg := fs.Bool("svg", false, "with --dot, also render an SVG beside it (needs Graphviz)")
	fs.Lookup("unroll").Usage = fmt.Sprintf("iterations of each loop per entry; 0 = %d for programs with loops (event graphs and traces need a bound)", verdict.DefaultModelUnroll)
	opt, code := parseSearch(fs, &sf, args, e, "robust")
	if code >= 0 {
		return code
	}
	// The decider's Karp–Miller search keeps every state in memory: it
	// stops, cut, at the visited set's budget (parseSearch checked it).
	kmBytes, _ := sf.budget()
	var methods []string
	switch *method {
	case "auto", "decide", "enum-machine", "enum-axiom":
		methods = []string{*method}
	case "both":
		methods = []string{"enum-machine", "enum-axiom"}
	case "all":
		methods = []string{"decide", "enum-machine", "enum-axiom"}
	default:
		fmt.Fprintf(e.stderr, "rdmasim robust: --method %q: want auto, decide, enum-machine, enum-axiom, both or all\n", *method)
		return exitUsage
	}
	if *dotFile != "" && fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "rdmasim robust: --dot takes one input file")
		return exitUsage
	}
	code = exitOK
	limited := false // the model's size limit kept enum-axiom from answering some file
	for _, file := range fs.Args() {
		p, err := parse.File(file)
		if err != nil {
			fileFailed(e, sf.json, file, errorText(err), err)
			code = max(code, exitUsage)
			continue
		}
		if *method == "auto" && robust.Alone(p, opt.Settings) == robust.AloneCheckpoint {
			fmt.Fprintf(e.stderr, "rdmasim robust: %s: --checkpoint: the decider runs alone (method auto races it against enum-machine only without checkpoints)\n", file)
		}
		dl := deadlocks(ctx, p, opt)
		var answers []*verdict.RobustResult
		var reports []robustJSON // --json with several methods: each method's object
		for _, m := range methods {
			r, trace, w, err := decideRobust(ctx, p, opt, m, kmBytes)
			if err != nil {
				msg := fmt.Sprintf("rdmasim robust: %s: %v", file, err)
				switch {
				case sf.json && len(methods) > 1:
					fmt.Fprintln(e.stderr, msg)
					reports = append(reports, robustJSON{Method: m, Error: &errorJSON{Message: err.Error()}})
				default:
					fileFailed(e, sf.json, file, msg, err)
				}
				code = max(code, exitUsage)
				continue
			}
			answers = append(answers, r)
			limited = limited || r.Limit != nil
			if r.KarpMiller && (sf.checkpoint != "" || sf.store != "mem" || sf.workers > 1) {
				fmt.Fprintf(e.stderr, "rdmasim robust: %s: a poll on a loop makes the decider's counters unbounded: its Karp–Miller search ran in memory on one core (within --mem-budget), without --checkpoint, --store or --workers\n", file)
			}
			ex := robustExpectation(p, r)
			if ex != nil && ex.Status == expect.Fail {
				code = max(code, exitFailed)
			}
			if *dotFile != "" && !r.Robust {
				var d *dot.Graph
				if trace != nil {
					d = draw.Trace(p, trace, trace.SCCycle(), p.Name+": an RDMA-consistent trace with an sc cycle")
				} else {
					g := r.Graph
					if r.Full != nil {
						g = r.Full
					}
					d = draw.Machine(p, g, p.Name+": an RDMA execution with an sc cycle")
				}
				if err := dot.WriteFile(*dotFile, d, *svg); err != nil {
					fmt.Fprintf(e.stderr, "rdmasim robust: %v\n", err)
					code = max(code, exitUsage)
				}
			}
			switch {
			case sf.json && len(methods) > 1:
				reports = append(reports, newRobustJSON(file, p, r, trace, w, ex).withDeadlocks(dl))
			case sf.json:
				writeJSON(e.stdout, newRobustJSON(file, p, r, trace, w, ex).withDeadlocks(dl))
			default:
				writeRobustText(e.stdout, p, r, trace, w, ex)
				writeRobustDeadlocks(e.stdout, r, dl)
			}
		}
		agree := true
		first := slices.IndexFunc(answers, (*verdict.RobustResult).Certain)
		for i := first + 1; first >= 0 && i < len(answers); i++ {
			a, b := answers[first], answers[i]
			if b.Certain() && a.Robust != b.Robust {
				agree = false
				fmt.Fprintf(e.stderr, "rdmasim robust: %s: the methods disagree: %s says %s, %s says %s\n",
					file, a.Method, expect.YesNo(a.Robust), b.Method, expect.YesNo(b.Robust))
				code = max(code, exitFailed)
			}
		}
		if sf.json && len(methods) > 1 {
			writeJSON(e.stdout, newRobustMethodsJSON(file, p, answers, reports, agree))
		}
		if ctx.Err() != nil {
			sf.interrupted(e, "robust", "the verdicts above cover what was explored")
			return exitInterrupt
		}
	}
	if code == exitOK && limited {
		return exitLimit
	}
	return code
}

// decideRobust runs one method; for enum-axiom and decide it also returns
// the violating trace, and for decide the decider's witness. Method auto is
// robust.Auto: the decider and enum-machine raced on a loop-free program,
// the decider alone otherwise; the answer is the method's that answered.
// kmBytes bounds the memory of the decider's Karp–Miller search. A program
// too large for the model gets enum-axiom's answer "unknown", with Limit
// set, not an error.
func decideRobust(ctx context.Context, p *prog.Program, opt verdict.Options, method string, kmBytes uint64) (*verdict.RobustResult, *axiom.Trace, *decide.Witness, error) {
	switch method {
	case "enum-axiom":
		r, t, err := verdict.RobustModel(ctx, p, opt)
		if lr, ok := verdict.RobustLimited(err); ok {
			return lr, nil, nil, nil
		}
		return r, t, nil, err
	case "decide":
		d, err := decide.Decide(ctx, p, decide.Options{MaxBytes: kmBytes, Settings: opt.Settings})
		if err != nil {
			return nil, nil, nil, err
		}
		r, trace, w := decided(d)
		return r, trace, w, nil
	case "auto":
		a, err := robust.Auto(ctx, p, robust.Options{Verdict: opt, MaxBytes: kmBytes})
		if err != nil {
			return nil, nil, nil, err
		}
		r, trace, w := a.Machine, (*axiom.Trace)(nil), (*decide.Witness)(nil)
		if a.Decide != nil {
			r, trace, w = decided(a.Decide)
		}
		r.Stopped = a.Stopped
		return r, trace, w, nil
	}
	r, err := verdict.RobustMachine(ctx, p, opt)
	return r, nil, nil, err
}

// decided turns the decider's answer into a robustness verdict, with the
// violating trace and the decider's witness when it found a violation.
func decided(d *decide.Result) (*verdict.RobustResult, *axiom.Trace, *decide.Witness) {
	r := &verdict.RobustResult{Robust: d.Robust, Complete: d.Complete, Bound: d.Bound, Method: "decide",
		Search: explore.Result{Stats: d.Search.Stats, Stop: d.Search.Stop, Workers: d.Workers}, KarpMiller: d.KarpMiller}
	w := d.Witness
	if w == nil {
		return r, nil, nil
	}
	if rp := w.Replay; rp != nil {
		run := &verdict.Run{Initial: rp.Path[0].State, InitialText: rp.Machine.Format(rp.Path[0].State)}
		for i := 1; i < len(rp.Path); i++ {
			run.Steps = append(run.Steps, rp.Machine.Explain(rp.Path[i-1].State, rp.Path[i].Label))
		}
		r.Witness, r.Graph = run, rp.Graph
	}
	return r, w.Trace, w
}

func robustExpectation(p *prog.Program, r *verdict.RobustResult) *expect.Expectation {
	return expect.Robust(p, expect.Answer{Robust: r.Robust, Certain: r.Certain(), Limited: r.Limit != nil, Bound: r.Bound})
}

// cycleLines prints the sc cycle of a machine's event graph.
func cycleLines(p *prog.Program, g *machine.Graph) []string {
	var cyc []report.CycleEvent
	for k, i := range g.Cycle {
		e := g.Events[i]
		next := g.Cycle[(k+1)%len(g.Cycle)]
		cyc = append(cyc, report.CycleEvent{Thread: p.Threads[e.Thread].Name, Event: p.EventString(e.Event), Rel: g.EdgeKind(i, next)})
	}
	return report.CycleLines(cyc)
}

func writeRobustText(w io.Writer, p *prog.Program, r *verdict.RobustResult, trace *axiom.Trace, dw *decide.Witness, ex *expect.Expectation) {
	switch {
	case r.Limit != nil:
		fmt.Fprintf(w, "Robust %s: unknown (%s, %s)\n", p.Name, r.Method, r.Bound)
	case !r.Robust && dw != nil:
		fmt.Fprintf(w, "Robust %s: no (%s, %s states%s)\n", p.Name, r.Method, report.Count(r.Search.States), raceNote(r))
		fmt.Fprintln(w, "Violation: τ = τ1 τ2, an RDMA-consistent trace (every ob edge forward in τ) whose sc = po ∪ rf ∪ rb ∪ mo has a cycle:")
		for _, line := range strings.Split(strings.TrimSuffix(dw.Format(p), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
		fmt.Fprintln(w, "  sc cycle:")
		for _, line := range traceCycleLines(p, trace) {
			fmt.Fprintf(w, "    %s\n", line)
		}
		if r.Witness != nil {
			fmt.Fprintf(w, "Replayed on the RDMA machine (%s):\n", report.Plural(len(r.Witness.Steps), "step"))
			report.WriteRun(w, "", verdict.RDMA, r.Witness)
		}
	case !r.Robust && trace != nil:
		fmt.Fprintf(w, "Robust %s: no (%s, %s candidate traces%s)\n", p.Name, r.Method, report.Count(r.Search.States), raceNote(r))
		fmt.Fprintln(w, "Violation: an RDMA-consistent trace (ob acyclic) whose sc = po ∪ rf ∪ rb ∪ mo has a cycle:")
		for _, line := range traceCycleLines(p, trace) {
			fmt.Fprintf(w, "  %s\n", line)
		}
		fmt.Fprintln(w, "Trace:")
		for _, line := range strings.Split(strings.TrimSuffix(trace.Format(p), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	case !r.Robust:
		fmt.Fprintf(w, "Robust %s: no (%s, %s configurations%s)\n", p.Name, r.Method, report.Count(r.Search.States), raceNote(r))
		fmt.Fprintln(w, "Violation: an RDMA execution whose sc = po ∪ rf ∪ rb ∪ mo has a cycle:")
		for _, line := range cycleLines(p, r.Graph) {
			fmt.Fprintf(w, "  %s\n", line)
		}
		fmt.Fprintf(w, "Run to the violation (%s):\n", report.Plural(len(r.Witness.Steps), "step"))
		report.WriteRun(w, "", verdict.RDMA, r.Witness)
	case r.Complete && r.Method == "decide":
		fmt.Fprintf(w, "Robust %s: yes (%s, %s states, complete%s)\n", p.Name, r.Method, report.Count(r.Search.States), raceNote(r))
	case r.Complete:
		fmt.Fprintf(w, "Robust %s: yes (%s, %s configurations, complete%s)\n", p.Name, r.Method, report.Count(r.Search.States), raceNote(r))
	case r.Coverage() == verdict.WithinBounds:
		fmt.Fprintf(w, "Robust %s: yes within bounds (%s, %s, cut by %s%s)\n", p.Name, r.Method, searched(r.Method, r.Search.States), r.Bound, raceNote(r))
	default:
		fmt.Fprintf(w, "Robust %s: unknown (%s, %s, stopped by %s%s)\n", p.Name, r.Method, searched(r.Method, r.Search.States), r.Bound, raceNote(r))
	}
	if ex != nil {
		fmt.Fprintln(w, ex)
	}
}

// raceNote is what the headline of an answer of method auto says about the
// method that raced the one that answered: "; decide stopped", or, when
// neither answer was certain, what cut it ("; enum-machine stopped by
// max-states=5"). Empty for a method that ran alone.
func raceNote(r *verdict.RobustResult) string {
	var b strings.Builder
	for _, st := range r.Stopped {
		b.WriteString("; " + st.Method + " stopped")
		if st.Bound != "" {
			b.WriteString(" by " + st.Bound)
		}
	}
	return b.String()
}

// searched counts what a robustness method searched: the decider states
// of its instrumented machine, enum-axiom candidate traces, enum-machine
// configurations of the RDMA machine.
func searched(method string, n uint64) string {
	word := "configuration"
	switch method {
	case "decide":
		word = "state"
	case "enum-axiom":
		word = "candidate trace"
	}
	return report.Plural(int(n), word)
}

// traceCycleLines prints the sc cycle of a model trace, as cycleLines
// prints a machine's.
func traceCycleLines(p *prog.Program, t *axiom.Trace) []string {
	cyc := t.SCCycle()
	r := t.Relations()
	var out []report.CycleEvent
	for k, a := range cyc {
		ev := t.Events[a]
		who := "init"
		if ev.Thread >= 0 {
			who = p.Threads[ev.Thread].Name
		}
		out = append(out, report.CycleEvent{Thread: who, Event: p.EventString(ev.Event), Rel: r.EdgeKind(a, cyc[(k+1)%len(cyc)])})
	}
	return report.CycleLines(out)
}

// newRobustJSON is the JSON form of one method's answer for file.
func newRobustJSON(file string, p *prog.Program, r *verdict.RobustResult, trace *axiom.Trace, dw *decide.Witness, ex *expect.Expectation) robustJSON {
	out := robustJSON{File: file, Name: p.Name, Complete: r.Certain(), Coverage: r.Coverage(), Bound: r.Bound,
		Method: r.Method, Stopped: r.Stopped, States: r.Search.States, Expect: ex}
	if r.Certain() {
		robust := r.Robust
		out.Robust = &robust
	}
	switch {
	case !r.Robust && dw != nil:
		out.Coverage = verdict.Complete
		out.Witness = &witnessJSON{Cycle: traceCycleLines(p, trace), Trace: strings.Split(strings.TrimSuffix(trace.Format(p), "\n"), "\n")}
		for i, e := range dw.Tau {
			if i < dw.Split {
				out.Witness.Tau1 = append(out.Witness.Tau1, dw.EventString(p, e))
			} else {
				out.Witness.Tau2 = append(out.Witness.Tau2, dw.EventString(p, e))
			}
		}
		out.Witness.Run = report.NewRun(r.Witness, p.ThreadName)
	case !r.Robust && trace != nil:
		out.Coverage = verdict.Complete
		out.Witness = &witnessJSON{Cycle: traceCycleLines(p, trace), Trace: strings.Split(strings.TrimSuffix(trace.Format(p), "\n"), "\n")}
	case !r.Robust:
		out.Coverage = verdict.Complete // a violation is certain whatever the search covered
		out.Witness = &witnessJSON{Cycle: cycleLines(p, r.Graph), Run: report.NewRun(r.Witness, p.ThreadName)}
	}
	return out
}

// robustMethodsJSON is the JSON form of robust with several methods
// (--method both or all): one object per file, with each method's answer.
type robustMethodsJSON struct {
	File string `json:"file"`
	Name string `json:"name"`
	// Robust is the methods' certain answer: null when none is certain,
	// or when they disagree.
	Robust *bool `json:"robust"`
	// Complete: Robust is certain.
	Complete bool `json:"complete"`
	// Agree: no two certain answers differ (when false, the exit code is
	// 1).
	Agree bool `json:"agree"`
	// Methods holds each method's answer, in the order they ran, as robust
	// --json prints it with that method alone (without file and name),
	// or the method and its error.
	Methods []robustJSON `json:"methods"`
	// Expect is the expect robust line checked against Robust: fail when
	// the methods disagree.
	Expect *expect.Expectation `json:"expect"`
}

// newRobustMethodsJSON is the JSON form of the answers of several methods
// for one file; reports are their JSON forms (or errors).
func newRobustMethodsJSON(file string, p *prog.Program, answers []*verdict.RobustResult, reports []robustJSON, agree bool) robustMethodsJSON {
	out := robustMethodsJSON{File: file, Name: p.Name, Agree: agree, Methods: reports}
	for i := range out.Methods {
		out.Methods[i].File, out.Methods[i].Name = "", ""
	}
	if len(answers) == 0 {
		return out
	}
	best := answers[0]
	for _, a := range answers {
		if a.Certain() {
			best = a
			break
		}
	}
	if agree && best.Certain() {
		yes := best.Robust
		out.Robust, out.Complete = &yes, true
	}
	out.Expect = robustExpectation(p, best)
	if out.Expect != nil && !agree {
		out.Expect.Status, out.Expect.Why = expect.Fail, "the methods disagree"
	}
	return out
}
