package decide

import (
	"fmt"
	"strings"

	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/prog"
)

// Witness is a robustness violation found by the decider.
type Witness struct {
	// Steps is the run of the instrumented machine that reached the
	// target, silent steps included.
	Steps []instr.Step
	// Trace is the violating trace τ = τ1 τ2 rebuilt from the run: its
	// rf, mo and nfo follow τ, pf pairs polls with NIC writes in order.
	Trace *axiom.Trace
	// Tau lists Trace's events (initial writes excluded) in τ order;
	// Tau[:Split] is τ1 and Tau[Split:] is τ2.
	Tau   []int
	Split int
	// Cycle is an sc cycle of Trace (event ids, each related to the next).
	Cycle []int
	// Replay is a run of the RDMA queue-pair machine whose event graph has
	// Trace's events, rf and mo (and so its sc cycle).
	Replay *Replay
}

// buildWitness rebuilds τ from a run of the instrumented machine, checks it
// against the declarative model and replays it on the RDMA machine.
func buildWitness(m *instr.Machine, path []explore.Step) (*Witness, error) {
	p := m.Program()
	w := &Witness{}
	type gen struct {
		ev     prog.Event
		part   int
		pc     int
		writes bool // a remote atomic's naR that writes (axiom.Event.Writes)
	}
	var gens []gen
	for i := 1; i < len(path); i++ {
		st, err := m.Transition(path[i-1].State, path[i].Label)
		if err != nil {
			return nil, fmt.Errorf("replaying the instrumented run: step %d: %w", i, err)
		}
		w.Steps = append(w.Steps, st)
		if st.Event.Kind != prog.EvNone {
			ev := st.Event
			if ev.Kind == prog.EvNAR {
				ev.New = 0 // the instrumented step carried the write's value
			}
			gens = append(gens, gen{ev, st.Part, st.PC, st.Writes})
		}
		if st.Also.Kind != prog.EvNone {
			// a remote atomic's naW, in the same SC step as its naR
			gens = append(gens, gen{st.Also, st.Part, st.PC, false})
		}
	}
	tr := &axiom.Trace{}
	for l, loc := range p.Locs {
		tr.Events = append(tr.Events, axiom.Event{Event: prog.Event{Kind: prog.EvLW, Thread: -1, Loc: l, Val: loc.Init, Remote: -1},
			ID: l, Index: -1, QP: -1, PC: -1})
	}
	// Events per thread in program order; id[g] is generated event g's id.
	id := make([]int, len(gens))
	for t := range p.Threads {
		idx := 0
		for g, ge := range gens {
			if ge.ev.Thread != t {
				continue
			}
			qp := -1
			if ge.ev.Remote >= 0 {
				qp = p.Threads[t].QPs[ge.ev.Remote]
			}
			id[g] = len(tr.Events)
			tr.Events = append(tr.Events, axiom.Event{Event: ge.ev, ID: id[g], Index: idx, QP: qp, PC: ge.pc, Writes: ge.writes})
			idx++
		}
	}
	for part := 1; part <= 2; part++ {
		for g, ge := range gens {
			if ge.part == part {
				w.Tau = append(w.Tau, id[g])
			}
		}
		if part == 1 {
			w.Split = len(w.Tau)
		}
	}
	pos := make([]int, len(tr.Events))
	for i := range p.Locs {
		pos[i] = -1
	}
	for i, e := range w.Tau {
		pos[e] = i
	}
	// rf and mo follow τ.
	tr.RF = make([]int, len(tr.Events))
	tr.MO = make([][]int, len(p.Locs))
	last := make([]int, len(p.Locs))
	for l := range p.Locs {
		last[l] = l
		tr.MO[l] = []int{l}
	}
	for i := range tr.RF {
		tr.RF[i] = -1
	}
	for _, e := range w.Tau {
		ev := &tr.Events[e]
		if ev.IsRead() {
			src := &tr.Events[last[ev.Loc]]
			if src.WriteVal() != ev.Val {
				return nil, fmt.Errorf("decider bug: in τ, %s reads %s", tr.EventString(p, e), tr.EventString(p, src.ID))
			}
			tr.RF[e] = src.ID
		}
		if ev.IsWrite() {
			last[ev.Loc] = e
			tr.MO[ev.Loc] = append(tr.MO[ev.Loc], e)
		}
	}
	if err := queueRelations(p, tr, pos); err != nil {
		return nil, err
	}
	w.Trace = tr
	if len(tr.Events) > axiom.MaxEvents {
		return w, nil // too large for the model's bitsets: left unchecked
	}
	r := tr.Relations()
	if !r.RDMAConsistent() {
		return nil, fmt.Errorf("decider bug: the violation's trace is not RDMA-consistent:\n%s", tr.Format(p))
	}
	if r.SCConsistent() {
		return nil, fmt.Errorf("decider bug: the violation's trace is SC-consistent:\n%s", tr.Format(p))
	}
	for a := range tr.Events {
		for b := range tr.Events {
			if r.OB.Has(a, b) && pos[a] >= pos[b] && tr.Events[a].Thread >= 0 {
				return nil, fmt.Errorf("decider bug: ob edge %s -> %s points backwards in τ:\n%s",
					tr.EventString(p, a), tr.EventString(p, b), tr.Format(p))
			}
		}
	}
	w.Cycle = tr.SCCycle()
	rp, err := replay(p, tr, pos)
	if err != nil {
		return nil, fmt.Errorf("replaying the violation on the RDMA machine: %w", err)
	}
	w.Replay = rp
	return w, nil
}

