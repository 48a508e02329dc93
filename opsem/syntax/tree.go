package syntax

import "rdmasim/opsem/prog"

// The syntax tree of a file: what the parser reads, with names unresolved.
// The tree follows the text: a core file (FORMAT.md) and a file in the
// protocol language (docs/PROTOCOLS.md) share it, the latter filling the
// fields that hold expressions where the core has tokens. Every node keeps
// the position of its first token, so that the passes after the parser
// (the resolver, the lowering, an interpreter) report file:line:col errors.

// File is a whole .rdma file: its `litmus` header (Name, and Doc, its
// quoted description), its declarations in the order written, and the
// query and expect lines that end it.
type File struct {
	Name, Doc *Token
	Params    []*Param
	Procs     []*Proc
	Nodes     []*Node
	Threads   []*Thread
	Query     *Query
	Expects   []*Expect
	// Registers is the word of `registers runtime` (or static, auto):
	// where the lowering keeps the threads' registers; nil when the file
	// does not say.
	Registers *Token
	// Placement is the word of `placement in-order` (or any): the order
	// in which the words of a multi-word put or get reach memory on the
	// hardware the file describes (SEMANTICS-VERBS.md 1); nil when the
	// file does not say.
	Placement *Token
	End       prog.Pos // where the file ends
}

// Node is `node name { locations }`, or a family of nodes when Family is
// set.
type Node struct {
	Name   Token
	Family *Family // node m[i] for i in lo..hi
	Locs   []LocDecl
}

// Family is `[i] ... for i in lo..hi`: a declaration made once per value
// of i.
type Family struct {
	Index  Token
	Lo, Hi *Expr
}

// LocDecl is one location of a node: `x`, `x = 1`, `buf[N]`, `x : 0..2 = 0`.
type LocDecl struct {
	Name   Token
	Val    *Token // a number initial value (core)
	Init   *Expr  // any initial value (protocol language)
	Size   *Expr  // an array: name[size]
	Lo, Hi *Expr  // a declared range: name : lo..hi
}

// Proc is `proc name(a, b) { body }`: a procedure, inlined at its calls
// with its parameters replaced by the call's arguments.
type Proc struct {
	Name   Token
	Params []Token
	Body   []*Stmt
}

// Param is `param N = expr`.
type Param struct {
	Name Token
	Val  *Expr
}

// Thread is `thread name on node { body }`, or a family of threads when
// Family is set.
type Thread struct {
	Name, Node Token
	NodeE      *Expr   // the node, with indices in a family (on m[i])
	Family     *Family // thread t[i] on m[i] for i in lo..hi
	Body       []*Stmt
}

// StmtKind says which statement a Stmt is, and so which of its fields are
// set. The first kinds are the core format's, each with simple operands
// (tokens); from StmtAssign on they are the protocol language's, with
// expressions.
type StmtKind uint8

const (
	StmtSkip StmtKind = iota
	StmtAssignValue
	StmtAssignLoc
	StmtAssignCAS
	StmtAssignAtomic // x := rcas(y, a, b) or x := rfaa(y, d), all simple
	StmtAssume
	StmtRFence
	StmtPoll
	StmtChoose
	StmtLoop
	StmtQuiet // quiet: no operands
	// The protocol language's statements.
	StmtAssign // LhsE := RhsE, or LhsE := cas(CasZ, CasA, CasB) when CasZ != nil
	StmtAssumeE
	StmtAssert
	StmtReg
	StmtIf
	StmtWhile
	StmtFor
	StmtBreak
	StmtCall // Lhs(Args): a call of a procedure
)

