package axiom

import (
	"errors"
	"fmt"
	"slices"

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
	add    uint8 // added to the copied value (an rfaa's naW), modulo 256
	cons   consKind
	a      uint8 // constraint value
	fenced bool  // an event of a put, get or atomic marked fenced (prog.Instr.Fenced)
	unsig  bool  // an event of a put, get or atomic marked unsignaled (prog.Instr.Unsignaled)
	inline bool  // an event of a put marked inline (prog.Instr.Inline)
	wr     int   // Event.WR: the events of a multi-word put or get, 1 + the index of the first; else 0
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
	// fails lists the error points (OpFail instructions) the thread may
	// stop at right after this prefix, with no further event: a trace
	// whose thread stops here may have it at one of them.
	fails []int
	// at lists the instructions the thread may be at (about to execute)
	// with exactly this prefix of events issued: its control points in a
	// configuration whose thread has this prefix (an alternative of a
	// switch is never one: the switch reads and takes it in one step).
	at []int
	// deadPoll: a sequence stops here before a poll with nothing to poll
	// from, where the machines' thread waits for ever (a deadlock when
	// every other thread has ended or waits likewise).
	deadPoll bool
	// finals lists, at a complete sequence (end) of a thread with
	// registers kept at run time, the valuations its registers may end
	// with (their values in the order of treeGen.regs, one string each):
	// they make no events, so the final memory takes them from here.
	finals []string
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
	tree    *threadTree
	nic     []int // NIC writes so far per local queue pair
	polls   []int // polls so far per local queue pair
	iters   []int // iterations taken per loop of the thread, in the loop's current entry
	bounded bool
	err     error
	skipAt  int // an instruction walk must not record as a control point (a switch's alternative)

	// Registers kept at run time (registers.go): mem holds the path's
	// register valuation at the register locations (the other entries
	// unused), regs lists the thread's register locations, and vals the
	// values a read of each location may return, which an OpLoad branches
	// over. All nil for a program without registers.
	mem  []byte
	regs []int
	vals values
}

