package play

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/opsem/check"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
)

const litmus = "../../corpus/litmus/"

func request(t *testing.T, command, file string, o Options) Request {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return Request{Command: command, File: file, Program: string(src), Options: o}
}

// verdicts returns a response's verdicts by name.
func verdicts(r *Response) map[string]string {
	m := map[string]string{}
	for _, v := range r.Verdicts {
		m[v.Name] = v.Value
	}
	return m
}

// TestCheckVerdicts: on every litmus test, check's verdicts say what its
// JSON says, and the witness's trace is consistent: each frame's memory is
// the previous one's with the step's changes, and the last frame is where
// the JSON's witness ends.
func TestCheckVerdicts(t *testing.T) {
	files, err := filepath.Glob(litmus + "*.rdma")
	if err != nil || len(files) < 20 {
		t.Fatalf("litmus tests: %v, %d", err, len(files))
	}
	if testing.Short() {
		files = files[:20]
	}
	for _, file := range files {
		r := Run(context.Background(), request(t, Check, file, Options{}), nil)
		if len(r.Errors) > 0 {
			t.Fatalf("%s: %v", file, r.Errors)
		}
		var j check.JSON
		if err := json.Unmarshal(r.JSON, &j); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		v := verdicts(r)
		if v["rdma"] != allowedWord(j.RDMA.Allowed) || v["sc"] != allowedWord(j.SC.Allowed) {
			t.Errorf("%s: verdicts %v, JSON rdma %v sc %v", file, v, j.RDMA.Allowed, j.SC.Allowed)
		}
		for _, x := range j.Expect {
			if v["expect "+x.Sem] != string(x.Status) {
				t.Errorf("%s: verdict expect %s = %q, JSON %q", file, x.Sem, v["expect "+x.Sem], x.Status)
			}
		}
		if !strings.HasPrefix(r.Text, "Test "+j.Name) {
			t.Errorf("%s: text %q", file, r.Text)
		}
		w := j.RDMA.Witness
		if w == nil {
			w = j.SC.Witness
		}
		if (w == nil) != (r.Trace == nil) {
			t.Fatalf("%s: witness %v, trace %v", file, w != nil, r.Trace != nil)
		}
		if w != nil {
			checkTrace(t, file, r.Trace, w)
		}
	}
}

// checkTrace checks that tr replays run: one frame per configuration, each
// frame's memory the previous one's with the step's changes applied.
func checkTrace(t *testing.T, file string, tr *Trace, run *report.Run) {
	t.Helper()
	if len(tr.Frames) != len(run.Steps)+1 || tr.Frames[0].Step != nil {
		t.Fatalf("%s: %d frames for %d steps", file, len(tr.Frames), len(run.Steps))
	}
	mem := memory(tr.Frames[0].Config)
	for i, s := range run.Steps {
		f := tr.Frames[i+1]
		if f.Step == nil || f.Step.Actor != s.Actor || f.Step.Event != s.Event {
			t.Fatalf("%s: frame %d step %+v, run step %+v", file, i+1, f.Step, s)
		}
		for _, c := range s.Memory {
			if mem[c.Loc] != c.From {
				t.Errorf("%s: step %d changes %s from %d, the frame before shows %d", file, i+1, c.Loc, c.From, mem[c.Loc])
			}
			mem[c.Loc] = c.To
		}
		got := memory(f.Config)
		for loc, v := range mem {
			if got[loc] != v {
				t.Errorf("%s: frame %d shows %s = %d, want %d", file, i+1, loc, got[loc], v)
			}
		}
	}
}

func memory(c machine.Config) map[string]uint8 {
	m := map[string]uint8{}
	for _, n := range c.Nodes {
		for _, l := range n.Locs {
			m[l.Loc] = l.Value
		}
	}
	return m
}

