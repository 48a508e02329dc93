package parse

import "rdmasim/opsem/prog"

// The query's condition (herd7's syntax) and the expect lines.

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
