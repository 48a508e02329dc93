package machine

import (
	"fmt"
	"math/bits"

	"rdmasim/opsem/prog"
)

// Event graphs, for robustness by enumeration (SEMANTICS.md, section 5).
//
// Under Options.Graph every configuration carries the events its run has
// performed, each with its thread and program-order position ("slot"), the
// write each read saw (rf) and, per location, the order in which writes
// reached memory (mo). Slots are allocated when an instruction executes or
// is submitted (a put or get takes two, its two events), so program order
// is known even for NIC events that are performed late. An event enters the
// graph when it takes effect on memory: a read when it reads, a NIC write
// when it becomes visible (F1, F2), which is when its rf and mo edges arise.
// Fences and polls take part in no rf, mo or rb edge and are left out; the
// program order through them is kept by the slots.
//
// Every rf, mo and rb edge points forward in the run (a read sees the
// latest write; a write after it in mo arrives later), so a cycle of
// sc = po ∪ rf ∪ rb ∪ mo must use a program-order edge that the machine
// performed out of order. Such a graph, completed by letting the NIC finish
// the operations already submitted, is an RDMA-consistent trace that is not
// SC-consistent: the program is not robust.

// noWrite identifies the initial write of a location in rf.
const noWrite = 0xFFFF

// gevGroup is the kind of a graph entry that is no event: the mark of a
// multi-word put or get (SEMANTICS-VERBS.md 1), recorded at its submission
// in the first of its 2k+1 slots, val = 2k. Its events take the next 2k
// slots (word i's read at mark+1+2i, its write at mark+2+2i). The SC
// machine performs the work request in one step, so sc contracts the
// mark and its events into one node (cycleScratch.groups); the mark takes
// part in no rf, mo or rb edge, and Graph leaves it out.
const gevGroup prog.EventKind = 0xFE

// gev is one event of a graph.
type gev struct {
	t, slot uint8
	kind    prog.EventKind
	loc     uint8
	val     uint8
	remote  uint8  // remote node of NIC events
	rf      uint16 // reads: wid of the write read (noWrite: the initial write)
}

func wid(t, slot uint8) uint16 { return uint16(t)<<8 | uint16(slot) }

func (e gev) id() uint16 { return wid(e.t, e.slot) }

func (e gev) isRead() bool {
	switch e.kind {
	case prog.EvLR, prog.EvCAS, prog.EvNLR, prog.EvNRR, prog.EvNAR:
		return true
	}
	return false
}

// graph is the event graph of a run: events sorted by (thread, slot), and
// per location the writes in modification order (the initial write
// implicit, first).
type graph struct {
	ev []gev
	mo [][]uint16
}

func (g *graph) copyFrom(o *graph) {
	g.ev = append(g.ev[:0], o.ev...)
	for l := range g.mo {
		g.mo[l] = append(g.mo[l][:0], o.mo[l]...)
	}
}

func (g *graph) encode(dst []byte) []byte {
	dst = append(dst, uint8(len(g.ev)))
	for _, e := range g.ev {
		dst = append(dst, e.t, e.slot, uint8(e.kind), e.loc, e.val, e.remote, uint8(e.rf>>8), uint8(e.rf))
	}
	for _, ws := range g.mo {
		dst = append(dst, uint8(len(ws)))
		for _, w := range ws {
			dst = append(dst, uint8(w>>8), uint8(w))
		}
	}
	return dst
}

func (g *graph) decode(s []byte) {
	n := int(s[0])
	i := 1
	g.ev = g.ev[:0]
	for k := 0; k < n; k++ {
		g.ev = append(g.ev, gev{t: s[i], slot: s[i+1], kind: prog.EventKind(s[i+2]), loc: s[i+3], val: s[i+4],
			remote: s[i+5], rf: uint16(s[i+6])<<8 | uint16(s[i+7])})
		i += 8
	}
	for l := range g.mo {
		n := int(s[i])
		i++
		g.mo[l] = g.mo[l][:0]
		for k := 0; k < n; k++ {
			g.mo[l] = append(g.mo[l], uint16(s[i])<<8|uint16(s[i+1]))
			i += 2
		}
	}
}

// add inserts e keeping events sorted by (thread, slot).
func (g *graph) add(e gev) {
	i := len(g.ev)
	g.ev = append(g.ev, e)
	for i > 0 && g.ev[i-1].id() > e.id() {
		g.ev[i] = g.ev[i-1]
		i--
	}
	g.ev[i] = e
}