// queueRelations adds to tr the relations of its queue pairs, given the
// place pos of each event in τ: nfo, per queue pair, each (nlR, nlW) and
// (nrR, nrW) pair in τ order; pf, the k-th poll of a queue pair polling its
// k-th NIC write.
func queueRelations(p *prog.Program, tr *axiom.Trace, pos []int) error {
	nw, np := map[int][]int{}, map[int][]int{}
	for a := range tr.Events {
		ea := &tr.Events[a]
		if ea.QP < 0 {
			continue
		}
		switch ea.Kind {
		case prog.EvNLW, prog.EvNRW:
			nw[ea.QP] = append(nw[ea.QP], a)
		case prog.EvPoll:
			np[ea.QP] = append(np[ea.QP], a)
		}
		for b := range tr.Events {
			eb := &tr.Events[b]
			if eb.QP != ea.QP || !(ea.Kind == prog.EvNLR && eb.Kind == prog.EvNLW || (ea.Kind == prog.EvNRR || ea.Kind == prog.EvNAR) && eb.Kind == prog.EvNRW) {
				continue
			}
			if pos[a] < pos[b] {
				tr.NFO = append(tr.NFO, [2]int{a, b})
			} else {
				tr.NFO = append(tr.NFO, [2]int{b, a})
			}
		}
	}
	for q := range p.QPs {
		for k, poll := range np[q] {
			if k >= len(nw[q]) || tr.Events[nw[q][k]].Index > tr.Events[poll].Index {
				return fmt.Errorf("decider bug: %s polls no earlier NIC write", tr.EventString(p, poll))
			}
			tr.PF = append(tr.PF, [2]int{nw[q][k], poll})
		}
	}
	return nil
}

// Format prints τ1 and τ2, one line each.
func (w *Witness) Format(p *prog.Program) string {
	var b strings.Builder
	line := func(name string, ids []int) {
		fmt.Fprintf(&b, "%s:", name)
		for _, e := range ids {
			fmt.Fprintf(&b, " %s", w.EventString(p, e))
		}
		b.WriteByte('\n')
	}
	line("τ1", w.Tau[:w.Split])
	line("τ2", w.Tau[w.Split:])
	return b.String()
}

// EventString prints event e of the witness with its thread, e.g.
// "T0:nlR(x,2,n2)".
func (w *Witness) EventString(p *prog.Program, e int) string {
	ev := w.Trace.Events[e]
	if ev.Thread < 0 {
		return "init:" + p.EventString(ev.Event)
	}
	return p.Threads[ev.Thread].Name + ":" + p.EventString(ev.Event)
}
