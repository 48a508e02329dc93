package parse

import (
	"fmt"
	"strconv"

	"rdmasim/opsem/prog"
)

// The interpreter's statements: what a statement does given the registers
// and the values it has read so far, and the steps of the SC machine that
// carry it out.

// Kinds of action.
const (
	aNext   = iota // the statement holds (assume, assert): go on after it
	aReg           // set register reg to val
	aBranch        // if or while: the test's value val
	aBlock         // an assume that does not hold: stop for ever
	aFail          // an error point: err
	aMemory        // a step on memory: mem says which
)

// Kinds of memory step.
const (
	mRead  = iota // read loc into the statement's reads
	mWrite        // loc := val
	mPut          // loc (remote) := src (local), two steps
	mGet          // loc (local) := src (remote), two steps
	mCAS          // loc := cas(src, a, b), two steps
	mFence        // rfence(node): nothing under SC
	mPoll         // poll(node)
)

// action is what a statement does next.
type action struct {
	kind     int
	reg, val int
	err      int
	mem      int
	loc, src int
	a, b     int
	node     int
}

// evaluator evaluates the expressions of one statement of thread t.
type evaluator struct {
	in  *interp
	th  *ithread
	s   *tstate
	env map[string]int
}

// stopped is an evaluation that cannot give a value yet: it needs a read
// (or hit an error point): the statement's action.
type stopped = *action

func (e *evaluator) fail(pos prog.Pos, format string, args ...any) stopped {
	ep := ErrorPoint{Thread: e.th.name, Pos: pos, Msg: fmt.Sprintf(format, args...)}
	return &action{kind: aFail, err: e.in.errorPoint(ep)}
}

func (e *evaluator) static(pos prog.Pos, format string, args ...any) error {
	return e.in.staticError(pos, format, args...)
}

// value evaluates x: C's operators on integers, truth values 0 and 1.
func (e *evaluator) value(x *rawExpr) (int, stopped, error) {
	switch x.kind {
	case eInt:
		v, err := strconv.Atoi(x.name.text)
		if err != nil {
			return 0, nil, e.static(x.pos, "number %s is too large", x.name.text)
		}
		return v, nil, nil
	case eBool:
		if x.name.text == "true" {
			return 1, nil, nil
		}
		return 0, nil, nil
	case eName:
		if len(x.idx) == 0 {
			if r, ok := e.th.regIdx[x.name.text]; ok {
				return int(e.s.regs[r]), nil, nil
			}
			if v, ok := e.env[x.name.text]; ok {
				return v, nil, nil
			}
			if v, ok := e.in.lw.params[x.name.text]; ok {
				return v, nil, nil
			}
		}
		l, st, err := e.location(x)
		if st != nil || err != nil {
			return 0, st, err
		}
		return e.load(x, l)
	case eUnary:
		v, st, err := e.value(x.l)
		if st != nil || err != nil {
			return 0, st, err
		}
		if x.op == tMinus {
			return -v, nil, nil
		}
		if v == 0 {
			return 1, nil, nil
		}
		return 0, nil, nil
	}
	l, st, err := e.value(x.l)
	if st != nil || err != nil {
		return 0, st, err
	}
	if x.op == tAndAnd && l == 0 {
		return 0, nil, nil
	}
	if x.op == tOrOr && l != 0 {
		return 1, nil, nil
	}
	r, st, err := e.value(x.r)
	if st != nil || err != nil {
		return 0, st, err
	}
	truth := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	switch x.op {
	case tPlus:
		return l + r, nil, nil
	case tMinus:
		return l - r, nil, nil
	case tStar:
		const big = 1 << 20
		if l > big || l < -big || r > big || r < -big {
			return 0, e.fail(x.pos, "%s: a product too large", x), nil
		}
		return l * r, nil, nil
	case tSlash, tPercent:
		if r == 0 {
			return 0, e.fail(x.pos, "%s: division by zero", x), nil
		}
		if x.op == tSlash {
			return l / r, nil, nil
		}
		return l % r, nil, nil
	case tEqEq:
		return truth(l == r), nil, nil
	case tNe:
		return truth(l != r), nil, nil
	case tLt:
		return truth(l < r), nil, nil
	case tLe:
		return truth(l <= r), nil, nil
	case tGt:
		return truth(l > r), nil, nil
	case tGe:
		return truth(l >= r), nil, nil
	case tAndAnd, tOrOr:
		return truth(r != 0), nil, nil
	}
	return 0, nil, e.static(x.pos, "unknown operator in %s", x)
}

// load returns the value of location l, which x names, if the statement has
// read it; otherwise the statement's next step reads it. A value outside
// the location's declared range (a NIC write or a cas copied it there) is an
// error point.
func (e *evaluator) load(x *rawExpr, l int) (int, stopped, error) {
	p := e.in.lw.p
	if n := p.Locs[l].Node; n != e.th.node {
		return 0, nil, e.static(x.pos, "%s is on node %s: thread %s reads only the memory of its own node %s",
			p.Locs[l].Name, p.Nodes[n].Name, e.th.name, p.Nodes[e.th.node].Name)
	}
	for _, r := range e.s.reads {
		if r.loc == l {
			rng := e.in.lw.ranges[l]
			if v := int(r.val); v < rng.lo || v > rng.hi {
				return 0, e.fail(x.pos, "the value %d of %s is outside its range %d..%d", v, p.Locs[l].Name, rng.lo, rng.hi), nil
			}
			return int(r.val), nil, nil
		}
	}
	return 0, &action{kind: aMemory, mem: mRead, loc: l}, nil
}

