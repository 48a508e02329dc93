package surface

import (
	bin "encoding/binary"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/syntax"
)

// The interpreter's configurations: memory, each thread's continuation and
// registers, and the unpolled operations of each queue pair.

// Thread statuses.
const (
	sRunning  uint8 = iota // at a statement (its next step may wait: a poll)
	sEnded                 // the thread ended
	sFailed                // stopped at an error point (tstate.err)
	sBlocked               // stopped for ever at an assume that does not hold
	sSpinning              // runs for ever without touching memory
)

// frame is a block being executed: the block, the index of the current
// statement in it, and, in the body of a for loop, the loop variable's
// value.
type frame struct {
	blk, i int
	k      int
}

// iread is a value a statement has read: location, value.
type iread struct {
	loc int
	val uint8
}

// tstate is a thread's state. A running thread is at the statement of its
// innermost frame, with what that statement has read so far (each location
// once: the evaluation is replayed with these values, and asks for the
// next location it needs). mid is the second step of a put, get or cas
// still to do: the write midLoc := midVal, then, for a put or a get, one
// more unpolled operation on queue pair midQP.
type tstate struct {
	status uint8
	err    int
	frames []frame
	regs   []uint8
	reads  []iread
	mid    bool
	midLoc int
	midVal uint8
	midQP  int
}

func (s tstate) clone() tstate {
	s.frames = append([]frame(nil), s.frames...)
	s.regs = append([]uint8(nil), s.regs...)
	s.reads = append([]iread(nil), s.reads...)
	return s
}

// stop returns the state of a thread that will never move again: only its
// status (and error point) matter from now on.
func stop(status uint8, err int) tstate { return tstate{status: status, err: err} }

// encode appends a canonical encoding of s.
func (s *tstate) encode(b []byte) []byte {
	b = append(b, s.status)
	switch s.status {
	case sFailed:
		return bin.AppendUvarint(b, uint64(s.err))
	case sRunning:
	default:
		return b
	}
	b = bin.AppendUvarint(b, uint64(len(s.frames)))
	for _, f := range s.frames {
		b = bin.AppendUvarint(b, uint64(f.blk))
		b = bin.AppendUvarint(b, uint64(f.i))
		b = bin.AppendVarint(b, int64(f.k))
	}
	b = append(b, s.regs...)
	b = bin.AppendUvarint(b, uint64(len(s.reads)))
	for _, r := range s.reads {
		b = bin.AppendUvarint(b, uint64(r.loc))
		b = append(b, r.val)
	}
	if s.mid {
		b = append(b, 1, s.midVal)
		b = bin.AppendUvarint(b, uint64(s.midLoc))
		b = bin.AppendVarint(b, int64(s.midQP))
	} else {
		b = append(b, 0)
	}
	return b
}

// config is a configuration of the program.
type config struct {
	mem   []uint8
	th    []tstate
	npend []uint8 // per thread t and node n, at t*len(nodes)+n: unpolled operations
}

func (c *config) clone() *config {
	d := &config{mem: append([]uint8(nil), c.mem...), th: append([]tstate(nil), c.th...),
		npend: append([]uint8(nil), c.npend...)}
	return d
}

func (c *config) encode(b []byte) []byte {
	b = append(b, c.mem...)
	b = append(b, c.npend...)
	for t := range c.th {
		b = c.th[t].encode(b)
	}
	return b
}

// advance moves s past the statement of its innermost frame.
func advance(s *tstate) {
	s.frames[len(s.frames)-1].i++
	s.reads = s.reads[:0]
}

// env returns the constants in scope for thread t in state s: the family's
// index and the variables of the enclosing for loops.
func (in *interp) env(t int, s *tstate) map[string]int {
	th := in.threads[t]
	env := th.env
	for _, f := range s.frames {
		if o := in.blkList[f.blk].owner; o != nil && o.Kind == syntax.StmtFor {
			if len(env) == len(th.env) {
				env = copyEnv(th.env)
			}
			env[o.Reg.Text] = f.k
		}
	}
	return env
}

