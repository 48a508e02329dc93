package syntax

import (
	"fmt"

	"rdmasim/opsem/prog"
)

// ParseFile parses src, naming it filename in messages, into the syntax
// tree of a file, with names unresolved. On failure the list is not empty and
// the tree is whatever was read before the first error.
func ParseFile(filename string, src []byte) (*File, ErrorList) {
	p := &parser{s: newScanner(src), file: filename}
	p.next()
	f := p.parseFile()
	return f, p.errs
}

// parser is a recursive-descent parser over the scanner's tokens. After the
// first error every token reads as end of file, so that all loops end.
type parser struct {
	s      scanner
	calls  []*Stmt // the calls, checked against the procedures at the end
	file   string
	tok    Token
	parens int // open parentheses in a condition: newlines are blanks there
	depth  int // nesting of blocks, or of '(' and '~' in a condition
	errs   ErrorList
}

// MaxDepth bounds the nesting of blocks and of conditions (both the '(' and
// '~' written and the height of the condition's tree), so that no input can
// overflow the stack of the recursive parser, resolver, compiler or printer.
// The printer never nests deeper than the tree, so whatever parses prints to
// text that parses again.
const MaxDepth = 1000

func (p *parser) next() {
	for {
		if p.errs != nil {
			p.tok = Token{Kind: TokEOF, Pos: p.tok.Pos}
			return
		}
		p.tok = p.s.next()
		if p.tok.Kind == TokIllegal && p.s.err != nil {
			e := *p.s.err
			e.File = p.file
			p.errs = append(p.errs, &e)
			p.tok = Token{Kind: TokEOF, Pos: p.tok.Pos}
			return
		}
		if p.parens == 0 || p.tok.Kind != TokNewline {
			return
		}
	}
}

// peek returns the token after the current one, without consuming anything
// (and without reporting a lexical error: the parser meets it when it gets
// there).
func (p *parser) peek() Token {
	s := p.s
	return s.next()
}

