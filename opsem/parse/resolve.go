package parse

import (
	"fmt"
	"strconv"

	"rdmasim/opsem/prog"
)

// resolver turns a rawFile into a prog.Program, checking names and rules.
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
func (r *resolver) value(t token) uint8 {
	v, err := strconv.Atoi(t.text)
	if err != nil || v < 0 || v > prog.MaxValue {
		r.errorf(t.pos, "value %s is out of range 0..%d", t.text, prog.MaxValue)
		return 0
	}
	return uint8(v)
}

func (r *resolver) resolve(f *rawFile) *prog.Program {
	p := &prog.Program{File: r.file}
	r.p = p
	if f.name != nil {
		p.Name = f.name.text
	}
	if f.doc != nil {
		p.Doc = f.doc.text
	}
	// Nodes and locations first, so that threads may refer to nodes
	// declared after them.
	for _, n := range f.nodes {
		if i := p.NodeIndex(n.name.text); i >= 0 {
			r.errorf(n.name.pos, "node %s declared twice (first at %s)", n.name.text, p.Nodes[i].Pos)
			continue
		}
		if len(p.Nodes) == prog.MaxNodes {
			r.errorf(n.name.pos, "too many nodes (the limit is %d)", prog.MaxNodes)
			break
		}
		p.Nodes = append(p.Nodes, prog.Node{Name: n.name.text, Pos: n.name.pos})
		for _, d := range n.locs {
			if i := p.LocIndex(d.name.text); i >= 0 {
				l := p.Locs[i]
				r.errorf(d.name.pos, "location %s declared twice (first at %s, on node %s); location names are global", d.name.text, l.Pos, p.Nodes[l.Node].Name)
				continue
			}
			if len(p.Locs) == prog.MaxLocs {
				r.errorf(d.name.pos, "too many locations (the limit is %d)", prog.MaxLocs)
				break
			}
			l := prog.Loc{Name: d.name.text, Node: len(p.Nodes) - 1, Pos: d.name.pos}
			if d.val != nil {
				l.Init = r.value(*d.val)
			}
			p.Locs = append(p.Locs, l)
		}
	}
	for _, t := range f.threads {
		if i := p.ThreadIndex(t.name.text); i >= 0 {
			r.errorf(t.name.pos, "thread %s declared twice (first at %s)", t.name.text, p.Threads[i].Pos)
			continue
		}
		if len(p.Threads) == prog.MaxThreads {
			r.errorf(t.name.pos, "too many threads (the limit is %d)", prog.MaxThreads)
			break
		}
		node := p.NodeIndex(t.node.text)
		if node < 0 {
			r.errorf(t.node.pos, "unknown node %s (declare it with node %s { ... })", t.node.text, t.node.text)
			continue
		}
		th := prog.Thread{Name: t.name.text, Node: node, Pos: t.name.pos}
		labels := map[string]prog.Pos{}
		r.thread = t.name.text
		th.Body = r.stmts(t.body, node, labels)
		// Compile emits one instruction per statement, plus the end.
		if n := countStmts(th.Body) + 1; n > prog.MaxCode {
			r.errorf(t.name.pos, "thread %s is too long: %d instructions, more than the limit of %d", t.name.text, n, prog.MaxCode)
		}
		p.Threads = append(p.Threads, th)
	}
	r.queryAndExpects(f)
	if len(f.threads) == 0 && r.errs == nil {
		// Without a thread nothing runs: the only outcome is the initial
		// memory, and every query would be answered about a program the
		// user did not mean to write (an empty file, or threads commented
		// out). Reported only when nothing else is wrong, at the end of the
		// file, where a thread would go.
		r.errorf(f.end, "no thread: a program needs at least one thread (thread T on N { ... })")
	}
	return p
}

// queryAndExpects resolves the query and the expect lines of f.
func (r *resolver) queryAndExpects(f *rawFile) {
	p := r.p
	if f.query != nil {
		p.Query = prog.Query{Kind: f.query.kind, Pos: f.query.pos}
		p.Query.Cond = r.cond(f.query.cond, f.query.kind == prog.QReach)
	}
	seen := map[prog.Semantics]prog.Pos{}
	for _, e := range f.expects {
		sem := map[string]prog.Semantics{"rdma": prog.RDMA, "sc": prog.SC, "robust": prog.Robust}[e.sem.text]
		if pos, dup := seen[sem]; dup {
			r.errorf(e.pos, "expect %s given twice (first at %s)", e.sem.text, pos)
			continue
		}
		seen[sem] = e.pos
		if sem != prog.Robust && p.Query.Kind == prog.QNone {
			r.errorf(e.pos, "expect %s needs a query to check (exists, ~exists, forall or reach)", e.sem.text)
			continue
		}
		yes := e.word.text == "allowed" || e.word.text == "yes"
		p.Expects = append(p.Expects, prog.Expect{Sem: sem, Yes: yes, Pos: e.pos})
	}
}

