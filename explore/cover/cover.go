// Package cover decides coverability for machines whose states carry
// counters over the naturals (vector addition systems with states, and
// programs that simulate them): can a state satisfying a target predicate
// that ignores the counters be reached?
//
// The search is a breadth-first Karp–Miller construction. Every state
// encoding ends with the machine's counters; the rest is its control part.
// When a new state has the same control part as one of its ancestors in the
// search tree and counters at least as large, the counters that grew
// strictly are set to ω (Omega): the steps between the two can be repeated
// to pump them as high as wanted. The machine must treat Omega as ω (an
// increment or decrement leaves it Omega, and it enables every decrement)
// and be monotone: more in a counter never disables a transition. States
// equal to one already seen are not expanded again.
//
// The search terminates on every such machine: along any branch of the
// tree, Dickson's lemma gives an ancestor that is covered, so each branch
// either stops at a repeated state or gains an ω, which can happen only
// finitely often. It is sound (a target is found only when a reachable
// state with the target's control part exists: accelerations only stand for
// repeated real steps) and complete for coverability (every reachable state
// is covered by a discovered one, by induction along its run: a covering
// state enables at least the same steps).
//
// The package knows nothing about RDMA.
package cover

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"rdmasim/explore"
	"rdmasim/store"
)

// Machine is an explore.Machine whose state encodings end with Counters()
// counters, CounterBytes bytes each, big-endian, Omega standing for ω (see
// Counter).
type Machine interface {
	explore.Machine
	Counters() int
}

// Options bound a search.
type Options struct {
	// MaxStates bounds the number of distinct states; zero means none.
	MaxStates uint64
	// Timeout bounds the duration of Run; zero means none.
	Timeout time.Duration
	// Progress, if non-nil, is called about once a second.
	Progress func(explore.Stats)
	// MaxBytes bounds the memory of the tree (every state's encoding and
	// node) and of the visited set; when they reach it, the search stops
	// with explore.MemoryLimit. Zero means no bound.
	MaxBytes uint64
}

// Result describes a finished search.
type Result struct {
	explore.Stats
	// Stop says why the search ended: Complete (the tree is finished),
	// Stopped (a target was found), StateLimit, TimeLimit or Canceled.
	Stop explore.Stop
	// Found is the id of the target state found, or -1.
	Found int64
	// Accelerations counts the counters set to ω.
	Accelerations uint64
}

// node is one state of the tree.
type node struct {
	parent int32
	depth  int32
	chunk  uint32 // its encoding is arena[chunk][off:off+n]
	off    uint32
	n      uint32
	ctrl   uint64 // hash of the control part
	label  explore.Label
}

// The tree is kept in chunks that are never moved or copied, so that it
// grows without the transient doubling of a slice's reallocation.
const (
	nodeChunk  = 1 << 12 // nodes per chunk
	arenaChunk = 1 << 18 // bytes per chunk of encodings (more for a larger state)
	nodeBytes  = 40      // unsafe.Sizeof(node{}), which TestNodeBytes checks
)

// Search is one coverability search. It is not safe for concurrent use.
type Search struct {
	m      Machine
	opt    Options
	k      int      // counters
	nodes  [][]node // node i is nodes[i/nodeChunk][i%nodeChunk]
	nnodes int
	arena  [][]byte
	bytes  uint64 // the capacity of the chunks
	ran    bool
}

// New returns a search over m.
func New(m Machine, opt Options) *Search {
	return &Search{m: m, opt: opt, k: m.Counters()}
}

// node returns node i.
func (s *Search) node(i int) *node { return &s.nodes[i/nodeChunk][i%nodeChunk] }

// enc returns the encoding of node i.
func (s *Search) enc(i int) []byte {
	n := s.node(i)
	return s.arena[n.chunk][n.off : n.off+n.n]
}

// push appends a node for st to the tree and returns its index.
func (s *Search) push(st []byte, nd node) int {
	last := len(s.arena) - 1
	if last < 0 || cap(s.arena[last])-len(s.arena[last]) < len(st) {
		s.arena = append(s.arena, make([]byte, 0, max(arenaChunk, len(st))))
		last++
		s.bytes += uint64(cap(s.arena[last]))
	}
	a := &s.arena[last]
	nd.chunk, nd.off, nd.n = uint32(last), uint32(len(*a)), uint32(len(st))
	*a = append(*a, st...)
	if s.nnodes%nodeChunk == 0 {
		s.nodes = append(s.nodes, make([]node, 0, nodeChunk))
		s.bytes += nodeChunk * nodeBytes
	}
	c := &s.nodes[len(s.nodes)-1]
	*c = append(*c, nd)
	s.nnodes++
	return s.nnodes - 1
}

