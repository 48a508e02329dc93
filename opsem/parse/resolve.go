package parse

import (
	"fmt"
	"strconv"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
)

// resolver turns a File into a prog.Program, checking names and rules.
type resolver struct {
	file   string
	errs   ErrorList
	p      *prog.Program
	thread string // the thread being resolved
}

// countStmts counts the statements of stmts, nested ones included.
func countStmts(stmts []*prog.Stmt) int {
	n := len(stmts)
	for _, s := range stmts {
		for _, b := range s.Branches {
			n += countStmts(b)
		}
	}
	return n
}

func (r *resolver) errorf(pos prog.Pos, format string, args ...any) {
	if len(r.errs) < 10 {
		r.errs = append(r.errs, &Error{File: r.file, Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
}

// value converts a number token, reporting values outside 0..255.
func (r *resolver) value(t syntax.Token) uint8 {
	v, err := strconv.Atoi(t.Text)
	if err != nil || v < 0 || v > prog.MaxValue {
		r.errorf(t.Pos, "value %s is out of range 0..%d", t.Text, prog.MaxValue)
		return 0
	}
	return uint8(v)
}

func (r *resolver) resolve(f *syntax.File) *prog.Program {
	p := &prog.Program{File: r.file}
	r.p = p
	if f.Name != nil {
		p.Name = f.Name.Text
	}
	if f.Doc != nil {
		p.Doc = f.Doc.Text
	}
	p.InOrder = f.Placement != nil && f.Placement.Text == "in-order"
	// Nodes and locations first, so that threads may refer to nodes
	// declared after them.
	for _, n := range f.Nodes {
		if i := p.NodeIndex(n.Name.Text); i >= 0 {
			r.errorf(n.Name.Pos, "node %s declared twice (first at %s)", n.Name.Text, p.Nodes[i].Pos)
			continue
		}
		if len(p.Nodes) == prog.MaxNodes {
			r.errorf(n.Name.Pos, "too many nodes (the limit is %d)", prog.MaxNodes)
			break
		}
		p.Nodes = append(p.Nodes, prog.Node{Name: n.Name.Text, Pos: n.Name.Pos})
		for _, d := range n.Locs {
			if i := p.LocIndex(d.Name.Text); i >= 0 {
				l := p.Locs[i]
				r.errorf(d.Name.Pos, "location %s declared twice (first at %s, on node %s); location names are global", d.Name.Text, l.Pos, p.Nodes[l.Node].Name)
				continue
			}
			if len(p.Locs) == prog.MaxLocs {
				r.errorf(d.Name.Pos, "too many locations (the limit is %d)", prog.MaxLocs)
				break
			}
			l := prog.Loc{Name: d.Name.Text, Node: len(p.Nodes) - 1, Pos: d.Name.Pos}
			if d.Val != nil {
				l.Init = r.value(*d.Val)
			}
			p.Locs = append(p.Locs, l)
		}
	}
	for _, t := range f.Threads {
		if i := p.ThreadIndex(t.Name.Text); i >= 0 {
			r.errorf(t.Name.Pos, "thread %s declared twice (first at %s)", t.Name.Text, p.Threads[i].Pos)
			continue
		}
		if len(p.Threads) == prog.MaxThreads {
			r.errorf(t.Name.Pos, "too many threads (the limit is %d)", prog.MaxThreads)
			break
		}
		node := p.NodeIndex(t.Node.Text)
		if node < 0 {
			r.errorf(t.Node.Pos, "unknown node %s (declare it with node %s { ... })", t.Node.Text, t.Node.Text)
			continue
		}
		th := prog.Thread{Name: t.Name.Text, Node: node, Pos: t.Name.Pos}
		labels := map[string]prog.Pos{}
		r.thread = t.Name.Text
		th.Body = r.stmts(t.Body, node, labels)
		// Compile emits one instruction per statement, plus the end.
		if n := countStmts(th.Body) + 1; n > prog.MaxCode {
			r.errorf(t.Name.Pos, "thread %s is too long: %d instructions, more than the limit of %d", t.Name.Text, n, prog.MaxCode)
		}
		p.Threads = append(p.Threads, th)
	}
	r.queryAndExpects(f)
	if len(f.Threads) == 0 && r.errs == nil {
		// Without a thread nothing runs: the only outcome is the initial
		// memory, and every query would be answered about a program the
		// user did not mean to write (an empty file, or threads commented
		// out). Reported only when nothing else is wrong, at the end of the
		// file, where a thread would go.
		r.errorf(f.End, "no thread: a program needs at least one thread (thread T on N { ... })")
	}
	return p
}

// queryAndExpects resolves the query and the expect lines of f.
func (r *resolver) queryAndExpects(f *syntax.File) {
	p := r.p
	if f.Query != nil {
		p.Query = prog.Query{Kind: f.Query.Kind, Pos: f.Query.Pos}
		p.Query.Cond = r.cond(f.Query.Cond, f.Query.Kind == prog.QReach)
	}
	seen := map[prog.Semantics]prog.Pos{}
	for _, e := range f.Expects {
		sem := map[string]prog.Semantics{"rdma": prog.RDMA, "sc": prog.SC, "robust": prog.Robust}[e.Sem.Text]
		if pos, dup := seen[sem]; dup {
			r.errorf(e.Pos, "expect %s given twice (first at %s)", e.Sem.Text, pos)
			continue
		}
		seen[sem] = e.Pos
		if sem != prog.Robust && p.Query.Kind == prog.QNone {
			r.errorf(e.Pos, "expect %s needs a query to check (exists, ~exists, forall or reach)", e.Sem.Text)
			continue
		}
		yes := e.Word.Text == "allowed" || e.Word.Text == "yes"
		p.Expects = append(p.Expects, prog.Expect{Sem: sem, Yes: yes, Pos: e.Pos})
	}
}

// loc resolves a location name.
func (r *resolver) loc(t syntax.Token) (int, bool) {
	i := r.p.LocIndex(t.Text)
	if i < 0 {
		r.errorf(t.Pos, "unknown location %s (declare it in a node: node N { %s = 0 })", t.Text, t.Text)
		return 0, false
	}
	return i, true
}

func (r *resolver) stmts(raw []*syntax.Stmt, node int, labels map[string]prog.Pos) []*prog.Stmt {
	out := make([]*prog.Stmt, 0, len(raw))
	for _, rs := range raw {
		if s := r.stmt(rs, node, labels); s != nil {
			out = append(out, s)
		}
	}
	return out
}

func (r *resolver) stmt(rs *syntax.Stmt, node int, labels map[string]prog.Pos) *prog.Stmt {
	p := r.p
	s := &prog.Stmt{Pos: rs.Pos}
	if rs.Label != nil {
		if first, dup := labels[rs.Label.Text]; dup {
			r.errorf(rs.Label.Pos, "label %s used twice in thread %s (first at %s)", rs.Label.Text, r.thread, first)
		} else if rs.Label.Text == "end" {
			r.errorf(rs.Label.Pos, "end cannot be a label: T@end means the thread has terminated")
		} else if rs.Label.Text == "fail" {
			r.errorf(rs.Label.Pos, "fail cannot be a label: T@fail means the thread stopped at an error")
		} else {
			labels[rs.Label.Text] = rs.Label.Pos
			s.Label = rs.Label.Text
		}
	}
	nodeName := p.Nodes[node].Name
	onNode := func(l int) string { return p.Nodes[p.Locs[l].Node].Name }
	switch rs.Kind {
	case syntax.StmtSkip:
		s.Kind = prog.SSkip
	case syntax.StmtQuiet:
		s.Kind = prog.SQuiet
	case syntax.StmtAssignValue:
		s.Kind = prog.SWrite
		x, ok := r.loc(rs.Lhs)
		if !ok {
			return nil
		}
		if p.Locs[x].Node != node {
			r.errorf(rs.Lhs.Pos, "cannot write a constant to %s on node %s: thread %s runs on %s and writes constants only to its own node (to send a value, put it from a location l of %s: %s := l)", rs.Lhs.Text, onNode(x), r.thread, nodeName, nodeName, rs.Lhs.Text)
		}
		s.X, s.A = x, r.value(rs.Rhs)
	case syntax.StmtAssignLoc:
		x, ok1 := r.loc(rs.Lhs)
		y, ok2 := r.loc(rs.Rhs)
		if !ok1 || !ok2 {
			return nil
		}
		xl, yl := p.Locs[x].Node == node, p.Locs[y].Node == node
		switch {
		case xl && yl:
			r.errorf(rs.Pos, "%s := %s copies between two locations of %s, the thread's own node, and there is no local copy instruction: one side of := must be on another node (a get or a put), or write a constant (%s := v)", rs.Lhs.Text, rs.Rhs.Text, nodeName, rs.Lhs.Text)
		case !xl && !yl:
			where := "both on node " + onNode(x)
			if onNode(x) != onNode(y) {
				where = "on nodes " + onNode(x) + " and " + onNode(y)
			}
			r.errorf(rs.Pos, "%s := %s copies between two remote locations (%s): one side of := must be on %s, the thread's own node", rs.Lhs.Text, rs.Rhs.Text, where, nodeName)
		case xl:
			s.Kind, s.X, s.Y, s.Remote = prog.SGet, x, y, p.Locs[y].Node
		default:
			s.Kind, s.X, s.Y, s.Remote = prog.SPut, y, x, p.Locs[x].Node
		}
		if rs.LhsWords != nil && !r.words(rs, s) {
			return nil
		}
	case syntax.StmtAssignCAS:
		s.Kind = prog.SCAS
		x, ok1 := r.loc(rs.Lhs)
		z, ok2 := r.loc(rs.Z)
		if !ok1 || !ok2 {
			return nil
		}
		if p.Locs[z].Node != node {
			r.errorf(rs.Z.Pos, "cas works on the thread's own memory, but %s is on node %s, not %s", rs.Z.Text, onNode(z), nodeName)
		}
		if p.Locs[x].Node != node {
			r.errorf(rs.Lhs.Pos, "the result of cas goes to the thread's own memory, but %s is on node %s, not %s", rs.Lhs.Text, onNode(x), nodeName)
		}
		s.X, s.Z, s.A, s.B = x, z, r.value(rs.A), r.value(rs.B)
	case syntax.StmtAssignAtomic:
		s.Kind = prog.SRCAS
		if rs.Atomic == "rfaa" {
			s.Kind = prog.SRFAA
		}
		x, ok1 := r.loc(rs.Lhs)
		y, ok2 := r.loc(rs.Z)
		if !ok1 || !ok2 {
			return nil
		}
		if p.Locs[y].Node == node {
			r.errorf(rs.Z.Pos, "%s works on another node's memory, but %s is on node %s, the thread's own (use cas for a local compare-and-swap)", rs.Atomic, rs.Z.Text, nodeName)
		}
		if p.Locs[x].Node != node {
			r.errorf(rs.Lhs.Pos, "the old value of %s goes to the thread's own memory, but %s is on node %s, not %s", rs.Atomic, rs.Lhs.Text, onNode(x), nodeName)
		}
		s.X, s.Y, s.Remote, s.A = x, y, p.Locs[y].Node, r.value(rs.A)
		if rs.Atomic == "rcas" {
			s.B = r.value(rs.B)
		}
	case syntax.StmtAssume:
		s.Kind = prog.SAssume
		x, ok := r.loc(rs.Lhs)
		if !ok {
			return nil
		}
		if p.Locs[x].Node != node {
			r.errorf(rs.Lhs.Pos, "assume reads the thread's own memory, but %s is on node %s, not %s (read it with a get first)", rs.Lhs.Text, onNode(x), nodeName)
		}
		s.X, s.A, s.Ne = x, r.value(rs.Rhs), rs.Ne
	case syntax.StmtRFence, syntax.StmtPoll:
		s.Kind = prog.SRFence
		kw := "rfence"
		if rs.Kind == syntax.StmtPoll {
			s.Kind, kw = prog.SPoll, "poll"
		}
		n := p.NodeIndex(rs.Node.Text)
		switch {
		case n < 0:
			r.errorf(rs.Node.Pos, "unknown node %s in %s(%s) (declare it with node %s { ... })", rs.Node.Text, kw, rs.Node.Text, rs.Node.Text)
			return nil
		case n == node:
			r.errorf(rs.Node.Pos, "%s(%s): %s is the thread's own node; %s names the remote node of a queue pair", kw, rs.Node.Text, rs.Node.Text, kw)
		}
		s.Remote = n
	case syntax.StmtChoose, syntax.StmtLoop:
		s.Kind = prog.SChoose
		if rs.Kind == syntax.StmtLoop {
			s.Kind = prog.SLoop
		}
		for _, b := range rs.Branches {
			s.Branches = append(s.Branches, r.stmts(b, node, labels))
		}
	}
	if rs.Fenced {
		switch s.Kind {
		case prog.SGet, prog.SPut, prog.SRCAS, prog.SRFAA:
			s.Fenced = true
		default:
			r.errorf(rs.FencedPos, "fenced marks a put, a get or a remote atomic (the fence flag of its work request), not %s", p.StmtString(s))
		}
	}
	if rs.Unsignaled {
		r.unsignaled(rs, s)
	}
	if rs.Inline {
		if s.Kind == prog.SPut {
			s.Inline = true
		} else {
			r.errorf(rs.InlinePos, "%s", inlineMisplaced(p.StmtString(s)))
		}
	}
	return s
}

func (r *resolver) cond(rc *syntax.Cond, reach bool) *prog.Cond {
	if rc == nil {
		return &prog.Cond{Op: prog.CTrue}
	}
	c := &prog.Cond{Op: rc.Op, Pos: rc.Pos}
	switch rc.Op {
	case prog.CEq, prog.CNe:
		c.Loc, _ = r.loc(rc.Loc)
		c.Val = r.value(rc.Val)
	case prog.CAt, prog.CEnd, prog.CFail:
		if !reach {
			r.errorf(rc.Pos, "control condition %s@%s is only allowed in reach queries (exists, ~exists and forall look at final configurations, where every thread has ended)", rc.Thread.Text, rc.Label.Text)
			return c
		}
		t := r.p.ThreadIndex(rc.Thread.Text)
		if t < 0 {
			r.errorf(rc.Thread.Pos, "unknown thread %s in %s@%s", rc.Thread.Text, rc.Thread.Text, rc.Label.Text)
			return c
		}
		c.Thread = t
		if rc.Op == prog.CAt {
			c.Label = rc.Label.Text
			th := &r.p.Threads[t]
			if th.Lowered && len(th.LabelPCs(c.Label)) == 0 || !th.Lowered && !hasLabel(th.Body, c.Label) {
				r.errorf(rc.Label.Pos, "thread %s has no label %s", rc.Thread.Text, c.Label)
			}
		}
	case prog.CNot:
		c.L = r.cond(rc.L, reach)
	case prog.CAnd, prog.COr:
		c.L = r.cond(rc.L, reach)
		c.R = r.cond(rc.R, reach)
	}
	return c
}

func hasLabel(stmts []*prog.Stmt, name string) bool {
	for _, s := range stmts {
		if s.Label == name {
			return true
		}
		for _, b := range s.Branches {
			if hasLabel(b, name) {
				return true
			}
		}
	}
	return false
}

// words resolves the word lists of a multi-word put or get (y0, y1) :=
// (x0, x1) (SEMANTICS-VERBS.md 1) into s, already the put or get of their
// first words: as many words on each side, 2 to prog.MaxWords, each side
// consecutive locations (in declaration order) of one node.
func (r *resolver) words(rs *syntax.Stmt, s *prog.Stmt) bool {
	p := r.p
	if len(rs.LhsWords) != len(rs.RhsWords) {
		r.errorf(rs.Pos, "%d words := %d words: a multi-word put or get copies as many words as it reads", len(rs.LhsWords), len(rs.RhsWords))
		return false
	}
	k := len(rs.LhsWords)
	if k > prog.MaxWords {
		r.errorf(rs.Pos, "%d words: a multi-word put or get moves 2 to %d", k, prog.MaxWords)
		return false
	}
	for _, side := range [][]syntax.Token{rs.LhsWords, rs.RhsWords} {
		first, ok := r.loc(side[0])
		if !ok {
			return false
		}
		for i, t := range side[1:] {
			l, ok := r.loc(t)
			if !ok {
				return false
			}
			if l != first+i+1 || p.Locs[l].Node != p.Locs[first].Node {
				r.errorf(t.Pos, "%s is not the location declared after %s on node %s: the words of one put or get are consecutive locations of one node", t.Text, side[i].Text, p.Nodes[p.Locs[first].Node].Name)
				return false
			}
		}
	}
	s.Words = k
	return true
}
