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
	"strings"

	"rdmasim/opsem/prog"
)

// File reads and parses the .rdma file at path.
func File(path string) (*prog.Program, error) {
	return FileOptions(path, Options{})
}

// FileOptions is File with settings: the params of a protocol.
func FileOptions(path string, opt Options) (*prog.Program, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading program: %w", err)
	}
	return ParseOptions(path, src, opt)
}

// Parse parses src, naming it filename in messages. The program's name
// defaults to the file name without extension. On failure the error is an
// ErrorList.
func Parse(filename string, src []byte) (*prog.Program, error) {
	return ParseOptions(filename, src, Options{})
}

// ParseOptions is Parse with settings: the params of a protocol.
func ParseOptions(filename string, src []byte, opt Options) (*prog.Program, error) {
	p := &parser{s: newScanner(src), file: filename}
	p.next()
	f := p.parseFile()
	if p.errs == nil {
		r := resolver{file: filename}
		var prg *prog.Program
		if f.isSurface() || len(opt.Params) > 0 {
			prg, r.errs = lowerFile(filename, f, opt)
		} else {
			prg = r.resolve(f)
		}
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

// parser is a recursive-descent parser over the scanner's tokens. After the
// first error every token reads as end of file, so that all loops end.
type parser struct {
	s      scanner
	calls  []*rawStmt // the calls, checked against the procedures at the end
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
		case t.kind == tKeyword && t.text == "proc":
			f.procs = append(f.procs, p.parseProc())
			p.endOfDecl("the procedure")
		case t.kind == tKeyword && t.text == "param":
			p.next()
			pr := &rawParam{name: p.name("a parameter name")}
			p.expect(tEq, "'=' after the parameter name (param N = 2)")
			pr.val = p.parseExpr()
			f.params = append(f.params, pr)
			p.endOfDecl("the parameter " + pr.name.text)
		default:
			p.errorf(t.pos, "expected node, thread, param, a query (exists, ~exists, forall, reach) or expect, found %s", t.describe())
		}
	}
	f.end = p.tok.pos
	p.checkCalls(f)
	return f
}

// parseProc parses `proc name(a, b) { body }`.
func (p *parser) parseProc() *rawProc {
	p.next() // proc
	pr := &rawProc{name: p.name("a procedure name")}
	p.expect(tLParen, "'(' after the procedure name")
	for p.tok.kind != tRParen && !p.failed() {
		pr.params = append(pr.params, p.name("a parameter name"))
		if p.tok.kind != tComma {
			break
		}
		p.next()
	}
	p.expect(tRParen, "')' after the parameters")
	pr.body = p.parseBlock()
	return pr
}

// checkCalls reports a call that names no procedure of the file as the
// unknown statement it most likely is (flush(B): did you mean rfence(B) or
// poll(B)?).
func (p *parser) checkCalls(f *rawFile) {
	for _, c := range p.calls {
		known := false
		for _, pr := range f.procs {
			known = known || pr.name.text == c.lhs.text
		}
		if known || p.failed() {
			continue
		}
		arg := ""
		if len(c.args) > 0 && c.args[0].simpleName() {
			arg = c.args[0].name.text
		}
		if hint := statementHint(c.lhs.text, arg); hint != "" {
			p.errorf(c.lhs.pos, "unknown statement %s; %s", c.lhs.text, hint)
		} else if len(f.procs) == 0 {
			p.errorf(c.lhs.pos, "unknown statement %s (statements are skip, assignments x := ..., assume, rfence, poll, choose and loop)", c.lhs.text)
		} else {
			p.errorf(c.lhs.pos, "unknown statement or procedure %s (declare it with proc %s(...) { ... })", c.lhs.text, c.lhs.text)
		}
	}
}

