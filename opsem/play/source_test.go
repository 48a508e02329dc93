package play

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStepSources: on paper-5.1's witness every step has its statement: a
// CPU step the one its thread was at, a NIC step the operation it serves
// (the get y := w on line 8, the put z := x on line 9); the condition z = 2 becomes true, for good,
// at the step that writes z (F1, the put's write reaching memory); each
// event of the graph comes with its statement and the frame whose step
// made it (the NIC's writes too: F1 and F2 name theirs "nrW(z,2) visible").
func TestStepSources(t *testing.T) {
	r := Run(context.Background(), request(t, Check, litmus+"paper-5.1.rdma", Options{}), nil)
	if len(r.Errors) > 0 || r.Trace == nil || r.Graph == nil {
		t.Fatalf("errors %v, trace %v, graph %v", r.Errors, r.Trace != nil, r.Graph != nil)
	}
	nic := 0
	for i, f := range r.Trace.Frames[1:] {
		if f.Source == nil {
			t.Fatalf("step %d (%s %s) has no source", i+1, f.Step.Actor, f.Step.Rule)
		}
		if f.Step.Rule == "step" && f.Source.Line != f.Step.Line {
			t.Errorf("step %d: source line %d, the step's %d", i+1, f.Source.Line, f.Step.Line)
		}
		if f.Step.Rule != "step" {
			nic++
			want := map[string]int{"N1": 9, "N4": 9, "N7": 9, "F1": 9, "N2": 8, "N5": 8, "N6": 8, "N8": 8, "F2": 8}[f.Step.Rule]
			if f.Source.Line != want {
				t.Errorf("NIC step %d (%s) serves %+v, want line %d", i+1, f.Step.Rule, *f.Source, want)
			}
		}
	}
	if nic == 0 {
		t.Fatal("no NIC step in paper-5.1's witness")
	}
	c := r.Trace.Cond
	if c == nil || !c.Holds || c.Text != "z = 2" && c.Text != "z=2" {
		t.Fatalf("cond %+v", c)
	}
	at := r.Trace.Frames[c.Frame]
	if at.Step == nil || at.Step.Rule != "F1" {
		t.Errorf("condition settled at frame %d by %+v, want the put's F1", c.Frame, at.Step)
	}
	// Every event of p is linked, the NIC's writes (nlW(y,1,n2) by F2,
	// nrW(z,2) by F1, steps whose event reads "nrW(z,2) visible") too.
	linked := 0
	for _, e := range r.Graph.Events {
		if e.Thread < 0 {
			continue
		}
		if e.Line == 0 || e.Stmt == "" || !strings.HasPrefix(e.Source, "line ") {
			t.Errorf("event %s has no statement: %+v", e.Label, e)
		}
		if e.Step == 0 {
			t.Errorf("event %s (line %d) is linked to no step", e.Label, e.Line)
			continue
		}
		linked++
		f := r.Trace.Frames[e.Step]
		if strings.TrimSuffix(f.Step.Event, " visible") != e.Label || f.Source.Line != e.Line {
			t.Errorf("event %s (line %d) linked to step %d: %s at line %d", e.Label, e.Line, e.Step, f.Step.Event, f.Source.Line)
		}
	}
	if linked != 5 {
		t.Errorf("%d events linked to their steps, want the 5 of p", linked)
	}
}

// TestOutcome: paper-5.1's outcome z=2, which only RDMA reaches, has a run
// and a graph under RDMA (titled with the outcome), none under SC
// (forbidden there), and z=1 has both under SC; an unknown location is an
// error.
func TestOutcome(t *testing.T) {
	req := request(t, Outcome, litmus+"paper-5.1.rdma", Options{})
	req.Outcome = &OutcomeRequest{Semantics: "rdma", Values: map[string]uint8{"z": 2}}
	r := Run(context.Background(), req, nil)
	if len(r.Errors) > 0 || r.Trace == nil || r.Graph == nil || verdicts(r)["outcome under rdma"] != "allowed" {
		t.Fatalf("rdma z=2: errors %v, trace %v, graph %v (%s), verdicts %v", r.Errors, r.Trace != nil, r.Graph != nil, r.GraphNote, verdicts(r))
	}
	if c := r.Trace.Cond; c == nil || !c.Holds {
		t.Errorf("cond %+v", c)
	}
	if want := "paper-5.1: an rdma execution ending in z = 2"; r.Graph.Title != want {
		t.Errorf("the graph's title %q, want %q", r.Graph.Title, want)
	}
	req.Outcome.Semantics = "sc"
	r = Run(context.Background(), req, nil)
	if len(r.Errors) > 0 || r.Trace != nil || r.Graph != nil || verdicts(r)["outcome under sc"] != "forbidden" {
		t.Fatalf("sc z=2: errors %v, trace %v, graph %v, verdicts %v", r.Errors, r.Trace != nil, r.Graph != nil, verdicts(r))
	}
	req.Outcome.Values = map[string]uint8{"z": 1}
	r = Run(context.Background(), req, nil)
	if len(r.Errors) > 0 || r.Trace == nil || r.Graph == nil {
		t.Fatalf("sc z=1: errors %v, trace %v, graph %v (%s)", r.Errors, r.Trace != nil, r.Graph != nil, r.GraphNote)
	}
	req.Outcome.Values = map[string]uint8{"nowhere": 1}
	if r = Run(context.Background(), req, nil); len(r.Errors) == 0 {
		t.Error("an outcome of an unknown location: no error")
	}
}

