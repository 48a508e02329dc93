// Package play is the playground's API: what the page in the browser asks
// rdmasim, and what it shows. A Request names a command (check, robust,
// stress, reach), carries the program's text and the options the page's
// controls set; Run answers it with a Response holding what the CLI would
// print for that file (the herd-style text and the --json object, built by
// the same renderers: check, robust, stress, report), a short list of
// verdicts for the page's headline, the execution graph of a witness or
// violation (Graph, a layout-free description the page draws as SVG) and
// the witness run with every configuration whole (Trace, for the
// step-through). Diagnose parses a program and lists its errors with their
// line and column, for marking them as the user types.
//
// The package is pure Go: the WebAssembly glue (cmd/rdmasim-wasm) only
// decodes a Request from JSON, calls Run and encodes the Response, so that
// everything the page shows is tested natively, without a browser.
//
// The searches run on one worker and keep their visited sets, frontiers and
// parent records in memory (explore.Choices with Store "mem" and no
// budget flag): in WebAssembly there is no disk to spill to, and a visited
// set past store.DefaultBudget (1 GiB there) stops the search with
// store.ErrNoDisk.
package play

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/check"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/stress"
	"rdmasim/opsem/verdict"
	"rdmasim/store"
)

// The commands of a Request.
const (
	Check  = "check"  // rdmasim check: the query under RDMA and SC, the expect lines
	Robust = "robust" // rdmasim robust: by Options.Method, auto by default as the CLI's
	Stress = "stress" // rdmasim stress: random walks, a histogram of outcomes
	// Reach explores the reachable configurations (rdmasim explore's
	// statistics), with the witness of the query when it has one.
	Reach = "reach"
	// Outcome finds a run to one final outcome (Request.Outcome) under one
	// semantics, and draws an execution that ends in it: the witness of
	// any row of check's outcomes, whatever the condition says.
	Outcome = "outcome"
	// Repair is rdmasim repair: the polls, rfences and read-backs that
	// make the program robust (Options.Goal "robust", the default) or its
	// query hold under RDMA ("query"), with the repaired text.
	Repair = "repair"
)

// Request is what the page asks.
type Request struct {
	Command string `json:"command"`
	// File is the name the program goes by in reports and JSON ("file"):
	// the example's path (corpus/litmus/PUT-LW.rdma) or the user's name.
	File    string  `json:"file"`
	Program string  `json:"program"` // the .rdma text
	Options Options `json:"options"`
	// Outcome is the final outcome an Outcome request looks for.
	Outcome *OutcomeRequest `json:"outcome,omitempty"`
}

// OutcomeRequest names a final outcome: the values of some locations
// (those a row of check's outcomes shows), under a semantics (rdma or sc).
type OutcomeRequest struct {
	Semantics string           `json:"semantics"`
	Values    map[string]uint8 `json:"values"`
}

// Options are the page's controls, named and defaulted as the CLI's flags.
type Options struct {
	MaxStates   uint64 `json:"max_states,omitempty"`   // --max-states; 0: no limit
	Timeout     string `json:"timeout,omitempty"`      // --timeout, e.g. "30s"; "": none
	MaxInflight int    `json:"max_inflight,omitempty"` // --max-inflight; 0: the machine's default
	Unroll      int    `json:"unroll,omitempty"`       // --unroll
	NoReduce    bool   `json:"no_reduce,omitempty"`    // --reduce=false
	// Placement is --placement: the order in which the words of a
	// multi-word put or get reach memory, any ("": the default) or
	// in-order (SEMANTICS-VERBS.md 1).
	Placement string `json:"placement,omitempty"`
	// Semantics: check's --semantics (machine, axiom, both; "": machine),
	// stress's and reach's (rdma, sc; "": rdma).
	Semantics string `json:"semantics,omitempty"`
	// Method is robust's --method; "": auto, the CLI's default (all runs
	// the decider and both enumerations and compares them).
	Method string  `json:"method,omitempty"`
	Walks  uint64  `json:"walks,omitempty"` // stress --walks; 0: 10000
	Seed   uint64  `json:"seed,omitempty"`  // stress --seed; 0: 1
	Bias   float64 `json:"bias,omitempty"`  // stress --bias
	// First stops stress at the first walk that decides the query, whose
	// run becomes the Trace.
	First bool `json:"first,omitempty"`
	// Goal is repair's --goal: robust ("": the default) or query.
	Goal string `json:"goal,omitempty"`
}

