// Package draw turns executions into pictures: it chooses which executions
// of a program to draw (those of the declarative model that satisfy the
// query's condition, all of them, or those that break SC; see Executions)
// and turns a model trace (Trace) or a machine's event graph (Machine) into
// a dot.Graph: one column per thread in program order, the initial writes
// the execution uses, one colour per relation and the edges of an sc cycle
// bold.
package draw

import (
	"fmt"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/dot"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
)

// Machine turns a machine event graph into a drawing: the initial writes
// of the locations involved, each thread's events in program order, and
// the po, rf, mo and rb edges (rb to the next write in mo only, as the rest
// follows by mo), the edges of g.Cycle bold. Edges the cycle takes by
// transitivity (po over skipped events, mo over several writes) are drawn
// too, so that the bold cycle closes.
func Machine(p *prog.Program, g *machine.Graph, title string) *dot.Graph {
	d := &dot.Graph{Title: title}
	for _, t := range p.Threads {
		d.Threads = append(d.Threads, t.Name)
	}
	initNode := map[int]int{} // location -> node of its initial write
	locInit := func(l int) int {
		if n, ok := initNode[l]; ok {
			return n
		}
		d.Events = append(d.Events, dot.Event{Thread: -1, Label: fmt.Sprintf("lW(%s,%d)", p.Locs[l].Name, p.Locs[l].Init)})
		initNode[l] = len(d.Events) - 1
		return initNode[l]
	}
	base := 0
	node := make([]int, len(g.Events))
	for i, e := range g.Events {
		node[i] = base + len(d.Events)
		d.Events = append(d.Events, dot.Event{Thread: e.Thread, Label: p.EventString(e.Event)})
	}
	bold := map[[2]int]bool{}
	for k, a := range g.Cycle {
		bold[[2]int{a, g.Cycle[(k+1)%len(g.Cycle)]}] = true
	}
	add := func(a, b int, rel string) {
		d.Edges = append(d.Edges, dot.Edge{From: node[a], To: node[b], Rel: rel, Bold: bold[[2]int{a, b}]})
	}
	for i := 1; i < len(g.Events); i++ {
		if g.Events[i].Thread == g.Events[i-1].Thread {
			add(i-1, i, "po")
		}
	}
	for i, e := range g.Events {
		if !isRead(e.Kind) {
			continue
		}
		if e.RF >= 0 {
			add(e.RF, i, "rf")
		} else {
			d.Edges = append(d.Edges, dot.Edge{From: locInit(e.Loc), To: node[i], Rel: "rf"})
		}
		ws := g.MO[e.Loc]
		after := 0
		for k, w := range ws {
			if w == e.RF {
				after = k + 1
			}
		}
		for k, w := range ws[after:] {
			if w != i && (k == 0 || bold[[2]int{i, w}]) {
				add(i, w, "rb")
			}
		}
	}
	for l, ws := range g.MO {
		if len(ws) == 0 {
			continue
		}
		d.Edges = append(d.Edges, dot.Edge{From: locInit(l), To: node[ws[0]], Rel: "mo"})
		for k := 1; k < len(ws); k++ {
			add(ws[k-1], ws[k], "mo")
		}
	}
	// Cycle edges implied by transitivity (po over skipped events, mo over
	// several writes) are drawn explicitly.
	for k, a := range g.Cycle {
		b := g.Cycle[(k+1)%len(g.Cycle)]
		found := false
		for _, e := range d.Edges {
			if e.From == node[a] && e.To == node[b] {
				found = true
			}
		}
		if !found {
			add(a, b, g.EdgeKind(a, b))
		}
	}
	return d
}

func isRead(k prog.EventKind) bool {
	return k == prog.EvLR || k == prog.EvCAS || k == prog.EvNLR || k == prog.EvNRR
}

// Trace turns a declarative-model trace into a drawing with every relation
// of the trace: po (immediate), rf, mo (immediate), rb (to the next write in
// mo), nfo and pf, the edges of cycle (events of t, each related to the
// next, the last to the first; t.SCCycle gives one) bold. Initial writes
// that nothing reads and no other write follows are left out.
func Trace(p *prog.Program, t *axiom.Trace, cycle []int, title string) *dot.Graph {
	d := &dot.Graph{Title: title}
	for _, th := range p.Threads {
		d.Threads = append(d.Threads, th.Name)
	}
	used := map[int]bool{} // initial writes worth drawing
	for e, w := range t.RF {
		if w >= 0 {
			used[w] = true
			used[e] = true
		}
	}
	for _, ws := range t.MO {
		if len(ws) > 1 {
			for _, w := range ws {
				used[w] = true
			}
		}
	}
	node := make([]int, len(t.Events))
	for i, e := range t.Events {
		node[i] = -1
		if e.Thread < 0 && !used[i] {
			continue
		}
		node[i] = len(d.Events)
		ev := dot.Event{Thread: e.Thread, Label: p.EventString(e.Event)}
		if e.Thread >= 0 && e.PC >= 0 {
			if s := p.Threads[e.Thread].Code[e.PC].Stmt; s != nil {
				ev.Line, ev.Col, ev.Stmt = s.Pos.Line, s.Pos.Col, p.SourceString(s)
				if s.Src != nil {
					// A protocol's event is labelled with its statement
					// too: its core events are far from the text.
					ev.Label += fmt.Sprintf("\nline %d: %s", s.Pos.Line, ev.Stmt)
				}
			}
		}
		d.Events = append(d.Events, ev)
	}
	bold := map[[2]int]bool{}
	for k, a := range cycle {
		bold[[2]int{a, cycle[(k+1)%len(cycle)]}] = true
	}
	add := func(a, b int, rel string) {
		if node[a] >= 0 && node[b] >= 0 {
			d.Edges = append(d.Edges, dot.Edge{From: node[a], To: node[b], Rel: rel, Bold: bold[[2]int{a, b}]})
		}
	}
	r := t.Relations()
	for a := range t.Events {
		for b := range t.Events {
			ea, eb := t.Events[a], t.Events[b]
			if ea.Thread >= 0 && ea.Thread == eb.Thread && eb.Index == ea.Index+1 {
				add(a, b, "po")
			}
		}
	}
	for e, w := range t.RF {
		if w >= 0 {
			add(w, e, "rf")
		}
	}
	for _, ws := range t.MO {
		for k := 1; k < len(ws); k++ {
			add(ws[k-1], ws[k], "mo")
		}
	}
	for e, w := range t.RF {
		if w < 0 {
			continue
		}
		ws := t.MO[t.Events[e].Loc]
		for k, x := range ws {
			if x == w && k+1 < len(ws) && ws[k+1] != e {
				add(e, ws[k+1], "rb")
			}
		}
	}
	for _, pr := range t.NFO {
		add(pr[0], pr[1], "nfo")
	}
	for _, pr := range t.PF {
		add(pr[0], pr[1], "pf")
	}
	// cycle edges implied by transitivity
	for k, a := range cycle {
		b := cycle[(k+1)%len(cycle)]
		found := false
		for _, e := range d.Edges {
			if e.From == node[a] && e.To == node[b] {
				found = true
			}
		}
		if !found {
			add(a, b, r.EdgeKind(a, b))
		}
	}
	return d
}
