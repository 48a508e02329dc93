package parse

// The statements of a thread's or a procedure's body.

import "strings"

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
		st := p.parseStmt()
		stmts = append(stmts, st)
		switch {
		case p.tok.kind == tNewline || p.tok.kind == tSemi || p.tok.kind == tRBrace:
		case p.tok.kind == tEOF:
			p.unclosed(open)
		case st.kind == rCall && p.tok.kind == tLBrace:
			// whlie (x != 0) { ... }: a misspelt keyword followed by its
			// parenthesised test reads as a call; its block says it is
			// none. Name the statement meant, once, where it starts.
			p.notACall(st)
		case st.kind == rIf && p.tok.kind == tIdent && elseLike(p.tok.text):
			p.errorf(p.tok.pos, "unknown word %s after an if's block; did you mean else if (cond) { B } or else { B }?", p.tok.text)
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

// elseLike reports whether word, found after an if's block, stands for
// else or else if: elif, elsif, elseif, or else misspelt.
func elseLike(word string) bool {
	w := strings.ToLower(word)
	return w == "elif" || w == "elsif" || w == "elseif" || editDistance(w, "else") <= 1
}

// notACall reports call c, followed by a block, as the unknown statement
// it is, with the statement near its name if any (whlie: did you mean while
// (cond) { A }?).
func (p *parser) notACall(c *rawStmt) {
	if hint := statementHint(c.lhs.text, ""); hint != "" {
		p.errorf(c.lhs.pos, "unknown statement %s; %s", c.lhs.text, hint)
		return
	}
	p.errorf(c.lhs.pos, "unknown statement %s followed by a block (%s)", c.lhs.text, statementList)
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
		p.errorf(t.pos, "unknown statement %s (%s)", t.text, statementList)
		return
	}
	p.errorf(p.tok.pos, "expected ':=' after %s, found %s", t.text, p.tok.describe())
}