// enter counts one more level of nesting at pos; it reports false (and an
// error) past MaxDepth. Every successful enter is matched by p.depth--.
func (p *parser) enter(pos prog.Pos, what string) bool {
	if p.depth >= MaxDepth {
		p.errorf(pos, "%s nested too deeply (the limit is %d levels)", what, MaxDepth)
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
	p.tok = Token{Kind: TokEOF, Pos: pos}
}

func (p *parser) failed() bool { return p.errs != nil }

// expect consumes a token of kind k, or reports what was expected.
func (p *parser) expect(k Tok, what string) Token {
	t := p.tok
	if t.Kind != k {
		p.errorf(t.Pos, "expected %s, found %s", what, t.describe())
		return t
	}
	p.next()
	return t
}

func (p *parser) isKeyword(kw string) bool { return p.tok.Kind == TokKeyword && p.tok.Text == kw }

// name consumes an identifier; a keyword in its place gets a precise message.
func (p *parser) name(what string) Token {
	t := p.tok
	switch t.Kind {
	case TokIdent:
		p.next()
		return t
	case TokKeyword:
		p.errorf(t.Pos, "%q is a keyword and cannot be used as %s", t.Text, what)
	default:
		p.errorf(t.Pos, "expected %s, found %s", what, t.describe())
	}
	return t
}

func (p *parser) skipSeparators() {
	for p.tok.Kind == TokNewline || p.tok.Kind == TokSemi {
		p.next()
	}
}

// endOfDecl requires a declaration to end at a newline, ';' or end of file.
func (p *parser) endOfDecl(what string) {
	switch p.tok.Kind {
	case TokNewline, TokSemi, TokEOF:
		return
	}
	p.errorf(p.tok.Pos, "expected end of line or ';' after %s, found %s", what, p.tok.describe())
}

func (p *parser) parseFile() *File {
	f := &File{}
	for p.skipSeparators(); p.tok.Kind != TokEOF; p.skipSeparators() {
		t := p.tok
		switch {
		case t.Kind == TokKeyword && t.Text == "litmus":
			if f.Name != nil {
				p.errorf(t.Pos, "litmus name given twice (first at %s)", f.Name.Pos)
				break
			}
			p.s.rawWord = true
			p.next()
			if p.tok.Kind != TokWord {
				p.errorf(p.tok.Pos, "expected the test's name after litmus, found %s", p.tok.describe())
				break
			}
			w := p.tok
			f.Name = &w
			p.next()
			p.endOfDecl("the litmus name")
		case t.Kind == TokString:
			if f.Doc != nil {
				p.errorf(t.Pos, "doc string given twice (first at %s); a file has one", f.Doc.Pos)
				break
			}
			f.Doc = &t
			p.next()
			p.endOfDecl("the doc string")
		case t.Kind == TokKeyword && t.Text == "node":
			n := p.parseNode()
			f.Nodes = append(f.Nodes, n)
			p.endOfDecl("the declaration of node " + n.Name.Text)
		case t.Kind == TokKeyword && t.Text == "thread":
			th := p.parseThread()
			f.Threads = append(f.Threads, th)
			p.endOfDecl("the declaration of thread " + th.Name.Text)
		case t.Kind == TokKeyword && (t.Text == "exists" || t.Text == "forall" || t.Text == "reach"), t.Kind == TokTilde:
			q := p.parseQuery()
			if f.Query != nil && !p.failed() {
				p.errorf(q.Pos, "a file has at most one query; the first is at %s", f.Query.Pos)
				break
			}
			f.Query = q
		case t.Kind == TokKeyword && t.Text == "expect":
			f.Expects = append(f.Expects, p.parseExpect())
		case t.Kind == TokKeyword && t.Text == "proc":
			f.Procs = append(f.Procs, p.parseProc())
			p.endOfDecl("the procedure")
		case t.Kind == TokKeyword && t.Text == "param":
			p.next()
			pr := &Param{Name: p.name("a parameter name")}
			p.expect(TokEq, "'=' after the parameter name (param N = 2)")
			pr.Val = p.parseExpr()
			f.Params = append(f.Params, pr)
			p.endOfDecl("the parameter " + pr.Name.Text)
		case t.Kind == TokIdent && t.Text == "registers":
			// Not a keyword: "registers" stays a name everywhere else.
			p.next()
			w := p.tok
			if w.Kind != TokIdent || (w.Text != "runtime" && w.Text != "static" && w.Text != "auto") {
				p.errorf(w.Pos, "expected runtime, static or auto after registers, found %s", w.describe())
				break
			}
			if f.Registers != nil {
				p.errorf(t.Pos, "registers given twice (first at %s)", f.Registers.Pos)
				break
			}
			f.Registers = &w
			p.next()
			p.endOfDecl("the registers line")
		case t.Kind == TokIdent && t.Text == "placement":
			// Not a keyword, as registers.
			p.next()
			w := p.tok
			if w.Kind != TokIdent && w.Kind != TokKeyword || w.Text != "any" && w.Text != "in" {
				p.errorf(w.Pos, "expected in-order or any after placement, found %s", w.describe())
				break
			}
			if w.Text == "in" {
				p.next()
				if p.tok.Kind != TokMinus || p.peek().Kind != TokIdent || p.peek().Text != "order" {
					p.errorf(w.Pos, "expected in-order or any after placement")
					break
				}
				p.next()
				w.Text = "in-order"
			}
			if f.Placement != nil {
				p.errorf(t.Pos, "placement given twice (first at %s)", f.Placement.Pos)
				break
			}
			f.Placement = &w
			p.next()
			p.endOfDecl("the placement line")
		default:
			p.errorf(t.Pos, "expected node, thread, param, registers, placement, a query (exists, ~exists, forall, reach) or expect, found %s", t.describe())
		}
	}
	f.End = p.tok.Pos
	p.checkCalls(f)
	return f
}

// parseProc parses `proc name(a, b) { body }`.
func (p *parser) parseProc() *Proc {
	p.next() // proc
	pr := &Proc{Name: p.name("a procedure name")}
	p.expect(TokLParen, "'(' after the procedure name")
	for p.tok.Kind != TokRParen && !p.failed() {
		pr.Params = append(pr.Params, p.name("a parameter name"))
		if p.tok.Kind != TokComma {
			break
		}
		p.next()
	}
	p.expect(TokRParen, "')' after the parameters")
	pr.Body = p.parseBlock()
	return pr
}

// checkCalls reports a call that names no procedure of the file as the
// unknown statement it most likely is (flush(B): did you mean rfence(B) or
// poll(B)?).
func (p *parser) checkCalls(f *File) {
	for _, c := range p.calls {
		known := false
		for _, pr := range f.Procs {
			known = known || pr.Name.Text == c.Lhs.Text
		}
		if known || p.failed() {
			continue
		}
		arg := ""
		if len(c.Args) > 0 && c.Args[0].SimpleName() {
			arg = c.Args[0].Name.Text
		}
		if hint := statementHint(c.Lhs.Text, arg); hint != "" {
			p.errorf(c.Lhs.Pos, "unknown statement %s; %s", c.Lhs.Text, hint)
		} else if len(f.Procs) == 0 {
			p.errorf(c.Lhs.Pos, "unknown statement %s (%s)", c.Lhs.Text, statementList)
		} else {
			p.errorf(c.Lhs.Pos, "unknown statement or procedure %s (declare it with proc %s(...) { ... })", c.Lhs.Text, c.Lhs.Text)
		}
	}
}

func (p *parser) parseNode() *Node {
	p.next() // node
	n := &Node{Name: p.name("a node name")}
	n.Family = p.parseFamilyIndex()
	if n.Family != nil {
		p.parseFamilyRange(n.Family, "node "+n.Name.Text)
	}
	open := p.expect(TokLBrace, "'{' after the node name")
	for p.skipSeparators(); p.tok.Kind != TokRBrace && !p.failed(); p.skipSeparators() {
		if p.tok.Kind == TokEOF {
			p.unclosed(open)
			break
		}
		d := LocDecl{Name: p.name("a location name")}
		if p.tok.Kind == TokLBrack {
			open := p.tok
			p.next()
			d.Size = p.parseExpr()
			if p.tok.Kind != TokRBrack {
				p.errorf(p.tok.Pos, "expected ']' to close the '[' at %s, found %s", open.Pos, p.tok.describe())
			}
			p.next()
		}
		if p.tok.Kind == TokColon {
			p.next()
			d.Lo, d.Hi = p.parseRange("the range of location " + d.Name.Text)
		}
		if p.tok.Kind == TokEq {
			p.next()
			if p.tok.Kind == TokMinus {
				p.errorf(p.tok.Pos, "expected an initial value (0..255), found '-': values are 0..255")
			}
			d.Init = p.parseExpr()
			if d.Init.isInt() && d.Size == nil && d.Lo == nil {
				v := d.Init.Name
				d.Val = &v
			}
		} else if p.tok.Kind == TokAssign {
			p.errorf(p.tok.Pos, "expected '=' after location %s, found ':=' (initial values are written %s = v)", d.Name.Text, d.Name.Text)
		}
		n.Locs = append(n.Locs, d)
		switch p.tok.Kind {
		case TokRBrace, TokSemi, TokNewline:
		case TokEOF:
			p.unclosed(open)
		default:
			p.errorf(p.tok.Pos, "expected ';', newline or '}' after location %s, found %s", d.Name.Text, p.tok.describe())
		}
	}
	p.expect(TokRBrace, "'}'")
	return n
}

// unclosed reports end of file inside the braces opened by open.
func (p *parser) unclosed(open Token) {
	p.errorf(p.tok.Pos, "expected '}' to close the '{' at %s, found end of file", open.Pos)
}

func (p *parser) parseThread() *Thread {
	p.next() // thread
	t := &Thread{Name: p.name("a thread name")}
	t.Family = p.parseFamilyIndex()
	if !p.isKeyword("on") {
		p.errorf(p.tok.Pos, "expected on after the thread name (thread %s on N { ... }), found %s", t.Name.Text, p.tok.describe())
	}
	p.next()
	t.Node = p.tok
	t.NodeE = p.parseRef("a node name")
	if t.Family != nil {
		p.parseFamilyRange(t.Family, "thread "+t.Name.Text)
	}
	t.Body = p.parseBlock()
	return t
}

// parseFamilyIndex parses the `[i]` after the name of a family of nodes or
// threads, if there is one.
func (p *parser) parseFamilyIndex() *Family {
	if p.tok.Kind != TokLBrack {
		return nil
	}
	p.next()
	f := &Family{Index: p.name("the family's index (node m[i] for i in 0..N-1)")}
	p.expect(TokRBrack, "']' after the family's index")
	return f
}

// parseFamilyRange parses `for i in lo..hi` after a family's declaration.
func (p *parser) parseFamilyRange(f *Family, what string) {
	if !p.isKeyword("for") {
		p.errorf(p.tok.Pos, "expected for %s in lo..hi after %s[%s], found %s", f.Index.Text, what, f.Index.Text, p.tok.describe())
		return
	}
	p.next()
	if i := p.name("the family's index"); !p.failed() && i.Text != f.Index.Text {
		p.errorf(i.Pos, "the family is Indexed by %s, not %s", f.Index.Text, i.Text)
		return
	}
	if !p.isKeyword("in") {
		p.errorf(p.tok.Pos, "expected in after for %s, found %s", f.Index.Text, p.tok.describe())
		return
	}
	p.next()
	f.Lo, f.Hi = p.parseRange("the family's range")
}