// TestRepair: paper-5.1 (not robust) is repaired, the repaired text robust
// by robust's own answer; LW-PUT needs nothing.
func TestRepair(t *testing.T) {
	r := Run(context.Background(), request(t, Repair, litmus+"paper-5.1.rdma", Options{}), nil)
	if len(r.Errors) > 0 || r.Repair == nil || !r.Repair.Found || len(r.Repair.Insertions) == 0 {
		t.Fatalf("errors %v, repair %+v", r.Errors, r.Repair)
	}
	if r.Repair.Cost != len(r.Repair.Insertions) {
		t.Errorf("cost %d for %d polls (1 each, the CLI's default)", r.Repair.Cost, len(r.Repair.Insertions))
	}
	in := r.Repair.Insertions[0]
	if in.Line == 0 || in.Stmt == "" || !strings.Contains(r.Text, in.Stmt) {
		t.Errorf("insertion %+v, text %q", in, r.Text)
	}
	again := Run(context.Background(), Request{Command: Robust, File: "repaired.rdma", Program: r.Repair.Text}, nil)
	if v := verdicts(again)["enum-machine"] + verdicts(again)["decide"] + verdicts(again)["robust"]; !strings.Contains(v, "yes") || strings.Contains(v, "no") {
		t.Errorf("the repaired text: robust verdicts %v\n%s", verdicts(again), r.Repair.Text)
	}
	src, err := os.ReadFile(litmus + "LW-PUT.rdma")
	if err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), Request{Command: Repair, File: "LW-PUT.rdma", Program: string(src)}, nil)
	if r.Repair == nil || !r.Repair.Already || len(r.Repair.Insertions) != 0 {
		t.Errorf("LW-PUT: %+v %v", r.Repair, r.Errors)
	}
}

// TestRobustGraphSources: enum-machine's violation of paper-5.1 is drawn
// from the machine's event graph, whose events get their statements from
// the run to the violation (draw.MachineRun) and, that run being the Trace,
// their steps (the events of the execution's completion, drawn beyond the
// run's end, have none).
func TestRobustGraphSources(t *testing.T) {
	r := Run(context.Background(), request(t, Robust, litmus+"paper-5.1.rdma", Options{Method: "enum-machine"}), nil)
	if len(r.Errors) > 0 || r.Graph == nil || r.Trace == nil {
		t.Fatalf("errors %v, graph %v, trace %v", r.Errors, r.Graph != nil, r.Trace != nil)
	}
	linked := 0
	for _, e := range r.Graph.Events {
		if e.Thread < 0 {
			continue
		}
		if e.Line == 0 {
			t.Errorf("event %s has no line", e.Label)
		}
		if e.Step == 0 {
			continue
		}
		linked++
		if f := r.Trace.Frames[e.Step]; strings.TrimSuffix(f.Step.Event, " visible") != e.Label {
			t.Errorf("event %s linked to step %d, which makes %s", e.Label, e.Step, f.Step.Event)
		}
	}
	if linked == 0 {
		t.Error("no event linked to its step")
	}
}

// TestGraphStepsLitmus: on every litmus test whose check draws a graph,
// the drawing is of the witness's execution, so each event of a thread is
// linked to the step of the witness run that made it: a CPU step, a NIC
// read (N1, N6, A1), its rfence (N3, event nF), a write made visible (F1,
// F2, A2) or, for a write the run leaves pending, the step that issued it
// (N4, N8). Before, nF and the NIC's writes were never linked.
func TestGraphStepsLitmus(t *testing.T) {
	files, err := filepath.Glob(litmus + "*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no litmus tests: %v", err)
	}
	drawn := 0
	for _, f := range files {
		r := Run(context.Background(), request(t, Check, f, Options{}), nil)
		if len(r.Errors) > 0 {
			t.Fatalf("%s: %v", f, r.Errors)
		}
		if r.Graph == nil || r.Trace == nil {
			continue
		}
		drawn++
		for _, e := range r.Graph.Events {
			if e.Thread < 0 {
				continue
			}
			if e.Step <= 0 || e.Step >= len(r.Trace.Frames) {
				t.Errorf("%s: event %s (line %d) is linked to no step of the witness", filepath.Base(f), e.Label, e.Line)
				continue
			}
			fr := r.Trace.Frames[e.Step]
			// A multi-word operation's step makes several events.
			evs := strings.Fields(strings.TrimSuffix(strings.TrimSuffix(fr.Step.Event, " visible"), " issued"))
			if !slices.Contains(evs, e.Label) || fr.Source.Line != e.Line || fr.Step.Thread != r.Graph.Threads[e.Thread] {
				t.Errorf("%s: event %s of %s (line %d) linked to step %d: %s of %s at line %d", filepath.Base(f),
					e.Label, r.Graph.Threads[e.Thread], e.Line, e.Step, fr.Step.Event, fr.Step.Thread, fr.Source.Line)
			}
		}
	}
	if drawn < 20 {
		t.Errorf("%d litmus tests with a witness graph, want 20 or more", drawn)
	}
}
