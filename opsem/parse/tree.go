package parse

import "rdmasim/opsem/prog"

// The syntax tree of a file: what the parser reads, with names unresolved.

type rawFile struct {
	name, doc *token
	params    []*rawParam
	procs     []*rawProc
	nodes     []*rawNode
	threads   []*rawThread
	query     *rawQuery
	expects   []*rawExpect
	end       prog.Pos // where the file ends
}

type rawNode struct {
	name   token
	family *rawFamily // node m[i] for i in lo..hi
	locs   []rawLocDecl
}

// rawFamily is `[i] ... for i in lo..hi`: a declaration made once per value
// of i.
type rawFamily struct {
	index  token
	lo, hi *rawExpr
}

type rawLocDecl struct {
	name   token
	val    *token   // a number initial value (core)
	init   *rawExpr // any initial value (protocol language)
	size   *rawExpr // an array: name[size]
	lo, hi *rawExpr // a declared range: name : lo..hi
}

// rawProc is `proc name(a, b) { body }`: a procedure, inlined at its calls
// with its parameters replaced by the call's arguments.
type rawProc struct {
	name   token
	params []token
	body   []*rawStmt
}

// rawParam is `param N = expr`.
type rawParam struct {
	name token
	val  *rawExpr
}

type rawThread struct {
	name, node token
	nodeE      *rawExpr   // the node, with indices in a family (on m[i])
	family     *rawFamily // thread t[i] on m[i] for i in lo..hi
	body       []*rawStmt
}

type stmtKind uint8

const (
	rSkip stmtKind = iota
	rAssignValue
	rAssignLoc
	rAssignCAS
	rAssignAtomic // x := rcas(y, a, b) or x := rfaa(y, d), all simple
	rAssume
	rRFence
	rPoll
	rChoose
	rLoop
	// The protocol language's statements.
	rAssign // lhsE := rhsE, or lhsE := cas(casZ, casA, casB) when casZ != nil
	rAssumeE
	rAssert
	rReg
	rIf
	rWhile
	rFor
	rBreak
	rCall // lhs(args): a call of a procedure
)

type rawStmt struct {
	kind     stmtKind
	pos      prog.Pos
	label    *token
	lhs, rhs token // assignments (rhs: value or location); assume: lhs = location, rhs = value
	ne       bool  // assume(x != v)
	z, a, b  token // cas(z, a, b)
	node     token // rfence, poll
	branches [][]*rawStmt

	// The protocol language's: expressions where the core has tokens.
	lhsE, rhsE            *rawExpr   // rAssign
	casZ, casA, casB      *rawExpr   // rAssign of a cas, rcas (casZ remote) or rfaa (casB nil)
	atomic                string     // "rcas" or "rfaa" for a remote atomic, else ""
	cond                  *rawExpr   // rAssumeE, rAssert, rIf, rWhile
	nodeE                 *rawExpr   // rfence, poll of a family member: poll(m[i])
	args                  []*rawExpr // rCall
	reg                   token      // rReg: the register; rFor: the variable
	regLo, regHi, regInit *rawExpr   // rReg: range and initial value; rFor: lo and hi
}

type rawQuery struct {
	kind prog.QueryKind
	pos  prog.Pos
	cond *rawCond
}

type rawCond struct {
	op     prog.CondOp
	pos    prog.Pos
	loc    token
	locIdx []*rawExpr // loc's indices: buf[1] = 2
	val    token
	thread token
	thrIdx []*rawExpr // thread's indices: client[0]@end
	valE   *rawExpr   // a value written as a constant expression: slot[0] = N
	label  token
	l, r   *rawCond
	height int // of the tree: 1 for an atom
}

// node makes the condition node op(l, r) at pos, reporting a tree deeper
// than maxDepth.
func (p *parser) node(op prog.CondOp, pos prog.Pos, l, r *rawCond) *rawCond {
	c := &rawCond{op: op, pos: pos, l: l, r: r, height: l.height + 1}
	if r != nil && r.height >= l.height {
		c.height = r.height + 1
	}
	if c.height > maxDepth {
		p.errorf(pos, "condition nested too deeply (the limit is %d levels)", maxDepth)
	}
	return c
}

type rawExpect struct {
	pos  prog.Pos
	sem  token
	word token
}

// isSurface reports whether f uses the protocol language. A file that does
// not is read exactly as the core format has always been read (its threads
// keep their statement trees).
func (f *rawFile) isSurface() bool {
	if len(f.params) > 0 {
		return true
	}
	for _, n := range f.nodes {
		if n.family != nil {
			return true
		}
		for _, d := range n.locs {
			if d.size != nil || d.lo != nil || d.init != nil && d.val == nil {
				return true
			}
		}
	}
	for _, t := range f.threads {
		if t.family != nil || len(t.nodeE.idx) > 0 || stmtsSurface(t.body) {
			return true
		}
	}
	if f.query != nil && condSurface(f.query.cond) {
		return true
	}
	return false
}

func stmtsSurface(ss []*rawStmt) bool {
	for _, s := range ss {
		if s.kind >= rAssign || s.nodeE != nil && len(s.nodeE.idx) > 0 || stmtsSurfaceAll(s.branches) {
			return true
		}
	}
	return false
}

func stmtsSurfaceAll(bs [][]*rawStmt) bool {
	for _, b := range bs {
		if stmtsSurface(b) {
			return true
		}
	}
	return false
}

func condSurface(c *rawCond) bool {
	if c == nil {
		return false
	}
	return len(c.locIdx) > 0 || c.valE != nil || condSurface(c.l) || condSurface(c.r)
}
