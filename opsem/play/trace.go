package play

import (
	"context"
	"errors"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/dot"
	"rdmasim/opsem/draw"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// Trace is a run for the step-through: Frames[0] is the initial
// configuration, Frames[i] the step i took (as the CLI's JSON prints a
// step: actor, rule, event, what changed) and the whole configuration it
// reached — memory, each thread's source position, every queue pair's B1,
// B2, B3, RW (remote writes pending) and LW (local writes pending).
type Trace struct {
	Title     string  `json:"title"`
	Semantics string  `json:"semantics"`
	Frames    []Frame `json:"frames"`
}

// Frame is one configuration of a Trace and the step that reached it (nil
// for the initial one).
type Frame struct {
	Step   *report.Step   `json:"step,omitempty"`
	Config machine.Config `json:"config"`
}

// newTrace turns run into a Trace, its steps rendered as report renders
// them for the CLI's JSON.
func newTrace(title string, sem machine.Semantics, run *verdict.Run, p *prog.Program) *Trace {
	steps := report.NewRun(run, p.ThreadName).Steps
	t := &Trace{Title: title, Semantics: sem.String(), Frames: make([]Frame, len(run.Configs))}
	for i, c := range run.Configs {
		t.Frames[i].Config = c
		if i > 0 {
			t.Frames[i].Step = &steps[i-1]
		}
	}
	return t
}

// Graph is an execution graph for the page to lay out and draw as SVG: the
// events of each thread in a column in program order (Thread -1: the
// initial writes, drawn on top), and the relations between them.
type Graph struct {
	Title   string   `json:"title"`
	Threads []string `json:"threads"`
	Events  []Event  `json:"events"`
	Edges   []Edge   `json:"edges"`
	// Key is the legend: each relation drawn with its colour and meaning
	// (the colours of the CLI's Graphviz drawings), and Bold what bold
	// edges mean, when there are some.
	Key  []dot.Relation `json:"key"`
	Bold string         `json:"bold,omitempty"`
}

// Event is a node of a Graph.
type Event struct {
	Thread int    `json:"thread"`
	Label  string `json:"label"`
}

// Edge is a relation edge of a Graph: po, rf, mo, rb, nfo or pf, Bold when
// it is on the sc cycle of a violation.
type Edge struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Rel  string `json:"rel"`
	Bold bool   `json:"bold,omitempty"`
}

// newGraph is g for the page: the drawing opsem/dot renders as Graphviz
// for the CLI.
func newGraph(g *dot.Graph) *Graph {
	out := &Graph{Title: g.Title, Threads: g.Threads, Events: []Event{}, Edges: []Edge{}, Key: g.Key()}
	for _, e := range g.Events {
		out.Events = append(out.Events, Event{Thread: e.Thread, Label: e.Label})
	}
	for _, e := range g.Edges {
		out.Edges = append(out.Edges, Edge{From: e.From, To: e.To, Rel: e.Rel, Bold: e.Bold})
		if e.Bold {
			out.Bold = dot.BoldMeaning
		}
	}
	return out
}

// witnessGraph draws an execution of the declarative model that witnesses
// the query under RDMA (rdmasim graph --show cond: one whose final memory
// satisfies the condition, violates it for forall), when res, the
// machine's answer, found a witness; else it says why there is no drawing.
func witnessGraph(ctx context.Context, p *prog.Program, res *verdict.Result, o Options) (*Graph, string) {
	switch {
	case p.Query.Kind == prog.QNone:
		return nil, ""
	case p.Query.Kind == prog.QReach:
		return nil, "a reach condition looks at configurations inside runs, which executions do not describe: step through the witness run instead"
	case res.Witness == nil:
		return nil, "no witness under RDMA: nothing to draw"
	}
	d, err := draw.Executions(ctx, p, draw.Options{Show: draw.ShowCond, Semantics: machine.RDMA, Unroll: verdict.LoopBound(p, o.Unroll)})
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
