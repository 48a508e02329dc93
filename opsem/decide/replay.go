package decide

import (
	"context"
	"fmt"

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

// replayLimit bounds the configurations a replay may visit.
const replayLimit = 2_000_000

// guided is the RDMA machine restricted to configurations whose event
// graph is part of a target trace.
type guided struct {
	m    *machine.Machine
	tr   *axiom.Trace
	byPO map[[2]int]int // (thread, po index) -> event id of tr
	mem  int            // memory events of tr (all but nF and poll), initial writes excluded
	nxt  [][]byte
	lbl  []uint64
}

func (g *guided) Initial(dst []byte) []byte { return g.m.Initial(dst) }

func (g *guided) Successors(s []byte, emit func(uint64, []byte)) uint32 {
	g.nxt, g.lbl = g.nxt[:0], g.lbl[:0]
	pr := g.m.Successors(s, func(l uint64, n []byte) {
		g.nxt = append(g.nxt, append([]byte(nil), n...))
		g.lbl = append(g.lbl, l)
	})
	for i, n := range g.nxt {
		if ok, _ := g.match(n); ok {
			emit(g.lbl[i], n)
		}
	}
	return pr
}

// match reports whether the event graph of configuration s is part of the
// target (every event, rf edge and mo prefix agrees), and whether it is
// all of it.
func (g *guided) match(s []byte) (ok, done bool) {
	gr, err := g.m.Graph(s)
	if err != nil {
		return false, false
	}
	ids := make([]int, len(gr.Events))
	for i, e := range gr.Events {
		id, found := g.byPO[[2]int{e.Thread, e.Slot}]
		if !found {
			return false, false
		}
		te := &g.tr.Events[id]
		if te.Kind != e.Kind || te.Loc != e.Loc || te.Val != e.Val || (e.Kind == prog.EvCAS && te.New != e.New) {
			return false, false
		}
		ids[i] = id
	}
	for i, e := range gr.Events {
		want := g.tr.RF[ids[i]]
		if want < 0 {
			continue
		}
		if e.RF < 0 {
			if g.tr.Events[want].Thread >= 0 {
				return false, false
			}
		} else if ids[e.RF] != want {
			return false, false
		}
	}
	for l, ws := range gr.MO {
		tmo := g.tr.MO[l][1:]
		if len(ws) > len(tmo) {
			return false, false
		}
		for k, w := range ws {
			if ids[w] != tmo[k] {
				return false, false
			}
		}
	}
	return true, len(gr.Events) == g.mem
}

// replay finds a run of the RDMA machine realising tr.
func replay(p *prog.Program, tr *axiom.Trace) (*Replay, error) {
	nic, mem := 0, 0
	for _, e := range tr.Events {
		if e.Thread < 0 {
			continue
		}
		if e.Kind != prog.EvNF && e.Kind != prog.EvPoll {
			mem++
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
	g := &guided{m: m, tr: tr, byPO: map[[2]int]int{}, mem: mem}
	for _, e := range tr.Events {
		if e.Thread >= 0 {
			g.byPO[[2]int{e.Thread, e.Index}] = e.ID
		}
	}
	found := int64(-1)
	check := m.Clone()
	cg := &guided{m: check, tr: tr, byPO: g.byPO, mem: mem}
	s := explore.New(g, explore.Options{Trace: true, MaxStates: replayLimit, Visit: func(id uint64, st []byte, _ int) bool {
		if _, done := cg.match(st); done {
			found = int64(id)
			return false
		}
		return true
	}})
	r, err := s.Run(context.Background())
	if err != nil {
		return nil, err
	}
	if found < 0 {
		return nil, fmt.Errorf("no run of the RDMA machine realises the trace (%s after %d configurations):\n%s", r.Stop, r.States, tr.Format(p))
	}
	path, err := s.Path(uint64(found))
	if err != nil {
		return nil, err
	}
	gr, err := m.Graph(path[len(path)-1].State)
	if err != nil {
		return nil, err
	}
	return &Replay{Machine: m, Path: path, Graph: gr}, nil
}