// TestRobustViolation: robust by every method on paper-5.1 says no by each
// ("robust: no (all methods agree)"), draws the violation with its bold sc
// cycle and steps through the run to it, every queue pair's buffers shown
// at every frame.
func TestRobustViolation(t *testing.T) {
	r := Run(context.Background(), request(t, Robust, litmus+"paper-5.1.rdma", Options{Method: "all"}), nil)
	var j robust.AllJSON
	if err := json.Unmarshal(r.JSON, &j); err != nil {
		t.Fatal(err)
	}
	v := verdicts(r)
	if v["robust"] != "no" || len(j.Methods) != 3 {
		t.Fatalf("verdicts %v, methods %d", v, len(j.Methods))
	}
	if r.Verdicts[0].Name != "robust" || r.Verdicts[0].Detail != "all methods agree" {
		t.Errorf("the headline verdict %+v, want robust no, all methods agree", r.Verdicts[0])
	}
	for _, m := range j.Methods {
		if v[string(m.Method)] != yesNo(m.Robust) {
			t.Errorf("%s: verdict %q, JSON %v", m.Method, v[string(m.Method)], m.Robust)
		}
	}
	if r.Graph == nil || r.Graph.Bold == "" || len(r.Graph.Key) == 0 {
		t.Fatalf("graph %+v", r.Graph)
	}
	bold := 0
	for _, e := range r.Graph.Edges {
		if e.From < 0 || e.From >= len(r.Graph.Events) || e.To < 0 || e.To >= len(r.Graph.Events) {
			t.Fatalf("edge %+v outside the %d events", e, len(r.Graph.Events))
		}
		if e.Bold {
			bold++
		}
	}
	if bold < 2 {
		t.Errorf("%d bold edges: no cycle", bold)
	}
	if r.Trace == nil || len(r.Trace.Frames) < 2 {
		t.Fatalf("trace %+v", r.Trace)
	}
	for i, f := range r.Trace.Frames {
		if len(f.Config.QueuePairs) != 1 || len(f.Config.Threads) != 1 {
			t.Fatalf("frame %d: %+v", i, f.Config)
		}
	}
}

// TestDiagnose: a syntax error is reported at its line and column, as the
// parser's file:line:col message says.
func TestDiagnose(t *testing.T) {
	d := Diagnose("ok.rdma", "litmus ok\nnode A { x = 1 }\nthread T on A { x := 2 }\n")
	if b, _ := json.Marshal(d); string(b) != "[]" {
		t.Fatalf("a valid program: %s, want [] (the page iterates over it)", b)
	}
	d = Diagnose("bad.rdma", "litmus bad\nnode A { x = 1 }\nthread T on A {\n  x := := 2\n}\n")
	if len(d) == 0 || d[0].Line != 4 || d[0].Col != 8 {
		t.Fatalf("diagnostics %+v, want one at 4:8", d)
	}
	r := Run(context.Background(), Request{Command: Check, File: "bad.rdma", Program: "litmus bad\nnode A { x = 1 }\nthread T on A {\n  x := := 2\n}\n"}, nil)
	var fe report.FileErrorJSON
	if err := json.Unmarshal(r.JSON, &fe); err != nil || fe.Error.Pos != "bad.rdma:4:8" || len(r.Errors) == 0 {
		t.Fatalf("response %+v, JSON %s", r.Errors, r.JSON)
	}
}

// TestStopped: a request whose context is cancelled from its progress
// callback stops, as Ctrl-C stops the CLI, and says so; the statistics
// cover what was explored.
func TestStopped(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits for the first progress report (a second)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	r := Run(ctx, request(t, Reach, "../../corpus/bench/mp5.rdma", Options{}), func(p Progress) {
		calls++
		if p.States == 0 || !strings.Contains(p.Line, "states") {
			t.Errorf("progress %+v", p)
		}
		cancel()
	})
	var st report.StatsJSON
	if err := json.Unmarshal(r.JSON, &st); err != nil {
		t.Fatal(err)
	}
	if calls == 0 || !r.Interrupted || st.Complete || st.Bound != "interrupted" {
		t.Fatalf("progress calls %d, interrupted %v, stats %+v", calls, r.Interrupted, st)
	}
	want := "rdmasim reach: interrupted after "
	if !strings.HasPrefix(r.Text, want) || !strings.Contains(strings.SplitN(r.Text, "\n", 2)[0], report.Count(st.States)+" configurations under rdma") {
		t.Errorf("a stopped report starts %q, want %q and what was explored (%d configurations)", strings.SplitN(r.Text, "\n", 2)[0], want, st.States)
	}
}

// TestRobustDefault: robust without a method runs auto, the CLI's
// default: one method's JSON, not every method's.
func TestRobustDefault(t *testing.T) {
	r := Run(context.Background(), request(t, Robust, litmus+"SB-PUT.rdma", Options{}), nil)
	var j map[string]any
	if err := json.Unmarshal(r.JSON, &j); err != nil {
		t.Fatal(err)
	}
	if _, all := j["methods"]; all || j["method"] == nil || len(r.Verdicts) == 0 || r.Verdicts[0].Name == "robust" {
		t.Errorf("robust by default: JSON %s, verdicts %+v; want method auto's answer alone", r.JSON, r.Verdicts)
	}
}