// accelerate sets to Omega the counters of st (a successor of node parent)
// that strictly exceed those of a covered ancestor with its control part;
// it returns the hash of the control part and the number of counters set.
func (s *Search) accelerate(st []byte, parent int) (uint64, int) {
	cl := len(st) - CounterBytes*s.k
	ctrl, ctr := st[:cl], st[cl:]
	h := store.Of(ctrl).Lo
	if s.k == 0 {
		return h, 0
	}
	positive := false
	for j := 0; j < s.k; j++ {
		if c := Counter(ctr, j); c != 0 && c != Omega {
			positive = true
			break
		}
	}
	if !positive {
		return h, 0
	}
	acc := 0
	for a := parent; a >= 0; a = int(s.node(a).parent) {
		if s.node(a).ctrl != h {
			continue
		}
		e := s.enc(a)
		if len(e) != len(st) || !bytes.Equal(e[:cl], ctrl) {
			continue
		}
		ae := e[cl:]
		le, lt := true, false
		for j := 0; j < s.k && le; j++ {
			x, y := Counter(ae, j), Counter(ctr, j)
			switch {
			case x > y:
				le = false
			case x < y:
				lt = true
			}
		}
		if !le || !lt {
			continue
		}
		for j := 0; j < s.k; j++ {
			if x, y := Counter(ae, j), Counter(ctr, j); x < y && y != Omega {
				SetCounter(ctr, j, Omega)
				acc++
			}
		}
	}
	return h, acc
}

// Run searches until a state satisfying target is found (Stop =
// explore.Stopped, Found its id), the tree is complete, or a bound stops
// it. target is called once per new state, with its encoding, never during
// a call to the machine's Successors.
func (s *Search) Run(ctx context.Context, target func(st []byte) bool) (Result, error) {
	if s.ran {
		return Result{}, errors.New("cover: Search.Run called more than once")
	}
	s.ran = true
	start := time.Now()
	set := store.NewMem(0)
	defer set.Close()
	res := Result{Found: -1}
	add := func(st []byte, parent int, label explore.Label) (bool, error) {
		h, acc := s.accelerate(st, parent)
		res.Accelerations += uint64(acc)
		added, err := set.Insert(store.Of(st))
		if err != nil || !added {
			return false, err
		}
		d := int32(0)
		if parent >= 0 {
			d = s.node(parent).depth + 1
		}
		s.push(st, node{parent: int32(parent), depth: d, ctrl: h, label: label})
		res.States++
		res.MaxDepth = max(res.MaxDepth, int(d))
		return true, nil
	}
	finish := func(stop explore.Stop, next int) (Result, error) {
		res.Stop = stop
		res.Elapsed = time.Since(start)
		res.Frontier = uint64(s.nnodes - next)
		res.StoreBytes = set.Bytes() + s.bytes
		return res, nil
	}
	init := s.m.Initial(nil)
	if _, err := add(init, -1, 0); err != nil {
		return res, fmt.Errorf("cover: %w", err)
	}
	if target(init) {
		res.Found = 0
		return finish(explore.Stopped, 0)
	}
	type succ struct {
		l   explore.Label
		off int
	}
	var succs []succ
	var buf []byte
	lastCheck := time.Now()
	for next := 0; next < s.nnodes; next++ {
		if next%256 == 0 {
			if ctx.Err() != nil {
				return finish(explore.Canceled, next)
			}
			if s.opt.MaxBytes > 0 && set.Bytes()+s.bytes >= s.opt.MaxBytes {
				return finish(explore.MemoryLimit, next)
			}
			now := time.Now()
			if s.opt.Timeout > 0 && now.Sub(start) > s.opt.Timeout {
				return finish(explore.TimeLimit, next)
			}
			if s.opt.Progress != nil && now.Sub(lastCheck) >= time.Second {
				lastCheck = now
				st := res.Stats
				st.Elapsed = now.Sub(start)
				st.Frontier = uint64(s.nnodes - next)
				st.StoreBytes = set.Bytes() + s.bytes
				s.opt.Progress(st)
			}
		}
		succs, buf = succs[:0], buf[:0]
		s.m.Successors(s.enc(next), func(l explore.Label, st []byte) {
			succs = append(succs, succ{l, len(buf)})
			buf = append(buf, st...)
		})
		res.Transitions += uint64(len(succs))
		for i, sc := range succs {
			end := len(buf)
			if i+1 < len(succs) {
				end = succs[i+1].off
			}
			st := buf[sc.off:end]
			if s.opt.MaxStates > 0 && res.States >= s.opt.MaxStates {
				return finish(explore.StateLimit, next)
			}
			added, err := add(st, next, sc.l)
			if err != nil {
				return res, fmt.Errorf("cover: %w", err)
			}
			if added && target(s.enc(s.nnodes-1)) {
				res.Found = int64(s.nnodes - 1)
				return finish(explore.Stopped, next+1)
			}
		}
	}
	return finish(explore.Complete, s.nnodes)
}

// Path returns the steps from the initial state to state id (whose
// encodings may hold ω counters).
func (s *Search) Path(id int64) ([]explore.Step, error) {
	if id < 0 || id >= int64(s.nnodes) {
		return nil, fmt.Errorf("cover: no state %d", id)
	}
	var path []explore.Step
	for i := int(id); i >= 0; i = int(s.node(i).parent) {
		path = append(path, explore.Step{Label: s.node(i).label, State: append([]byte(nil), s.enc(i)...)})
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path, nil
}
