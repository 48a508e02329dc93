// Package parse reads programs in the .rdma litmus format (see
// shared/spec/FORMAT.md) into validated, compiled prog.Programs.
//
// Parsing runs in two passes: a recursive-descent parser builds a syntax tree
// that still names things, then a resolver looks the names up, decides
// which assignments are gets and which are puts, and checks every rule of the
// format. Every error is reported as file:line:col: message, and no input
// makes the parser panic.
package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"rdmasim/opsem/prog"
)

// File reads and parses the .rdma file at path.
func File(path string) (*prog.Program, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading program: %w", err)
	}
	return Parse(path, src)
}

// Parse parses src, naming it filename in messages. The program's name
// defaults to the file name without extension. On failure the error is an
// ErrorList.
func Parse(filename string, src []byte) (*prog.Program, error) {
	p := &parser{s: newScanner(src), file: filename}
	p.next()
	f := p.parseFile()
	if p.errs == nil {
		r := resolver{file: filename}
		prg := r.resolve(f)
		if r.errs == nil {
			if prg.Name == "" {
				base := filepath.Base(filename)
				prg.Name = strings.TrimSuffix(base, filepath.Ext(base))
			}
			if err := prog.Compile(prg); err != nil {
				r.errorf(prog.Pos{Line: 1, Col: 1}, "%v", err)
			}
		}
		if r.errs != nil {
			r.errs.sort()
			return nil, r.errs
		}
		return prg, nil
	}
	return nil, p.errs
}

// Syntax tree, with names unresolved.

type rawFile struct {
	name, doc *token
	nodes     []*rawNode
	threads   []*rawThread
	query     *rawQuery
	expects   []*rawExpect
	end       prog.Pos // where the file ends
}

type rawNode struct {
	name token
	locs []rawLocDecl
}

type rawLocDecl struct {
	name token
	val  *token
}

type rawThread struct {
	name, node token
	body       []*rawStmt
}

type stmtKind uint8

