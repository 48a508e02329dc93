package axiom

import (
	"fmt"
	"testing"

	"rdmasim/opsem/prog"
)

// Nodes of the hand-built traces: the thread runs on node 0 and talks to
// nodes 1 (queue pair 0) and 2 (queue pair 1).
const (
	nodeB = 1
	nodeC = 2
)

// mk builds an event of thread 0 with the given kind towards remote (for NIC
// events and polls; CPU events other than poll get -1).
func mk(kind prog.EventKind, remote int) Event {
	e := Event{Event: prog.Event{Kind: kind, Thread: 0, Loc: 0, Remote: -1}, QP: -1, PC: -1}
	switch kind {
	case prog.EvNF, prog.EvPoll:
		e.Loc = -1
	}
	if ClassOf(kind) != ClassCPU || kind == prog.EvPoll {
		e.Remote = remote
		e.QP = remote - 1
	}
	return e
}

var kindNames = map[prog.EventKind]string{
	prog.EvLR: "lR", prog.EvLW: "lW", prog.EvCAS: "CAS", prog.EvPoll: "poll",
	prog.EvNLR: "nlR", prog.EvNRW: "nrW", prog.EvNRR: "nrR", prog.EvNLW: "nlW", prog.EvNF: "nF",
	prog.EvNAR: "naR", prog.EvNAW: "naW",
}

// TestPPOTable builds, for every row and column of the paper's table (each
// CPU kind separately), the trace a ·po· b (same queue pair) ·po· b' (other
// queue pair) and checks ippo/oppo membership of (a,b) and (a,b'), and that
// nothing goes against po. The expected table is written out again here, from
// the paper's figure.
func TestPPOTable(t *testing.T) {
	// rows: po-earlier event; columns CPU nlR nrW nrR nlW nF naR naW (the
	// last two and the last two rows: remote atomics, SEMANTICS-ATOMICS.md).
	// Y = ✓, S = sqp in both, I = ippo:sqp, . = ×
	table := map[Class]string{
		ClassCPU: "YYYYYYYY",
		ClassNLR: ".SSSSSSS",
		ClassNRW: "..SSSISS",
		ClassNRR: "....SS..",
		ClassNLW: "....SI..",
		ClassNF:  ".SSSSSSS",
		ClassNAR: "....SS..",
		ClassNAW: "....SS..",
	}
	kinds := []prog.EventKind{prog.EvLR, prog.EvLW, prog.EvCAS, prog.EvPoll, prog.EvNLR, prog.EvNRW, prog.EvNRR, prog.EvNLW, prog.EvNF, prog.EvNAR, prog.EvNAW}
	checked := 0
	for _, ka := range kinds {
		for _, kb := range kinds {
			tr := &Trace{Events: []Event{mk(ka, nodeB), mk(kb, nodeB), mk(kb, nodeC)}}
			for i := range tr.Events {
				tr.Events[i].ID, tr.Events[i].Index = i, i
			}
			tr.RF = []int{-1, -1, -1}
			r := tr.Relations()
			entry := table[ClassOf(ka)][ClassOf(kb)]
			wantSame := [2]bool{entry != '.', entry == 'Y' || entry == 'S'}
			if ka == prog.EvNAR && kb == prog.EvNAW {
				wantSame = [2]bool{true, true} // adjacent: one atomic, which writes after it reads
			}
			wantOther := [2]bool{entry == 'Y', entry == 'Y'}
			name := fmt.Sprintf("%s->%s", kindNames[ka], kindNames[kb])
			if got := [2]bool{r.PPOi.Has(0, 1), r.PPOo.Has(0, 1)}; got != wantSame {
				t.Errorf("%s same qp: (ippo, oppo) = %v, want %v", name, got, wantSame)
			}
			if got := [2]bool{r.PPOi.Has(0, 2), r.PPOo.Has(0, 2)}; got != wantOther {
				t.Errorf("%s other qp: (ippo, oppo) = %v, want %v", name, got, wantOther)
			}
			for _, rel := range []Rel{r.PPOi, r.PPOo} {
				if rel.Has(1, 0) || rel.Has(2, 0) || rel.Has(0, 0) {
					t.Errorf("%s: ppo against po", name)
				}
			}
			if !r.PO.Has(0, 1) || !r.PO.Has(0, 2) || !r.PO.Has(1, 2) || r.PO.Has(1, 0) {
				t.Errorf("%s: po wrong: %v", name, r.PO.Pairs())
			}
			checked++
		}
	}
	if checked != len(kinds)*len(kinds) {
		t.Errorf("checked %d pairs", checked)
	}
	// other threads are never ppo-related
	a, b := mk(prog.EvLW, nodeB), mk(prog.EvLW, nodeB)
	b.Thread, b.Index = 1, 1
	if i, o := PPO(&a, &b); i || o {
		t.Error("ppo across threads")
	}
}

// trace builds a well-formed trace from events (initial writes first); the
// caller fills RF, MO, NFO, PF.
func handTrace(evs ...Event) *Trace {
	tr := &Trace{Events: evs, RF: make([]int, len(evs))}
	idx := map[int]int{}
	for i := range tr.Events {
		e := &tr.Events[i]
		e.ID = i
		tr.RF[i] = -1
		if e.Thread < 0 {
			e.Index, e.QP, e.PC, e.Remote = -1, -1, -1, -1
			continue
		}
		e.Index = idx[e.Thread]
		idx[e.Thread]++
	}
	return tr
}

func initW(loc int, v uint8) Event {
	return Event{Event: prog.Event{Kind: prog.EvLW, Thread: -1, Loc: loc, Val: v, Remote: -1}}
}

func ev(kind prog.EventKind, thread, loc int, val uint8, remote int) Event {
	return Event{Event: prog.Event{Kind: kind, Thread: thread, Loc: loc, Val: val, Remote: remote}, QP: remote - 1}
}

