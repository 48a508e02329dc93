package axiom

import (
	"errors"
	"fmt"

	"rdmasim/opsem/prog"
)

// consKind is the constraint a read's value must satisfy.
type consKind uint8

const (
	consNone consKind = iota
	consEq            // value == a: assume(x == a), a successful CAS
	consNe            // value != a: assume(x != a), a failing CAS
)

// skel is an event of a label sequence with its values left open: reads take
// theirs from rf; a write's value is a constant or copies the read of the
// same instruction (dep).
type skel struct {
	kind   prog.EventKind
	loc    int
	remote int
	qp     int
	pc     int
	val    uint8 // constant value written (lW with dep < 0; CAS: the new value b)
	dep    int   // index in the thread of the read whose value this write copies, or -1
	cons   consKind
	a      uint8 // constraint value
}

// tnode is a node of a thread's label-sequence trie: the sequence of events
// on the path from the root. Every node is a prefix of some sequence of
// Seq(P_t) (unrolled); end marks the complete ones.
type tnode struct {
	ev       skel
	parent   int
	depth    int // events on the path from the root
	children []int
	end      bool
}

// threadTree is the trie of one thread's label sequences; nodes[0] is the
// empty prefix.
type threadTree struct {
	nodes []tnode
}

// events returns the skeleton events of node i in program order.
func (tr *threadTree) events(i int) []skel {
	out := make([]skel, tr.nodes[i].depth)
	for ; i != 0; i = tr.nodes[i].parent {
		out[tr.nodes[i].depth-1] = tr.nodes[i].ev
	}
	return out
}

// maxTreeNodes bounds a thread's trie: beyond, the unrolled program is far
// too large for trace enumeration anyway.
const maxTreeNodes = 1 << 20

// errTooLong stops buildTree at a label sequence longer than its maxLen;
// newProblem then measures the traces and reports a LimitError.
var errTooLong = errors.New("a label sequence longer than the limit")

type treeGen struct {
	p       *prog.Program
	t       int
	unroll  int
	maxLen  int
	pcOf    map[*prog.Stmt]int
	tree    *threadTree
	nic     []int // NIC writes so far per local queue pair
	polls   []int // polls so far per local queue pair
	bounded bool
	err     error
}

// cont is a continuation: the statements still to run, innermost first.
// iter counts the iterations a loop statement has taken in this entry.
type cont struct {
	s    *prog.Stmt
	iter int
	next *cont
}

func push(block []*prog.Stmt, next *cont) *cont {
	for i := len(block) - 1; i >= 0; i-- {
		next = &cont{s: block[i], next: next}
	}
	return next
}

// buildTree returns the trie of thread t's label sequences with loops
// unrolled up to unroll times per entry, and whether the bound cut a path.
// Sequences stop before a poll that has no unpolled NIC write to poll from
// (such a sequence never completes).
func buildTree(p *prog.Program, t, unroll, maxLen int) (*threadTree, bool, error) {
	th := &p.Threads[t]
	g := &treeGen{p: p, t: t, unroll: unroll, maxLen: maxLen, pcOf: map[*prog.Stmt]int{},
		tree: &threadTree{nodes: []tnode{{parent: -1}}}}
	for pc := range th.Code {
		if s := th.Code[pc].Stmt; s != nil {
			g.pcOf[s] = pc
		}
	}
	nq := 0
	for _, q := range p.QPs {
		if q.Thread == t {
			nq++
		}
	}
	g.nic = make([]int, nq)
	g.polls = make([]int, nq)
	g.walk(0, push(th.Body, nil))
	return g.tree, g.bounded, g.err
}

func (g *treeGen) emit(node int, e skel) int {
	nodes := g.tree.nodes
	for _, c := range nodes[node].children {
		if nodes[c].ev == e {
			return c
		}
	}
	d := nodes[node].depth + 1
	if d > g.maxLen && g.err == nil {
		g.err = errTooLong
	}
	if len(nodes) >= maxTreeNodes && g.err == nil {
		g.err = &LimitError{Program: g.p.Name, What: LimitPrefixes, Thread: g.p.Threads[g.t].Name,
			N: maxTreeNodes + 1, AtLeast: true, Limit: maxTreeNodes, Unroll: g.unroll}
	}
	g.tree.nodes = append(nodes, tnode{ev: e, parent: node, depth: d})
	c := len(g.tree.nodes) - 1
	g.tree.nodes[node].children = append(g.tree.nodes[node].children, c)
	return c
}