// Response is the answer to a Request.
type Response struct {
	Command string `json:"command"`
	File    string `json:"file"`
	// Query is the program's query as the CLI's JSON names it ("exists
	// x=1", "reach client@fail" for a program whose asserts or error
	// points make the query); "" for a program without one, whose check
	// lists its final outcomes and gives no verdict on a condition.
	Query string `json:"query,omitempty"`
	// Text is what the CLI prints for the file (its report), and JSON its
	// --json object for the file.
	Text string          `json:"text"`
	JSON json.RawMessage `json:"json,omitempty"`
	// Errors are the parse errors (with line and column), or the one
	// error that kept the command from answering.
	Errors []Diagnostic `json:"errors,omitempty"`
	// Verdicts sum the answer up, one per question, for the headline.
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// Graph is the execution of a witness or violation, when there is
	// one to draw; GraphNote says why there is none when one was looked
	// for.
	Graph     *Graph `json:"graph,omitempty"`
	GraphNote string `json:"graph_note,omitempty"`
	// Trace is the witness run (of a check, of a reach query), the run to
	// a violation, or the first deciding walk of a stress run.
	Trace *Trace `json:"trace,omitempty"`
	// Repair is a repair's answer (command repair).
	Repair *RepairAnswer `json:"repair,omitempty"`
	// Interrupted: the request was stopped (its context cancelled); the
	// report covers what was explored, as the CLI's after Ctrl-C, and
	// Text starts with the line the CLI prints then (on stderr), saying
	// so and what was explored, before the report's header (herd's "Test
	// NAME Allowed" names the kind of test, not an answer).
	Interrupted bool `json:"interrupted,omitempty"`
	// explored says what a stopped request explored, for that line:
	// "1,234 configurations under rdma, none under sc".
	explored string
	// Millis is how long the command ran.
	Millis int64 `json:"millis"`
}

// Verdict is one answer of a Response: Name is the question ("rdma", "sc",
// "expect rdma", "robust", a robustness method), Value the answer in the
// words of the CLI's JSON ("allowed", "forbidden", "unknown"; "yes", "no";
// "ok", "fail"), Detail how complete it is.
type Verdict struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Detail string `json:"detail,omitempty"`
}

