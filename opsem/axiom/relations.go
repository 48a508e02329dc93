package axiom

import (
	"fmt"
	"slices"
	"strings"

	"rdmasim/opsem/prog"
)

// Relations are the primitive and derived relations of a trace (paper,
// section 4), computed from scratch. IB, OB and SC are transitive closures;
// the others are the plain relations (PO and MO transitive by definition).
type Relations struct {
	PO   Rel // program order
	RF   Rel // reads-from (write -> read)
	MO   Rel // modification order
	RB   Rel // reads-before: (rf⁻¹;mo) \ id
	NFO  Rel // NIC flush order
	PF   Rel // polls-from (NIC write -> poll)
	PPOi Rel // issue-preserved program order (ippo)
	PPOo Rel // observation-preserved program order (oppo)
	IB   Rel // issued-before: (ippo ∪ rf ∪ pf ∪ nfo)+
	OB   Rel // observed-before: (oppo ∪ rf ∪ [nlW];pf ∪ nfo ∪ rb ∪ mo ∪ [Inst];ib ∪ at)+
	SC   Rel // (po ∪ rf ∪ rb ∪ mo)+, each remote atomic's naR and naW contracted
	AT   Rel // the remote atomics' lock order (atomic.go); empty without atomics

	rmw []int // per event: the write of the writing atomic it is the read of, or -1
}

// Relations computes the relations of t. It assumes at most 64 events.
func (t *Trace) Relations() *Relations {
	// The trace's events with their fences numbered (a copy: a trace read
	// by several goroutines is not written).
	ev := slices.Clone(t.Events)
	NumberFences(ev)
	n := len(t.Events)
	r := &Relations{PO: NewRel(n), RF: NewRel(n), MO: NewRel(n), RB: NewRel(n), NFO: NewRel(n), PF: NewRel(n),
		PPOi: NewRel(n), PPOo: NewRel(n)}
	for a := range t.Events {
		for b := range t.Events {
			ea, eb := &ev[a], &ev[b]
			if ea.Thread < 0 || ea.Thread != eb.Thread || ea.Index >= eb.Index {
				continue
			}
			r.PO.Add(a, b)
			i, o := PPO(ea, eb)
			if i {
				r.PPOi.Add(a, b)
			}
			if o {
				r.PPOo.Add(a, b)
			}
		}
	}
	for e, w := range t.RF {
		if w >= 0 {
			r.RF.Add(w, e)
		}
	}
	for _, ord := range t.MO {
		for i := range ord {
			for j := i + 1; j < len(ord); j++ {
				r.MO.Add(ord[i], ord[j])
			}
		}
	}
	for e, w := range t.RF {
		if w < 0 {
			continue
		}
		for w2 := range t.Events {
			if r.MO.Has(w, w2) && w2 != e {
				r.RB.Add(e, w2)
			}
		}
	}
	for _, p := range t.NFO {
		r.NFO.Add(p[0], p[1])
	}
	for _, p := range t.PF {
		r.PF.Add(p[0], p[1])
	}
	var grp contraction
	grp.build(ev)
	ib := r.PPOi.Clone()
	ib.Union(r.RF)
	ib.Union(r.PF)
	ib.Union(r.NFO)
	grp.rows(ib, relIB)
	r.IB = ib.Closure()
	ob := r.PPOo.Clone()
	ob.Union(r.RF)
	for _, p := range t.PF {
		if t.Events[p[0]].Kind == prog.EvNLW {
			ob.Add(p[0], p[1])
		}
	}
	ob.Union(r.NFO)
	ob.Union(r.RB)
	ob.Union(r.MO)
	for x := range t.Events {
		if t.Events[x].IsInst() {
			ob[x] |= r.IB[x]
		}
	}
	r.rmw = make([]int, n)
	for i := range r.rmw {
		r.rmw[i] = -1
	}
	for _, a := range atomPairs(t.Events) {
		r.rmw[a.r] = a.w
	}
	r.AT = NewRel(n)
	for _, p := range atomicEdges(t.Events, t.RF, r.MO.Has) {
		r.AT.Add(p[0], p[1])
	}
	ob.Union(r.AT)
	grp.rows(ob, relOB)
	r.OB = ob.Closure()
	sc := r.PO.Clone()
	sc.Union(r.RF)
	sc.Union(r.RB)
	sc.Union(r.MO)
	contractAtomics(t.Events, sc)
	grp.rows(sc, relSC)
	r.SC = sc.Closure()
	return r
}

