package repair

import (
	"fmt"
	"strconv"
	"strings"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
)

// Kind is a kind of insertion: the RDMA synchronisation repair may add to a
// thread between two of its statements.
type Kind uint8

// Insertion kinds.
const (
	// Poll is poll(n), repeated as often as the queue pair to n has
	// operations pending, so that the operation meant is the one waited for.
	Poll Kind = iota
	// RFence is rfence(n): every later operation of the queue pair to n
	// waits for every earlier one.
	RFence
	// ReadBack is the flush idiom of SHMEM and FaRM for "a completion does
	// not mean remote visibility": a get of a put's target, on the put's
	// queue pair, into a fresh scratch location of the thread's node, and
	// the polls that wait for it.
	ReadBack
	numKinds
)

var kindNames = [numKinds]string{Poll: "poll", RFence: "rfence", ReadBack: "readback"}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Costs is the cost of each kind of insertion (a read-back's cost covers
// its get and one poll; every further poll costs Costs[Poll]).
type Costs [numKinds]int

// DefaultCosts are poll=1, rfence=1, readback=3.
var DefaultCosts = Costs{Poll: 1, RFence: 1, ReadBack: 3}

// ParseCosts reads "poll=2,readback=4" over DefaultCosts.
func ParseCosts(s string) (Costs, error) {
	c := DefaultCosts
	if s == "" {
		return c, nil
	}
	for _, f := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(f), "=")
		k, known := kindByName(name)
		n, err := strconv.Atoi(val)
		if !ok || !known || err != nil || n < 0 {
			return c, fmt.Errorf("--cost %q: want kind=cost[,...] with kinds poll, rfence, readback and costs ≥ 0", f)
		}
		c[k] = n
	}
	return c, nil
}

// ParseKinds reads "poll,rfence" into the set of kinds allowed; empty means
// every kind.
func ParseKinds(s string) ([numKinds]bool, error) {
	var set [numKinds]bool
	if s == "" {
		return [numKinds]bool{true, true, true}, nil
	}
	for _, f := range strings.Split(s, ",") {
		k, ok := kindByName(strings.TrimSpace(f))
		if !ok {
			return set, fmt.Errorf("--kinds %q: want poll, rfence or readback", f)
		}
		set[k] = true
	}
	return set, nil
}

func kindByName(name string) (Kind, bool) {
	for k, n := range kindNames {
		if n == name {
			return Kind(k), true
		}
	}
	return 0, false
}

// The events each kind inserts, in program order, on the queue pair of the
// node it names: what the model's relations see of it.
var kindEvents = [numKinds][]prog.EventKind{
	Poll:     {prog.EvPoll},
	RFence:   {prog.EvNF},
	ReadBack: {prog.EvNRR, prog.EvNLW, prog.EvPoll},
}

// Orders reports whether inserting kind k (towards a's node) between the
// events a and b of one thread orders a before b in the model's observed-
// before relation, ob = (oppo ∪ [nlW];pf ∪ [Inst];ib ∪ ...)+, restricted to
// the events of this thread: oppo and ippo come from the model's own table
// (axiom.PPO), ib = (ippo ∪ pf)+, and pf goes from the completion (the NIC
// write) of a's operation, or of the read-back's get, to the poll that waits
// for it. This is the one place that says which kind fixes which pair; the
// candidate table of docs/REPAIR.md is this function tabulated.
func Orders(k Kind, a, b prog.EventKind, sameNode bool) bool {
	type ev struct {
		kind   prog.EventKind
		remote int
	}
	remoteB := 0
	if !sameNode {
		remoteB = 1
	}
	// The thread's events: a, the NIC write that completes a's operation
	// (after a when a starts it), the inserted events, then b.
	evs := []ev{{a, 0}}
	writeOf := -1 // index of the write polled by the first poll
	switch a {
	case prog.EvNLR:
		evs = append(evs, ev{prog.EvNRW, 0})
		writeOf = 1
	case prog.EvNRR:
		evs = append(evs, ev{prog.EvNLW, 0})
		writeOf = 1
	case prog.EvNLW, prog.EvNRW:
		writeOf = 0
	}
	first := len(evs)
	for _, e := range kindEvents[k] {
		if e == prog.EvNLW && k == ReadBack {
			writeOf = len(evs) // the read-back's own completion is polled last
		}
		evs = append(evs, ev{e, 0})
	}
	evs = append(evs, ev{b, remoteB})
	n := len(evs)
	isCPU := func(k prog.EventKind) bool { return axiom.ClassOf(k) == axiom.ClassCPU }
	ib := make([][]bool, n)
	ob := make([][]bool, n)
	for i := range evs {
		ib[i], ob[i] = make([]bool, n), make([]bool, n)
		for j := i + 1; j < n; j++ {
			x := &axiom.Event{Event: prog.Event{Kind: evs[i].kind, Remote: evs[i].remote}, Index: i}
			y := &axiom.Event{Event: prog.Event{Kind: evs[j].kind, Remote: evs[j].remote}, Index: j}
			if isCPU(evs[i].kind) && evs[i].kind != prog.EvPoll {
				x.Remote = -1
			}
			ippo, oppo := axiom.PPO(x, y)
			ib[i][j], ob[i][j] = ippo, oppo
		}
	}
	// pf: the polled write to the first inserted poll after it.
	for j := first; j < n-1 && writeOf >= 0; j++ {
		if evs[j].kind == prog.EvPoll && j > writeOf {
			ib[writeOf][j] = true
			if evs[writeOf].kind == prog.EvNLW {
				ob[writeOf][j] = true
			}
			break
		}
	}
	closure(ib)
	for i := range evs {
		if !(prog.Event{Kind: evs[i].kind}).IsNICWrite() {
			for j := range evs {
				if ib[i][j] {
					ob[i][j] = true
				}
			}
		}
	}
	closure(ob)
	return ob[0][n-1]
}

func closure(r [][]bool) {
	for k := range r {
		for i := range r {
			if r[i][k] {
				for j := range r {
					if r[k][j] {
						r[i][j] = true
					}
				}
			}
		}
	}
}