// maxGraphEvents bounds the events of one graph (the encoding's count byte).
const maxGraphEvents = 250

// record adds the event of a transition to st's graph. slot is the event's
// program-order position in its thread.
func (m *Machine) record(st *State, ev prog.Event, slot uint8) {
	if !m.graph || ev.Kind == prog.EvNone || ev.Kind == prog.EvNF || ev.Kind == prog.EvPoll || ev.Kind == prog.EvQuiet {
		return
	}
	e := gev{t: uint8(ev.Thread), slot: slot, kind: ev.Kind, loc: uint8(ev.Loc), val: ev.Val, remote: uint8(ev.Remote), rf: noWrite}
	mo := &st.g.mo[ev.Loc]
	if e.isRead() && len(*mo) > 0 {
		e.rf = (*mo)[len(*mo)-1] // memory holds the mo-last write
	}
	switch ev.Kind {
	case prog.EvLW, prog.EvCAS, prog.EvNRW, prog.EvNLW, prog.EvNAW:
		*mo = append(*mo, e.id())
	}
	if ev.Kind == prog.EvCAS {
		e.val = ev.New // the value written; the value read is the rf source's
	}
	st.g.add(e)
}

// slot allocates n program-order positions for thread t and returns the
// first.
func (m *Machine) slot(st *State, t int, n uint8) uint8 {
	if !m.graph {
		return 0
	}
	s := st.slots[t]
	st.slots[t] += n
	return s
}

// graphFull reports whether thread t cannot allocate n more slots.
func (m *Machine) graphFull(st *State, t int, n int) bool {
	return m.graph && (int(st.slots[t])+n > 254 || len(st.g.ev)+n > maxGraphEvents)
}

// cycleScratch holds reusable buffers for SC-cycle detection.
type cycleScratch struct {
	words int
	adj   []uint64 // adj[i*words:(i+1)*words]: successors of event i
	alive []uint64
	index []int16 // index[t<<8|slot]: event index, or -1
	// indeg and stack: scratch of cyclic's topological sort.
	indeg, stack []int32
}

// edges fills sc's edge sets for g: po, rf, mo and rb.
func (c *cycleScratch) edges(g *graph, threads int) {
	n := len(g.ev)
	c.words = (n + 63) / 64
	c.adj = c.adj[:0]
	for i := 0; i < n*c.words; i++ {
		c.adj = append(c.adj, 0)
	}
	if len(c.index) < threads<<8 {
		c.index = make([]int16, threads<<8)
	}
	for _, e := range g.ev {
		c.index[e.id()] = -1
	}
	for i, e := range g.ev {
		c.index[e.id()] = int16(i)
	}
	set := func(a, b int) { c.adj[a*c.words+b/64] |= 1 << (b % 64) }
	defer c.groups(g)
	for i := 1; i < n; i++ {
		if g.ev[i].t == g.ev[i-1].t {
			set(i-1, i) // po between consecutive recorded events
		}
	}
	for _, ws := range g.mo {
		for k := 1; k < len(ws); k++ {
			set(int(c.index[ws[k-1]]), int(c.index[ws[k]]))
		}
	}
	defer c.atomics(g)
	for i, e := range g.ev {
		if !e.isRead() {
			continue
		}
		ws := g.mo[e.loc]
		after := 0 // position in mo after the write read
		if e.rf != noWrite {
			w := int(c.index[e.rf])
			set(w, i)
			for k, x := range ws {
				if x == e.rf {
					after = k + 1
				}
			}
		}
		for _, x := range ws[after:] {
			if j := int(c.index[x]); j != i { // rb minus identity (CAS)
				set(i, j)
			}
		}
	}
}

// atomics makes each remote atomic's read and write one node of sc, as the
// SC machine performs them in one step: every edge into the write (naW)
// also enters the read (naR) just before it in program order. A cycle of
// the result is a cycle of sc with each atomic contracted (see
// SEMANTICS-ATOMICS.md).
func (c *cycleScratch) atomics(g *graph) {
	for j := 1; j < len(g.ev); j++ {
		w, r := g.ev[j], g.ev[j-1]
		if w.kind != prog.EvNAW || r.kind != prog.EvNAR || r.t != w.t || r.slot+1 != w.slot {
			continue
		}
		i := j - 1
		for k := range g.ev {
			if k != i && c.adj[k*c.words+j/64]&(1<<(j%64)) != 0 {
				c.adj[k*c.words+i/64] |= 1 << (i % 64)
			}
		}
	}
}

