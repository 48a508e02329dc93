package surface

import (
	"fmt"
	"strconv"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
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
	mQuiet        // quiet: nothing under SC (every operation is done at once)
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
	words    int  // mPut, mGet of a word range (SEMANTICS-VERBS.md 1): its words, one step
	unsig    bool // mPut, mGet marked unsignaled (SEMANTICS-VERBS.md 2): no poll counts it
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
func (e *evaluator) value(x *syntax.Expr) (int, stopped, error) {
	switch x.Kind {
	case syntax.ExprInt:
		v, err := strconv.Atoi(x.Name.Text)
		if err != nil {
			return 0, nil, e.static(x.Pos, "number %s is too large", x.Name.Text)
		}
		return v, nil, nil
	case syntax.ExprBool:
		if x.Name.Text == "true" {
			return 1, nil, nil
		}
		return 0, nil, nil
	case syntax.ExprName:
		if len(x.Idx) == 0 {
			if r, ok := e.th.regIdx[x.Name.Text]; ok {
				return int(e.s.regs[r]), nil, nil
			}
			if v, ok := e.env[x.Name.Text]; ok {
				return v, nil, nil
			}
			if v, ok := e.in.lw.Params[x.Name.Text]; ok {
				return v, nil, nil
			}
		}
		l, st, err := e.location(x)
		if st != nil || err != nil {
			return 0, st, err
		}
		return e.load(x, l)
	case syntax.ExprUnary:
		v, st, err := e.value(x.L)
		if st != nil || err != nil {
			return 0, st, err
		}
		if x.Op == syntax.TokMinus {
			return -v, nil, nil
		}
		if v == 0 {
			return 1, nil, nil
		}
		return 0, nil, nil
	}
	l, st, err := e.value(x.L)
	if st != nil || err != nil {
		return 0, st, err
	}
	if x.Op == syntax.TokAndAnd && l == 0 {
		return 0, nil, nil
	}
	if x.Op == syntax.TokOrOr && l != 0 {
		return 1, nil, nil
	}
	r, st, err := e.value(x.R)
	if st != nil || err != nil {
		return 0, st, err
	}
	truth := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	switch x.Op {
	case syntax.TokPlus:
		return l + r, nil, nil
	case syntax.TokMinus:
		return l - r, nil, nil
	case syntax.TokStar:
		const big = 1 << 20
		if l > big || l < -big || r > big || r < -big {
			return 0, e.fail(x.Pos, "%s: a product too large", x), nil
		}
		return l * r, nil, nil
	case syntax.TokSlash, syntax.TokPercent:
		if r == 0 {
			return 0, e.fail(x.Pos, "%s: division by zero", x), nil
		}
		if x.Op == syntax.TokSlash {
			return l / r, nil, nil
		}
		return l % r, nil, nil
	case syntax.TokEqEq:
		return truth(l == r), nil, nil
	case syntax.TokNe:
		return truth(l != r), nil, nil
	case syntax.TokLt:
		return truth(l < r), nil, nil
	case syntax.TokLe:
		return truth(l <= r), nil, nil
	case syntax.TokGt:
		return truth(l > r), nil, nil
	case syntax.TokGe:
		return truth(l >= r), nil, nil
	case syntax.TokAndAnd, syntax.TokOrOr:
		return truth(r != 0), nil, nil
	}
	return 0, nil, e.static(x.Pos, "unknown operator in %s", x)
}

// load returns the value of location l, which x names, if the statement has
// read it; otherwise the statement's next step reads it. A value outside
// the location's declared range (a NIC write or a cas copied it there) is an
// error point.
func (e *evaluator) load(x *syntax.Expr, l int) (int, stopped, error) {
	p := e.in.lw.P
	if n := p.Locs[l].Node; n != e.th.node {
		return 0, nil, e.static(x.Pos, "%s is on node %s: thread %s reads only the memory of its own node %s",
			p.Locs[l].Name, p.Nodes[n].Name, e.th.name, p.Nodes[e.th.node].Name)
	}
	for _, r := range e.s.reads {
		if r.loc == l {
			rng := e.in.lw.Ranges[l]
			if v := int(r.val); v < rng.Lo || v > rng.Hi {
				return 0, e.fail(x.Pos, "the value %d of %s is outside its range %d..%d", v, p.Locs[l].Name, rng.Lo, rng.Hi), nil
			}
			return int(r.val), nil, nil
		}
	}
	return 0, &action{kind: aMemory, mem: mRead, loc: l}, nil
}

// location resolves x, a location or an array element, evaluating its
// indices.
func (e *evaluator) location(x *syntax.Expr) (int, stopped, error) {
	lw := e.in.lw
	if x.Kind != syntax.ExprName {
		return 0, nil, e.static(x.Pos, "expected a location, found %s", x)
	}
	name := x.Name.Text
	if _, ok := e.th.regIdx[name]; ok && len(x.Idx) == 0 {
		return 0, nil, e.static(x.Pos, "%s is a register, not a location", name)
	}
	dims, ok := lw.Arrays[name]
	if !ok {
		return 0, nil, e.static(x.Pos, "unknown name %s", name)
	}
	if dims != len(x.Idx) {
		return 0, nil, e.static(x.Pos, "%s takes %d indices, not %d", name, dims, len(x.Idx))
	}
	idx := make([]int, len(x.Idx))
	for i, ix := range x.Idx {
		v, st, err := e.value(ix)
		if st != nil || err != nil {
			return 0, st, err
		}
		idx[i] = v
	}
	full := parse.Indexed(name, idx...)
	l, ok := lw.Locs[full]
	if !ok {
		return 0, e.fail(x.Pos, "index out of bounds: %s does not exist", full), nil
	}
	return l, nil, nil
}

// isLocation reports whether x names locations rather than a value: a
// name that is not a register or a constant, declared as a location.
func (e *evaluator) isLocation(x *syntax.Expr) bool {
	if x.Kind != syntax.ExprName {
		return false
	}
	if len(x.Idx) == 0 {
		if _, ok := e.th.regIdx[x.Name.Text]; ok {
			return false
		}
		if _, ok := e.env[x.Name.Text]; ok {
			return false
		}
		if _, ok := e.in.lw.Params[x.Name.Text]; ok {
			return false
		}
	}
	_, ok := e.in.lw.Arrays[x.Name.Text]
	return ok
}

// node resolves x, a node or a member of a family of nodes.
func (e *evaluator) node(x *syntax.Expr) (int, stopped, error) {
	idx := make([]int, len(x.Idx))
	for i, ix := range x.Idx {
		v, st, err := e.value(ix)
		if st != nil || err != nil {
			return 0, st, err
		}
		idx[i] = v
	}
	full := parse.Indexed(x.Name.Text, idx...)
	n, ok := e.in.lw.Nodes[full]
	if !ok {
		if len(idx) == 0 {
			return 0, nil, e.static(x.Pos, "unknown node %s", full)
		}
		return 0, e.fail(x.Pos, "index out of bounds: there is no node %s", full), nil
	}
	return n, nil, nil
}

// inRange is the error point of a value v stored into what (a register or a
// location) outside its range, or nil.
func (e *evaluator) inRange(pos prog.Pos, what string, v int, rng parse.ValRange) stopped {
	if v < rng.Lo || v > rng.Hi {
		return e.fail(pos, "the value %d leaves the range %d..%d of %s", v, rng.Lo, rng.Hi, what)
	}
	return nil
}

// exec returns what statement st of thread t does next in state s.
func (in *interp) exec(t int, s *tstate, st *syntax.Stmt) (*action, error) {
	e := &evaluator{in: in, th: in.threads[t], s: s, env: in.env(t, s)}
	a, err := e.stmt(st)
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (e *evaluator) stmt(s *syntax.Stmt) (*action, error) {
	p := e.in.lw.P
	local := func(l int) bool { return p.Locs[l].Node == e.th.node }
	switch s.Kind {
	case syntax.StmtIf, syntax.StmtWhile:
		v, st, err := e.value(s.Cond)
		if st != nil || err != nil {
			return st, err
		}
		return &action{kind: aBranch, val: v}, nil
	case syntax.StmtAssume, syntax.StmtAssumeE, syntax.StmtAssert:
		v, st, err := e.value(s.Cond)
		switch {
		case st != nil || err != nil:
			return st, err
		case v != 0:
			return &action{kind: aNext}, nil
		case s.Kind == syntax.StmtAssert:
			return e.fail(s.Pos, "assertion %s failed", s.Cond), nil
		}
		return &action{kind: aBlock}, nil
	case syntax.StmtRFence, syntax.StmtPoll:
		n, st, err := e.node(s.NodeE)
		if st != nil || err != nil {
			return st, err
		}
		if n == e.th.node {
			return nil, e.static(s.NodeE.Pos, "%s(%s) names the thread's own node", parse.StmtKeyword(s), p.Nodes[n].Name)
		}
		if s.Kind == syntax.StmtPoll {
			return &action{kind: aMemory, mem: mPoll, node: n}, nil
		}
		return &action{kind: aMemory, mem: mFence, node: n}, nil
	case syntax.StmtQuiet:
		return &action{kind: aMemory, mem: mQuiet}, nil
	}
	lhs, rhs := s.LhsE, s.RhsE
	if r, ok := e.th.regIdx[lhs.Name.Text]; ok && lhs.SimpleName() {
		if s.CasZ != nil {
			return nil, e.static(s.Pos, "cas writes its old value to a location, not to register %s", lhs.Name.Text)
		}
		v, st, err := e.value(rhs)
		if st != nil || err != nil {
			return st, err
		}
		if st := e.inRange(s.Pos, "register "+lhs.Name.Text, v, e.th.regs[r].Rng); st != nil {
			return st, nil
		}
		return &action{kind: aReg, reg: r, val: v}, nil
	}
	if s.LhsHi != nil || s.LhsWords != nil {
		return e.words(s)
	}
	x, st, err := e.location(lhs)
	if st != nil || err != nil {
		return st, err
	}
	switch {
	case s.CasZ != nil:
		z, st, err := e.location(s.CasZ)
		if st != nil || err != nil {
			return st, err
		}
		a, st, err := e.value(s.CasA)
		if st != nil || err != nil {
			return st, err
		}
		b, st, err := e.value(s.CasB)
		if st != nil || err != nil {
			return st, err
		}
		if !local(z) || !local(x) {
			return nil, e.static(s.Pos, "cas works on the memory of the thread's own node")
		}
		if st := e.inRange(s.CasA.Pos, "a value", a, parse.ValRange{Lo: 0, Hi: prog.MaxValue}); st != nil {
			return st, nil
		}
		if st := e.inRange(s.CasB.Pos, p.Locs[z].Name, b, e.in.lw.Ranges[z]); st != nil {
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
			return &action{kind: aMemory, mem: mGet, loc: x, src: y, node: p.Locs[y].Node, unsig: s.Unsignaled}, nil
		case !local(x) && local(y):
			return &action{kind: aMemory, mem: mPut, loc: x, src: y, node: p.Locs[x].Node, unsig: s.Unsignaled}, nil
		case !local(x):
			return nil, e.static(s.Pos, "%s := %s copies between two remote locations", p.Locs[x].Name, p.Locs[y].Name)
		}
	}
	v, st, err := e.value(rhs)
	if st != nil || err != nil {
		return st, err
	}
	if !local(x) {
		return nil, e.static(s.Pos, "%s is on another node: a value goes there only by a put", p.Locs[x].Name)
	}
	if st := e.inRange(s.Pos, p.Locs[x].Name, v, e.in.lw.Ranges[x]); st != nil {
		return st, nil
	}
	return &action{kind: aMemory, mem: mWrite, loc: x, val: v}, nil
}

// successors returns the configurations one step of one thread leads to
// from c, and whether c is stuck: no thread can move, and none was kept
// from moving by the bound on unpolled operations.
func (in *interp) successors(c *config) ([]*config, bool, error) {
	var out []*config
	nodes := len(in.lw.P.Nodes)
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
				if a.words > 1 {
					// One step: every word at once, the operation complete.
					for i := 0; i < a.words; i++ {
						d.mem[a.loc+i] = d.mem[a.src+i]
					}
					if !a.unsig {
						in.complete(t, d, a.node)
					}
					advance(&n)
					break
				}
				if a.unsig {
					qp = -1 // complete without a completion entry: no poll counts it
				}
				n.mid, n.midLoc, n.midVal, n.midQP = true, a.loc, d.mem[a.src], qp
			case mCAS:
				old := d.mem[a.src]
				if int(old) == a.a {
					d.mem[a.src] = uint8(a.b)
				}
				n.mid, n.midLoc, n.midVal, n.midQP = true, a.loc, old, -1
			case mFence, mQuiet:
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
	qp := t*len(in.lw.P.Nodes) + n
	limit := in.threads[t].pollCap[n]
	if limit < 0 {
		limit = 255
	}
	if int(c.npend[qp]) < limit {
		c.npend[qp]++
	}
}

// words evaluates y[lo..hi] := x[lo..hi], a multi-word put or get
// (SEMANTICS-VERBS.md 1), as the SC machine performs it: one step copying
// every word. Its checks are the lowering's (parse's specialiser.words),
// made again here on the interpreter's own evaluation.
func (e *evaluator) words(s *syntax.Stmt) (*action, error) {
	p := e.in.lw.P
	side := func(ref, hi *syntax.Expr) (first, k int, st stopped, err error) {
		h, st, err := e.value(hi)
		if st != nil || err != nil {
			return 0, 0, st, err
		}
		lo := ref.Idx[len(ref.Idx)-1]
		l, st, err := e.value(lo)
		if st != nil || err != nil {
			return 0, 0, st, err
		}
		k = h - l + 1
		if k < 2 || k > prog.MaxWords {
			return 0, 0, nil, e.static(lo.Pos, "the word range %s[%s..%s] has %d words", ref.Name.Text, lo, hi, k)
		}
		for i := 0; i < k; i++ {
			w := *ref
			w.Idx = append(append([]*syntax.Expr(nil), ref.Idx[:len(ref.Idx)-1]...),
				&syntax.Expr{Pos: lo.Pos, Kind: syntax.ExprInt, Name: syntax.Token{Kind: syntax.TokInt, Pos: lo.Pos, Text: strconv.Itoa(l + i)}})
			loc, st, err := e.location(&w)
			if st != nil || err != nil {
				return 0, 0, st, err
			}
			if i == 0 {
				first = loc
			} else if loc != first+i {
				return 0, 0, nil, e.static(ref.Pos, "the words of %s are not consecutive locations", ref.Name.Text)
			}
		}
		return first, k, nil, nil
	}
	list := func(ts []syntax.Token) (first, k int, st stopped, err error) {
		for i, t := range ts {
			loc, st, err := e.location(&syntax.Expr{Pos: t.Pos, Kind: syntax.ExprName, Name: t})
			if st != nil || err != nil {
				return 0, 0, st, err
			}
			if i == 0 {
				first = loc
			} else if loc != first+i {
				return 0, 0, nil, e.static(t.Pos, "the words of a list are not consecutive locations")
			}
		}
		return first, len(ts), nil, nil
	}
	var x, kx, y, ky int
	var st stopped
	var err error
	if s.LhsWords != nil {
		x, kx, st, err = list(s.LhsWords)
	} else {
		x, kx, st, err = side(s.LhsE, s.LhsHi)
	}
	if st != nil || err != nil {
		return st, err
	}
	if s.RhsWords != nil {
		y, ky, st, err = list(s.RhsWords)
	} else {
		y, ky, st, err = side(s.RhsE, s.RhsHi)
	}
	if st != nil || err != nil {
		return st, err
	}
	local := func(l int) bool { return p.Locs[l].Node == e.th.node }
	switch {
	case kx != ky:
		return nil, e.static(s.Pos, "%d words from %d", kx, ky)
	case local(x) && !local(y):
		return &action{kind: aMemory, mem: mGet, loc: x, src: y, node: p.Locs[y].Node, words: kx, unsig: s.Unsignaled}, nil
	case !local(x) && local(y):
		return &action{kind: aMemory, mem: mPut, loc: x, src: y, node: p.Locs[x].Node, words: kx, unsig: s.Unsignaled}, nil
	}
	return nil, e.static(s.Pos, "a word range copies between this node and another")
}