// Diagnostic is an error at a line and column of the program (both from 1;
// 0 when the error has no position).
type Diagnostic struct {
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

// Progress is how a running request goes, about once a second: Line is
// the CLI's progress line (report.SearchLine or report.WorkLine).
type Progress struct {
	Search string `json:"search"`
	States uint64 `json:"states"` // states of a search, walks of a stress run
	Depth  int    `json:"depth"`
	Millis int64  `json:"millis"`
	Line   string `json:"line"`
	// Method (robust) is the method running: "decide (2 of 3)" when
	// several run in turn. Verdicts are the answers of the methods that
	// have answered so far (the page shows them at once, and keeps them
	// if it has to give up on a later method that does not stop).
	Method   string    `json:"method,omitempty"`
	Verdicts []Verdict `json:"verdicts,omitempty"`
}

// Diagnose parses src (named file in messages) and returns its errors,
// an empty list (never nil, so that its JSON is [] and not null) when it
// parses.
func Diagnose(file, src string) []Diagnostic {
	_, err := parse.Parse(file, []byte(src))
	if err == nil {
		return []Diagnostic{}
	}
	return diagnostics(err)
}

// diagnostics lists err's parse errors with their positions, or err as one
// Diagnostic without a position.
func diagnostics(err error) []Diagnostic {
	if err == nil {
		return nil
	}
	var list parse.ErrorList
	if !errors.As(err, &list) {
		return []Diagnostic{{Message: err.Error()}}
	}
	out := make([]Diagnostic, 0, len(list))
	for _, e := range list {
		out = append(out, Diagnostic{Line: e.Pos.Line, Col: e.Pos.Col, Message: e.Msg})
	}
	return out
}

// Run answers req, calling progress (when not nil) about once a second
// from the goroutine that runs the search. Cancelling ctx stops the search
// as Ctrl-C stops the CLI's: the response covers what was explored and
// says Interrupted. Errors (a program that does not parse, bad options, a
// failed search) are in Response.Errors.
func Run(ctx context.Context, req Request, progress func(Progress)) *Response {
	start := time.Now()
	resp := &Response{Command: req.Command, File: req.File}
	if resp.File == "" {
		resp.File = "playground.rdma"
	}
	p, err := parse.Parse(resp.File, []byte(req.Program))
	if err != nil {
		resp.Errors = diagnostics(err)
		resp.Text = report.ErrorText(err)
		resp.JSON = encode(report.NewFileError(resp.File, err))
		return resp
	}
	if p.Query.Kind != prog.QNone {
		resp.Query = p.Query.Kind.String() + " " + p.CondString(p.Query.Cond)
	}
	switch req.Command {
	case Check:
		err = runCheck(ctx, p, req.Options, progress, resp)
	case Robust:
		err = runRobust(ctx, p, req.Options, progress, resp)
	case Stress:
		err = runStress(ctx, p, req.Options, progress, resp)
	case Reach:
		err = runReach(ctx, p, req.Options, progress, resp)
	case Outcome:
		err = runOutcome(ctx, p, req.Options, req.Outcome, progress, resp)
	case Repair:
		err = runRepair(ctx, req.Program, req.Options, progress, resp)
	default:
		err = fmt.Errorf("unknown command %q: want %s, %s, %s, %s, %s or %s", req.Command, Check, Robust, Stress, Reach, Outcome, Repair)
	}
	linkSteps(resp.Graph, resp.Trace)
	if err != nil {
		resp.Errors = diagnostics(err)
		resp.Text = fmt.Sprintf("rdmasim %s: %s: %v", req.Command, resp.File, err)
		resp.JSON = encode(report.NewFileError(resp.File, err))
	}
	resp.Interrupted = ctx.Err() != nil
	resp.Millis = time.Since(start).Milliseconds()
	if resp.Interrupted && err == nil {
		resp.Text = stoppedLine(req.Command, time.Duration(resp.Millis)*time.Millisecond, resp.explored) + "\n\n" + resp.Text
	}
	return resp
}

// stoppedLine is the first line of a stopped request's report: what the
// CLI says on stderr after Ctrl-C ("rdmasim check: interrupted; the
// verdicts above cover what was explored"), with when and what was
// explored, so that the report below, whose herd-style header names the
// test's kind ("Test mp5 Allowed": an exists test), is not read as an
// answer.
func stoppedLine(command string, d time.Duration, explored string) string {
	s := fmt.Sprintf("rdmasim %s: interrupted after %s; the report below covers only what was explored", command, d.Round(10*time.Millisecond))
	if explored != "" {
		s += ": " + explored
	}
	return s
}

// configurations says how many configurations a search explored under
// semantics sem: "1,234 configurations under rdma".
func configurations(n uint64, sem string) string {
	return report.Plural(int(n), "configuration") + " under " + sem
}

// encode returns v as JSON, without HTML escaping, as the CLI prints it.
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage(fmt.Sprintf("{\"error\":%q}", err.Error()))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// searchOptions turns the page's options into the searches' options, as
// the CLI's search flags do, with progress reported through progress.
func searchOptions(o Options, progress func(Progress)) (verdict.Options, error) {
	c := explore.Choices{Order: "bfs", MaxStates: o.MaxStates, Workers: 1, Store: "mem"}
	if o.Timeout != "" {
		d, err := time.ParseDuration(o.Timeout)
		if err != nil || d < 0 {
			return verdict.Options{}, fmt.Errorf("timeout %q: want a duration such as 30s", o.Timeout)
		}
		c.Timeout = d
	}
	st, err := c.Settings()
	if err != nil {
		return verdict.Options{}, err
	}
	mo, err := machineOptions(o)
	if err != nil {
		return verdict.Options{}, err
	}
	mo.Reduce = !o.NoReduce
	if progress != nil {
		var rates report.Rates
		st.Progress = func(s explore.Stats) {
			progress(Progress{Search: s.Search, States: s.States, Depth: s.MaxDepth, Millis: s.Elapsed.Milliseconds(),
				Line: report.SearchLine(s, &rates, report.PeakRSS())})
		}
	}
	return verdict.Options{Machine: mo, Settings: st}, nil
}

// machineOptions are the machine's bounds and placement of o, checked as
// the CLI's flags.
func machineOptions(o Options) (machine.Options, error) {
	mo := machine.DefaultOptions()
	if o.MaxInflight != 0 {
		mo.MaxInflight = o.MaxInflight
	}
	mo.Unroll = o.Unroll
	if o.Placement != "" {
		p, err := machine.ParsePlacement(o.Placement)
		if err != nil {
			return mo, fmt.Errorf("--placement: %w", err)
		}
		mo.Placement = p
	}
	if err := machine.InflightBound.CheckFlag(mo.MaxInflight); err != nil {
		return mo, err
	}
	return mo, machine.UnrollBound.CheckFlag(mo.Unroll)
}

// semantics reads stress's and reach's semantics, rdma by default.
func semantics(s string) (machine.Semantics, error) {
	if s == "" {
		return machine.RDMA, nil
	}
	sem, err := machine.ParseSemantics(s)
	if err != nil {
		return 0, fmt.Errorf("semantics %w", err)
	}
	return sem, nil
}

// runCheck answers p's query under RDMA and SC, as rdmasim check --json
// (witnesses included) and check -w print it.
func runCheck(ctx context.Context, p *prog.Program, o Options, progress func(Progress), resp *Response) error {
	opt, err := searchOptions(o, progress)
	if err != nil {
		return err
	}
	opt.Witness = true
	sem := check.Semantics(o.Semantics)
	switch sem {
	case "":
		sem = check.Machine
	case check.Machine, check.Axiom, check.Both:
	default:
		return fmt.Errorf("semantics %q: want machine, axiom or both", o.Semantics)
	}
	r, err := check.Answer(ctx, p, check.Options{Semantics: sem, Verdict: opt})
	if err != nil {
		return err
	}
	if err := r.CheckExpect(ctx, opt); err != nil {
		return err
	}
	var text bytes.Buffer
	check.WriteText(&text, r, true)
	resp.Text = text.String()
	j := r.JSON(resp.File)
	resp.JSON = encode(j)
	for _, s := range []*check.SemanticsJSON{j.RDMA, j.SC} {
		name := semName(j, s)
		if j.Query == "" {
			// No condition, so no verdict: the CLI lists the final
			// outcomes ("States 2") and how completely it searched.
			resp.Verdicts = append(resp.Verdicts, Verdict{Name: name + " outcomes", Value: fmt.Sprint(len(s.Outcomes)), Detail: string(s.Coverage)})
			continue
		}
		resp.Verdicts = append(resp.Verdicts, Verdict{Name: name, Value: allowedWord(s.Allowed), Detail: string(s.Coverage)})
	}
	var explored []string
	for _, res := range r.Results {
		explored = append(explored, configurations(res.Search.States, res.Semantics.String()))
	}
	resp.explored = strings.Join(explored, ", ")
	for _, x := range j.Expect {
		resp.Verdicts = append(resp.Verdicts, Verdict{Name: "expect " + x.Sem, Value: string(x.Status), Detail: x.Expected})
	}
	for _, res := range r.Results {
		if res.Witness != nil {
			resp.Trace = newTrace(fmt.Sprintf("Witness (%s, %s)", res.Semantics, report.Plural(len(res.Witness.Steps), "step")), res.Semantics, res.Witness, p)
			break
		}
	}
	resp.Graph, resp.GraphNote = witnessGraph(ctx, p, r.Results[0], o)
	return nil
}

// semName names the semantics s of j: rdma or sc.
func semName(j check.JSON, s *check.SemanticsJSON) string {
	if s == j.RDMA {
		return "rdma"
	}
	return "sc"
}

// Word is a three-valued JSON field (allowed, robust, holds) in the words
// of a Verdict: yes when true, no when false, "unknown" when null.
func Word(b *bool, yes, no string) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return yes
	}
	return no
}

