package play

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"rdmasim/opsem/dot"
	"rdmasim/opsem/draw"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
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
	// Cond is where the run settles the query's condition, when the
	// program has one: nil for a run without (robust's, or a program
	// without a condition).
	Cond *CondAt `json:"cond,omitempty"`
}

// Frame is one configuration of a Trace and the step that reached it (nil
// for the initial one).
type Frame struct {
	Step   *report.Step   `json:"step,omitempty"`
	Config machine.Config `json:"config"`
	// Source is the statement the step executes or, for a NIC step, the
	// operation it serves (the put, get, rfence or atomic whose entry it
	// moves): the line to light up in the program. Nil for the initial
	// configuration, or when the operation is not known.
	Source *draw.Source `json:"source,omitempty"`
}

// CondAt is the frame of a Trace from which the query's condition (Text)
// keeps the value it has at the end of the run (Holds: true for an exists
// or reach witness, false for a forall counterexample): the step that
// makes the condition true, or false, for good.
type CondAt struct {
	Frame int    `json:"frame"`
	Holds bool   `json:"holds"`
	Text  string `json:"text"`
}

// newTrace turns run into a Trace, its steps rendered as report renders
// them for the CLI's JSON, each with its statement (Frame.Source) and, when
// p has a condition, the frame that settles it (Trace.Cond).
func newTrace(title string, sem machine.Semantics, run *verdict.Run, p *prog.Program) *Trace {
	steps := report.NewRun(run, p.ThreadName).Steps
	t := &Trace{Title: title, Semantics: sem.String(), Frames: make([]Frame, len(run.Configs))}
	srcs := stepSources(run)
	for i, c := range run.Configs {
		t.Frames[i].Config = c
		if i > 0 {
			t.Frames[i].Step = &steps[i-1]
			t.Frames[i].Source = srcs[i-1]
		}
	}
	if p.Query.Kind != prog.QNone && p.Query.Cond != nil && len(t.Frames) > 0 {
		t.Cond = condAt(p, t)
	}
	return t
}

// stepSources returns the statement of each step of run: a CPU step's is
// the one its thread was at; a NIC step's is the operation it serves. The
// configurations print each queue pair's buffers as lists of entries, and
// the NIC moves an entry from the head of one buffer to the tail of
// others (N1: B1 -> B2; N4: B2 -> RW and B3, ...) or changes one in place
// (N6, A1, A2 in B3). So a shadow of the buffers, holding for each entry
// the statement that posted it, follows the run: a CPU step that lengthens
// a B1 appends its statement; a NIC step takes the statement of the entry
// it pops (or changes), and appends it wherever an entry appears.
func stepSources(run *verdict.Run) []*draw.Source {
	out := make([]*draw.Source, len(run.Steps))
	type qpShadow [5][]*draw.Source // B1, B2, B3, RW, LW
	shadow := map[string]*qpShadow{}
	bufs := func(q *machine.QueuePair) [5][]string { return [5][]string{q.B1, q.B2, q.B3, q.RW, q.LW} }
	for i, tr := range run.Steps {
		if i+1 >= len(run.Configs) {
			break
		}
		pre, post := run.Configs[i], run.Configs[i+1]
		if tr.Rule == "step" {
			if tr.Thread < 0 || tr.Thread >= len(pre.Threads) {
				continue
			}
			at := pre.Threads[tr.Thread]
			src := &draw.Source{Line: at.Line, Col: at.Col, Stmt: at.Stmt}
			out[i] = src
			for q := range post.QueuePairs {
				if q < len(pre.QueuePairs) && len(post.QueuePairs[q].B1) > len(pre.QueuePairs[q].B1) {
					name := post.QueuePairs[q].QP
					if shadow[name] == nil {
						shadow[name] = &qpShadow{}
					}
					shadow[name][0] = append(shadow[name][0], src)
				}
			}
			continue
		}
		name := strings.TrimPrefix(tr.Actor, "NIC ")
		sh := shadow[name]
		var before, after [5][]string
		for q := range post.QueuePairs {
			if post.QueuePairs[q].QP == name && q < len(pre.QueuePairs) {
				before, after = bufs(&pre.QueuePairs[q]), bufs(&post.QueuePairs[q])
			}
		}
		if sh == nil {
			continue
		}
		// Each buffer's change is the entries [lo, hiBefore) of before
		// replaced by [lo, hiAfter) of after: a pop from the head, an
		// append at the tail, or (a multi-word operation's steps) a
		// group's words leaving together, a word placed from the middle
		// of its group, a response becoming a group.
		var src *draw.Source
		var lo, hiB, hiA [5]int
		for b := range sh {
			lo[b], hiB[b], hiA[b] = changed(before[b], after[b])
			if src == nil && lo[b] < hiB[b] && lo[b] < len(sh[b]) {
				src = sh[b][lo[b]]
			}
		}
		if src == nil && tr.Rule == "N1" && len(sh[0]) > 0 {
			// A multi-word put reading one of its words, not its
			// last, stays at the head of B1 and only adds a word to
			// B2 (machine/tear.go): it serves B1's head.
			src = sh[0][0]
		}
		for b := range sh {
			if lo[b] == hiB[b] && lo[b] == hiA[b] || hiB[b] > len(sh[b]) {
				continue
			}
			rest := append([]*draw.Source(nil), sh[b][hiB[b]:]...)
			sh[b] = sh[b][:lo[b]]
			for k := lo[b]; k < hiA[b]; k++ {
				sh[b] = append(sh[b], src)
			}
			sh[b] = append(sh[b], rest...)
		}
		out[i] = src
	}
	return out
}