const (
	rSkip stmtKind = iota
	rAssignValue
	rAssignLoc
	rAssignCAS
	rAssume
	rRFence
	rPoll
	rChoose
	rLoop
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
	val    token
	thread token
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

// parser is a recursive-descent parser over the scanner's tokens. After the
// first error every token reads as end of file, so that all loops end.
type parser struct {
	s      scanner
	file   string
	tok    token
	parens int // open parentheses in a condition: newlines are blanks there
	depth  int // nesting of blocks, or of '(' and '~' in a condition
	errs   ErrorList
}

// maxDepth bounds the nesting of blocks and of conditions (both the '(' and
// '~' written and the height of the condition's tree), so that no input can
// overflow the stack of the recursive parser, resolver, compiler or printer.
// The printer never nests deeper than the tree, so whatever parses prints to
// text that parses again.
const maxDepth = 1000

func (p *parser) next() {
	for {
		if p.errs != nil {
			p.tok = token{kind: tEOF, pos: p.tok.pos}
			return
		}
		p.tok = p.s.next()
		if p.tok.kind == tIllegal && p.s.err != nil {
			e := *p.s.err
			e.File = p.file
			p.errs = append(p.errs, &e)
			p.tok = token{kind: tEOF, pos: p.tok.pos}
			return
		}
		if p.parens == 0 || p.tok.kind != tNewline {
			return
		}
	}
}

// peek returns the token after the current one, without consuming anything
// (and without reporting a lexical error: the parser meets it when it gets
// there).
func (p *parser) peek() token {
	s := p.s
	return s.next()
}

// enter counts one more level of nesting at pos; it reports false (and an
// error) past maxDepth. Every successful enter is matched by p.depth--.
func (p *parser) enter(pos prog.Pos, what string) bool {
	if p.depth >= maxDepth {
		p.errorf(pos, "%s nested too deeply (the limit is %d levels)", what, maxDepth)
		return false
	}
	p.depth++
	return true
}

func (p *parser) errorf(pos prog.Pos, format string, args ...any) {
	if p.errs != nil {
		return
	}
	p.errs = append(p.errs, &Error{File: p.file, Pos: pos, Msg: fmt.Sprintf(format, args...)})
	p.tok = token{kind: tEOF, pos: pos}
}

func (p *parser) failed() bool { return p.errs != nil }

// expect consumes a token of kind k, or reports what was expected.
func (p *parser) expect(k tok, what string) token {
	t := p.tok
	if t.kind != k {
		p.errorf(t.pos, "expected %s, found %s", what, t.describe())
		return t
	}
	p.next()
	return t
}

func (p *parser) isKeyword(kw string) bool { return p.tok.kind == tKeyword && p.tok.text == kw }

// name consumes an identifier; a keyword in its place gets a precise message.
func (p *parser) name(what string) token {
	t := p.tok
	switch t.kind {
	case tIdent:
		p.next()
		return t
	case tKeyword:
		p.errorf(t.pos, "%q is a keyword and cannot be used as %s", t.text, what)
	default:
		p.errorf(t.pos, "expected %s, found %s", what, t.describe())
	}
	return t
}

func (p *parser) skipSeparators() {
	for p.tok.kind == tNewline || p.tok.kind == tSemi {
		p.next()
	}
}

// endOfDecl requires a declaration to end at a newline, ';' or end of file.
func (p *parser) endOfDecl(what string) {
	switch p.tok.kind {
	case tNewline, tSemi, tEOF:
		return
	}
	p.errorf(p.tok.pos, "expected end of line or ';' after %s, found %s", what, p.tok.describe())
}

func (p *parser) parseFile() *rawFile {
	f := &rawFile{}
	for p.skipSeparators(); p.tok.kind != tEOF; p.skipSeparators() {
		t := p.tok
		switch {
		case t.kind == tKeyword && t.text == "litmus":
			if f.name != nil {
				p.errorf(t.pos, "litmus name given twice (first at %s)", f.name.pos)
				break
			}
			p.s.rawWord = true
			p.next()
			if p.tok.kind != tWord {
				p.errorf(p.tok.pos, "expected the test's name after litmus, found %s", p.tok.describe())
				break
			}
			w := p.tok
			f.name = &w
			p.next()
			p.endOfDecl("the litmus name")
		case t.kind == tString:
			if f.doc != nil {
				p.errorf(t.pos, "doc string given twice (first at %s); a file has one", f.doc.pos)
				break
			}
			f.doc = &t
			p.next()
			p.endOfDecl("the doc string")
		case t.kind == tKeyword && t.text == "node":
			n := p.parseNode()
			f.nodes = append(f.nodes, n)
			p.endOfDecl("the declaration of node " + n.name.text)
		case t.kind == tKeyword && t.text == "thread":
			th := p.parseThread()
			f.threads = append(f.threads, th)
			p.endOfDecl("the declaration of thread " + th.name.text)
		case t.kind == tKeyword && (t.text == "exists" || t.text == "forall" || t.text == "reach"), t.kind == tTilde:
			q := p.parseQuery()
			if f.query != nil && !p.failed() {
				p.errorf(q.pos, "a file has at most one query; the first is at %s", f.query.pos)
				break
			}
			f.query = q
		case t.kind == tKeyword && t.text == "expect":
			f.expects = append(f.expects, p.parseExpect())
		default:
			p.errorf(t.pos, "expected node, thread, a query (exists, ~exists, forall, reach) or expect, found %s", t.describe())
		}
	}
	f.end = p.tok.pos
	return f
}

func (p *parser) parseNode() *rawNode {
	p.next() // node
	n := &rawNode{name: p.name("a node name")}
	open := p.expect(tLBrace, "'{' after the node name")
	for p.skipSeparators(); p.tok.kind != tRBrace && !p.failed(); p.skipSeparators() {
		if p.tok.kind == tEOF {
			p.unclosed(open)
			break
		}
		d := rawLocDecl{name: p.name("a location name")}
		if p.tok.kind == tEq {
			p.next()
			v := p.expect(tInt, "an initial value (0..255)")
			d.val = &v
		} else if p.tok.kind == tAssign {
			p.errorf(p.tok.pos, "expected '=' after location %s, found ':=' (initial values are written %s = v)", d.name.text, d.name.text)
		}
		n.locs = append(n.locs, d)
		switch p.tok.kind {
		case tRBrace, tSemi, tNewline:
		case tEOF:
			p.unclosed(open)
		default:
			p.errorf(p.tok.pos, "expected ';', newline or '}' after location %s, found %s", d.name.text, p.tok.describe())
		}
	}
	p.expect(tRBrace, "'}'")
	return n
}

// unclosed reports end of file inside the braces opened by open.
func (p *parser) unclosed(open token) {
	p.errorf(p.tok.pos, "expected '}' to close the '{' at %s, found end of file", open.pos)
}

func (p *parser) parseThread() *rawThread {
	p.next() // thread
	t := &rawThread{name: p.name("a thread name")}
	if !p.isKeyword("on") {
		p.errorf(p.tok.pos, "expected on after the thread name (thread %s on N { ... }), found %s", t.name.text, p.tok.describe())
	}
	p.next()
	t.node = p.name("a node name")
	t.body = p.parseBlock()
	return t
}

// parseBlock parses `{ stmts }`.
func (p *parser) parseBlock() []*rawStmt {
	if p.tok.kind == tNewline {
		p.errorf(p.tok.pos, "expected '{' on the same line, found newline")
	}
	open := p.expect(tLBrace, "'{'")
	if p.failed() || !p.enter(open.pos, "blocks") {
		return nil
	}
	defer func() { p.depth-- }()
	var stmts []*rawStmt
	for p.skipSeparators(); p.tok.kind != tRBrace && !p.failed(); p.skipSeparators() {
		if p.tok.kind == tEOF {
			p.unclosed(open)
			break
		}
		stmts = append(stmts, p.parseStmt())
		switch p.tok.kind {
		case tNewline, tSemi, tRBrace:
		case tEOF:
			p.unclosed(open)
		default:
			p.errorf(p.tok.pos, "expected ';', newline or '}' after a statement, found %s", p.tok.describe())
		}
	}
	p.expect(tRBrace, "'}'")
	return stmts
}

func (p *parser) parseStmt() *rawStmt {
	var label *token
	if p.tok.kind == tIdent && p.peek().kind == tColon {
		l := p.tok
		label = &l
		p.next()
		p.next()
		for p.tok.kind == tNewline {
			p.next()
		}
		switch {
		case p.tok.kind == tRBrace || p.tok.kind == tSemi || p.tok.kind == tEOF:
			p.errorf(p.tok.pos, "expected a statement after label %s, found %s (to label the end of a block, write %s: skip)", l.text, p.tok.describe(), l.text)
			return &rawStmt{pos: l.pos}
		case p.tok.kind == tIdent && p.peek().kind == tColon:
			p.errorf(p.tok.pos, "second label %s on a statement labelled %s: a statement has at most one label", p.tok.text, l.text)
			return &rawStmt{pos: l.pos}
		}
	}
	s := &rawStmt{pos: p.tok.pos, label: label}
	t := p.tok
	if t.kind == tKeyword {
		switch p.peek().kind {
		case tAssign:
			p.errorf(t.pos, "%q is a keyword and cannot be used as a location name", t.text)
			return s
		case tColon:
			p.errorf(t.pos, "%q is a keyword and cannot be used as a label", t.text)
			return s
		}
	}
	switch {
	case t.kind == tKeyword && t.text == "skip":
		s.kind = rSkip
		p.next()
	case t.kind == tKeyword && t.text == "assume":
		s.kind = rAssume
		p.next()
		p.expect(tLParen, "'(' after assume")
		s.lhs = p.name("a location")
		switch p.tok.kind {
		case tEqEq:
		case tNe:
			s.ne = true
		case tEq:
			p.errorf(p.tok.pos, "assume compares with '==' or '!=', not '='")
		default:
			p.errorf(p.tok.pos, "expected '==' or '!=' in assume, found %s", p.tok.describe())
		}
		p.next()
		s.rhs = p.expect(tInt, "a value")
		p.expect(tRParen, "')'")
	case t.kind == tKeyword && (t.text == "rfence" || t.text == "poll"):
		s.kind = rRFence
		if t.text == "poll" {
			s.kind = rPoll
		}
		p.next()
		p.expect(tLParen, "'(' after "+t.text)
		s.node = p.name("a node name")
		p.expect(tRParen, "')'")
	case t.kind == tKeyword && t.text == "choose":
		s.kind = rChoose
		p.next()
		s.branches = append(s.branches, p.parseBlock())
		for !p.failed() {
			// `or` may start the next line.
			save, tok := p.s, p.tok
			for p.tok.kind == tNewline {
				p.next()
			}
			if !p.isKeyword("or") {
				p.s, p.tok = save, tok
				break
			}
			p.next()
			s.branches = append(s.branches, p.parseBlock())
		}
		if len(s.branches) < 2 && !p.failed() {
			p.errorf(t.pos, "choose needs at least two branches: choose { A } or { B }")
		}
	case t.kind == tKeyword && t.text == "loop":
		s.kind = rLoop
		p.next()
		s.branches = [][]*rawStmt{p.parseBlock()}
	case t.kind == tIdent:
		s.lhs = t
		p.next()
		if p.tok.kind == tEq {
			p.errorf(p.tok.pos, "expected ':=' in an assignment, found '=' (write %s := ...)", t.text)
			return s
		}
		if p.tok.kind != tAssign {
			p.unknownStatement(t)
			return s
		}
		p.next()
		switch {
		case p.tok.kind == tInt:
			s.kind = rAssignValue
			s.rhs = p.tok
			p.next()
		case p.tok.kind == tIdent:
			s.kind = rAssignLoc
			s.rhs = p.tok
			p.next()
		case p.isKeyword("cas"):
			s.kind = rAssignCAS
			p.next()
			p.expect(tLParen, "'(' after cas")
			s.z = p.name("a location")
			p.expect(tComma, "',' in cas(z, expected, new)")
			s.a = p.expect(tInt, "the expected value of cas")
			p.expect(tComma, "',' in cas(z, expected, new)")
			s.b = p.expect(tInt, "the new value of cas")
			p.expect(tRParen, "')'")
		default:
			p.errorf(p.tok.pos, "expected a value, a location or cas(z, a, b) after ':=', found %s", p.tok.describe())
		}
	case t.kind == tKeyword && t.text == "cas":
		p.errorf(t.pos, "cas is not a statement: its old value goes to a location of the thread's node (x := cas(z, a, b))")
	case t.kind == tKeyword:
		p.errorf(t.pos, "expected a statement, found keyword %q", t.text)
	default:
		p.errorf(t.pos, "expected a statement, found %s", t.describe())
	}
	return s
}

// unknownStatement reports name t, at the start of a statement but not
// followed by ':=' (the current token): no statement starts so. When a
// statement is near it (statementHint), the message names it, with the
// node written in parentheses after t if any: flush(B) gets "did you mean
// rfence(B) or poll(B)?".
func (p *parser) unknownStatement(t token) {
	arg := ""
	if p.tok.kind == tLParen {
		if next := p.peek(); next.kind == tIdent {
			arg = next.text
		}
	}
	if hint := statementHint(t.text, arg); hint != "" {
		p.errorf(t.pos, "unknown statement %s; %s", t.text, hint)
		return
	}
	if p.tok.kind == tLParen {
		p.errorf(t.pos, "unknown statement %s (statements are skip, assignments x := ..., assume, rfence, poll, choose and loop)", t.text)
		return
	}
	p.errorf(p.tok.pos, "expected ':=' after %s, found %s", t.text, p.tok.describe())
}

func (p *parser) parseQuery() *rawQuery {
	q := &rawQuery{pos: p.tok.pos}
	if p.tok.kind == tTilde {
		p.next()
		if !p.isKeyword("exists") {
			p.errorf(p.tok.pos, "expected exists after '~', found %s", p.tok.describe())
			return q
		}
		q.kind = prog.QNotExists
	} else {
		q.kind = map[string]prog.QueryKind{"exists": prog.QExists, "forall": prog.QForall, "reach": prog.QReach}[p.tok.text]
	}
	p.next()
	q.cond = p.parseCond()
	switch p.tok.kind {
	case tNewline, tSemi, tEOF:
	case tRParen:
		p.errorf(p.tok.pos, "unbalanced parentheses in the condition: this ')' closes no '('")
	default:
		p.errorf(p.tok.pos, "expected /\\, \\/ or end of line after the condition, found %s", p.tok.describe())
	}
	return q
}

func (p *parser) parseCond() *rawCond {
	l := p.parseConj()
	for p.tok.kind == tOr && !p.failed() {
		pos := p.tok.pos
		p.next()
		l = p.node(prog.COr, pos, l, p.parseConj())
	}
	return l
}

func (p *parser) parseConj() *rawCond {
	l := p.parseUnary()
	for p.tok.kind == tAnd && !p.failed() {
		pos := p.tok.pos
		p.next()
		l = p.node(prog.CAnd, pos, l, p.parseUnary())
	}
	return l
}

func (p *parser) parseUnary() *rawCond {
	t := p.tok
	switch {
	case t.kind == tTilde:
		if !p.enter(t.pos, "condition") {
			return &rawCond{op: prog.CTrue, pos: t.pos, height: 1}
		}
		p.next()
		c := p.node(prog.CNot, t.pos, p.parseUnary(), nil)
		p.depth--
		return c
	case t.kind == tLParen:
		if !p.enter(t.pos, "condition") {
			return &rawCond{op: prog.CTrue, pos: t.pos, height: 1}
		}
		p.parens++
		p.next()
		c := p.parseCond()
		p.parens--
		p.depth--
		switch p.tok.kind {
		case tRParen:
			p.next()
		case tEOF:
			p.errorf(p.tok.pos, "expected ')' to close the '(' at %s, found end of file", t.pos)
		default:
			p.errorf(p.tok.pos, "expected /\\, \\/ or ')' to close the '(' at %s, found %s", t.pos, p.tok.describe())
		}
		return c
	case t.kind == tKeyword && t.text == "true":
		p.next()
		return &rawCond{op: prog.CTrue, pos: t.pos, height: 1}
	case t.kind == tIdent:
		p.next()
		c := &rawCond{pos: t.pos, height: 1}
		switch p.tok.kind {
		case tEq:
			c.op, c.loc = prog.CEq, t
		case tEqEq:
			// herd7's conditions, and FORMAT.md's, compare with '='; '=='
			// is assume's (a statement's) comparison.
			p.errorf(p.tok.pos, "conditions compare with '=', not '==' (write %s = v)", t.text)
			return c
		case tNe:
			c.op, c.loc = prog.CNe, t
		case tAt:
			c.thread = t
			p.next()
			if p.tok.kind != tIdent {
				p.errorf(p.tok.pos, "expected a label or end after %s@, found %s", t.text, p.tok.describe())
				return c
			}
			c.label = p.tok
			c.op = prog.CAt
			if p.tok.text == "end" {
				c.op = prog.CEnd
			}
			p.next()
			return c
		default:
			p.errorf(p.tok.pos, "expected '=', '!=' or '@' after %s in the condition, found %s", t.text, p.tok.describe())
			return c
		}
		p.next()
		c.val = p.expect(tInt, "a value")
		return c
	}
	p.errorf(t.pos, "expected a condition (x = v, x != v, T@L, true, ~, '('), found %s", t.describe())
	return &rawCond{op: prog.CTrue, pos: t.pos, height: 1}
}

func (p *parser) parseExpect() *rawExpect {
	e := &rawExpect{pos: p.tok.pos}
	p.next()
	e.sem = p.tok
	if p.tok.kind != tKeyword || (p.tok.text != "rdma" && p.tok.text != "sc" && p.tok.text != "robust") {
		p.errorf(p.tok.pos, "expected rdma, sc or robust after expect, found %s", p.tok.describe())
		return e
	}
	p.next()
	e.word = p.tok
	ok := p.tok.kind == tKeyword
	if e.sem.text == "robust" {
		ok = ok && (p.tok.text == "yes" || p.tok.text == "no")
		if !ok {
			p.errorf(p.tok.pos, "expected yes or no after expect robust, found %s", p.tok.describe())
			return e
		}
	} else {
		ok = ok && (p.tok.text == "allowed" || p.tok.text == "forbidden")
		if !ok {
			p.errorf(p.tok.pos, "expected allowed or forbidden after expect %s, found %s", e.sem.text, p.tok.describe())
			return e
		}
	}
	p.next()
	p.endOfDecl("the expect line")
	return e
}

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
		if sem != prog.Robust && f.query == nil {
			r.errorf(e.pos, "expect %s needs a query to check (exists, ~exists, forall or reach)", e.sem.text)
			continue
		}
		yes := e.word.text == "allowed" || e.word.text == "yes"
		p.Expects = append(p.Expects, prog.Expect{Sem: sem, Yes: yes, Pos: e.pos})
	}
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
	case prog.CAt, prog.CEnd:
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
			if !hasLabel(r.p.Threads[t].Body, c.Label) {
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
