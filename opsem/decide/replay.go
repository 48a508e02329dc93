package decide

import (
	"context"
	"fmt"
	"slices"

	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
)

// Replay is a run of the RDMA queue-pair machine (with event graphs) that
// realises a trace: its last configuration's event graph has the trace's
// events, rf and mo.
type Replay struct {
	Machine *machine.Machine
	Path    []explore.Step
	Graph   *machine.Graph
}

// A replay searches breadth-first first, for a shortest run, and visits at
// most bfsLimit configurations that way; with many threads the
// interleavings of the trace's prefixes outgrow that (five threads of
// corpus/bench/sb5w.rdma: more than 2*10^6), and a depth-first search, which
// follows one interleaving to its end and backtracks only at dead ends,
// takes over, visiting at most replayLimit.
const (
	bfsLimit    = 20_000
	replayLimit = 2_000_000
)

// guided is the RDMA machine restricted to configurations whose event
// graph is part of a target trace.
type guided struct {
	m    *machine.Machine
	tr   *axiom.Trace
	byPO map[[2]int]int // (thread, po index) -> event id of tr
	mem  int            // memory events of tr (all but nF, poll and quiet), initial writes excluded
	nxt  [][]byte
	lbl  []uint64
	// pos[e]: the position of event e in τ. When byTau is set, Successors
	// emits the successors whose events lie earliest in τ last, so that a
	// depth-first search follows τ first.
	pos   []int
	byTau bool
	rank  []int
}

func (g *guided) Initial(dst []byte) []byte { return g.m.Initial(dst) }

func (g *guided) Successors(s []byte, emit func(uint64, []byte)) uint32 {
	g.nxt, g.lbl = g.nxt[:0], g.lbl[:0]
	pr := g.m.Successors(s, func(l uint64, n []byte) {
		g.nxt = append(g.nxt, append([]byte(nil), n...))
		g.lbl = append(g.lbl, l)
	})
	if !g.byTau {
		for i, n := range g.nxt {
			if ok, _, _ := g.match(n); ok {
				emit(g.lbl[i], n)
			}
		}
		return pr
	}
	g.rank = g.rank[:0]
	for i, n := range g.nxt {
		if ok, _, last := g.match(n); ok {
			g.rank = append(g.rank, last<<20|i)
		}
	}
	slices.Sort(g.rank)
	for k := len(g.rank) - 1; k >= 0; k-- {
		i := g.rank[k] & (1<<20 - 1)
		emit(g.lbl[i], g.nxt[i])
	}
	return pr
}

// match reports whether the event graph of configuration s is part of the
// target (every event, rf edge and mo prefix agrees), whether it is all of
// it, and the latest τ position of its events (with g.pos).
func (g *guided) match(s []byte) (ok, done bool, last int) {
	gr, err := g.m.Graph(s)
	if err != nil {
		return false, false, 0
	}
	ids := make([]int, len(gr.Events))
	for i, e := range gr.Events {
		id, found := g.byPO[[2]int{e.Thread, e.Slot}]
		if !found {
			return false, false, 0
		}
		te := &g.tr.Events[id]
		if te.Kind != e.Kind || te.Loc != e.Loc || te.Val != e.Val || (e.Kind == prog.EvCAS && te.New != e.New) {
			return false, false, 0
		}
		ids[i] = id
		if g.pos != nil {
			last = max(last, g.pos[id])
		}
	}
	for i, e := range gr.Events {
		want := g.tr.RF[ids[i]]
		if want < 0 {
			continue
		}
		if e.RF < 0 {
			if g.tr.Events[want].Thread >= 0 {
				return false, false, 0
			}
		} else if ids[e.RF] != want {
			return false, false, 0
		}
	}
	for l, ws := range gr.MO {
		tmo := g.tr.MO[l][1:]
		if len(ws) > len(tmo) {
			return false, false, 0
		}
		for k, w := range ws {
			if ids[w] != tmo[k] {
				return false, false, 0
			}
		}
	}
	return true, len(gr.Events) == g.mem, last
}