func (g *treeGen) walk(node int, k *cont) {
	if g.err != nil {
		return
	}
	if k == nil {
		g.tree.nodes[node].end = true
		return
	}
	s, rest := k.s, k.next
	pc, ok := g.pcOf[s]
	if !ok {
		pc = -1
	}
	base := skel{loc: -1, remote: -1, qp: -1, pc: pc, dep: -1}
	depth := func(n int) int { return g.tree.nodes[n].depth }
	th := &g.p.Threads[g.t]
	switch s.Kind {
	case prog.SSkip:
		g.walk(node, rest)
	case prog.SWrite:
		e := base
		e.kind, e.loc, e.val = prog.EvLW, s.X, s.A
		g.walk(g.emit(node, e), rest)
	case prog.SAssume:
		e := base
		e.kind, e.loc, e.cons, e.a = prog.EvLR, s.X, consEq, s.A
		if s.Ne {
			e.cons = consNe
		}
		g.walk(g.emit(node, e), rest)
	case prog.SCAS:
		// success: CAS(z,a,b) · lW(x,a)
		c := base
		c.kind, c.loc, c.cons, c.a, c.val = prog.EvCAS, s.Z, consEq, s.A, s.B
		n1 := g.emit(node, c)
		w := base
		w.kind, w.loc, w.val = prog.EvLW, s.X, s.A
		g.walk(g.emit(n1, w), rest)
		// failure: lR(z,v) · lW(x,v), v != a
		r := base
		r.kind, r.loc, r.cons, r.a = prog.EvLR, s.Z, consNe, s.A
		n1 = g.emit(node, r)
		w = base
		w.kind, w.loc, w.dep = prog.EvLW, s.X, depth(n1)-1
		g.walk(g.emit(n1, w), rest)
	case prog.SGet, prog.SPut:
		q := th.QPs[s.Remote]
		l := g.p.QPs[q].Local
		r, w := base, base
		r.remote, r.qp, w.remote, w.qp = s.Remote, q, s.Remote, q
		if s.Kind == prog.SGet { // nrR(y,v) · nlW(x,v,n)
			r.kind, r.loc, w.kind, w.loc = prog.EvNRR, s.Y, prog.EvNLW, s.X
		} else { // nlR(x,v,n) · nrW(y,v)
			r.kind, r.loc, w.kind, w.loc = prog.EvNLR, s.X, prog.EvNRW, s.Y
		}
		n1 := g.emit(node, r)
		w.dep = depth(n1) - 1
		n2 := g.emit(n1, w)
		g.nic[l]++
		g.walk(n2, rest)
		g.nic[l]--
	case prog.SRFence:
		e := base
		e.kind, e.remote, e.qp = prog.EvNF, s.Remote, th.QPs[s.Remote]
		g.walk(g.emit(node, e), rest)
	case prog.SPoll:
		q := th.QPs[s.Remote]
		l := g.p.QPs[q].Local
		if g.nic[l] <= g.polls[l] {
			return // ill-formed: nothing to poll from; the sequence stops here
		}
		e := base
		e.kind, e.remote, e.qp = prog.EvPoll, s.Remote, q
		n := g.emit(node, e)
		g.polls[l]++
		g.walk(n, rest)
		g.polls[l]--
	case prog.SChoose:
		for _, b := range s.Branches {
			g.walk(node, push(b, rest))
		}
	case prog.SLoop:
		g.walk(node, rest)
		if k.iter < g.unroll {
			g.walk(node, push(s.Branches[0], &cont{s: s, iter: k.iter + 1, next: rest}))
		} else {
			g.bounded = true
		}
	default:
		if g.err == nil {
			g.err = fmt.Errorf("%s: unknown statement kind %d", s.Pos, s.Kind)
		}
	}
}
