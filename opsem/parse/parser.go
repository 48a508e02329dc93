package parse

import (
	"fmt"

	"rdmasim/opsem/prog"
)

// parseFile parses src, naming it filename in messages, into the syntax
// tree of a file, with names unresolved. On failure the list is not empty and
// the tree is whatever was read before the first error.
func parseFile(filename string, src []byte) (*rawFile, ErrorList) {
	p := &parser{s: newScanner(src), file: filename}
	p.next()
	f := p.parseFile()
	return f, p.errs
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
			p.errorf(c.lhs.pos, "unknown statement %s (%s)", c.lhs.text, statementList)
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
