package syntax

// The statements of a thread's or a procedure's body.

import "strings"

// parseBlock parses `{ stmts }`.
func (p *parser) parseBlock() []*Stmt {
	if p.tok.Kind == TokNewline {
		p.errorf(p.tok.Pos, "expected '{' on the same line, found newline")
	}
	open := p.expect(TokLBrace, "'{'")
	if p.failed() || !p.enter(open.Pos, "blocks") {
		return nil
	}
	defer func() { p.depth-- }()
	var stmts []*Stmt
	for p.skipSeparators(); p.tok.Kind != TokRBrace && !p.failed(); p.skipSeparators() {
		if p.tok.Kind == TokEOF {
			p.unclosed(open)
			break
		}
		st := p.parseStmt()
		stmts = append(stmts, st)
		switch {
		case p.tok.Kind == TokNewline || p.tok.Kind == TokSemi || p.tok.Kind == TokRBrace:
		case p.tok.Kind == TokEOF:
			p.unclosed(open)
		case st.Kind == StmtCall && p.tok.Kind == TokLBrace:
			// whlie (x != 0) { ... }: a misspelt keyword followed by its
			// parenthesised test reads as a call; its block says it is
			// none. Name the statement meant, once, where it starts.
			p.notACall(st)
		case st.Kind == StmtIf && p.tok.Kind == TokIdent && elseLike(p.tok.Text):
			p.errorf(p.tok.Pos, "unknown word %s after an if's block; did you mean else if (cond) { B } or else { B }?", p.tok.Text)
		default:
			p.errorf(p.tok.Pos, "expected ';', newline or '}' after a statement, found %s", p.tok.describe())
		}
	}
	p.expect(TokRBrace, "'}'")
	return stmts
}

// parseStmt parses one statement, with its label if it has one. On an
// error it returns what it has read so far.
func (p *parser) parseStmt() *Stmt {
	label, ok := p.parseLabel()
	if !ok {
		return &Stmt{Pos: label.Pos}
	}
	s := &Stmt{Pos: p.tok.Pos, Label: label}
	t := p.tok
	if t.Kind == TokKeyword {
		switch p.peek().Kind {
		case TokAssign:
			p.errorf(t.Pos, "%q is a keyword and cannot be used as a location name", t.Text)
			return s
		case TokColon:
			p.errorf(t.Pos, "%q is a keyword and cannot be used as a label", t.Text)
			return s
		}
	}
	switch {
	case t.Kind == TokKeyword && t.Text == "skip":
		s.Kind = StmtSkip
		p.next()
	case t.Kind == TokKeyword && (t.Text == "assume" || t.Text == "assert"):
		p.parseAssumeAssert(s, t)
	case t.Kind == TokKeyword && (t.Text == "rfence" || t.Text == "poll"):
		s.Kind = StmtRFence
		if t.Text == "poll" {
			s.Kind = StmtPoll
		}
		p.next()
		p.expect(TokLParen, "'(' after "+t.Text)
		s.Node = p.tok
		s.NodeE = p.parseRef("a node name")
		p.expect(TokRParen, "')'")
	case t.Kind == TokKeyword && t.Text == "quiet":
		s.Kind = StmtQuiet
		p.next()
		if p.tok.Kind == TokLParen {
			p.errorf(p.tok.Pos, "quiet takes no node: it waits for every queue pair of the thread (write quiet alone; poll(n) waits for one operation towards n)")
		}
	case t.Kind == TokKeyword && t.Text == "reg":
		p.parseReg(s)
	case t.Kind == TokKeyword && t.Text == "if":
		p.parseIf(s)
	case t.Kind == TokKeyword && t.Text == "while":
		s.Kind = StmtWhile
		p.next()
		s.Cond = p.parseCondExpr("while")
		s.Branches = [][]*Stmt{p.parseBlock()}
	case t.Kind == TokKeyword && t.Text == "for":
		p.parseFor(s)
	case t.Kind == TokKeyword && t.Text == "break":
		s.Kind = StmtBreak
		p.next()
	case t.Kind == TokKeyword && t.Text == "choose":
		p.parseChoose(s, t)
	case t.Kind == TokKeyword && t.Text == "loop":
		s.Kind = StmtLoop
		p.next()
		s.Branches = [][]*Stmt{p.parseBlock()}
	case t.Kind == TokIdent:
		p.parseAssignOrCall(s, t)
	case t.Kind == TokLParen:
		p.parseWords(s)
	case t.Kind == TokKeyword && (t.Text == "rcas" || t.Text == "rfaa"):
		p.errorf(t.Pos, "%s is not a statement: its old value goes to a location of the thread's node (x := %s(y, ...))", t.Text, t.Text)
	case t.Kind == TokKeyword && t.Text == "cas":
		p.errorf(t.Pos, "cas is not a statement: its old value goes to a location of the thread's node (x := cas(z, a, b))")
	case t.Kind == TokKeyword:
		p.errorf(t.Pos, "expected a statement, found keyword %q", t.Text)
	default:
		p.errorf(t.Pos, "expected a statement, found %s", t.describe())
	}
	return s
}