// location resolves x, a location or an array element, evaluating its
// indices.
func (e *evaluator) location(x *rawExpr) (int, stopped, error) {
	lw := e.in.lw
	if x.kind != eName {
		return 0, nil, e.static(x.pos, "expected a location, found %s", x)
	}
	name := x.name.text
	if _, ok := e.th.regIdx[name]; ok && len(x.idx) == 0 {
		return 0, nil, e.static(x.pos, "%s is a register, not a location", name)
	}
	dims, ok := lw.arrays[name]
	if !ok {
		return 0, nil, e.static(x.pos, "unknown name %s", name)
	}
	if dims != len(x.idx) {
		return 0, nil, e.static(x.pos, "%s takes %d indices, not %d", name, dims, len(x.idx))
	}
	idx := make([]int, len(x.idx))
	for i, ix := range x.idx {
		v, st, err := e.value(ix)
		if st != nil || err != nil {
			return 0, st, err
		}
		idx[i] = v
	}
	full := indexed(name, idx...)
	l, ok := lw.locs[full]
	if !ok {
		return 0, e.fail(x.pos, "index out of bounds: %s does not exist", full), nil
	}
	return l, nil, nil
}

// isLocation reports whether x names locations rather than a value: a
// name that is not a register or a constant, declared as a location.
func (e *evaluator) isLocation(x *rawExpr) bool {
	if x.kind != eName {
		return false
	}
	if len(x.idx) == 0 {
		if _, ok := e.th.regIdx[x.name.text]; ok {
			return false
		}
		if _, ok := e.env[x.name.text]; ok {
			return false
		}
		if _, ok := e.in.lw.params[x.name.text]; ok {
			return false
		}
	}
	_, ok := e.in.lw.arrays[x.name.text]
	return ok
}

// node resolves x, a node or a member of a family of nodes.
func (e *evaluator) node(x *rawExpr) (int, stopped, error) {
	idx := make([]int, len(x.idx))
	for i, ix := range x.idx {
		v, st, err := e.value(ix)
		if st != nil || err != nil {
			return 0, st, err
		}
		idx[i] = v
	}
	full := indexed(x.name.text, idx...)
	n, ok := e.in.lw.nodes[full]
	if !ok {
		if len(idx) == 0 {
			return 0, nil, e.static(x.pos, "unknown node %s", full)
		}
		return 0, e.fail(x.pos, "index out of bounds: there is no node %s", full), nil
	}
	return n, nil, nil
}

// inRange is the error point of a value v stored into what (a register or a
// location) outside its range, or nil.
func (e *evaluator) inRange(pos prog.Pos, what string, v int, rng valRange) stopped {
	if v < rng.lo || v > rng.hi {
		return e.fail(pos, "the value %d leaves the range %d..%d of %s", v, rng.lo, rng.hi, what)
	}
	return nil
}

