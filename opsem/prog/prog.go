// Package prog is the program model of rdmasim: nodes, locations, threads and
// their statements, the query asked of a program and its expected verdicts.
//
// A Program is produced by the parser (package opsem/parse) already validated:
// every location is resolved to its node, every `:=` between a local and a
// remote location is decided to be a get or a put, every thread has its queue
// pairs numbered and its statements compiled to a small control-flow graph
// (Code) that the machines execute.
package prog

import "fmt"

// Limits of the model. They keep state encodings compact (one byte per value,
// location and label-table entry).
const (
	MaxValue   = 255 // values are 0..MaxValue
	MaxLocs    = 250 // locations in a program
	MaxThreads = 64  // threads in a program
	MaxNodes   = 64  // nodes in a program
	MaxCode    = 4000
	// MaxWords bounds the words of one multi-word put or get
	// (SEMANTICS-VERBS.md 1): the machines keep a group's size in a few
	// bits of a buffer entry, and each word is two events of the model.
	MaxWords = 4
)

// Pos is a position in a source file: 1-based line and byte column.
type Pos struct {
	Line, Col int
}

// String returns "line:col".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Node is a machine in the network; it owns locations and runs threads.
type Node struct {
	Name string
	Pos  Pos
}

// Loc is a memory location, owned by one node.
type Loc struct {
	Name string
	Node int   // index into Program.Nodes
	Init uint8 // initial value
	Pos  Pos
	// Check is the range a NIC write may take the location out of, which
	// every semantics checks (see Range); nil when there is none.
	Check *Range
	// Reg marks a run-time register of thread Owner: a location of the
	// thread's node that only that thread names and whose accesses make
	// no events (see OpLoad, OpEval, OpIf).
	Reg   bool
	Owner int
}

// StmtKind is the kind of a statement.
type StmtKind uint8

// Statement kinds.
const (
	SSkip   StmtKind = iota // skip
	SWrite                  // x := v
	SAssume                 // assume(x == v) / assume(x != v)
	SCAS                    // x := cas(z, a, b)
	SGet                    // x := y, y remote: remote read
	SPut                    // y := x, y remote: remote write
	SRFence                 // rfence(n)
	SPoll                   // poll(n)
	SChoose                 // choose { A } or { B } ...
	SLoop                   // loop { A }
	SFail                   // an error point of a lowered program (Text says which)
	SRCAS                   // x := rcas(y, a, b), y remote: remote compare-and-swap
	SRFAA                   // x := rfaa(y, d), y remote: remote fetch-and-add
	SQuiet                  // quiet: wait until every operation of the thread is complete and visible
)

// Stmt is one statement of a thread.
//
// Fields used by kind:
//   - SWrite: X, A (x := A)
//   - SAssume: X, A, Ne (assume(X == A), or != when Ne)
//   - SCAS: X, Z, A, B (X := cas(Z, A, B))
//   - SGet: X local, Y remote (X := Y); Remote = node of Y
//   - SPut: Y remote, X local (Y := X); Remote = node of Y
//   - SRCAS: X local, Y remote, A expected, B new (X := rcas(Y, A, B)); Remote = node of Y
//   - SRFAA: X local, Y remote, A the addend (X := rfaa(Y, A)); Remote = node of Y
//   - SRFence, SPoll: Remote
//   - SChoose: Branches (two or more); SLoop: Branches[0] is the body
type Stmt struct {
	Kind     StmtKind
	Label    string // "" when unlabelled
	Pos      Pos
	X, Y, Z  int
	A, B     uint8
	Ne       bool
	Remote   int
	Branches [][]*Stmt

	// Src is, in a lowered program, the protocol-language statement this
	// one was compiled from, in the user's words; nil in a core program.
	Src *Source

	// Fenced marks a put, get or remote atomic with the fence flag
	// (`y := x fenced`; SEMANTICS-VERBS.md 4).
	Fenced bool

	// Inline marks a put whose source is copied when it is posted
	// (`y := x inline`, IBV_SEND_INLINE; SEMANTICS-VERBS.md 5).
	Inline bool

	// Words is the number of consecutive words a put or a get moves as one
	// work request (SEMANTICS-VERBS.md 1): X..X+Words-1 and Y..Y+Words-1,
	// locations of one node each, numbered consecutively. 0 or 1 is the
	// seed's one-word operation.
	Words int

	// Unsignaled marks a put, get or remote atomic posted without a
	// completion entry (`y := x unsignaled`; SEMANTICS-VERBS.md 2).
	Unsignaled bool
}

// Source is a statement of the protocol language as the user wrote it, and
// the registers a lowered instruction was specialised for.
type Source struct {
	Text string // the statement (for an error point: what failed)
	Regs string // the thread's registers at this instruction, "r=1 s=0"; "" without registers
}