// parseLabel reads a statement's label `L:` and the newlines after it, and
// returns it (nil when the statement has none). ok is false when no
// statement follows it (the end of a block, or a second label): the
// error is reported.
func (p *parser) parseLabel() (label *Token, ok bool) {
	if p.tok.Kind != TokIdent || p.peek().Kind != TokColon {
		return nil, true
	}
	l := p.tok
	p.next()
	p.next()
	for p.tok.Kind == TokNewline {
		p.next()
	}
	switch {
	case p.tok.Kind == TokRBrace || p.tok.Kind == TokSemi || p.tok.Kind == TokEOF:
		p.errorf(p.tok.Pos, "expected a statement after label %s, found %s (to label the end of a block, write %s: skip)", l.Text, p.tok.describe(), l.Text)
		return &l, false
	case p.tok.Kind == TokIdent && p.peek().Kind == TokColon:
		p.errorf(p.tok.Pos, "second label %s on a statement labelled %s: a statement has at most one label", p.tok.Text, l.Text)
		return &l, false
	}
	return &l, true
}

// parseAssumeAssert parses `assume(e)` or `assert(e)` (t is the keyword)
// into s: an assume of one location against a value is a StmtAssume, any
// other an StmtAssumeE.
func (p *parser) parseAssumeAssert(s *Stmt, t Token) {
	p.next()
	p.expect(TokLParen, "'(' after "+t.Text)
	if p.tok.Kind == TokIdent && p.peek().Kind == TokEq {
		n := p.tok
		p.next()
		p.errorf(p.tok.Pos, "%s compares with '==' or '!=', not '=' (write %s(%s == v))", t.Text, t.Text, n.Text)
		return
	}
	p.parens++
	s.Cond = p.parseExpr()
	p.parens--
	p.expect(TokRParen, "')' to close "+t.Text+"(")
	c := s.Cond
	switch {
	case t.Text == "assert":
		s.Kind = StmtAssert
	case c.Kind == ExprBinary && (c.Op == TokEqEq || c.Op == TokNe) && c.L.SimpleName() && c.R.isInt():
		s.Kind, s.Lhs, s.Rhs, s.Ne = StmtAssume, c.L.Name, c.R.Name, c.Op == TokNe
	default:
		s.Kind = StmtAssumeE
	}
}

// parseReg parses `reg r`, with an optional range `: lo..hi` and initial
// value `= e`, into s.
func (p *parser) parseReg(s *Stmt) {
	s.Kind = StmtReg
	p.next()
	s.Reg = p.name("a register name")
	if p.tok.Kind == TokColon {
		p.next()
		s.RegLo, s.RegHi = p.parseRange("the range of register " + s.Reg.Text)
	}
	if p.tok.Kind == TokEq || p.tok.Kind == TokAssign {
		p.next()
		s.RegInit = p.parseExpr()
	}
}