// groups makes each multi-word work request one node of sc, as the SC
// machine performs it in one step: every edge into one of its events from
// outside it also enters its mark (gevGroup), which precedes them all in
// program order.
func (c *cycleScratch) groups(g *graph) {
	for i, m := range g.ev {
		if m.kind != gevGroup {
			continue
		}
		in := func(k int) bool {
			e := g.ev[k]
			return e.t == m.t && e.slot > m.slot && int(e.slot) <= int(m.slot)+int(m.val)
		}
		for j := i + 1; j < len(g.ev) && in(j); j++ {
			for k := range g.ev {
				if k != i && !in(k) && c.adj[k*c.words+j/64]&(1<<(j%64)) != 0 {
					c.adj[k*c.words+i/64] |= 1 << (i % 64)
				}
			}
		}
	}
}

// cycle returns the events of one sc cycle of g (as indices into g.ev), or
// nil when sc is acyclic. It peels off events with no predecessor among the
// remaining ones; what is left lies on or behind a cycle.
func (c *cycleScratch) cycle(g *graph, threads int) []int {
	c.edges(g, threads)
	n := len(g.ev)
	c.alive = c.alive[:0]
	for i := 0; i < c.words; i++ {
		c.alive = append(c.alive, 0)
	}
	for i := 0; i < n; i++ {
		c.alive[i/64] |= 1 << (i % 64)
	}
	hasPred := func(j int) int {
		for i := 0; i < n; i++ {
			if c.alive[i/64]&(1<<(i%64)) != 0 && c.adj[i*c.words+j/64]&(1<<(j%64)) != 0 {
				return i
			}
		}
		return -1
	}
	for changed := true; changed; {
		changed = false
		for j := 0; j < n; j++ {
			if c.alive[j/64]&(1<<(j%64)) != 0 && hasPred(j) < 0 {
				c.alive[j/64] &^= 1 << (j % 64)
				changed = true
			}
		}
	}
	start := -1
	for j := 0; j < n && start < 0; j++ {
		if c.alive[j/64]&(1<<(j%64)) != 0 {
			start = j
		}
	}
	if start < 0 {
		return nil
	}
	// Walk predecessors until an event repeats: that stretch is a cycle.
	seen := map[int]int{}
	var walk []int
	for j := start; ; j = hasPred(j) {
		if k, ok := seen[j]; ok {
			cyc := append([]int(nil), walk[k:]...)
			// reverse: walk followed predecessors
			for a, b := 0, len(cyc)-1; a < b; a, b = a+1, b-1 {
				cyc[a], cyc[b] = cyc[b], cyc[a]
			}
			return cyc
		}
		seen[j] = len(walk)
		walk = append(walk, j)
	}
}

// HasSCCycle reports whether the event graph of configuration s (a machine
// built with Options.Graph) has an sc cycle. It allocates nothing once warm.
func (m *Machine) HasSCCycle(s []byte) bool {
	if m.gst == nil {
		m.gst = m.newState()
	}
	m.decode(s, m.gst)
	c := &m.cyc
	c.edges(&m.gst.g, len(m.p.Threads))
	return c.cyclic(len(m.gst.g.ev))
}

// cyclic reports whether the edges already built have a cycle, without
// extracting it: Kahn's topological sort, which removes events with no
// remaining predecessor and finds a cycle when some are left, in time
// linear in the events and edges (the peeling of SCCycle, which also
// finds the cycle, takes a quadratic scan per round).
func (c *cycleScratch) cyclic(n int) bool {
	if cap(c.indeg) < n {
		c.indeg = make([]int32, n)
		c.stack = make([]int32, 0, n)
	}
	indeg, stack := c.indeg[:n], c.stack[:0]
	for i := range indeg {
		indeg[i] = 0
	}
	for i := 0; i < n; i++ {
		row := c.adj[i*c.words : (i+1)*c.words]
		for k, w := range row {
			for ; w != 0; w &= w - 1 {
				indeg[k*64+bits.TrailingZeros64(w)]++
			}
		}
	}
	for i, d := range indeg {
		if d == 0 {
			stack = append(stack, int32(i))
		}
	}
	removed := 0
	for len(stack) > 0 {
		i := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		removed++
		row := c.adj[i*c.words : (i+1)*c.words]
		for k, w := range row {
			for ; w != 0; w &= w - 1 {
				j := k*64 + bits.TrailingZeros64(w)
				if indeg[j]--; indeg[j] == 0 {
					stack = append(stack, int32(j))
				}
			}
		}
	}
	c.stack = stack
	return removed < n
}

