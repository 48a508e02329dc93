package repair

// Reading a run of the RDMA machine as events (runTrace), step by step.

import (
	"fmt"
	"sort"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

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

// runReader follows a run step by step into a runTrace: the operations
// submitted, where each is in its queue pair's buffers, and the key that
// orders each event in its thread.
type runReader struct {
	p    *prog.Program
	m    *machine.Machine
	run  *verdict.Run
	rt   *runTrace
	keys map[int]poKey // event id → its program-order key
	ops  []*runOp      // the operations submitted, in order
	qs   []runQueues   // per queue pair
	seq  []int         // per thread, the steps it has taken
}

// poKey orders a thread's events: by the step of the thread that issued
// them, then by part.
type poKey struct{ seq, part int }

// runQueues holds the operations (indices into runReader.ops) in each
// buffer of a queue pair.
type runQueues struct{ b1, b2, b3, rw, lw []int }

// newRunTrace follows run, a run of m (the RDMA machine verdict built for
// p), step by step. A CPU step takes the instruction the thread is at
// before it; each NIC rule moves an operation between the queue pair's
// buffers, which are FIFO except B3, where a get reads, or an atomic reads
// and writes, the entry that changed.
func newRunTrace(p *prog.Program, m *machine.Machine, run *verdict.Run) (*runTrace, error) {
	rd := &runReader{
		p: p, m: m, run: run, rt: &runTrace{tr: &axiom.Trace{}, steps: len(run.Steps)},
		keys: map[int]poKey{}, qs: make([]runQueues, len(p.QPs)), seq: make([]int, len(p.Threads)),
	}
	for l, loc := range p.Locs {
		rd.rt.add(axiom.Event{Event: prog.Event{Kind: prog.EvLW, Thread: -1, Loc: l, Val: loc.Init, Remote: -1}, Index: -1, QP: -1, PC: -1}, -1, false)
	}
	prev := run.Initial
	for i, tr := range run.Steps {
		if tr.Rule == "step" {
			rd.cpuStep(i, tr, prev)
		} else if err := rd.nicStep(i, tr); err != nil {
			return nil, err
		}
		prev = tr.Post
	}
	for t := range p.Threads {
		pc, _ := m.Encoded(prev).PC(t)
		rd.rt.finalPC = append(rd.rt.finalPC, pc)
	}
	rd.pendingEvents()
	rd.programOrder()
	return rd.rt, nil
}

// cpuStep reads step i, thread tr.Thread's instruction at configuration
// prev: a remote operation enters B1 of its queue pair; an event of the
// CPU is performed.
func (rd *runReader) cpuStep(i int, tr machine.Transition, prev []byte) {
	ev := tr.Step.Event
	t := tr.Thread
	pc, _ := rd.m.Encoded(prev).PC(t)
	in := &rd.p.Threads[t].Code[pc]
	s := rd.seq[t]
	rd.seq[t]++
	if in.Op.IsRemote() {
		rd.ops = append(rd.ops, &runOp{id: len(rd.ops), t: t, pc: pc, qp: in.QP, seq: s, op: in.Op, x: in.X, y: in.Y, done: map[int]bool{}})
		rd.qs[in.QP].b1 = append(rd.qs[in.QP].b1, len(rd.ops)-1)
	}
	if ev.Kind != prog.EvNone {
		e := axiom.Event{Event: ev, QP: -1, PC: pc}
		e.Thread, e.Remote = t, -1
		if ev.Kind == prog.EvPoll {
			e.Remote, e.QP = in.Remote, in.QP
		}
		rd.keys[rd.rt.add(e, i, false)] = poKey{s, 0}
	}
}

// nicStep reads step i, a NIC rule of a queue pair of thread tr.Thread:
// the operation it takes from a buffer, where it puts it, and the event
// it performs.
func (rd *runReader) nicStep(i int, tr machine.Transition) error {
	ev := tr.Step.Event
	qi := rd.p.Threads[tr.Thread].QPs[ev.Remote]
	if qi < 0 {
		return fmt.Errorf("step %d: %s has no queue pair", i+1, tr.Actor)
	}
	q := &rd.qs[qi]
	var o *runOp
	var err error
	switch tr.Rule {
	case "N1", "N2", "N3":
		if o, err = rd.pop(&q.b1, tr.Rule); err != nil {
			return err
		}
		switch tr.Rule {
		case "N1":
			rd.nicEvent(o, partFirst, ev, i, false)
		case "N3":
			rd.nicEvent(o, partFirst, prog.Event{Kind: prog.EvNF, Loc: -1}, i, false)
		}
		if tr.Rule != "N3" {
			q.b2 = append(q.b2, o.id)
		}
	case "N4", "N5":
		if o, err = rd.pop(&q.b2, tr.Rule); err != nil {
			return err
		}
		if tr.Rule == "N4" && len(rd.run.Configs[i+1].QueuePairs[qi].RW) > len(rd.run.Configs[i].QueuePairs[qi].RW) {
			q.rw = append(q.rw, o.id)
		} else if tr.Rule == "N4" {
			o.done[partWrite] = true // a write to a location nothing reads: dropped
		}
		q.b3 = append(q.b3, o.id)
	case "N6", "A1", "A2":
		if o, err = rd.b3Changed(i, tr, qi); err != nil {
			return err
		}
		part := partFirst
		if tr.Rule == "A2" {
			part = partWrite
		}
		rd.nicEvent(o, part, ev, i, false)
	case "N7", "N8":
		if o, err = rd.pop(&q.b3, tr.Rule); err != nil {
			return err
		}
		if tr.Rule == "N8" {
			q.lw = append(q.lw, o.id)
		}
	case "F1":
		if o, err = rd.pop(&q.rw, tr.Rule); err != nil {
			return err
		}
		rd.nicEvent(o, partWrite, ev, i, false)
	case "F2":
		if o, err = rd.pop(&q.lw, tr.Rule); err != nil {
			return err
		}
		part := partWrite
		if o.op.IsAtomic() {
			part = partLocal
		}
		rd.nicEvent(o, part, ev, i, false)
	default:
		return fmt.Errorf("step %d: unknown NIC rule %q", i+1, tr.Rule)
	}
	return nil
}

// pop takes the first operation of buffer q for the NIC rule what.
func (rd *runReader) pop(q *[]int, what string) (*runOp, error) {
	if len(*q) == 0 {
		return nil, fmt.Errorf("the run's NIC step %s has no operation to take", what)
	}
	o := rd.ops[(*q)[0]]
	*q = (*q)[1:]
	return o, nil
}

// b3Changed returns the operation of queue pair qi's B3 whose entry step
// i (tr) changed: the one a get's read or an atomic's step took.
func (rd *runReader) b3Changed(i int, tr machine.Transition, qi int) (*runOp, error) {
	b3 := rd.qs[qi].b3
	before, after := rd.run.Configs[i].QueuePairs[qi].B3, rd.run.Configs[i+1].QueuePairs[qi].B3
	for k := range before {
		if k < len(after) && before[k] != after[k] && k < len(b3) {
			return rd.ops[b3[k]], nil
		}
	}
	return nil, fmt.Errorf("step %d (%s): no B3 entry of %s changed", i+1, tr.Rule, tr.Actor)
}

// nicEvent adds the event ev of part part of operation o, performed at
// step i (or pending after the run).
func (rd *runReader) nicEvent(o *runOp, part int, ev prog.Event, i int, pending bool) {
	o.done[part] = true
	id := rd.rt.add(axiom.Event{Event: prog.Event{Kind: ev.Kind, Thread: o.t, Loc: ev.Loc, Val: ev.Val, Remote: rd.p.QPs[o.qp].Remote},
		QP: o.qp, PC: o.pc}, i, pending)
	rd.keys[id] = poKey{o.seq, part}
}

// pendingEvents adds the events of the operations still in flight, as the
// NIC would perform them after the run, in each queue pair's order.
func (rd *runReader) pendingEvents() {
	next := len(rd.run.Steps)
	for _, o := range rd.ops {
		for _, w := range opParts(o) {
			if !o.done[w.part] {
				rd.nicEvent(o, w.part, prog.Event{Kind: w.kind, Loc: w.loc}, next, true)
				next++
			}
		}
	}
}

// opPart is one event an operation performs: its part, kind and location.
type opPart struct {
	part int
	kind prog.EventKind
	loc  int
}

// opParts lists the events of operation o, in program order.
func opParts(o *runOp) []opPart {
	switch o.op {
	case prog.OpPut:
		return []opPart{{partFirst, prog.EvNLR, o.x}, {partWrite, prog.EvNRW, o.y}}
	case prog.OpGet:
		return []opPart{{partFirst, prog.EvNRR, o.y}, {partWrite, prog.EvNLW, o.x}}
	case prog.OpRFence:
		return []opPart{{partFirst, prog.EvNF, -1}}
	}
	// a remote atomic
	return []opPart{{partFirst, prog.EvNAR, o.y}, {partLocal, prog.EvNLW, o.x}}
}

// programOrder sets each event's Index: its place among its thread's
// events by (step of the thread that issued them, part).
func (rd *runReader) programOrder() {
	evs := rd.rt.tr.Events
	byThread := map[int][]int{}
	for id := range evs {
		if t := evs[id].Thread; t >= 0 {
			byThread[t] = append(byThread[t], id)
		}
	}
	for _, ids := range byThread {
		sort.Slice(ids, func(a, b int) bool {
			ka, kb := rd.keys[ids[a]], rd.keys[ids[b]]
			return ka.seq < kb.seq || ka.seq == kb.seq && ka.part < kb.part
		})
		for k, id := range ids {
			evs[id].Index = k
		}
	}
}