// parseIf parses `if (c) { A }` with an optional `else { B }` or
// `else if ...` (which may start the next line) into s: the branches are
// A and, when there is an else, B or the one statement of the else if.
func (p *parser) parseIf(s *Stmt) {
	s.Kind = StmtIf
	p.next()
	s.Cond = p.parseCondExpr("if")
	s.Branches = append(s.Branches, p.parseBlock())
	save, tok := p.s, p.tok
	for p.tok.Kind == TokNewline {
		p.next()
	}
	if !p.isKeyword("else") {
		p.s, p.tok = save, tok
		return
	}
	p.next()
	if p.isKeyword("if") {
		s.Branches = append(s.Branches, []*Stmt{p.parseStmt()})
	} else {
		s.Branches = append(s.Branches, p.parseBlock())
	}
}

// parseFor parses `for r in lo..hi { B }` into s.
func (p *parser) parseFor(s *Stmt) {
	s.Kind = StmtFor
	p.next()
	s.Reg = p.name("the loop variable")
	if !p.isKeyword("in") {
		p.errorf(p.tok.Pos, "expected in after for %s (for %s in lo..hi { ... }), found %s", s.Reg.Text, s.Reg.Text, p.tok.describe())
		return
	}
	p.next()
	s.RegLo, s.RegHi = p.parseRange("the loop's range")
	s.Branches = [][]*Stmt{p.parseBlock()}
}

// parseChoose parses `choose { A } or { B } ...` (t is the keyword) into
// s, one branch per block; each `or` may start the next line.
func (p *parser) parseChoose(s *Stmt, t Token) {
	s.Kind = StmtChoose
	p.next()
	s.Branches = append(s.Branches, p.parseBlock())
	for !p.failed() {
		save, tok := p.s, p.tok
		for p.tok.Kind == TokNewline {
			p.next()
		}
		if !p.isKeyword("or") {
			p.s, p.tok = save, tok
			break
		}
		p.next()
		s.Branches = append(s.Branches, p.parseBlock())
	}
	if len(s.Branches) < 2 && !p.failed() {
		p.errorf(t.Pos, "choose needs at least two branches: choose { A } or { B }")
	}
}

// parseAssignOrCall parses a statement that starts with a name (t): a call
// of a procedure `f(args)`, or an assignment `lhs := rhs` whose left side
// may be indexed.
func (p *parser) parseAssignOrCall(s *Stmt, t Token) {
	s.Lhs = t
	if p.peek().Kind == TokLBrack {
		s.LhsE, s.LhsHi = p.parseWordRef("a location")
	} else {
		p.next()
		s.LhsE = &Expr{Pos: t.Pos, Kind: ExprName, Name: t}
	}
	if p.tok.Kind == TokEq {
		p.errorf(p.tok.Pos, "expected ':=' in an assignment, found '=' (write %s := ...)", s.LhsE)
		return
	}
	if p.tok.Kind == TokLParen && s.LhsE.SimpleName() {
		p.parseCall(s)
		return
	}
	if p.tok.Kind != TokAssign {
		p.unknownStatement(t)
		return
	}
	p.next()
	defer p.parseFenced(s)
	if s.LhsHi != nil {
		// A word range: the right side is one too.
		if p.tok.Kind != TokIdent {
			p.errorf(p.tok.Pos, "expected a word range x[lo..hi] after '%s :=', found %s", s.LhsE, p.tok.describe())
			return
		}
		s.Kind = StmtAssign
		if s.RhsE, s.RhsHi = p.parseWordRef("a word range"); s.RhsHi == nil && !p.failed() {
			p.errorf(s.RhsE.Pos, "%s[..] := %s: a word range is copied from a word range of as many words, x[lo..hi]", s.LhsE.Name.Text, s.RhsE)
		}
		return
	}
	switch {
	case p.isKeyword("rcas") || p.isKeyword("rfaa"):
		p.parseRemoteAtomic(s)
	case p.isKeyword("cas"):
		p.parseCAS(s)
	case p.tok.Kind == TokInt || p.tok.Kind == TokIdent || p.tok.Kind == TokLParen || p.tok.Kind == TokBang ||
		p.tok.Kind == TokMinus || p.isKeyword("true") || p.isKeyword("false"):
		s.RhsE = p.parseExpr()
		s.Kind = StmtAssign
		switch {
		case !s.LhsE.SimpleName():
		case s.RhsE.isInt():
			s.Kind, s.Rhs = StmtAssignValue, s.RhsE.Name
		case s.RhsE.SimpleName():
			s.Kind, s.Rhs = StmtAssignLoc, s.RhsE.Name
		}
	default:
		p.errorf(p.tok.Pos, "expected a value, a location or cas(z, a, b) after ':=', found %s", p.tok.describe())
	}
}