// TestRBIdentity: a successful CAS reading the initial write is mo-after it;
// read literally, rf⁻¹;mo would relate the CAS to itself.
func TestRBIdentity(t *testing.T) {
	c := ev(prog.EvCAS, 0, 0, 0, -1)
	c.New = 1
	tr := handTrace(initW(0, 0), c)
	tr.RF[1] = 0
	tr.MO = [][]int{{0, 1}}
	if err := tr.WellFormed(); err != nil {
		t.Fatal(err)
	}
	r := tr.Relations()
	if r.RB.Has(1, 1) || r.RB.Len() != 0 {
		t.Errorf("rb = %v, want empty", r.RB.Pairs())
	}
	if !tr.RDMAConsistent() || !tr.SCConsistent() {
		t.Error("a lone successful CAS is inconsistent")
	}
	if got := tr.Memory(1); got[0] != 1 {
		t.Errorf("memory %v", got)
	}
}

// TestPollsFrom: [nlW];pf is in ob, [nrW];pf only in ib; an instantaneous
// event ib-before something is ob-before it.
func TestPollsFrom(t *testing.T) {
	// locations: 0 = x (local), 1 = y (remote, node B)
	// get: nrR(y,0) nlW(x,0,B) poll(B); put: nlR(x,0,B) nrW(y,0) poll(B)
	get := handTrace(initW(0, 0), initW(1, 0),
		ev(prog.EvNRR, 0, 1, 0, nodeB), ev(prog.EvNLW, 0, 0, 0, nodeB), ev(prog.EvPoll, 0, -1, 0, nodeB))
	get.RF[2] = 1
	get.MO = [][]int{{0, 3}, {1}}
	get.PF = [][2]int{{3, 4}}
	get.NFO = nil
	if err := get.WellFormed(); err != nil {
		t.Fatal(err)
	}
	r := get.Relations()
	if !r.PF.Has(3, 4) || !r.IB.Has(3, 4) || !r.OB.Has(3, 4) {
		t.Errorf("get: nlW -pf-> poll should be in ib and ob")
	}
	put := handTrace(initW(0, 0), initW(1, 0),
		ev(prog.EvNLR, 0, 0, 0, nodeB), ev(prog.EvNRW, 0, 1, 0, nodeB), ev(prog.EvPoll, 0, -1, 0, nodeB))
	put.RF[2] = 0
	put.MO = [][]int{{0}, {1, 3}}
	put.PF = [][2]int{{3, 4}}
	if err := put.WellFormed(); err != nil {
		t.Fatal(err)
	}
	r = put.Relations()
	if !r.IB.Has(3, 4) || r.OB.Has(3, 4) {
		t.Errorf("put: nrW -pf-> poll should be in ib only (ib %v, ob %v)", r.IB.Has(3, 4), r.OB.Has(3, 4))
	}
	// nlR is instantaneous and ib-before the poll: [Inst];ib puts it in ob
	if !r.OB.Has(2, 4) {
		t.Error("put: nlR should be ob-before the poll through [Inst];ib")
	}
	// a missing pf pair is reported
	put.PF = nil
	if put.WellFormed() == nil {
		t.Error("poll without pf accepted")
	}
}

// TestNFOWellFormed: nfo must orient every nlR/nlW and nrR/nrW pair of a
// queue pair exactly once, and nothing else.
func TestNFOWellFormed(t *testing.T) {
	// put then get on one queue pair: nlR(x) nrW(y) nrR(y) nlW(x)
	tr := handTrace(initW(0, 0), initW(1, 0),
		ev(prog.EvNLR, 0, 0, 0, nodeB), ev(prog.EvNRW, 0, 1, 0, nodeB),
		ev(prog.EvNRR, 0, 1, 0, nodeB), ev(prog.EvNLW, 0, 0, 0, nodeB))
	tr.RF[2], tr.RF[4] = 0, 3
	tr.MO = [][]int{{0, 5}, {1, 3}}
	tr.NFO = [][2]int{{2, 5}, {3, 4}}
	if err := tr.WellFormed(); err != nil {
		t.Fatal(err)
	}
	if !tr.RDMAConsistent() {
		t.Error("put;get with forward nfo inconsistent")
	}
	// backward nfo: the get's write flushed before the put read x, while
	// nlR -sqp-> nlW is in oppo: cycle
	tr.NFO = [][2]int{{5, 2}, {3, 4}}
	if tr.RDMAConsistent() {
		t.Error("nlW -nfo-> po-earlier nlR should be an ob cycle")
	}
	tr.NFO = [][2]int{{2, 5}}
	if tr.WellFormed() == nil {
		t.Error("missing nfo pair accepted")
	}
}

// TestClassString: the classes print as the rows of the paper's table, the
// NIC classes as their event kinds, and Kind gives a kind of each class.
func TestClassString(t *testing.T) {
	want := []string{"CPU", "nlR", "nrW", "nrR", "nlW", "nF", "naR", "naW"}
	for c := ClassCPU; c <= ClassNAW; c++ {
		if got := c.String(); got != want[c] {
			t.Errorf("Class(%d).String() = %q, want %q", uint8(c), got, want[c])
		}
		if got := ClassOf(c.Kind()); got != c {
			t.Errorf("ClassOf(%s.Kind()) = %s", c, got)
		}
	}
	for _, k := range []prog.EventKind{prog.EvNLR, prog.EvNRW, prog.EvNRR, prog.EvNLW, prog.EvNF, prog.EvNAR, prog.EvNAW} {
		if got := ClassOf(k).String(); got != kindNames[k] {
			t.Errorf("ClassOf(%s).String() = %q", kindNames[k], got)
		}
	}
}