// Thread is a sequential process running on a node.
type Thread struct {
	Name string
	Node int
	Body []*Stmt
	Pos  Pos

	// Lowered marks a thread compiled from the protocol language: it has no
	// Body, and Code, Entry, Loops and Labels come from the lowering.
	Lowered bool

	// Compiled form, filled by Compile.
	Code   []Instr // Code[len(Code)-1] is the OpEnd instruction
	Entry  int     // first instruction
	Loops  int     // number of loop statements (each has a counter under --unroll)
	Labels []Label // statement labels and the instructions they name
	QPs    []int   // QPs[n] = queue-pair index (into Program.QPs) towards node n, or -1
}

// Label names the instruction a labelled statement starts with.
type Label struct {
	Name string
	PC   int
}

// LabelPC returns the first instruction labelled name, or -1.
func (t *Thread) LabelPC(name string) int {
	for _, l := range t.Labels {
		if l.Name == name {
			return l.PC
		}
	}
	return -1
}

// LabelPCs returns every instruction labelled name: one in a core program,
// one per register valuation the statement is reached with in a lowered one.
func (t *Thread) LabelPCs(name string) []int {
	var pcs []int
	for _, l := range t.Labels {
		if l.Name == name {
			pcs = append(pcs, l.PC)
		}
	}
	return pcs
}

// End returns the index of the thread's OpEnd instruction.
func (t *Thread) End() int { return len(t.Code) - 1 }

// QP is a queue pair: the connection of one thread to one remote node.
type QP struct {
	Thread int
	Remote int
	Local  int // index among the thread's queue pairs, in order of first use
}

// QueryKind is the quantifier of a query.
type QueryKind uint8

// Query kinds.
const (
	QNone      QueryKind = iota // no query
	QExists                     // exists COND over final configurations
	QNotExists                  // ~exists COND
	QForall                     // forall COND
	QReach                      // reach COND over all configurations
)

// String returns the keyword of the query kind.
func (k QueryKind) String() string {
	switch k {
	case QExists:
		return "exists"
	case QNotExists:
		return "~exists"
	case QForall:
		return "forall"
	case QReach:
		return "reach"
	}
	return "none"
}

// Query is the question asked of a program.
type Query struct {
	Kind QueryKind
	Cond *Cond
	Pos  Pos
}

// Final reports whether the query looks at final configurations only.
func (q Query) Final() bool { return q.Kind != QReach }

// Semantics names a semantics in an expect line.
type Semantics uint8

// Semantics of expect lines.
const (
	RDMA Semantics = iota
	SC
	Robust
)

// String returns the keyword of the semantics.
func (s Semantics) String() string {
	switch s {
	case RDMA:
		return "rdma"
	case SC:
		return "sc"
	}
	return "robust"
}

// Expect is an expected verdict: for RDMA and SC, whether some configuration
// of the queried kind satisfies the condition (Yes = allowed); for Robust,
// whether the program is robust (Yes = yes).
type Expect struct {
	Sem Semantics
	Yes bool
	Pos Pos
}

// Word returns the verdict word as written in the file.
func (e Expect) Word() string {
	switch {
	case e.Sem == Robust && e.Yes:
		return "yes"
	case e.Sem == Robust:
		return "no"
	case e.Yes:
		return "allowed"
	}
	return "forbidden"
}

// Program is a validated, compiled RDMA program with its query.
type Program struct {
	File    string // the file it was read from, for messages
	Name    string
	Doc     string
	Nodes   []Node
	Locs    []Loc
	Threads []Thread
	QPs     []QP
	Query   Query
	Expects []Expect
	// InOrder: the file says `placement in-order` (SEMANTICS-VERBS.md 1):
	// the words of its multi-word puts and gets are placed in address
	// order, whatever the placement the search is given (the machines and
	// the model take in-order when either says so).
	InOrder bool

	// Families are the families of threads of a lowered program (thread
	// client[k] on m[k] for k in lo..hi), as declared: candidates for
	// symmetry reduction, which FindSymmetry verifies on the program
	// itself. Nil for a core program.
	Families []Family
}

// Family is a declared family of threads.
type Family struct {
	Name    string // the declaration's name: client
	Threads []int  // the members' threads, in index order
	Index   []int  // each member's family index (k)
}

// LocIndex returns the index of the location called name, or -1.
func (p *Program) LocIndex(name string) int {
	for i := range p.Locs {
		if p.Locs[i].Name == name {
			return i
		}
	}
	return -1
}

// NodeIndex returns the index of the node called name, or -1.
func (p *Program) NodeIndex(name string) int {
	for i := range p.Nodes {
		if p.Nodes[i].Name == name {
			return i
		}
	}
	return -1
}

// ThreadIndex returns the index of the thread called name, or -1.
func (p *Program) ThreadIndex(name string) int {
	for i := range p.Threads {
		if p.Threads[i].Name == name {
			return i
		}
	}
	return -1
}

// Expectation returns the expect line for s, if any.
func (p *Program) Expectation(s Semantics) (Expect, bool) {
	for _, e := range p.Expects {
		if e.Sem == s {
			return e, true
		}
	}
	return Expect{}, false
}