// allowedWord is a JSON allowed field in words.
func allowedWord(b *bool) string { return Word(b, "allowed", "forbidden") }

// yesNo is a JSON robust field in words.
func yesNo(b *bool) string { return Word(b, "yes", "no") }

// runRobust decides p's robustness by o.Method (auto by default, as the
// CLI), as rdmasim robust --json prints it. With several methods (both,
// all), which one runs and each answer as it comes are reported through
// progress.
func runRobust(ctx context.Context, p *prog.Program, o Options, progress func(Progress), resp *Response) error {
	// The progress of the searches says which method runs, and what the
	// methods before it answered (the searches may report from another
	// goroutine than DecideAll's: mu guards the two).
	var (
		mu      sync.Mutex
		running string
		found   []Verdict // the answers so far, for Progress.Verdicts
	)
	relay := progress
	if progress != nil {
		relay = func(pr Progress) {
			mu.Lock()
			pr.Method, pr.Verdicts = running, found
			mu.Unlock()
			progress(pr)
		}
	}
	opt, err := searchOptions(o, relay)
	if err != nil {
		return err
	}
	name := o.Method
	if name == "" {
		name = string(robust.Auto)
	}
	methods, ok := robust.Methods(name)
	if !ok {
		return fmt.Errorf("method %q: want auto, decide, enum-machine, enum-axiom, both or all", name)
	}
	verdictOf := func(m robust.Method, r *robust.Result, err error) Verdict {
		if err != nil {
			// As the CLI's JSON: no answer (robust null), and why (a
			// method that refuses the program, as the decider refuses
			// remote atomics, or a limit).
			return Verdict{Name: string(m), Value: "unknown", Detail: err.Error()}
		}
		j := r.JSON(resp.File)
		return Verdict{Name: string(r.Method), Value: yesNo(j.Robust), Detail: string(j.Coverage)}
	}
	ro := robust.Options{Verdict: opt, MaxBytes: store.DefaultBudget(), Deadlocks: true}
	// (The decider's Karp–Miller search, a poll on a loop, keeps every
	// state in memory: it stops, cut, at the visited set's budget.)
	if progress != nil {
		ro.Started = func(i int, m robust.Method) {
			name := string(m)
			if len(methods) > 1 {
				name = fmt.Sprintf("%s (%d of %d)", m, i+1, len(methods))
			}
			mu.Lock()
			running = name
			mu.Unlock()
			relay(Progress{Search: name, Line: "robust: running " + name})
		}
		ro.Answered = func(i int, r *robust.Result, err error) {
			v := verdictOf(methods[i], r, err)
			mu.Lock()
			found = append(found[:len(found):len(found)], v) // a new array: relayed lists stay as they were
			name := running
			mu.Unlock()
			relay(Progress{Search: name, Line: "robust: " + name + " answered " + v.Value})
		}
	}
	all := robust.DecideAll(ctx, p, methods, ro)
	var text bytes.Buffer
	var explored []string
	for i, r := range all.Results {
		if err := all.Errs[i]; err != nil {
			if len(methods) == 1 {
				return err
			}
			fmt.Fprintf(&text, "rdmasim robust: %s: %v\n", resp.File, err)
			resp.Verdicts = append(resp.Verdicts, verdictOf(methods[i], nil, err))
			continue
		}
		robust.WriteText(&text, r)
		resp.Verdicts = append(resp.Verdicts, verdictOf(methods[i], r, nil))
		explored = append(explored, fmt.Sprintf("%s %s", r.Method, report.Plural(int(r.Search.States), r.Unit())))
		if !r.Robust && resp.Graph == nil {
			if g := violationGraph(r); g != nil {
				resp.Graph = newGraph(g)
			}
			if r.Run != nil {
				resp.Trace = newTrace(fmt.Sprintf("Run to the violation (%s, %s)", r.Method, report.Plural(len(r.Run.Steps), "step")), machine.RDMA, r.Run, p)
				resp.Trace.Cond = nil // the run answers robustness, not the condition
			}
		}
	}
	for _, d := range all.Disagreements {
		fmt.Fprintf(&text, "rdmasim robust: %s: the methods disagree: %s says %s, %s says %s\n",
			resp.File, d[0].Method, yesNo(&d[0].Robust), d[1].Method, yesNo(&d[1].Robust))
	}
	resp.Text = text.String()
	resp.explored = strings.Join(explored, ", ")
	if len(methods) == 1 {
		j := all.Results[0].JSON(resp.File)
		resp.JSON = encode(j)
	} else {
		j := all.JSON(resp.File)
		resp.JSON = encode(j)
		resp.Verdicts = append([]Verdict{{Name: "robust", Value: yesNo(j.Robust), Detail: agreeWord(all)}}, resp.Verdicts...)
	}
	if all.Expect != nil {
		resp.Verdicts = append(resp.Verdicts, Verdict{Name: "expect robust", Value: string(all.Expect.Status), Detail: all.Expect.Expected})
	}
	return nil
}