// TestRobustStopKeeps: robust --method all stopped once its first method
// has answered keeps that answer, certain, in the verdicts; the progress
// said which method ran and carried each answer as it came.
func TestRobustStopKeeps(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var methods []string
	var first []Verdict
	r := Run(ctx, request(t, Robust, litmus+"paper-5.1.rdma", Options{Method: "all"}), func(p Progress) {
		if len(methods) == 0 || methods[len(methods)-1] != p.Method {
			methods = append(methods, p.Method)
		}
		if len(p.Verdicts) > 0 && first == nil {
			first = p.Verdicts
			cancel() // stop the later methods
		}
	})
	if len(methods) == 0 || methods[0] != "decide (1 of 3)" {
		t.Errorf("progress named the methods %q, want decide (1 of 3) first", methods)
	}
	if len(first) != 1 || first[0].Name != "decide" || first[0].Value != "no" {
		t.Fatalf("the progress's first answers %+v, want decide no", first)
	}
	v := verdicts(r)
	if !r.Interrupted || v["decide"] != "no" || v["robust"] != "no" {
		t.Errorf("after the stop: interrupted %v, verdicts %v; want decide's no kept, and robust no", r.Interrupted, v)
	}
	if !strings.HasPrefix(r.Text, "rdmasim robust: interrupted") {
		t.Errorf("a stopped report starts %q", strings.SplitN(r.Text, "\n", 2)[0])
	}
}

// TestNoQuery: check on a program without a condition gives no verdict on
// one (no rdma or sc), but the number of final outcomes, as the CLI's
// "States N"; a program whose assert makes the query (reach T@fail) has
// its verdicts, and names that query.
func TestNoQuery(t *testing.T) {
	r := Run(context.Background(), Request{Command: Check, Program: "litmus noq\nnode A { x = 0 }\nthread T on A {\n  x := 1\n}\n"}, nil)
	v := verdicts(r)
	if _, ok := v["rdma"]; ok || v["rdma outcomes"] != "1" || v["sc outcomes"] != "1" || r.Query != "" {
		t.Errorf("no condition: verdicts %v, query %q; want outcomes only", v, r.Query)
	}
	r = Run(context.Background(), Request{Command: Check, Program: "litmus asserts\nnode A { x = 0 }\nthread T on A {\n  reg a\n  a := x\n  assert(a == 1)\n}\n"}, nil)
	v = verdicts(r)
	if v["rdma"] != "allowed" || v["sc"] != "allowed" || r.Query != "reach T@fail" {
		t.Errorf("an assert: verdicts %v, query %q; want allowed under both, reach T@fail", v, r.Query)
	}
}

// TestOptions: the options are checked as the CLI's flags are, and bounds
// are reported as the CLI reports them.
func TestOptions(t *testing.T) {
	file := litmus + "SB-PUT.rdma"
	for _, tc := range []struct {
		command string
		o       Options
		want    string
	}{
		{Check, Options{MaxInflight: 300}, "max-inflight"},
		{Check, Options{Timeout: "soon"}, "timeout"},
		{Check, Options{Semantics: "sc"}, "semantics"},
		{Robust, Options{Method: "guess"}, "method"},
		{Stress, Options{Bias: 2}, "bias"},
		{"explain", Options{}, "unknown command"},
	} {
		r := Run(context.Background(), request(t, tc.command, file, tc.o), nil)
		if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, tc.want) {
			t.Errorf("%s %+v: errors %+v, want one about %s", tc.command, tc.o, r.Errors, tc.want)
		}
	}
	r := Run(context.Background(), request(t, Check, file, Options{MaxStates: 20}), nil)
	var j check.JSON
	if err := json.Unmarshal(r.JSON, &j); err != nil {
		t.Fatal(err)
	}
	if j.RDMA.Bound != "max-states=20" || j.RDMA.Coverage != "unknown" {
		t.Errorf("with max_states 20: %+v", j.RDMA)
	}
}

// TestStress: a stress run with first stops at a walk that decides the
// query and gives its run as the trace.
func TestStress(t *testing.T) {
	r := Run(context.Background(), request(t, Stress, litmus+"PUT-LW.rdma", Options{First: true, Walks: 1000}), nil)
	if len(r.Errors) > 0 || r.Trace == nil || !strings.HasPrefix(r.Trace.Title, "Walk ") {
		t.Fatalf("errors %v, trace %+v", r.Errors, r.Trace)
	}
	last := memory(r.Trace.Frames[len(r.Trace.Frames)-1].Config)
	if last["z"] != 2 {
		t.Errorf("the deciding walk ends with z = %d, want 2 (exists z = 2)", last["z"])
	}
}