// settle runs thread t from s through every step that touches no memory,
// and returns the states it can reach where it stops: at a memory step, or
// ended, failed, blocked, or spinning for ever (when it can loop without
// touching memory). Several when choose or loop choose.
func (in *interp) settle(t int, s tstate) ([]tstate, error) {
	var out []tstate
	seen := map[string]bool{}
	onPath := map[string]bool{}
	spin := false
	var key []byte
	var visit func(s tstate) error
	visit = func(s tstate) error {
		key = s.encode(key[:0])
		k := string(key)
		if onPath[k] {
			spin = true
			return nil
		}
		if seen[k] {
			return nil
		}
		seen[k] = true
		onPath[k] = true
		defer delete(onPath, k)
		next, settled, err := in.localStep(t, s)
		if err != nil {
			return err
		}
		if settled {
			out = append(out, s)
			return nil
		}
		for _, n := range next {
			if err := visit(n); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(s); err != nil {
		return nil, err
	}
	if spin {
		out = append(out, stop(sSpinning, 0))
	}
	return out, nil
}

// localStep takes one step of thread t from s that touches no memory and
// returns the states it leads to, or reports that s is settled: its next
// step touches memory, or it will never move again.
func (in *interp) localStep(t int, s tstate) ([]tstate, bool, error) {
	if s.status != sRunning || s.mid {
		return nil, true, nil
	}
	if len(s.frames) == 0 {
		return []tstate{stop(sEnded, 0)}, false, nil
	}
	top := s.frames[len(s.frames)-1]
	blk := in.blkList[top.blk]
	if top.i == len(blk.stmts) {
		return in.endBlock(t, s)
	}
	st := blk.stmts[top.i]
	switch st.Kind {
	case syntax.StmtSkip, syntax.StmtReg:
		n := s.clone()
		advance(&n)
		return []tstate{n}, false, nil
	case syntax.StmtBreak:
		n := s.clone()
		for len(n.frames) > 0 {
			o := in.blkList[n.frames[len(n.frames)-1].blk].owner
			n.frames = n.frames[:len(n.frames)-1]
			if o != nil && (o.Kind == syntax.StmtWhile || o.Kind == syntax.StmtFor || o.Kind == syntax.StmtLoop) {
				advance(&n)
				return []tstate{n}, false, nil
			}
		}
		return nil, false, in.staticError(st.Pos, "break outside a loop")
	case syntax.StmtCall:
		// A procedure's body (inlined in branches[0]), run as a block.
		n := s.clone()
		n.frames = append(n.frames, frame{blk: in.branchBlock(st, 0)})
		return []tstate{n}, false, nil
	case syntax.StmtChoose:
		var out []tstate
		for b := range st.Branches {
			n := s.clone()
			n.frames = append(n.frames, frame{blk: in.branchBlock(st, b)})
			out = append(out, n)
		}
		return out, false, nil
	case syntax.StmtLoop:
		enter := s.clone()
		enter.frames = append(enter.frames, frame{blk: in.branchBlock(st, 0)})
		exit := s.clone()
		advance(&exit)
		return []tstate{enter, exit}, false, nil
	case syntax.StmtFor:
		env := in.env(t, &s)
		lo, hi, err := in.forRange(st, env)
		if err != nil {
			return nil, false, err
		}
		n := s.clone()
		if lo > hi {
			advance(&n)
		} else {
			n.frames = append(n.frames, frame{blk: in.branchBlock(st, 0), k: lo})
		}
		return []tstate{n}, false, nil
	}
	// A statement that may read or write memory: evaluate it with what it
	// has read so far.
	a, err := in.exec(t, &s, st)
	if err != nil {
		return nil, false, err
	}
	n := s.clone()
	switch a.kind {
	case aMemory:
		return nil, true, nil
	case aFail:
		return []tstate{stop(sFailed, a.err)}, false, nil
	case aBlock:
		return []tstate{stop(sBlocked, 0)}, false, nil
	case aNext:
		advance(&n)
	case aReg:
		n.regs[a.reg] = uint8(a.val)
		advance(&n)
	case aBranch:
		switch {
		case st.Kind == syntax.StmtWhile && a.val != 0:
			n.reads = n.reads[:0]
			n.frames = append(n.frames, frame{blk: in.branchBlock(st, 0)})
		case st.Kind == syntax.StmtIf && a.val != 0:
			n.reads = n.reads[:0]
			n.frames = append(n.frames, frame{blk: in.branchBlock(st, 0)})
		case st.Kind == syntax.StmtIf && len(st.Branches) > 1:
			n.reads = n.reads[:0]
			n.frames = append(n.frames, frame{blk: in.branchBlock(st, 1)})
		default:
			advance(&n)
		}
	}
	return []tstate{n}, false, nil
}

// endBlock leaves the innermost block of s, which has run to its end: a
// while tests again, a loop may run again, a for goes on with its next
// value, the rest go on after their statement.
func (in *interp) endBlock(t int, s tstate) ([]tstate, bool, error) {
	n := s.clone()
	f := n.frames[len(n.frames)-1]
	n.frames = n.frames[:len(n.frames)-1]
	n.reads = n.reads[:0]
	o := in.blkList[f.blk].owner
	if o == nil {
		return []tstate{n}, false, nil // the thread's body: it ends
	}
	switch o.Kind {
	case syntax.StmtWhile:
		return []tstate{n}, false, nil // back at the test
	case syntax.StmtLoop:
		again := n.clone()
		again.frames = append(again.frames, frame{blk: f.blk})
		advance(&n)
		return []tstate{again, n}, false, nil
	case syntax.StmtFor:
		_, hi, err := in.forRange(o, in.env(t, &n))
		if err != nil {
			return nil, false, err
		}
		if f.k < hi {
			n.frames = append(n.frames, frame{blk: f.blk, k: f.k + 1})
			return []tstate{n}, false, nil
		}
	}
	advance(&n)
	return []tstate{n}, false, nil
}

// forRange evaluates the constant range of a for loop.
func (in *interp) forRange(s *syntax.Stmt, env map[string]int) (lo, hi int, err error) {
	lo, e1 := parse.EvalConst(s.RegLo, in.constants(env))
	if e1 != nil {
		return 0, 0, in.staticError(e1.Pos, "the range of for %s: %s", s.Reg.Text, e1.Msg)
	}
	hi, e2 := parse.EvalConst(s.RegHi, in.constants(env))
	if e2 != nil {
		return 0, 0, in.staticError(e2.Pos, "the range of for %s: %s", s.Reg.Text, e2.Msg)
	}
	return lo, hi, nil
}

// pollCaps bounds, per node, the polls thread th can make on the queue pair
// to it: the poll statements naming it, a for loop's counted once per
// iteration, a choose's branches all counted; -1 when one is in a while or
// loop. A poll whose node is computed at run time counts for every node.
func (in *interp) pollCaps(th *ithread, body []*syntax.Stmt) []int {
	caps := make([]int, len(in.lw.P.Nodes))
	var walk func(stmts []*syntax.Stmt, env map[string]int, looped bool)
	add := func(n int, looped bool) {
		if looped || caps[n] < 0 {
			caps[n] = -1
		} else {
			caps[n]++
		}
	}
	walk = func(stmts []*syntax.Stmt, env map[string]int, looped bool) {
		for _, s := range stmts {
			switch s.Kind {
			case syntax.StmtPoll:
				if n, ok := in.constNode(s.NodeE, env); ok {
					add(n, looped)
				} else {
					for n := range caps {
						add(n, looped)
					}
				}
			case syntax.StmtWhile, syntax.StmtLoop:
				walk(s.Branches[0], env, true)
			case syntax.StmtFor:
				lo, err1 := parse.EvalConst(s.RegLo, in.constants(env))
				hi, err2 := parse.EvalConst(s.RegHi, in.constants(env))
				if err1 != nil || err2 != nil {
					continue // the lowering rejects it; so does the interpreter when it runs it
				}
				for k := lo; k <= hi; k++ {
					inner := copyEnv(env)
					inner[s.Reg.Text] = k
					walk(s.Branches[0], inner, looped)
				}
			default:
				for _, br := range s.Branches {
					walk(br, env, looped)
				}
			}
		}
	}
	walk(body, th.env, false)
	return caps
}

// constNode resolves a node reference whose indices are constants.
func (in *interp) constNode(e *syntax.Expr, env map[string]int) (int, bool) {
	idx := make([]int, len(e.Idx))
	for i, x := range e.Idx {
		v, err := parse.EvalConst(x, in.constants(env))
		if err != nil {
			return 0, false
		}
		idx[i] = v
	}
	n, ok := in.lw.Nodes[parse.Indexed(e.Name.Text, idx...)]
	return n, ok
}