// exec returns what statement st of thread t does next in state s.
func (in *interp) exec(t int, s *tstate, st *rawStmt) (*action, error) {
	e := &evaluator{in: in, th: in.threads[t], s: s, env: in.env(t, s)}
	a, err := e.stmt(st)
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (e *evaluator) stmt(s *rawStmt) (*action, error) {
	p := e.in.lw.p
	local := func(l int) bool { return p.Locs[l].Node == e.th.node }
	switch s.kind {
	case rIf, rWhile:
		v, st, err := e.value(s.cond)
		if st != nil || err != nil {
			return st, err
		}
		return &action{kind: aBranch, val: v}, nil
	case rAssume, rAssumeE, rAssert:
		v, st, err := e.value(s.cond)
		switch {
		case st != nil || err != nil:
			return st, err
		case v != 0:
			return &action{kind: aNext}, nil
		case s.kind == rAssert:
			return e.fail(s.pos, "assertion %s failed", s.cond), nil
		}
		return &action{kind: aBlock}, nil
	case rRFence, rPoll:
		n, st, err := e.node(s.nodeE)
		if st != nil || err != nil {
			return st, err
		}
		if n == e.th.node {
			return nil, e.static(s.nodeE.pos, "%s(%s) names the thread's own node", stmtKeyword(s), p.Nodes[n].Name)
		}
		if s.kind == rPoll {
			return &action{kind: aMemory, mem: mPoll, node: n}, nil
		}
		return &action{kind: aMemory, mem: mFence, node: n}, nil
	}
	lhs, rhs := s.lhsE, s.rhsE
	if r, ok := e.th.regIdx[lhs.name.text]; ok && lhs.simpleName() {
		if s.casZ != nil {
			return nil, e.static(s.pos, "cas writes its old value to a location, not to register %s", lhs.name.text)
		}
		v, st, err := e.value(rhs)
		if st != nil || err != nil {
			return st, err
		}
		if st := e.inRange(s.pos, "register "+lhs.name.text, v, e.th.regs[r].rng); st != nil {
			return st, nil
		}
		return &action{kind: aReg, reg: r, val: v}, nil
	}
	x, st, err := e.location(lhs)
	if st != nil || err != nil {
		return st, err
	}
	switch {
	case s.casZ != nil:
		z, st, err := e.location(s.casZ)
		if st != nil || err != nil {
			return st, err
		}
		a, st, err := e.value(s.casA)
		if st != nil || err != nil {
			return st, err
		}
		b, st, err := e.value(s.casB)
		if st != nil || err != nil {
			return st, err
		}
		if !local(z) || !local(x) {
			return nil, e.static(s.pos, "cas works on the memory of the thread's own node")
		}
		if st := e.inRange(s.casA.pos, "a value", a, valRange{0, prog.MaxValue}); st != nil {
			return st, nil
		}
		if st := e.inRange(s.casB.pos, p.Locs[z].Name, b, e.in.lw.ranges[z]); st != nil {
			return st, nil
		}
		return &action{kind: aMemory, mem: mCAS, loc: x, src: z, a: a, b: b}, nil
	case e.isLocation(rhs):
		y, st, err := e.location(rhs)
		if st != nil || err != nil {
			return st, err
		}
		switch {
		case local(x) && !local(y):
			return &action{kind: aMemory, mem: mGet, loc: x, src: y, node: p.Locs[y].Node}, nil
		case !local(x) && local(y):
			return &action{kind: aMemory, mem: mPut, loc: x, src: y, node: p.Locs[x].Node}, nil
		case !local(x):
			return nil, e.static(s.pos, "%s := %s copies between two remote locations", p.Locs[x].Name, p.Locs[y].Name)
		}
	}
	v, st, err := e.value(rhs)
	if st != nil || err != nil {
		return st, err
	}
	if !local(x) {
		return nil, e.static(s.pos, "%s is on another node: a value goes there only by a put", p.Locs[x].Name)
	}
	if st := e.inRange(s.pos, p.Locs[x].Name, v, e.in.lw.ranges[x]); st != nil {
		return st, nil
	}
	return &action{kind: aMemory, mem: mWrite, loc: x, val: v}, nil
}

// successors returns the configurations one step of one thread leads to
// from c, and whether c is stuck: no thread can move, and none was kept
// from moving by the bound on unpolled operations.
func (in *interp) successors(c *config) ([]*config, bool, error) {
	var out []*config
	nodes := len(in.lw.p.Nodes)
	stuck := true
	for t := range c.th {
		s := &c.th[t]
		if s.status == sSpinning {
			stuck = false
		}
		if s.status != sRunning {
			continue
		}
		d := c.clone()
		n := s.clone()
		if s.mid {
			d.mem[n.midLoc] = n.midVal
			if n.midQP >= 0 {
				in.complete(t, d, n.midQP%nodes)
			}
			n.mid = false
			advance(&n)
		} else {
			blk := in.blkList[n.frames[len(n.frames)-1].blk]
			a, err := in.exec(t, &n, blk.stmts[n.frames[len(n.frames)-1].i])
			if err != nil {
				return nil, false, err
			}
			if a.kind != aMemory {
				return nil, false, fmt.Errorf("interpreter: thread %s is not settled", in.threads[t].name)
			}
			switch a.mem {
			case mRead:
				n.reads = append(n.reads, iread{loc: a.loc, val: d.mem[a.loc]})
			case mWrite:
				d.mem[a.loc] = uint8(a.val)
				advance(&n)
			case mPut, mGet:
				qp := t*nodes + a.node
				if in.threads[t].pollCap[a.node] < 0 && d.npend[qp] >= maxUnpolled {
					in.pruned = true
					stuck = false
					continue
				}
				n.mid, n.midLoc, n.midVal, n.midQP = true, a.loc, d.mem[a.src], qp
			case mCAS:
				old := d.mem[a.src]
				if int(old) == a.a {
					d.mem[a.src] = uint8(a.b)
				}
				n.mid, n.midLoc, n.midVal, n.midQP = true, a.loc, old, -1
			case mFence:
				advance(&n)
			case mPoll:
				qp := t*nodes + a.node
				if d.npend[qp] == 0 {
					continue
				}
				d.npend[qp]--
				advance(&n)
			}
		}
		stuck = false
		settled, err := in.settle(t, n)
		if err != nil {
			return nil, false, err
		}
		for i, ns := range settled {
			e := d
			if i < len(settled)-1 {
				e = d.clone()
			}
			e.th[t] = ns
			out = append(out, e)
		}
	}
	return out, stuck, nil
}

// complete counts one more unpolled operation on thread t's queue pair to
// node n, as many as the thread can still poll at most.
func (in *interp) complete(t int, c *config, n int) {
	qp := t*len(in.lw.p.Nodes) + n
	limit := in.threads[t].pollCap[n]
	if limit < 0 {
		limit = 255
	}
	if int(c.npend[qp]) < limit {
		c.npend[qp]++
	}
}