// RDMAConsistent reports whether ib and ob are both acyclic (the paper's
// definition; by its theorem, ob acyclic alone is equivalent).
func (r *Relations) RDMAConsistent() bool { return !r.IB.Reflexive() && !r.OB.Reflexive() }

// SCConsistent reports whether sc is acyclic.
func (r *Relations) SCConsistent() bool { return !r.SC.Reflexive() }

// IBCycleImpliesOBCycle reports whether the paper's theorem "ib cyclic ⇒ ob
// cyclic" holds on these relations.
func (r *Relations) IBCycleImpliesOBCycle() bool { return !r.IB.Reflexive() || r.OB.Reflexive() }

// EdgeKind names the relation of sc = po ∪ rf ∪ rb ∪ mo that relates
// event a to event b: po, rf, rb or mo, in that order of preference, or
// "sc" when none does directly (b follows a in sc by transitivity only).
// It names the steps of a cycle such as Trace.SCCycle returns.
func (r *Relations) EdgeKind(a, b int) string {
	switch {
	case r.PO.Has(a, b):
		return "po"
	case r.RF.Has(a, b):
		return "rf"
	case r.RB.Has(a, b):
		return "rb"
	case r.MO.Has(a, b):
		return "mo"
	case b < len(r.rmw) && r.rmw[b] >= 0 && a != r.rmw[b]:
		// b is a remote atomic's read, standing for the whole atomic
		// (sc contracts it): a is related to its write.
		return r.EdgeKind(a, r.rmw[b]) + ";rmw⁻¹"
	}
	return "sc"
}

// RDMAConsistent reports whether t is RDMA-consistent (ib and ob acyclic).
func (t *Trace) RDMAConsistent() bool { return t.Relations().RDMAConsistent() }

// SCConsistent reports whether t is SC-consistent (sc acyclic).
func (t *Trace) SCConsistent() bool { return t.Relations().SCConsistent() }

// SCCycle returns the events of a shortest cycle of po ∪ rf ∪ rb ∪ mo, in
// order (each event is related to the next, the last to the first), or nil
// when sc is acyclic. A multi-word work request is contracted as in SC: an
// edge into one of its events may be followed by its first event.
func (t *Trace) SCCycle() []int {
	r := t.Relations()
	g := r.PO.Clone()
	g.Union(r.RF)
	g.Union(r.RB)
	g.Union(r.MO)
	contractAtomics(t.Events, g)
	var grp contraction // a multi-word work request is one node (groups.go)
	grp.build(t.Events)
	grp.rows(g, relSC)
	return prog.ShortestCycle(len(t.Events), g.Has)
}

// Memory returns the final memory of t: per location, the value of its
// mo-last write (the initial value when t has no order for it, 0 for a
// location with no write at all: a register kept at run time, whose
// values the trace does not carry).
func (t *Trace) Memory(nlocs int) []uint8 {
	mem := make([]uint8, nlocs)
	for l := 0; l < nlocs; l++ {
		if l < len(t.MO) && len(t.MO[l]) > 0 {
			mem[l] = t.Events[t.MO[l][len(t.MO[l])-1]].WriteVal()
		}
	}
	for i := range t.Events {
		e := &t.Events[i]
		if e.Thread >= 0 {
			break
		}
		if e.Loc < nlocs && (e.Loc >= len(t.MO) || len(t.MO[e.Loc]) == 0) {
			mem[e.Loc] = e.Val
		}
	}
	return mem
}

// EventString prints event e of t as e3:nrR(w,1).
func (t *Trace) EventString(p *prog.Program, e int) string {
	return fmt.Sprintf("e%d:%s", e, p.EventString(t.Events[e].Event))
}

