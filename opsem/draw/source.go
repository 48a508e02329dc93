package draw

import (
	"strings"

	"rdmasim/opsem/dot"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// A machine's event graph knows each event's thread and program-order
// position (its slot, machine.GraphEvent.Slot) but not the statement it
// comes from: a configuration carries no history. The run that reached the
// graph does: the slots of a thread are handed out by its CPU steps, in
// order, each step taking as many as the events its instruction may make
// (machine.Machine.slot): a local write, a read, an assume, a switch, a
// poll or an rfence one; a put or a get two (its read and its write, the
// NIC's), a multi-word one 2k+1 (a mark, then two per word:
// Transition.Words); a CAS two (its read, then the local write of its second half,
// which takes none); a remote atomic three; a skip or a branch none. So
// replaying the run's CPU steps, each with the statement its thread was at
// before it, tells which statement each slot belongs to.

// Source is a statement of a program as the user wrote it, and where.
type Source struct {
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Stmt string `json:"stmt"`
}

// slotSources returns, per thread, the statement of each slot the CPU
// steps of run handed out (see above): index [t][slot].
func slotSources(p *prog.Program, run *verdict.Run) [][]Source {
	out := make([][]Source, len(p.Threads))
	for i, tr := range run.Steps {
		if tr.Rule != "step" || i+1 >= len(run.Configs) {
			continue
		}
		pre, post := run.Configs[i], run.Configs[i+1]
		t := tr.Thread
		if t < 0 || t >= len(pre.Threads) || t >= len(out) {
			continue
		}
		at := pre.Threads[t]
		n := slotsTaken(tr, pre, post)
		for k := 0; k < n; k++ {
			out[t] = append(out[t], Source{Line: at.Line, Col: at.Col, Stmt: at.Stmt})
		}
	}
	return out
}

// slotsTaken is the number of slots CPU step tr took, from pre to post.
func slotsTaken(tr machine.Transition, pre, post machine.Config) int {
	t := tr.Thread
	switch tr.Step.Event.Kind {
	case prog.EvPoll, prog.EvNF:
		return 1
	case prog.EvLW:
		if pre.Threads[t].Inside {
			return 0 // a CAS's second half: its write has the slot after its read
		}
		return 1
	case prog.EvLR, prog.EvCAS:
		if post.Threads[t].Inside {
			return 2 // a CAS's first half
		}
		return 1
	case prog.EvNLR:
		// An inline put reads its source as it goes to B1
		// (SEMANTICS-VERBS.md 5): its slots are a put's.
		if tr.Words > 1 {
			return 2*tr.Words + 1
		}
		return 2
	case prog.EvNone:
		// A put, get, rfence or remote atomic goes to B1 of its queue
		// pair, as its last entry.
		for q, qp := range post.QueuePairs {
			if q >= len(pre.QueuePairs) || len(qp.B1) <= len(pre.QueuePairs[q].B1) {
				continue
			}
			switch e := qp.B1[len(qp.B1)-1]; {
			case e == "FENCE":
				return 1
			case tr.Words > 1:
				return 2*tr.Words + 1 // a multi-word one: its mark, then two per word
			case strings.HasPrefix(e, "PUT("), strings.HasPrefix(e, "GET("):
				return 2
			default:
				return 3 // ATOM(...)
			}
		}
	}
	return 0
}

// MachineRun is Machine with each event's source: the statement it comes
// from (dot.Event's Line, Col and Stmt), found by replaying run, the run
// that reached g (or, for a graph run on to a final configuration, its
// beginning: events of slots the run did not hand out get none). Run is
// one of the RDMA machine: the SC machine hands out slots otherwise.
func MachineRun(p *prog.Program, g *machine.Graph, run *verdict.Run, title string) *dot.Graph {
	d := Machine(p, g, title)
	if run == nil {
		return d
	}
	slots := slotSources(p, run)
	for i, e := range g.Events {
		// Machine puts g's events first, in g's order.
		if e.Thread < 0 || e.Thread >= len(slots) || e.Slot >= len(slots[e.Thread]) {
			continue
		}
		s := slots[e.Thread][e.Slot]
		d.Events[i].Line, d.Events[i].Col, d.Events[i].Stmt = s.Line, s.Col, s.Stmt
	}
	return d
}