// condAt finds the frame of t from which p's condition keeps its final
// value, evaluated on each frame's memory. A condition on the threads'
// positions (T@label, T@end, T@fail), which a printed configuration does
// not give as instructions, is settled at the run's last frame, where a
// reach witness ends.
func condAt(p *prog.Program, t *Trace) *CondAt {
	c := p.Query.Cond
	at := &CondAt{Frame: len(t.Frames) - 1, Holds: p.Query.Kind != prog.QForall, Text: p.CondString(c)}
	if onControl(c) {
		return at
	}
	eval := func(f *Frame) bool {
		mem := make([]uint8, len(p.Locs))
		for _, n := range f.Config.Nodes {
			for _, l := range n.Locs {
				if i := p.LocIndex(l.Loc); i >= 0 {
					mem[i] = l.Value
				}
			}
		}
		return c.Eval(p, verdict.FinalConfig{P: p, Memory: mem})
	}
	at.Holds = eval(&t.Frames[at.Frame])
	for at.Frame > 0 && eval(&t.Frames[at.Frame-1]) == at.Holds {
		at.Frame--
	}
	return at
}

// onControl reports whether c looks at the threads' positions.
func onControl(c *prog.Cond) bool {
	if c == nil {
		return false
	}
	switch c.Op {
	case prog.CAt, prog.CEnd, prog.CFail:
		return true
	}
	return onControl(c.L) || onControl(c.R)
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
	// Line, Col and Stmt are the statement the event comes from (0 and ""
	// for an initial write), Source the three in a phrase for a tooltip:
	// "line 5:18: z := x".
	Line   int    `json:"line,omitempty"`
	Col    int    `json:"col,omitempty"`
	Stmt   string `json:"stmt,omitempty"`
	Source string `json:"source,omitempty"`
	// Step is the frame of the Response's Trace whose step made the event
	// (linkSteps), 0 when the run shown has no such step: the graph and
	// the run are found by different searches (the declarative model, the
	// machine), and need not be one execution.
	Step int `json:"step,omitempty"`
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
		out.Events = append(out.Events, Event{Thread: e.Thread, Label: e.Label, Line: e.Line, Col: e.Col, Stmt: e.Stmt, Source: e.Source()})
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
// machine's answer, found a witness; else it says why there is no drawing
// (the page then offers the outcomes' own graphs: runOutcome).
func witnessGraph(ctx context.Context, p *prog.Program, res *verdict.Result, o Options) (*Graph, string) {
	switch {
	case p.Query.Kind == prog.QNone:
		return nil, ""
	case p.Query.Kind == prog.QReach:
		return nil, "a reach condition looks at configurations inside runs, which executions do not describe: step through the witness run instead"
	case res.Witness == nil:
		return nil, "no witness under RDMA: nothing to draw"
	}
	return executionGraph(ctx, p, machine.RDMA, o)
}

// recording are the rules of the steps that put an event into an
// execution: a CPU step's read, write or CAS, and the NIC's reads (N1, N6,
// A1), its rfence (N3) and the writes that reach memory (A2, F1, F2; N4
// and N8 only issue theirs).
var recording = map[string]bool{"step": true, "N1": true, "N3": true, "N6": true, "A1": true, "A2": true, "F1": true, "F2": true}

// issuing are the rules that issue a NIC write (N4 a put's, N8 a get's),
// which F1 or F2 later makes visible.
var issuing = map[string]bool{"N4": true, "N8": true}

// linkSteps sets each event of g to the frame of t whose step made it: the
// k-th event of a thread with a given label and statement is made by the
// k-th step of that thread, of a recording rule, with that event and
// statement. A NIC write the run issued but never made visible (a run may
// end with it pending) is linked to the step that issued it. An event
// whose step the run does not have keeps Step 0.
func linkSteps(g *Graph, t *Trace) {
	if g == nil || t == nil {
		return
	}
	key := func(thread, event string, line int) string { return fmt.Sprintf("%s|%s|%d", thread, event, line) }
	frames := map[string][]int{} // by key, the frames of recording steps
	issued := map[string][]int{} // by key, the frames that issue a NIC write
	for i, f := range t.Frames {
		s := f.Step
		if s == nil || s.Event == "" || f.Source == nil {
			continue
		}
		// The machine names a NIC write's steps "nrW(z,2) issued" (N4,
		// N8) and "nrW(z,2) visible" (F1, F2; machine.Transition.Event):
		// the graph's event is nrW(z,2).
		// A step of a multi-word put or get makes several events, one
		// after the other in its Event (machine.Step.Words).
		switch {
		case recording[s.Rule]:
			for _, ev := range strings.Fields(strings.TrimSuffix(s.Event, " visible")) {
				k := key(s.Thread, ev, f.Source.Line)
				frames[k] = append(frames[k], i)
			}
		case issuing[s.Rule]:
			for _, ev := range strings.Fields(strings.TrimSuffix(s.Event, " issued")) {
				k := key(s.Thread, ev, f.Source.Line)
				issued[k] = append(issued[k], i)
			}
		}
	}
	used := map[string]int{}
	for i := range g.Events {
		e := &g.Events[i]
		if e.Thread < 0 || e.Thread >= len(g.Threads) {
			continue
		}
		label, _, _ := strings.Cut(e.Label, "\n") // a protocol's event has its statement below
		k := key(g.Threads[e.Thread], label, e.Line)
		n := used[k]
		used[k] = n + 1
		switch {
		case n < len(frames[k]):
			e.Step = frames[k][n]
		case n < len(issued[k]):
			// Writes of one key are issued in the order they become
			// visible (one thread, one statement: one queue pair).
			e.Step = issued[k][n]
		}
	}
}

// violationGraph draws r's violation as r.Dot does, a machine's execution
// with each event's statement (draw.MachineRun, from r.Run); nil when r is
// robust.
func violationGraph(r *robust.Result) *dot.Graph {
	g := r.Full
	if g == nil {
		g = r.Graph
	}
	if r.Robust || r.Trace != nil || g == nil || r.Run == nil {
		return r.Dot()
	}
	return draw.MachineRun(r.Program, g, r.Run, r.Program.Name+": an RDMA execution with an sc cycle")
}

// changed returns where a buffer's entries changed from before to after:
// before[lo:hiB] became after[lo:hiA]. A pop of d entries from the head and
// an append at the tail are recognised first, so that equal entries (two
// ACKs) are attributed to the right operations.
func changed(before, after []string) (lo, hiB, hiA int) {
	if d := len(before) - len(after); d > 0 && slices.Equal(before[d:], after) {
		return 0, d, 0
	}
	if len(after) >= len(before) && slices.Equal(after[:len(before)], before) {
		return len(before), len(before), len(after)
	}
	for lo < len(before) && lo < len(after) && before[lo] == after[lo] {
		lo++
	}
	hiB, hiA = len(before), len(after)
	for hiB > lo && hiA > lo && before[hiB-1] == after[hiA-1] {
		hiB, hiA = hiB-1, hiA-1
	}
	return lo, hiB, hiA
}