func (p *parser) parseNode() *rawNode {
	p.next() // node
	n := &rawNode{name: p.name("a node name")}
	n.family = p.parseFamilyIndex()
	if n.family != nil {
		p.parseFamilyRange(n.family, "node "+n.name.text)
	}
	open := p.expect(tLBrace, "'{' after the node name")
	for p.skipSeparators(); p.tok.kind != tRBrace && !p.failed(); p.skipSeparators() {
		if p.tok.kind == tEOF {
			p.unclosed(open)
			break
		}
		d := rawLocDecl{name: p.name("a location name")}
		if p.tok.kind == tLBrack {
			open := p.tok
			p.next()
			d.size = p.parseExpr()
			if p.tok.kind != tRBrack {
				p.errorf(p.tok.pos, "expected ']' to close the '[' at %s, found %s", open.pos, p.tok.describe())
			}
			p.next()
		}
		if p.tok.kind == tColon {
			p.next()
			d.lo, d.hi = p.parseRange("the range of location " + d.name.text)
		}
		if p.tok.kind == tEq {
			p.next()
			if p.tok.kind == tMinus {
				p.errorf(p.tok.pos, "expected an initial value (0..255), found '-': values are 0..255")
			}
			d.init = p.parseExpr()
			if d.init.isInt() && d.size == nil && d.lo == nil {
				v := d.init.name
				d.val = &v
			}
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
	t.family = p.parseFamilyIndex()
	if !p.isKeyword("on") {
		p.errorf(p.tok.pos, "expected on after the thread name (thread %s on N { ... }), found %s", t.name.text, p.tok.describe())
	}
	p.next()
	t.node = p.tok
	t.nodeE = p.parseRef("a node name")
	if t.family != nil {
		p.parseFamilyRange(t.family, "thread "+t.name.text)
	}
	t.body = p.parseBlock()
	return t
}

// parseFamilyIndex parses the `[i]` after the name of a family of nodes or
// threads, if there is one.
func (p *parser) parseFamilyIndex() *rawFamily {
	if p.tok.kind != tLBrack {
		return nil
	}
	p.next()
	f := &rawFamily{index: p.name("the family's index (node m[i] for i in 0..N-1)")}
	p.expect(tRBrack, "']' after the family's index")
	return f
}

// parseFamilyRange parses `for i in lo..hi` after a family's declaration.
func (p *parser) parseFamilyRange(f *rawFamily, what string) {
	if !p.isKeyword("for") {
		p.errorf(p.tok.pos, "expected for %s in lo..hi after %s[%s], found %s", f.index.text, what, f.index.text, p.tok.describe())
		return
	}
	p.next()
	if i := p.name("the family's index"); !p.failed() && i.text != f.index.text {
		p.errorf(i.pos, "the family is indexed by %s, not %s", f.index.text, i.text)
		return
	}
	if !p.isKeyword("in") {
		p.errorf(p.tok.pos, "expected in after for %s, found %s", f.index.text, p.tok.describe())
		return
	}
	p.next()
	f.lo, f.hi = p.parseRange("the family's range")
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
	case t.kind == tKeyword && (t.text == "assume" || t.text == "assert"):
		p.next()
		p.expect(tLParen, "'(' after "+t.text)
		if p.tok.kind == tIdent && p.peek().kind == tEq {
			n := p.tok
			p.next()
			p.errorf(p.tok.pos, "%s compares with '==' or '!=', not '=' (write %s(%s == v))", t.text, t.text, n.text)
			return s
		}
		p.parens++
		s.cond = p.parseExpr()
		p.parens--
		p.expect(tRParen, "')' to close "+t.text+"(")
		c := s.cond
		switch {
		case t.text == "assert":
			s.kind = rAssert
		case c.kind == eBinary && (c.op == tEqEq || c.op == tNe) && c.l.simpleName() && c.r.isInt():
			s.kind, s.lhs, s.rhs, s.ne = rAssume, c.l.name, c.r.name, c.op == tNe
		default:
			s.kind = rAssumeE
		}
	case t.kind == tKeyword && (t.text == "rfence" || t.text == "poll"):
		s.kind = rRFence
		if t.text == "poll" {
			s.kind = rPoll
		}
		p.next()
		p.expect(tLParen, "'(' after "+t.text)
		s.node = p.tok
		s.nodeE = p.parseRef("a node name")
		p.expect(tRParen, "')'")
	case t.kind == tKeyword && t.text == "reg":
		s.kind = rReg
		p.next()
		s.reg = p.name("a register name")
		if p.tok.kind == tColon {
			p.next()
			s.regLo, s.regHi = p.parseRange("the range of register " + s.reg.text)
		}
		if p.tok.kind == tEq || p.tok.kind == tAssign {
			p.next()
			s.regInit = p.parseExpr()
		}
	case t.kind == tKeyword && t.text == "if":
		s.kind = rIf
		p.next()
		s.cond = p.parseCondExpr("if")
		s.branches = append(s.branches, p.parseBlock())
		save, tok := p.s, p.tok
		for p.tok.kind == tNewline {
			p.next()
		}
		if !p.isKeyword("else") {
			p.s, p.tok = save, tok
			break
		}
		p.next()
		if p.isKeyword("if") {
			s.branches = append(s.branches, []*rawStmt{p.parseStmt()})
		} else {
			s.branches = append(s.branches, p.parseBlock())
		}
	case t.kind == tKeyword && t.text == "while":
		s.kind = rWhile
		p.next()
		s.cond = p.parseCondExpr("while")
		s.branches = [][]*rawStmt{p.parseBlock()}
	case t.kind == tKeyword && t.text == "for":
		s.kind = rFor
		p.next()
		s.reg = p.name("the loop variable")
		if !p.isKeyword("in") {
			p.errorf(p.tok.pos, "expected in after for %s (for %s in lo..hi { ... }), found %s", s.reg.text, s.reg.text, p.tok.describe())
			return s
		}
		p.next()
		s.regLo, s.regHi = p.parseRange("the loop's range")
		s.branches = [][]*rawStmt{p.parseBlock()}
	case t.kind == tKeyword && t.text == "break":
		s.kind = rBreak
		p.next()
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
		if p.peek().kind == tLBrack {
			s.lhsE = p.parseRef("a location")
		} else {
			p.next()
			s.lhsE = &rawExpr{pos: t.pos, kind: eName, name: t}
		}
		if p.tok.kind == tEq {
			p.errorf(p.tok.pos, "expected ':=' in an assignment, found '=' (write %s := ...)", s.lhsE)
			return s
		}
		if p.tok.kind == tLParen && s.lhsE.simpleName() {
			// A call of a procedure (checked at the end of the file).
			s.kind = rCall
			open := p.tok
			p.next()
			p.parens++
			for p.tok.kind != tRParen && !p.failed() {
				s.args = append(s.args, p.parseExpr())
				if p.tok.kind != tComma {
					break
				}
				p.next()
			}
			p.parens--
			if p.tok.kind != tRParen {
				p.errorf(p.tok.pos, "expected ')' to close the '(' at %s, found %s", open.pos, p.tok.describe())
				return s
			}
			p.next()
			p.calls = append(p.calls, s)
			return s
		}
		if p.tok.kind != tAssign {
			p.unknownStatement(t)
			return s
		}
		p.next()
		switch {
		case p.isKeyword("rcas") || p.isKeyword("rfaa"):
			kw := p.tok.text
			p.next()
			p.expect(tLParen, "'(' after "+kw)
			s.casZ = p.parseRef("a location")
			if kw == "rcas" {
				p.expect(tComma, "',' in rcas(y, expected, new)")
				s.casA = p.parseExpr()
				p.expect(tComma, "',' in rcas(y, expected, new)")
				s.casB = p.parseExpr()
			} else {
				p.expect(tComma, "',' in rfaa(y, addend)")
				s.casA = p.parseExpr()
			}
			p.expect(tRParen, "')'")
			s.kind, s.atomic = rAssign, kw
			if s.lhsE.simpleName() && s.casZ.simpleName() && s.casA.isInt() && (s.casB == nil || s.casB.isInt()) {
				s.kind, s.z, s.a = rAssignAtomic, s.casZ.name, s.casA.name
				if s.casB != nil {
					s.b = s.casB.name
				}
			}
		case p.isKeyword("cas"):
			p.next()
			p.expect(tLParen, "'(' after cas")
			s.casZ = p.parseRef("a location")
			p.expect(tComma, "',' in cas(z, expected, new)")
			s.casA = p.parseExpr()
			p.expect(tComma, "',' in cas(z, expected, new)")
			s.casB = p.parseExpr()
			p.expect(tRParen, "')'")
			s.kind = rAssign
			if s.lhsE.simpleName() && s.casZ.simpleName() && s.casA.isInt() && s.casB.isInt() {
				s.kind, s.z, s.a, s.b = rAssignCAS, s.casZ.name, s.casA.name, s.casB.name
			}
		case p.tok.kind == tInt || p.tok.kind == tIdent || p.tok.kind == tLParen || p.tok.kind == tBang ||
			p.tok.kind == tMinus || p.isKeyword("true") || p.isKeyword("false"):
			s.rhsE = p.parseExpr()
			s.kind = rAssign
			switch {
			case !s.lhsE.simpleName():
			case s.rhsE.isInt():
				s.kind, s.rhs = rAssignValue, s.rhsE.name
			case s.rhsE.simpleName():
				s.kind, s.rhs = rAssignLoc, s.rhsE.name
			}
		default:
			p.errorf(p.tok.pos, "expected a value, a location or cas(z, a, b) after ':=', found %s", p.tok.describe())
		}
	case t.kind == tKeyword && (t.text == "rcas" || t.text == "rfaa"):
		p.errorf(t.pos, "%s is not a statement: its old value goes to a location of the thread's node (x := %s(y, ...))", t.text, t.text)
	case t.kind == tKeyword && t.text == "cas":
		p.errorf(t.pos, "cas is not a statement: its old value goes to a location of the thread's node (x := cas(z, a, b))")
	case t.kind == tKeyword:
		p.errorf(t.pos, "expected a statement, found keyword %q", t.text)
	default:
		p.errorf(t.pos, "expected a statement, found %s", t.describe())
	}
	return s
}

// parseCondExpr parses the parenthesised condition of if or while.
func (p *parser) parseCondExpr(kw string) *rawExpr {
	open := p.expect(tLParen, "'(' after "+kw)
	if p.failed() {
		return &rawExpr{pos: open.pos, kind: eBool, name: token{text: "true"}}
	}
	p.parens++
	c := p.parseExpr()
	p.parens--
	if p.tok.kind != tRParen {
		p.errorf(p.tok.pos, "expected ')' to close the '(' at %s, found %s", open.pos, p.tok.describe())
		return c
	}
	p.next()
	return c
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
		c := &rawCond{pos: t.pos, height: 1}
		var idx []*rawExpr
		if p.peek().kind == tLBrack {
			idx = p.parseRef("a name").idx
		} else {
			p.next()
		}
		c.locIdx, c.thrIdx = idx, idx
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
			switch p.tok.text {
			case "end":
				c.op = prog.CEnd
			case "fail":
				c.op = prog.CFail
			}
			p.next()
			return c
		default:
			p.errorf(p.tok.pos, "expected '=', '!=' or '@' after %s in the condition, found %s", t.text, p.tok.describe())
			return c
		}
		p.next()
		if p.tok.kind != tIdent && p.tok.kind != tLParen && p.tok.kind != tMinus {
			c.val = p.expect(tInt, "a value")
			return c
		}
		v := p.parseBinary(4)
		if v.isInt() {
			c.val = v.name
		} else {
			c.valE = v // a constant of a protocol: N - 1
		}
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