// GraphEvent is an event of a configuration's event graph.
type GraphEvent struct {
	prog.Event     // for a CAS, Val is the value read and New the value written
	Slot       int // position in the thread's program order
	RF         int // reads: index of the write read in Graph.Events, -1 for the initial write
}

// Graph is the event graph of a configuration.
type Graph struct {
	Events []GraphEvent // sorted by thread, then program order
	MO     [][]int      // per location, the writes in modification order (initial write omitted)
	Cycle  []int        // one sc cycle (indices into Events), nil if sc is acyclic
}

// Graph decodes the event graph of configuration s (a machine built with
// Options.Graph) and finds an sc cycle in it.
func (m *Machine) Graph(s []byte) (*Graph, error) {
	if !m.graph {
		return nil, fmt.Errorf("machine built without Options.Graph")
	}
	st := m.newState()
	m.decode(s, st)
	g := &st.g
	out := &Graph{MO: make([][]int, len(g.mo))}
	index := map[uint16]int{}
	at := make([]int, len(g.ev)) // g.ev's index in out.Events, -1 for a mark
	for i, e := range g.ev {
		at[i] = -1
		if e.kind != gevGroup {
			at[i] = len(index)
			index[e.id()] = len(index)
		}
	}
	for _, e := range g.ev {
		if e.kind == gevGroup {
			continue
		}
		ge := GraphEvent{Event: prog.Event{Kind: e.kind, Thread: int(e.t), Loc: int(e.loc), Val: e.val, Remote: int(e.remote)}, Slot: int(e.slot), RF: -1}
		if e.isRead() && e.rf != noWrite {
			ge.RF = index[e.rf]
		}
		if e.kind == prog.EvCAS {
			ge.New = e.val
			ge.Val = m.p.Locs[e.loc].Init
			if ge.RF >= 0 {
				ge.Val = g.ev[ge.RF].val
			}
		}
		out.Events = append(out.Events, ge)
	}
	for l, ws := range g.mo {
		for _, w := range ws {
			out.MO[l] = append(out.MO[l], index[w])
		}
	}
	var c cycleScratch
	for _, i := range c.cycle(g, len(m.p.Threads)) {
		if at[i] >= 0 { // a mark stands for its group: its events are on the cycle's way
			out.Cycle = append(out.Cycle, at[i])
		}
	}
	return out, nil
}

// EdgeKind names the sc relation that relates event a to event b of g: po,
// rf, mo or rb ("" when none does directly).
func (g *Graph) EdgeKind(a, b int) string {
	ea, eb := g.Events[a], g.Events[b]
	switch {
	case ea.Thread == eb.Thread && ea.Slot < eb.Slot:
		return "po"
	case eb.RF == a:
		return "rf"
	}
	pos := func(loc, e int) int {
		for k, w := range g.MO[loc] {
			if w == e {
				return k
			}
		}
		return -1
	}
	if ea.Loc == eb.Loc {
		pa, pb := pos(ea.Loc, a), pos(eb.Loc, b)
		if pa >= 0 && pb > pa {
			return "mo"
		}
		if isReadKind(ea.Kind) && pb >= 0 && (ea.RF < 0 || pb > pos(ea.Loc, ea.RF)) {
			return "rb"
		}
	}
	return ""
}

func isReadKind(k prog.EventKind) bool {
	return k == prog.EvLR || k == prog.EvCAS || k == prog.EvNLR || k == prog.EvNRR || k == prog.EvNAR
}

// wordsSlot allocates the program-order positions of the put or get in of
// thread t and returns its first event's: two for a one-word operation;
// for a k-word one a mark (gevGroup, recorded now) and 2k.
func (m *Machine) wordsSlot(st *State, t int, in *prog.Instr) uint8 {
	if in.Words <= 1 {
		return m.slot(st, t, 2)
	}
	s := m.slot(st, t, uint8(2*in.Words+1))
	if m.graph {
		st.g.add(gev{t: uint8(t), slot: s, kind: gevGroup, val: uint8(2 * in.Words), rf: noWrite})
	}
	return s + 1
}