// replay finds a run of the RDMA machine realising tr; pos gives each
// event's position in τ, which the depth-first search follows.
func replay(p *prog.Program, tr *axiom.Trace, pos []int) (*Replay, error) {
	return replayWith(p, tr, pos, bfsLimit)
}

// replayWith is replay with the breadth-first search limited to bfs
// configurations (0: depth first from the start).
func replayWith(p *prog.Program, tr *axiom.Trace, pos []int, bfs uint64) (*Replay, error) {
	nic, mem := 0, 0
	for _, e := range tr.Events {
		if e.Thread < 0 {
			continue
		}
		if e.Kind != prog.EvNF && e.Kind != prog.EvPoll && e.Kind != prog.EvQuiet {
			mem++ // the events the machine's graph records (machine.record)
		}
		if e.QP >= 0 {
			nic++
		}
	}
	opt := machine.Options{MaxInflight: min(machine.InflightBound.Hi, nic+1), Graph: true}
	for t := range p.Threads {
		if p.Threads[t].Loops > 0 {
			opt.Unroll = min(machine.UnrollBound.Hi, len(tr.Events)+2)
		}
	}
	m, err := machine.NewRDMA(p, opt)
	if err != nil {
		return nil, err
	}
	g := &guided{m: m, tr: tr, byPO: machineSlots(tr), mem: mem}
	check := m.Clone()
	cg := &guided{m: check, tr: tr, byPO: g.byPO, mem: mem}
	var (
		s *explore.Search
		r explore.Result
	)
	first := explore.FirstWhere(func(st []byte) bool { _, done, _ := cg.match(st); return done })
	for _, o := range []struct {
		order explore.Order
		limit uint64
	}{{explore.BFS, bfs}, {explore.DFS, replayLimit}} {
		if o.limit == 0 {
			continue
		}
		g.pos, g.byTau = pos, o.order == explore.DFS
		s = explore.New(g, explore.Options{Trace: true, Order: o.order, MaxStates: o.limit, Visit: first.Visit})
		if r, err = s.Run(context.Background()); err != nil {
			return nil, err
		}
		if first.Found() || r.Stop == explore.Complete {
			break
		}
	}
	if !first.Found() {
		return nil, fmt.Errorf("no run of the RDMA machine realises the trace (%s after %d configurations):\n%s", r.Stop, r.States, tr.Format(p))
	}
	path, err := s.Path(uint64(first.ID))
	if err != nil {
		return nil, err
	}
	gr, err := m.Graph(path[len(path)-1].State)
	if err != nil {
		return nil, err
	}
	return &Replay{Machine: m, Path: path, Graph: gr}, nil
}

// machineSlots maps each event of tr to its (thread, slot) on the machine
// with event graphs: its program-order position, except that the machine
// gives a remote atomic three slots when it is submitted (naR, naW, nlW),
// whether it will write or not, so an rcas whose comparison fails (an naR
// not followed by its naW) leaves the naW's slot empty.
func machineSlots(tr *axiom.Trace) map[[2]int]int {
	byThread := map[int][]int{}
	for _, e := range tr.Events {
		if e.Thread >= 0 {
			byThread[e.Thread] = append(byThread[e.Thread], e.ID)
		}
	}
	out := map[[2]int]int{}
	for t, ids := range byThread {
		slices.SortFunc(ids, func(a, b int) int { return tr.Events[a].Index - tr.Events[b].Index })
		slot := 0
		for i, id := range ids {
			out[[2]int{t, slot}] = id
			slot++
			if tr.Events[id].Kind == prog.EvNAR && (i+1 == len(ids) || tr.Events[ids[i+1]].Kind != prog.EvNAW) {
				slot++ // the naW that did not happen
			}
		}
	}
	return out
}