// Format prints t: its events per thread with their values, then the po
// (immediate successors), rf, mo, rb, nfo and pf edges.
func (t *Trace) Format(p *prog.Program) string {
	var b strings.Builder
	name := func(e int) string { return fmt.Sprintf("e%d", e) }
	line := func(label string, ids []int) {
		b.WriteString(label)
		b.WriteString(":")
		for _, e := range ids {
			b.WriteString(" ")
			b.WriteString(t.EventString(p, e))
		}
		b.WriteString("\n")
	}
	var init []int
	perThread := map[int][]int{}
	for i := range t.Events {
		if th := t.Events[i].Thread; th < 0 {
			init = append(init, i)
		} else {
			perThread[th] = append(perThread[th], i)
		}
	}
	line("init", init)
	for th := range p.Threads {
		line("thread "+p.Threads[th].Name, perThread[th])
	}
	edges := func(label string, pairs [][2]int) {
		b.WriteString(label)
		b.WriteString(":")
		for _, pr := range pairs {
			fmt.Fprintf(&b, " %s->%s", name(pr[0]), name(pr[1]))
		}
		b.WriteString("\n")
	}
	var po [][2]int
	for th := range p.Threads {
		ids := perThread[th]
		for i := 1; i < len(ids); i++ {
			po = append(po, [2]int{ids[i-1], ids[i]})
		}
	}
	edges("po", po)
	var rf [][2]int
	for e, w := range t.RF {
		if w >= 0 {
			rf = append(rf, [2]int{w, e})
		}
	}
	edges("rf", rf)
	b.WriteString("mo:")
	for l, ord := range t.MO {
		if len(ord) < 2 {
			continue
		}
		fmt.Fprintf(&b, " %s:", p.Locs[l].Name)
		for i, w := range ord {
			if i > 0 {
				b.WriteString("<")
			}
			b.WriteString(name(w))
		}
	}
	b.WriteString("\n")
	edges("rb", t.Relations().RB.Pairs())
	edges("nfo", t.NFO)
	edges("pf", t.PF)
	if t.Complete {
		b.WriteString("complete\n")
	} else {
		b.WriteString("partial\n")
	}
	return b.String()
}