// parseWords parses the core format's multi-word put or get
// `(y0, y1) := (x0, x1)` (SEMANTICS-VERBS.md 1): two lists of as many
// location names, two or more each.
func (p *parser) parseWords(s *Stmt) {
	list := func(what string) []Token {
		open := p.tok
		p.next()
		var ts []Token
		for !p.failed() {
			ts = append(ts, p.name(what))
			if p.tok.Kind != TokComma {
				break
			}
			p.next()
		}
		if !p.failed() && p.tok.Kind != TokRParen {
			p.errorf(p.tok.Pos, "expected ',' or ')' to close the '(' at %s, found %s", open.Pos, p.tok.describe())
		}
		if !p.failed() && len(ts) < 2 {
			p.errorf(open.Pos, "(%s) names one word: a multi-word put or get names two or more, (y0, y1) := (x0, x1); one word is y := x", ts[0].Text)
		}
		if !p.failed() {
			p.next()
		}
		return ts
	}
	s.Kind = StmtAssignLoc
	s.LhsWords = list("a location")
	if p.failed() {
		return
	}
	if p.tok.Kind != TokAssign {
		p.errorf(p.tok.Pos, "expected ':=' after a list of words, found %s", p.tok.describe())
		return
	}
	p.next()
	if p.tok.Kind != TokLParen {
		p.errorf(p.tok.Pos, "expected a list of words (x0, x1) after ':=', found %s", p.tok.describe())
		return
	}
	s.RhsWords = list("a location")
	if p.failed() {
		return
	}
	s.Lhs, s.Rhs = s.LhsWords[0], s.RhsWords[0]
	s.LhsE = &Expr{Pos: s.Lhs.Pos, Kind: ExprName, Name: s.Lhs}
	s.RhsE = &Expr{Pos: s.Rhs.Pos, Kind: ExprName, Name: s.Rhs}
	p.parseFenced(s)
}

// parseFenced reads the marks after an assignment's right side, in any
// order, each once: `fenced` (SEMANTICS-VERBS.md 4: the fence flag of the
// put, get or remote atomic the assignment is), `inline` (parseInline) and
// `unsignaled` (parseUnsignaled, which also reports the spellings that are
// not a mark); the resolution rejects each on what it does not mark.
func (p *parser) parseFenced(s *Stmt) {
	for !p.failed() {
		switch {
		case !s.Inline && p.isKeyword("inline"):
			p.parseInline(s)
		case !s.Fenced && p.isKeyword("fenced"):
			s.Fenced, s.FencedPos = true, p.tok.Pos
			p.next()
		default:
			p.parseUnsignaled(s)
			return
		}
	}
}

// parseCall parses the arguments `(a, b, ...)` of a call of procedure
// s.Lhs into s, and records the call (checked at the end of the file).
func (p *parser) parseCall(s *Stmt) {
	s.Kind = StmtCall
	open := p.tok
	p.next()
	p.parens++
	for p.tok.Kind != TokRParen && !p.failed() {
		s.Args = append(s.Args, p.parseExpr())
		if p.tok.Kind != TokComma {
			break
		}
		p.next()
	}
	p.parens--
	if p.tok.Kind != TokRParen {
		p.errorf(p.tok.Pos, "expected ')' to close the '(' at %s, found %s", open.Pos, p.tok.describe())
		return
	}
	p.next()
	p.calls = append(p.calls, s)
}