// buildTree returns the trie of thread t's label sequences with loops
// unrolled up to unroll times per entry, and whether the bound cut a path.
// It walks the thread's control-flow graph (so that core and lowered
// programs are read alike); a loop's counter counts the iterations of its
// current entry and is reset when the loop is left. Sequences stop before a
// poll that has no unpolled NIC write to poll from (such a sequence never
// completes), and at an error point (OpFail), where the thread stops. A
// program with registers kept at run time needs vals, the values each
// location may hold (see registers.go); nil otherwise.
func buildTree(p *prog.Program, t, unroll, maxLen int, vals values) (*threadTree, bool, error) {
	th := &p.Threads[t]
	g := &treeGen{p: p, t: t, unroll: unroll, maxLen: maxLen,
		tree: &threadTree{nodes: []tnode{{parent: -1}}}, iters: make([]int, th.Loops), skipAt: -1}
	g.initRegisters(vals)
	nq := 0
	for _, q := range p.QPs {
		if q.Thread == t {
			nq++
		}
	}
	g.nic = make([]int, nq)
	g.polls = make([]int, nq)
	g.walk(0, th.Entry)
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

// walk extends the trie from node with the sequences of the thread from
// instruction pc on.
func (g *treeGen) walk(node, pc int) {
	if g.err != nil {
		return
	}
	th := &g.p.Threads[g.t]
	in := &th.Code[pc]
	if pc == g.skipAt {
		g.skipAt = -1
	} else if n := &g.tree.nodes[node]; !g.runsThrough(in) && !slices.Contains(n.at, pc) {
		n.at = append(n.at, pc)
	}
	base := skel{loc: -1, remote: -1, qp: -1, pc: pc, dep: -1, fenced: in.Fenced, unsig: in.Unsignaled, inline: in.Inline}
	depth := func(n int) int { return g.tree.nodes[n].depth }
	switch in.Op {
	case prog.OpEnd:
		g.tree.nodes[node].end = true
		g.recordFinal(node)
	case prog.OpFail:
		// The thread stops at an error point: no complete sequence.
		if n := &g.tree.nodes[node]; !slices.Contains(n.fails, pc) {
			n.fails = append(n.fails, pc)
		}
	case prog.OpSkip:
		g.walk(node, in.Next)
	case prog.OpWrite:
		e := base
		e.kind, e.loc, e.val = prog.EvLW, in.X, in.A
		g.walk(g.emit(node, e), in.Next)
	case prog.OpAssumeEq, prog.OpAssumeNe:
		if g.mem != nil && g.p.Locs[in.X].Reg {
			g.assumeRegister(node, in)
			return
		}
		if g.vals != nil && in.Op == prog.OpAssumeEq && !g.vals[in.X].has(in.A) {
			return // no write puts A in X (registers.go): no run goes on
		}
		e := base
		e.kind, e.loc, e.cons, e.a = prog.EvLR, in.X, consEq, in.A
		if in.Op == prog.OpAssumeNe {
			e.cons = consNe
		}
		g.walk(g.emit(node, e), in.Next)
	case prog.OpCAS:
		// success: CAS(z,a,b) · lW(x,a)
		c := base
		c.kind, c.loc, c.cons, c.a, c.val = prog.EvCAS, in.Z, consEq, in.A, in.B
		n1 := g.emit(node, c)
		w := base
		w.kind, w.loc, w.val = prog.EvLW, in.X, in.A
		g.walk(g.emit(n1, w), in.Next)
		// failure: lR(z,v) · lW(x,v), v != a
		r := base
		r.kind, r.loc, r.cons, r.a = prog.EvLR, in.Z, consNe, in.A
		n1 = g.emit(node, r)
		w = base
		w.kind, w.loc, w.dep = prog.EvLW, in.X, depth(n1)-1
		g.walk(g.emit(n1, w), in.Next)
	case prog.OpGet, prog.OpPut:
		q := in.QP
		l := g.p.QPs[q].Local
		r, w := base, base
		r.remote, r.qp, w.remote, w.qp = in.Remote, q, in.Remote, q
		if in.Op == prog.OpGet { // nrR(y,v) · nlW(x,v,n)
			r.kind, r.loc, w.kind, w.loc = prog.EvNRR, in.Y, prog.EvNLW, in.X
		} else { // nlR(x,v,n) · nrW(y,v)
			r.kind, r.loc, w.kind, w.loc = prog.EvNLR, in.X, prog.EvNRW, in.Y
		}
		if in.Words > 1 {
			// A multi-word put or get (SEMANTICS-VERBS.md 1): its k
			// reads, then its k writes, word i's write copying word
			// i's read.
			r.wr, w.wr = depth(node)+1, depth(node)+1
			n := node
			for i := 0; i < in.Words; i++ {
				ri := r
				ri.loc += i
				n = g.emit(n, ri)
			}
			for i := 0; i < in.Words; i++ {
				wi := w
				wi.loc += i
				wi.dep = depth(node) + i
				n = g.emit(n, wi)
			}
			g.nic[l] += signalled(in)
			g.walk(n, in.Next)
			g.nic[l] -= signalled(in)
			break
		}
		n1 := g.emit(node, r)
		w.dep = depth(n1) - 1
		n2 := g.emit(n1, w)
		g.nic[l] += signalled(in)
		g.walk(n2, in.Next)
		g.nic[l] -= signalled(in)
	case prog.OpRCAS, prog.OpRFAA:
		g.walkAtomic(node, in, base)
	case prog.OpRFence:
		e := base
		e.kind, e.remote, e.qp = prog.EvNF, in.Remote, in.QP
		g.walk(g.emit(node, e), in.Next)
	case prog.OpQuiet:
		// One CPU event, on no queue pair (SEMANTICS-VERBS.md 6); it
		// polls nothing, so the poll counts stay.
		e := base
		e.kind, e.remote, e.qp = prog.EvQuiet, -1, -1
		g.walk(g.emit(node, e), in.Next)
	case prog.OpPoll:
		l := g.p.QPs[in.QP].Local
		if g.nic[l] <= g.polls[l] {
			// ill-formed: nothing to poll from; the sequence stops here
			g.tree.nodes[node].deadPoll = true
			return
		}
		e := base
		e.kind, e.remote, e.qp = prog.EvPoll, in.Remote, in.QP
		n := g.emit(node, e)
		g.polls[l]++
		g.walk(n, in.Next)
		g.polls[l]--
	case prog.OpSwitch:
		// One read, then the assume of the alternative it satisfies: the
		// sequences of each alternative, as for the choose it replaced.
		for _, a := range in.Alts {
			g.skipAt = a
			g.walk(node, a)
		}
	case prog.OpLoad, prog.OpEval, prog.OpIf:
		g.walkRegister(node, in, base)
	case prog.OpBranch:
		if in.Loop < 0 {
			for _, a := range in.Alts {
				g.walk(node, a)
			}
			return
		}
		it := &g.iters[in.Loop]
		saved := *it
		if len(in.Alts) > 1 { // leave the loop: its next entry starts afresh
			*it = 0
			g.walk(node, in.Alts[1])
			*it = saved
		}
		if saved < g.unroll {
			*it = saved + 1
			g.walk(node, in.Alts[0])
			*it = saved
		} else {
			g.bounded = true
		}
	default:
		if g.err == nil {
			g.err = fmt.Errorf("thread %s: unknown instruction %v at %d", th.Name, in.Op, pc)
		}
	}
}

// walkAtomic extends the trie from node with the sequences of the remote
// atomic in (rcas or rfaa) and what follows it; base is the skeleton of its
// events.
func (g *treeGen) walkAtomic(node int, in *prog.Instr, base skel) {
	depth := func(n int) int { return g.tree.nodes[n].depth }
	q := in.QP
	l := g.p.QPs[q].Local
	mk := func(k prog.EventKind, loc int) skel {
		s := base
		s.kind, s.loc, s.remote, s.qp = k, loc, in.Remote, q
		return s
	}
	g.nic[l] += signalled(in)
	if in.Op == prog.OpRCAS {
		// success: naR(y,a) · naW(y,b) · nlW(x,a,m)
		r := mk(prog.EvNAR, in.Y)
		r.cons, r.a = consEq, in.A
		w := mk(prog.EvNAW, in.Y)
		w.val = in.B
		x := mk(prog.EvNLW, in.X)
		x.val = in.A
		g.walk(g.emit(g.emit(g.emit(node, r), w), x), in.Next)
		// failure: naR(y,v) · nlW(x,v,m), v != a
		r.cons = consNe
		n1 := g.emit(node, r)
		x = mk(prog.EvNLW, in.X)
		x.dep = depth(n1) - 1
		g.walk(g.emit(n1, x), in.Next)
	} else {
		// naR(y,v) · naW(y,v+d) · nlW(x,v,m)
		n1 := g.emit(node, mk(prog.EvNAR, in.Y))
		w := mk(prog.EvNAW, in.Y)
		w.dep, w.add = depth(n1)-1, in.A
		x := mk(prog.EvNLW, in.X)
		x.dep = depth(n1) - 1
		g.walk(g.emit(g.emit(n1, w), x), in.Next)
	}
	g.nic[l] -= signalled(in)
}
