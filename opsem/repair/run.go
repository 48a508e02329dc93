package repair

// Learning from a run of the RDMA machine (the query goal): the witness run
// that check's search finds is turned into the events each thread performed,
// in program order, each with the step of the run at which it took effect;
// a shortest cycle of po ∪ com over them (com: two accesses of one location,
// one a write, in the order the run performed them) is the reason the run's
// outcome is not one of an SC run; its program-order edges that the run
// performed backwards are the reorderings to forbid.

import (
	"fmt"
	"sort"
	"strings"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// runTrace is a run of the RDMA machine read as events: Trace.Events are
// the events each thread performed or had submitted by the run's end, in
// program order (Index), with the instruction each comes from (PC) and its
// queue pair (QP); at[e] is the step of the run at which event e took
// effect on memory (a NIC write when it became visible), or, for an event
// of an operation still in flight at the end (pending[e]), a step after the
// run's last. RF, MO, NFO and PF are not filled: the learning reads only
// the events and their times.
type runTrace struct {
	tr      *axiom.Trace
	at      []int
	pending []bool
	steps   int
	// finalPC is each thread's instruction in the configuration the run
	// ends in; condThreads the threads a reach condition names (set by
	// cycle).
	finalPC     []int
	condThreads map[int]bool
}

// runOp is an operation a thread submitted to a queue pair, followed
// through the pipeline's buffers.
type runOp struct {
	id, t, pc, qp, seq int
	op                 prog.Op
	x, y               int
	done               map[int]bool // parts performed
}

// The part of an operation each of its events is, in program order: a put
// reads its source (0) then writes its target (1); a get reads (0) and
// writes locally (1); a remote atomic reads (0), writes (1), and writes the
// value read locally (2); a fence is one event (0).
const (
	partFirst = 0
	partWrite = 1
	partLocal = 2
)

// newRunTrace follows run, a run of m (the RDMA machine verdict built for
// p), step by step. A CPU step takes the instruction the thread is at
// before it; each NIC rule moves an operation between the queue pair's
// buffers, which are FIFO except B3, where a get reads, or an atomic reads
// and writes, the entry that changed.
func newRunTrace(p *prog.Program, m *machine.Machine, run *verdict.Run) (*runTrace, error) {
	rt := &runTrace{tr: &axiom.Trace{}, steps: len(run.Steps)}
	for l, loc := range p.Locs {
		rt.add(axiom.Event{Event: prog.Event{Kind: prog.EvLW, Thread: -1, Loc: l, Val: loc.Init, Remote: -1}, Index: -1, QP: -1, PC: -1}, -1, false)
	}
	type key struct{ seq, part int }
	keys := map[int]key{} // event id → its program-order key
	var ops []*runOp
	type queues struct{ b1, b2, b3, rw, lw []int }
	qs := make([]queues, len(p.QPs))
	pop := func(q *[]int, what string) (*runOp, error) {
		if len(*q) == 0 {
			return nil, fmt.Errorf("the run's NIC step %s has no operation to take", what)
		}
		o := ops[(*q)[0]]
		*q = (*q)[1:]
		return o, nil
	}
	seq := make([]int, len(p.Threads))
	nicEvent := func(o *runOp, part int, ev prog.Event, i int, pending bool) {
		o.done[part] = true
		id := rt.add(axiom.Event{Event: prog.Event{Kind: ev.Kind, Thread: o.t, Loc: ev.Loc, Val: ev.Val, Remote: p.QPs[o.qp].Remote},
			QP: o.qp, PC: o.pc}, i, pending)
		keys[id] = key{o.seq, part}
	}
	prev := run.Initial
	for i, tr := range run.Steps {
		ev := tr.Step.Event
		if tr.Rule == "step" {
			t := tr.Thread
			pc, _ := m.Encoded(prev).PC(t)
			in := &p.Threads[t].Code[pc]
			s := seq[t]
			seq[t]++
			if in.Op.IsRemote() {
				ops = append(ops, &runOp{id: len(ops), t: t, pc: pc, qp: in.QP, seq: s, op: in.Op, x: in.X, y: in.Y, done: map[int]bool{}})
				qs[in.QP].b1 = append(qs[in.QP].b1, len(ops)-1)
			}
			if ev.Kind != prog.EvNone {
				e := axiom.Event{Event: ev, QP: -1, PC: pc}
				e.Thread, e.Remote = t, -1
				if ev.Kind == prog.EvPoll {
					e.Remote, e.QP = in.Remote, in.QP
				}
				keys[rt.add(e, i, false)] = key{s, 0}
			}
			prev = tr.Post
			continue
		}
		qi := p.Threads[tr.Thread].QPs[ev.Remote]
		if qi < 0 {
			return nil, fmt.Errorf("step %d: %s has no queue pair", i+1, tr.Actor)
		}
		q := &qs[qi]
		b3Changed := func() (*runOp, error) {
			before, after := run.Configs[i].QueuePairs[qi].B3, run.Configs[i+1].QueuePairs[qi].B3
			for k := range before {
				if k < len(after) && before[k] != after[k] && k < len(q.b3) {
					return ops[q.b3[k]], nil
				}
			}
			return nil, fmt.Errorf("step %d (%s): no B3 entry of %s changed", i+1, tr.Rule, tr.Actor)
		}
		var o *runOp
		var err error
		switch tr.Rule {
		case "N1", "N2", "N3":
			if o, err = pop(&q.b1, tr.Rule); err != nil {
				return nil, err
			}
			switch tr.Rule {
			case "N1":
				nicEvent(o, partFirst, ev, i, false)
			case "N3":
				nicEvent(o, partFirst, prog.Event{Kind: prog.EvNF, Loc: -1}, i, false)
			}
			if tr.Rule != "N3" {
				q.b2 = append(q.b2, o.id)
			}
		case "N4", "N5":
			if o, err = pop(&q.b2, tr.Rule); err != nil {
				return nil, err
			}
			if tr.Rule == "N4" && len(run.Configs[i+1].QueuePairs[qi].RW) > len(run.Configs[i].QueuePairs[qi].RW) {
				q.rw = append(q.rw, o.id)
			} else if tr.Rule == "N4" {
				o.done[partWrite] = true // a write to a location nothing reads: dropped
			}
			q.b3 = append(q.b3, o.id)
		case "N6", "A1", "A2":
			if o, err = b3Changed(); err != nil {
				return nil, err
			}
			part := partFirst
			if tr.Rule == "A2" {
				part = partWrite
			}
			nicEvent(o, part, ev, i, false)
		case "N7", "N8":
			if o, err = pop(&q.b3, tr.Rule); err != nil {
				return nil, err
			}
			if tr.Rule == "N8" {
				q.lw = append(q.lw, o.id)
			}
		case "F1":
			if o, err = pop(&q.rw, tr.Rule); err != nil {
				return nil, err
			}
			nicEvent(o, partWrite, ev, i, false)
		case "F2":
			if o, err = pop(&q.lw, tr.Rule); err != nil {
				return nil, err
			}
			part := partWrite
			if o.op.IsAtomic() {
				part = partLocal
			}
			nicEvent(o, part, ev, i, false)
		default:
			return nil, fmt.Errorf("step %d: unknown NIC rule %q", i+1, tr.Rule)
		}
		prev = tr.Post
	}
	for t := range p.Threads {
		pc, _ := m.Encoded(prev).PC(t)
		rt.finalPC = append(rt.finalPC, pc)
	}
	// The events of operations still in flight, as the NIC would perform
	// them after the run, in each queue pair's order.
	next := len(run.Steps)
	for _, o := range ops {
		var want []struct {
			part int
			kind prog.EventKind
			loc  int
		}
		add := func(part int, kind prog.EventKind, loc int) {
			want = append(want, struct {
				part int
				kind prog.EventKind
				loc  int
			}{part, kind, loc})
		}
		switch o.op {
		case prog.OpPut:
			add(partFirst, prog.EvNLR, o.x)
			add(partWrite, prog.EvNRW, o.y)
		case prog.OpGet:
			add(partFirst, prog.EvNRR, o.y)
			add(partWrite, prog.EvNLW, o.x)
		case prog.OpRFence:
			add(partFirst, prog.EvNF, -1)
		default: // a remote atomic
			add(partFirst, prog.EvNAR, o.y)
			add(partLocal, prog.EvNLW, o.x)
		}
		for _, w := range want {
			if !o.done[w.part] {
				nicEvent(o, w.part, prog.Event{Kind: w.kind, Loc: w.loc}, next, true)
				next++
			}
		}
	}
	// Program order: each thread's events by (step of the thread that
	// issued them, part).
	byThread := map[int][]int{}
	for id := range rt.tr.Events {
		if t := rt.tr.Events[id].Thread; t >= 0 {
			byThread[t] = append(byThread[t], id)
		}
	}
	for _, ids := range byThread {
		sort.Slice(ids, func(a, b int) bool {
			ka, kb := keys[ids[a]], keys[ids[b]]
			return ka.seq < kb.seq || ka.seq == kb.seq && ka.part < kb.part
		})
		for k, id := range ids {
			rt.tr.Events[id].Index = k
		}
	}
	return rt, nil
}

// add appends e, performed at step at, and returns its id.
func (rt *runTrace) add(e axiom.Event, at int, pending bool) int {
	e.ID = len(rt.tr.Events)
	rt.tr.Events = append(rt.tr.Events, e)
	rt.at = append(rt.at, at)
	rt.pending = append(rt.pending, pending)
	return e.ID
}

// isAccess reports whether k reads or writes memory.
func isAccess(k prog.EventKind) bool {
	switch k {
	case prog.EvLW, prog.EvLR, prog.EvCAS, prog.EvNLR, prog.EvNRW, prog.EvNRR, prog.EvNLW, prog.EvNAR, prog.EvNAW:
		return true
	}
	return false
}

func isWriteKind(k prog.EventKind) bool {
	switch k {
	case prog.EvLW, prog.EvCAS, prog.EvNRW, prog.EvNLW, prog.EvNAW:
		return true
	}
	return false
}

// observer is the node that stands for a reach condition's look at the
// configuration the run ends in. To a thread the condition names (T@L,
// T@end, T@fail) it is the thread's next event, after every event of every
// instruction the thread has executed (in program order): when one of them
// is still in flight, that edge is performed out of order.
const observer = -2

// cycle returns a shortest cycle of po ∪ com over the run's accesses to
// the locations not dead (those something observes), as the pairs of
// events it steps through, each related to the next (the last to the
// first); nil when there is none. com relates two accesses of one
// location, one of them a write, in the order the run performed them (the
// rf, mo and rb of the run; two pending events are not related). A remote
// atomic's read and write are one node, as sc contracts them. With reach,
// the cycle may pass through the observer: after every event of a thread
// the condition names, after every visible write to a location it reads,
// before every pending one. Of the shortest cycles, prog.ShortestCycle
// picks one with the observer ordered first and the accesses in the
// order of their events: a cycle through the observer starts there.
func (rt *runTrace) cycle(dead []bool, reach *prog.Cond) [][2]int {
	evs := rt.tr.Events
	var condThreads, condLocs map[int]bool
	if reach != nil {
		condThreads, condLocs = map[int]bool{}, map[int]bool{}
		condParts(reach, condThreads, condLocs)
		rt.condThreads = condThreads
	}
	edge := func(a, b int) bool {
		switch {
		case a == b:
			return false
		case a == observer: // the condition reads what a pending write overwrites
			e := &evs[b]
			return rt.pending[b] && isWriteKind(e.Kind) && condLocs[e.Loc]
		case b == observer: // what the condition sees happened before it
			e := &evs[a]
			return condThreads[e.Thread] || !rt.pending[a] && isWriteKind(e.Kind) && condLocs[e.Loc]
		}
		ea, eb := &evs[a], &evs[b]
		if ea.Thread == eb.Thread && ea.Index < eb.Index {
			return true // po
		}
		if ea.Loc != eb.Loc || !isWriteKind(ea.Kind) && !isWriteKind(eb.Kind) || rt.pending[a] && rt.pending[b] {
			return false
		}
		return rt.at[a] < rt.at[b] // com
	}
	// Nodes: one per access, a remote atomic's write joined to its read.
	members := map[int][]int{}
	var nodes []int
	read := map[[2]int]int{} // (thread, index) → a remote atomic's read
	for id, e := range evs {
		if e.Kind == prog.EvNAR {
			read[[2]int{e.Thread, e.Index}] = id
		}
	}
	for id, e := range evs {
		if e.Thread < 0 || !isAccess(e.Kind) || e.Loc >= 0 && e.Loc < len(dead) && dead[e.Loc] {
			continue
		}
		if r, ok := read[[2]int{e.Thread, e.Index - 1}]; ok && e.Kind == prog.EvNAW {
			if _, ok := members[r]; ok { // the read comes first in time: its node is made
				members[r] = append(members[r], id)
				continue
			}
		}
		members[id] = []int{id}
		nodes = append(nodes, id)
	}
	if reach != nil {
		members[observer] = []int{observer}
		nodes = append([]int{observer}, nodes...)
	}
	// step is the pair of members that relates node x to node y, a pair
	// the run performed out of order first; ok is false when none does.
	step := func(x, y int) (pair [2]int, ok bool) {
		for _, a := range members[x] {
			for _, b := range members[y] {
				if edge(a, b) {
					if rt.inverted(a, b) {
						return [2]int{a, b}, true
					}
					pair, ok = [2]int{a, b}, true
				}
			}
		}
		return pair, ok
	}
	var best []int
	for _, i := range prog.ShortestCycle(len(nodes), func(i, j int) bool {
		if i == j {
			return false
		}
		_, ok := step(nodes[i], nodes[j])
		return ok
	}) {
		best = append(best, nodes[i])
	}
	var pairs [][2]int
	for k, x := range best {
		pr, _ := step(x, best[(k+1)%len(best)])
		pairs = append(pairs, pr)
	}
	return pairs
}

// condParts collects the threads (T@L, T@end, T@fail) and the locations a
// condition names.
func condParts(c *prog.Cond, threads, locs map[int]bool) {
	if c == nil {
		return
	}
	switch c.Op {
	case prog.CEq, prog.CNe:
		locs[c.Loc] = true
	case prog.CAt, prog.CEnd, prog.CFail:
		threads[c.Thread] = true
	}
	condParts(c.L, threads, locs)
	condParts(c.R, threads, locs)
}

// inverted reports whether the cycle's step a → b is a program-order edge
// that the run performed backwards: b took effect before a.
func (rt *runTrace) inverted(a, b int) bool {
	switch {
	case a == observer:
		return false
	case b == observer:
		return rt.condThreads[rt.tr.Events[a].Thread] && rt.pending[a]
	}
	ea, eb := &rt.tr.Events[a], &rt.tr.Events[b]
	return ea.Thread == eb.Thread && ea.Index < eb.Index && rt.at[b] < rt.at[a]
}

// describe prints the cycle on one line in source terms: each event with
// its thread and the original line of its statement, "(in flight)" for an
// event the run had not performed when it reached its outcome.
func (rt *runTrace) describe(p *prog.Program, cyc [][2]int, ed *edited) string {
	var parts []string
	for k, pr := range cyc {
		id := pr[0]
		if prev := cyc[(k+len(cyc)-1)%len(cyc)]; prev[1] != id && prev[1] != observer {
			// A remote atomic entered by its write: name it too.
			parts = append(parts, rt.eventWords(p, prev[1], ed))
		}
		parts = append(parts, rt.eventWords(p, id, ed))
	}
	return strings.Join(parts, " → ")
}

// eventWords names event id (or the observer) in source terms.
func (rt *runTrace) eventWords(p *prog.Program, id int, ed *edited) string {
	if id == observer {
		return "the condition's look"
	}
	e := &rt.tr.Events[id]
	th := &p.Threads[e.Thread]
	where := ""
	if st := th.Code[e.PC].Stmt; st != nil {
		if pos, ok := ed.Orig(st.Pos); ok {
			where = fmt.Sprintf(" line %d", pos.Line)
		} else {
			where = " (inserted)"
		}
	}
	ev := p.EventString(e.Event)
	if rt.pending[id] {
		ev = strings.SplitN(ev, ",", 2)[0]
		if strings.Contains(ev, "(") && !strings.HasSuffix(ev, ")") {
			ev += ")"
		}
		ev += " in flight"
	}
	return fmt.Sprintf("%s %s%s", th.Name, ev, where)
}