// Stmt is one statement, labelled when Label is set. Kind says which
// fields hold its operands; Branches are the blocks of a choose, a loop, an
// if (then and else), a while or a for.
type Stmt struct {
	Kind     StmtKind
	Pos      prog.Pos
	Label    *Token
	Lhs, Rhs Token // assignments (Rhs: value or location); assume: Lhs = location, Rhs = value
	Ne       bool  // assume(x != v)
	Z, A, B  Token // cas(z, a, b)
	Node     Token // rfence, poll
	Branches [][]*Stmt
	// Fenced: an assignment marked `fenced` (the fence flag of a put, get
	// or remote atomic); FencedPos is where the mark is.
	Fenced    bool
	FencedPos prog.Pos
	// Unsignaled: an assignment marked `unsignaled` (a put, get or
	// remote atomic posted without a completion entry); UnsignaledPos is
	// where the mark is.
	Unsignaled    bool
	UnsignaledPos prog.Pos
	// Inline: an assignment marked `inline` (IBV_SEND_INLINE: a put whose
	// source is copied when it is posted); InlinePos is where the mark is.
	Inline    bool
	InlinePos prog.Pos
	// LhsHi, RhsHi: a multi-word put or get `y[lo..hi] := x[lo..hi]`
	// (SEMANTICS-VERBS.md 1): LhsE and RhsE name the first words (their
	// last index is lo), LhsHi and RhsHi the last index of each side.
	LhsHi, RhsHi *Expr
	// LhsWords, RhsWords: the core format's multi-word put or get
	// `(y0, y1) := (x0, x1)`, a StmtAssignLoc whose Lhs and Rhs are the
	// first words (the locations of each side consecutive on one node).
	LhsWords, RhsWords []Token

	// The protocol language's: expressions where the core has tokens.
	LhsE, RhsE            *Expr   // StmtAssign
	CasZ, CasA, CasB      *Expr   // StmtAssign of a cas, rcas (CasZ remote) or rfaa (CasB nil)
	Atomic                string  // "rcas" or "rfaa" for a remote atomic, else ""
	Cond                  *Expr   // StmtAssumeE, StmtAssert, StmtIf, StmtWhile
	NodeE                 *Expr   // rfence, poll of a family member: poll(m[i])
	Args                  []*Expr // StmtCall
	Reg                   Token   // StmtReg: the register; StmtFor: the variable
	RegLo, RegHi, RegInit *Expr   // StmtReg: range and initial value; StmtFor: lo and hi
}

// Query is the file's final condition: `exists`, `~exists` or `forall`
// (Kind), or a reach query, over the condition Cond.
type Query struct {
	Kind prog.QueryKind
	Pos  prog.Pos
	Cond *Cond
}

// Cond is a condition of a query: an atom (a location's value, a thread at
// a label or at its end) when Op says so, else an operator over L and R.
// Height is the tree's, checked against MaxDepth as the parser builds it.
type Cond struct {
	Op     prog.CondOp
	Pos    prog.Pos
	Loc    Token
	LocIdx []*Expr // loc's indices: buf[1] = 2
	Val    Token
	Thread Token
	ThrIdx []*Expr // thread's indices: client[0]@end
	ValE   *Expr   // a value written as a constant expression: slot[0] = N
	Label  Token
	L, R   *Cond
	Height int // of the tree: 1 for an atom
}

// node makes the condition node op(l, r) at pos, reporting a tree deeper
// than MaxDepth.
func (p *parser) node(op prog.CondOp, pos prog.Pos, l, r *Cond) *Cond {
	c := &Cond{Op: op, Pos: pos, L: l, R: r, Height: l.Height + 1}
	if r != nil && r.Height >= l.Height {
		c.Height = r.Height + 1
	}
	if c.Height > MaxDepth {
		p.errorf(pos, "condition nested too deeply (the limit is %d levels)", MaxDepth)
	}
	return c
}

// Expect is an `expect` line: the semantics Sem and the answer Word expected
// of the query.
type Expect struct {
	Pos  prog.Pos
	Sem  Token
	Word Token
}

// IsSurface reports whether f uses the protocol language. A file that does
// not is read exactly as the core format has always been read (its threads
// keep their statement trees).
func (f *File) IsSurface() bool {
	if len(f.Params) > 0 {
		return true
	}
	for _, n := range f.Nodes {
		if n.Family != nil {
			return true
		}
		for _, d := range n.Locs {
			if d.Size != nil || d.Lo != nil || d.Init != nil && d.Val == nil {
				return true
			}
		}
	}
	for _, t := range f.Threads {
		if t.Family != nil || len(t.NodeE.Idx) > 0 || stmtsSurface(t.Body) {
			return true
		}
	}
	if f.Query != nil && condSurface(f.Query.Cond) {
		return true
	}
	return false
}

func stmtsSurface(ss []*Stmt) bool {
	for _, s := range ss {
		if s.Kind >= StmtAssign || s.NodeE != nil && len(s.NodeE.Idx) > 0 || stmtsSurfaceAll(s.Branches) {
			return true
		}
	}
	return false
}

func stmtsSurfaceAll(bs [][]*Stmt) bool {
	for _, b := range bs {
		if stmtsSurface(b) {
			return true
		}
	}
	return false
}

func condSurface(c *Cond) bool {
	if c == nil {
		return false
	}
	return len(c.LocIdx) > 0 || c.ValE != nil || condSurface(c.L) || condSurface(c.R)
}