// agreeWord says how the methods of all agree, for the detail of the
// robust verdict: "all methods agree", "2 of 3 methods certain, they
// agree", "no method certain", "the methods disagree". (Read after the
// value: "robust: no (all methods agree)", never "no methods agree".)
func agreeWord(all *robust.All) string {
	if !all.Agree() {
		return "the methods disagree"
	}
	certain := 0
	for _, r := range all.Results {
		if r != nil && r.Certain() {
			certain++
		}
	}
	switch certain {
	case len(all.Methods):
		return "all methods agree"
	case 0:
		return "no method certain"
	}
	return fmt.Sprintf("%d of %d methods certain, they agree", certain, len(all.Methods))
}

// runStress takes random walks of p, as rdmasim stress --json prints them.
func runStress(ctx context.Context, p *prog.Program, o Options, progress func(Progress), resp *Response) error {
	sem, err := semantics(o.Semantics)
	if err != nil {
		return err
	}
	mo, err := machineOptions(o)
	if err != nil {
		return err
	}
	opt := stress.Options{Semantics: sem, Machine: mo, Walks: o.Walks, Seed: o.Seed, Bias: o.Bias, First: o.First, Depth: stress.DefaultDepth}
	if opt.Walks == 0 {
		opt.Walks = 10000
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if err := opt.CheckFlags(); err != nil {
		return err
	}
	if progress != nil {
		var rates report.Rates
		opt.Progress = func(s stress.Progress) {
			progress(Progress{Search: p.Name + " stress", States: s.Walks, Millis: s.Elapsed.Milliseconds(),
				Line: report.WorkLine(&rates, p.Name+" stress", "walks", s.Walks, opt.Walks, s.Elapsed, report.Count(s.Steps)+" steps")})
		}
	}
	r, err := stress.Run(ctx, p, opt)
	if err != nil {
		return err
	}
	var text bytes.Buffer
	stress.WriteText(&text, p, opt, r)
	resp.Text = text.String()
	resp.JSON = encode(r.JSON(resp.File, p, opt))
	resp.explored = report.Plural(int(r.Walks), "walk")
	resp.Verdicts = []Verdict{{Name: "walks", Value: report.Count(r.Walks)}}
	if p.Query.Kind != prog.QNone {
		resp.Verdicts = append(resp.Verdicts, Verdict{Name: "positive", Value: report.Count(r.Positive)}, Verdict{Name: "negative", Value: report.Count(r.Negative)})
	}
	if w := r.First; w != nil && w.Run != nil {
		resp.Trace = newTrace(fmt.Sprintf("Walk %d (%s, %s)", w.Walk, sem, report.Plural(len(w.Run.Steps), "step")), sem, w.Run, p)
	}
	return nil
}

// runReach explores every reachable configuration of p's machine, as
// rdmasim explore --json prints its statistics, keeping the witness of p's
// query (a reach query's configuration, say) for the step-through.
func runReach(ctx context.Context, p *prog.Program, o Options, progress func(Progress), resp *Response) error {
	sem, err := semantics(o.Semantics)
	if err != nil {
		return err
	}
	opt, err := searchOptions(o, progress)
	if err != nil {
		return err
	}
	opt.Witness = p.Query.Kind != prog.QNone
	r, err := verdict.Compute(ctx, p, sem, opt)
	if err != nil {
		return err
	}
	stats := report.NewStats(resp.File, p, r, report.PeakRSS())
	var text bytes.Buffer
	report.WriteStats(&text, stats)
	resp.Text = text.String()
	resp.JSON = encode(stats)
	resp.explored = configurations(stats.States, sem.String())
	coverage := string(r.Coverage())
	resp.Verdicts = []Verdict{{Name: "configurations", Value: report.Count(stats.States), Detail: coverage}}
	if p.Query.Kind != prog.QNone {
		holds, certain := r.Holds()
		value := "unknown"
		if certain {
			value = fmt.Sprint(holds)
		}
		resp.Verdicts = append(resp.Verdicts, Verdict{Name: p.Query.Kind.String() + " " + p.CondString(p.Query.Cond), Value: value, Detail: coverage})
	}
	if r.Witness != nil {
		resp.Trace = newTrace(fmt.Sprintf("Witness (%s, %s)", sem, report.Plural(len(r.Witness.Steps), "step")), sem, r.Witness, p)
	}
	return nil
}