// parseRemoteAtomic parses the right side `rcas(y, a, b)` or `rfaa(y, a)`
// of an assignment into s: an StmtAssignAtomic when every operand is a
// name or a value, an StmtAssign with expressions otherwise.
func (p *parser) parseRemoteAtomic(s *Stmt) {
	kw := p.tok.Text
	p.next()
	p.expect(TokLParen, "'(' after "+kw)
	s.CasZ = p.parseRef("a location")
	if kw == "rcas" {
		p.expect(TokComma, "',' in rcas(y, expected, new)")
		s.CasA = p.parseExpr()
		p.expect(TokComma, "',' in rcas(y, expected, new)")
		s.CasB = p.parseExpr()
	} else {
		p.expect(TokComma, "',' in rfaa(y, addend)")
		s.CasA = p.parseExpr()
	}
	p.expect(TokRParen, "')'")
	s.Kind, s.Atomic = StmtAssign, kw
	if s.LhsE.SimpleName() && s.CasZ.SimpleName() && s.CasA.isInt() && (s.CasB == nil || s.CasB.isInt()) {
		s.Kind, s.Z, s.A = StmtAssignAtomic, s.CasZ.Name, s.CasA.Name
		if s.CasB != nil {
			s.B = s.CasB.Name
		}
	}
}

// parseCAS parses the right side `cas(z, a, b)` of an assignment into s:
// an StmtAssignCAS when every operand is a name or a value, an StmtAssign
// with expressions otherwise.
func (p *parser) parseCAS(s *Stmt) {
	p.next()
	p.expect(TokLParen, "'(' after cas")
	s.CasZ = p.parseRef("a location")
	p.expect(TokComma, "',' in cas(z, expected, new)")
	s.CasA = p.parseExpr()
	p.expect(TokComma, "',' in cas(z, expected, new)")
	s.CasB = p.parseExpr()
	p.expect(TokRParen, "')'")
	s.Kind = StmtAssign
	if s.LhsE.SimpleName() && s.CasZ.SimpleName() && s.CasA.isInt() && s.CasB.isInt() {
		s.Kind, s.Z, s.A, s.B = StmtAssignCAS, s.CasZ.Name, s.CasA.Name, s.CasB.Name
	}
}

// parseCondExpr parses the parenthesised condition of if or while.
func (p *parser) parseCondExpr(kw string) *Expr {
	open := p.expect(TokLParen, "'(' after "+kw)
	if p.failed() {
		return &Expr{Pos: open.Pos, Kind: ExprBool, Name: Token{Text: "true"}}
	}
	p.parens++
	c := p.parseExpr()
	p.parens--
	if p.tok.Kind != TokRParen {
		p.errorf(p.tok.Pos, "expected ')' to close the '(' at %s, found %s", open.Pos, p.tok.describe())
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
func (p *parser) notACall(c *Stmt) {
	if hint := statementHint(c.Lhs.Text, ""); hint != "" {
		p.errorf(c.Lhs.Pos, "unknown statement %s; %s", c.Lhs.Text, hint)
		return
	}
	p.errorf(c.Lhs.Pos, "unknown statement %s followed by a block (%s)", c.Lhs.Text, statementList)
}

// unknownStatement reports name t, at the start of a statement but not
// followed by ':=' (the current token): no statement starts so. When a
// statement is near it (statementHint), the message names it, with the
// node written in parentheses after t if any: flush(B) gets "did you mean
// rfence(B) or poll(B)?".
func (p *parser) unknownStatement(t Token) {
	arg := ""
	if p.tok.Kind == TokLParen {
		if next := p.peek(); next.Kind == TokIdent {
			arg = next.Text
		}
	}
	if hint := statementHint(t.Text, arg); hint != "" {
		p.errorf(t.Pos, "unknown statement %s; %s", t.Text, hint)
		return
	}
	if p.tok.Kind == TokLParen {
		p.errorf(t.Pos, "unknown statement %s (%s)", t.Text, statementList)
		return
	}
	p.errorf(p.tok.Pos, "expected ':=' after %s, found %s", t.Text, p.tok.describe())
}