// WellFormed checks the structure of t against the definition of a trace
// (without the program: labels are not checked against Seq(P)): initial
// writes first, at most one per location in increasing location order (a
// register kept at run time has none, and no event of a thread names it),
// consecutive program order, rf from a write of the same location and
// value, mo a total order per location with the initial write first and
// empty for a location without one, nfo exactly one direction per
// queue-pair pair, pf the k-th NIC write for the k-th poll of each queue
// pair.
func (t *Trace) WellFormed() error {
	n := len(t.Events)
	if n > MaxEvents {
		return fmt.Errorf("%d events, more than %d", n, MaxEvents)
	}
	if len(t.RF) != n {
		return fmt.Errorf("RF has %d entries for %d events", len(t.RF), n)
	}
	ninit, hasInit := 0, map[int]bool{}
	next := map[int]int{}
	for i := range t.Events {
		e := &t.Events[i]
		if e.ID != i {
			return fmt.Errorf("event %d has ID %d", i, e.ID)
		}
		if e.Thread < 0 {
			if i != ninit || e.Kind != prog.EvLW || e.Loc < 0 || i > 0 && e.Loc <= t.Events[i-1].Loc || e.Index != -1 {
				return fmt.Errorf("event %d: initial writes must come first, one lW per location in order", i)
			}
			ninit++
			hasInit[e.Loc] = true
			continue
		}
		if e.Loc >= 0 && !hasInit[e.Loc] {
			return fmt.Errorf("event %d: location %d has no initial write", i, e.Loc)
		}
		if e.Index != next[e.Thread] {
			return fmt.Errorf("event %d: index %d, expected %d", i, e.Index, next[e.Thread])
		}
		next[e.Thread]++
	}
	for e, w := range t.RF {
		ev := &t.Events[e]
		if !ev.IsRead() {
			if w != -1 {
				return fmt.Errorf("event %d is not a read but reads from %d", e, w)
			}
			continue
		}
		if w < 0 || w >= n || !t.Events[w].IsWrite() {
			return fmt.Errorf("read %d reads from %d, not a write", e, w)
		}
		if t.Events[w].Loc != ev.Loc || t.Events[w].WriteVal() != ev.Val {
			return fmt.Errorf("read %d (loc %d, value %d) reads from write %d (loc %d, value %d)", e, ev.Loc, ev.Val, w, t.Events[w].Loc, t.Events[w].WriteVal())
		}
	}
	if ninit > 0 && len(t.MO) <= t.Events[ninit-1].Loc {
		return fmt.Errorf("MO has %d locations, the trace's initial writes %d", len(t.MO), t.Events[ninit-1].Loc+1)
	}
	for l, ord := range t.MO {
		if !hasInit[l] {
			if len(ord) > 0 {
				return fmt.Errorf("mo of location %d, which has no initial write, is not empty", l)
			}
			continue
		}
		seen := map[int]bool{}
		for i, w := range ord {
			if w < 0 || w >= n || !t.Events[w].IsWrite() || t.Events[w].Loc != l || seen[w] {
				return fmt.Errorf("mo of location %d: bad entry %d", l, w)
			}
			if (i == 0) != (t.Events[w].Thread < 0) {
				return fmt.Errorf("mo of location %d must start with its initial write", l)
			}
			seen[w] = true
		}
		for i := range t.Events {
			if t.Events[i].IsWrite() && t.Events[i].Loc == l && !seen[i] {
				return fmt.Errorf("mo of location %d misses write %d", l, i)
			}
		}
	}
	nfo := map[[2]int]int{}
	for _, p := range t.NFO {
		a, b := p[0], p[1]
		if a > b {
			a, b = b, a
		}
		nfo[[2]int{a, b}]++
	}
	want := 0
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			ea, eb := &t.Events[a], &t.Events[b]
			if ea.Thread < 0 || ea.Thread != eb.Thread || ea.Remote != eb.Remote {
				continue
			}
			ka, kb := ea.Kind, eb.Kind
			if inlineRead(ea) || inlineRead(eb) {
				continue // a CPU-side read: no NIC flush (inline.go)
			}
			if ka == prog.EvNLR && kb == prog.EvNLW || ka == prog.EvNLW && kb == prog.EvNLR ||
				ka == prog.EvNRR && kb == prog.EvNRW || ka == prog.EvNRW && kb == prog.EvNRR ||
				ka == prog.EvNAR && kb == prog.EvNRW || ka == prog.EvNRW && kb == prog.EvNAR {
				want++
				if nfo[[2]int{a, b}] != 1 {
					return fmt.Errorf("nfo pair (%d,%d) oriented %d times", a, b, nfo[[2]int{a, b}])
				}
			}
		}
	}
	if want != len(t.NFO) {
		return fmt.Errorf("nfo has %d pairs, expected %d", len(t.NFO), want)
	}
	type qp struct{ t, r int }
	nics := map[qp][]int{}
	polls := map[qp]int{}
	pf := map[[2]int]bool{}
	for _, p := range t.PF {
		pf[p] = true
	}
	npf := 0
	for i := range t.Events {
		e := &t.Events[i]
		if e.Thread < 0 {
			continue
		}
		q := qp{e.Thread, e.Remote}
		switch {
		case e.IsNICWrite() && e.WR > 0 && t.Events[i-1].Kind == e.Kind:
			// A multi-word operation's later word: its poll polls
			// from every word (checked on the first).
		case e.IsNICWrite():
			nics[q] = append(nics[q], i)
		case e.Kind == prog.EvPoll:
			k := polls[q]
			last := nextSignalled(t.Events, nics[q], k)
			if last >= len(nics[q]) {
				return fmt.Errorf("poll %d has no signalled NIC write to poll from", i)
			}
			polls[q] = last + 1
			for _, w := range nics[q][k : last+1] {
				for j := w; j == w || j < n && t.Events[j].WR > 0 && t.Events[j].WR == t.Events[w].WR && t.Events[j].Thread == t.Events[w].Thread; j++ {
					if !pf[[2]int{j, i}] {
						return fmt.Errorf("poll %d must poll from %d", i, j)
					}
					npf++
				}
			}
		}
	}
	if npf != len(t.PF) {
		return fmt.Errorf("pf has %d pairs, expected %d", len(t.PF), npf)
	}
	return nil
}