// loc resolves a location name.
func (r *resolver) loc(t token) (int, bool) {
	i := r.p.LocIndex(t.text)
	if i < 0 {
		r.errorf(t.pos, "unknown location %s (declare it in a node: node N { %s = 0 })", t.text, t.text)
		return 0, false
	}
	return i, true
}

func (r *resolver) stmts(raw []*rawStmt, node int, labels map[string]prog.Pos) []*prog.Stmt {
	out := make([]*prog.Stmt, 0, len(raw))
	for _, rs := range raw {
		if s := r.stmt(rs, node, labels); s != nil {
			out = append(out, s)
		}
	}
	return out
}

func (r *resolver) stmt(rs *rawStmt, node int, labels map[string]prog.Pos) *prog.Stmt {
	p := r.p
	s := &prog.Stmt{Pos: rs.pos}
	if rs.label != nil {
		if first, dup := labels[rs.label.text]; dup {
			r.errorf(rs.label.pos, "label %s used twice in thread %s (first at %s)", rs.label.text, r.thread, first)
		} else if rs.label.text == "end" {
			r.errorf(rs.label.pos, "end cannot be a label: T@end means the thread has terminated")
		} else if rs.label.text == "fail" {
			r.errorf(rs.label.pos, "fail cannot be a label: T@fail means the thread stopped at an error")
		} else {
			labels[rs.label.text] = rs.label.pos
			s.Label = rs.label.text
		}
	}
	nodeName := p.Nodes[node].Name
	onNode := func(l int) string { return p.Nodes[p.Locs[l].Node].Name }
	switch rs.kind {
	case rSkip:
		s.Kind = prog.SSkip
	case rAssignValue:
		s.Kind = prog.SWrite
		x, ok := r.loc(rs.lhs)
		if !ok {
			return nil
		}
		if p.Locs[x].Node != node {
			r.errorf(rs.lhs.pos, "cannot write a constant to %s on node %s: thread %s runs on %s and writes constants only to its own node (to send a value, put it from a location l of %s: %s := l)", rs.lhs.text, onNode(x), r.thread, nodeName, nodeName, rs.lhs.text)
		}
		s.X, s.A = x, r.value(rs.rhs)
	case rAssignLoc:
		x, ok1 := r.loc(rs.lhs)
		y, ok2 := r.loc(rs.rhs)
		if !ok1 || !ok2 {
			return nil
		}
		xl, yl := p.Locs[x].Node == node, p.Locs[y].Node == node
		switch {
		case xl && yl:
			r.errorf(rs.pos, "%s := %s copies between two locations of %s, the thread's own node, and there is no local copy instruction: one side of := must be on another node (a get or a put), or write a constant (%s := v)", rs.lhs.text, rs.rhs.text, nodeName, rs.lhs.text)
		case !xl && !yl:
			where := "both on node " + onNode(x)
			if onNode(x) != onNode(y) {
				where = "on nodes " + onNode(x) + " and " + onNode(y)
			}
			r.errorf(rs.pos, "%s := %s copies between two remote locations (%s): one side of := must be on %s, the thread's own node", rs.lhs.text, rs.rhs.text, where, nodeName)
		case xl:
			s.Kind, s.X, s.Y, s.Remote = prog.SGet, x, y, p.Locs[y].Node
		default:
			s.Kind, s.X, s.Y, s.Remote = prog.SPut, y, x, p.Locs[x].Node
		}
	case rAssignCAS:
		s.Kind = prog.SCAS
		x, ok1 := r.loc(rs.lhs)
		z, ok2 := r.loc(rs.z)
		if !ok1 || !ok2 {
			return nil
		}
		if p.Locs[z].Node != node {
			r.errorf(rs.z.pos, "cas works on the thread's own memory, but %s is on node %s, not %s", rs.z.text, onNode(z), nodeName)
		}
		if p.Locs[x].Node != node {
			r.errorf(rs.lhs.pos, "the result of cas goes to the thread's own memory, but %s is on node %s, not %s", rs.lhs.text, onNode(x), nodeName)
		}
		s.X, s.Z, s.A, s.B = x, z, r.value(rs.a), r.value(rs.b)
	case rAssignAtomic:
		s.Kind = prog.SRCAS
		if rs.atomic == "rfaa" {
			s.Kind = prog.SRFAA
		}
		x, ok1 := r.loc(rs.lhs)
		y, ok2 := r.loc(rs.z)
		if !ok1 || !ok2 {
			return nil
		}
		if p.Locs[y].Node == node {
			r.errorf(rs.z.pos, "%s works on another node's memory, but %s is on node %s, the thread's own (use cas for a local compare-and-swap)", rs.atomic, rs.z.text, nodeName)
		}
		if p.Locs[x].Node != node {
			r.errorf(rs.lhs.pos, "the old value of %s goes to the thread's own memory, but %s is on node %s, not %s", rs.atomic, rs.lhs.text, onNode(x), nodeName)
		}
		s.X, s.Y, s.Remote, s.A = x, y, p.Locs[y].Node, r.value(rs.a)
		if rs.atomic == "rcas" {
			s.B = r.value(rs.b)
		}
	case rAssume:
		s.Kind = prog.SAssume
		x, ok := r.loc(rs.lhs)
		if !ok {
			return nil
		}
		if p.Locs[x].Node != node {
			r.errorf(rs.lhs.pos, "assume reads the thread's own memory, but %s is on node %s, not %s (read it with a get first)", rs.lhs.text, onNode(x), nodeName)
		}
		s.X, s.A, s.Ne = x, r.value(rs.rhs), rs.ne
	case rRFence, rPoll:
		s.Kind = prog.SRFence
		kw := "rfence"
		if rs.kind == rPoll {
			s.Kind, kw = prog.SPoll, "poll"
		}
		n := p.NodeIndex(rs.node.text)
		switch {
		case n < 0:
			r.errorf(rs.node.pos, "unknown node %s in %s(%s) (declare it with node %s { ... })", rs.node.text, kw, rs.node.text, rs.node.text)
			return nil
		case n == node:
			r.errorf(rs.node.pos, "%s(%s): %s is the thread's own node; %s names the remote node of a queue pair", kw, rs.node.text, rs.node.text, kw)
		}
		s.Remote = n
	case rChoose, rLoop:
		s.Kind = prog.SChoose
		if rs.kind == rLoop {
			s.Kind = prog.SLoop
		}
		for _, b := range rs.branches {
			s.Branches = append(s.Branches, r.stmts(b, node, labels))
		}
	}
	return s
}

