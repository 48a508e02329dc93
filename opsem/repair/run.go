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
	"strings"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
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