func (r *resolver) cond(rc *rawCond, reach bool) *prog.Cond {
	if rc == nil {
		return &prog.Cond{Op: prog.CTrue}
	}
	c := &prog.Cond{Op: rc.op, Pos: rc.pos}
	switch rc.op {
	case prog.CEq, prog.CNe:
		c.Loc, _ = r.loc(rc.loc)
		c.Val = r.value(rc.val)
	case prog.CAt, prog.CEnd, prog.CFail:
		if !reach {
			r.errorf(rc.pos, "control condition %s@%s is only allowed in reach queries (exists, ~exists and forall look at final configurations, where every thread has ended)", rc.thread.text, rc.label.text)
			return c
		}
		t := r.p.ThreadIndex(rc.thread.text)
		if t < 0 {
			r.errorf(rc.thread.pos, "unknown thread %s in %s@%s", rc.thread.text, rc.thread.text, rc.label.text)
			return c
		}
		c.Thread = t
		if rc.op == prog.CAt {
			c.Label = rc.label.text
			th := &r.p.Threads[t]
			if th.Lowered && len(th.LabelPCs(c.Label)) == 0 || !th.Lowered && !hasLabel(th.Body, c.Label) {
				r.errorf(rc.label.pos, "thread %s has no label %s", rc.thread.text, c.Label)
			}
		}
	case prog.CNot:
		c.L = r.cond(rc.l, reach)
	case prog.CAnd, prog.COr:
		c.L = r.cond(rc.l, reach)
		c.R = r.cond(rc.r, reach)
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
