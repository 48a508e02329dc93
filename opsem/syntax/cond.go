package syntax

import "rdmasim/opsem/prog"

// The query's condition (herd7's syntax) and the expect lines.

func (p *parser) parseQuery() *Query {
	q := &Query{Pos: p.tok.Pos}
	if p.tok.Kind == TokTilde {
		p.next()
		if !p.isKeyword("exists") {
			p.errorf(p.tok.Pos, "expected exists after '~', found %s", p.tok.describe())
			return q
		}
		q.Kind = prog.QNotExists
	} else {
		q.Kind = map[string]prog.QueryKind{"exists": prog.QExists, "forall": prog.QForall, "reach": prog.QReach}[p.tok.Text]
	}
	p.next()
	q.Cond = p.parseCond()
	switch p.tok.Kind {
	case TokNewline, TokSemi, TokEOF:
	case TokRParen:
		p.errorf(p.tok.Pos, "unbalanced parentheses in the condition: this ')' closes no '('")
	default:
		p.errorf(p.tok.Pos, "expected /\\, \\/ or end of line after the condition, found %s", p.tok.describe())
	}
	return q
}

func (p *parser) parseCond() *Cond {
	l := p.parseConj()
	for p.tok.Kind == TokOr && !p.failed() {
		pos := p.tok.Pos
		p.next()
		l = p.node(prog.COr, pos, l, p.parseConj())
	}
	return l
}

func (p *parser) parseConj() *Cond {
	l := p.parseUnary()
	for p.tok.Kind == TokAnd && !p.failed() {
		pos := p.tok.Pos
		p.next()
		l = p.node(prog.CAnd, pos, l, p.parseUnary())
	}
	return l
}

func (p *parser) parseUnary() *Cond {
	t := p.tok
	switch {
	case t.Kind == TokTilde:
		if !p.enter(t.Pos, "condition") {
			return &Cond{Op: prog.CTrue, Pos: t.Pos, Height: 1}
		}
		p.next()
		c := p.node(prog.CNot, t.Pos, p.parseUnary(), nil)
		p.depth--
		return c
	case t.Kind == TokLParen:
		if !p.enter(t.Pos, "condition") {
			return &Cond{Op: prog.CTrue, Pos: t.Pos, Height: 1}
		}
		p.parens++
		p.next()
		c := p.parseCond()
		p.parens--
		p.depth--
		switch p.tok.Kind {
		case TokRParen:
			p.next()
		case TokEOF:
			p.errorf(p.tok.Pos, "expected ')' to close the '(' at %s, found end of file", t.Pos)
		default:
			p.errorf(p.tok.Pos, "expected /\\, \\/ or ')' to close the '(' at %s, found %s", t.Pos, p.tok.describe())
		}
		return c
	case t.Kind == TokKeyword && t.Text == "true":
		p.next()
		return &Cond{Op: prog.CTrue, Pos: t.Pos, Height: 1}
	case t.Kind == TokIdent:
		c := &Cond{Pos: t.Pos, Height: 1}
		var idx []*Expr
		if p.peek().Kind == TokLBrack {
			idx = p.parseRef("a name").Idx
		} else {
			p.next()
		}
		c.LocIdx, c.ThrIdx = idx, idx
		switch p.tok.Kind {
		case TokEq:
			c.Op, c.Loc = prog.CEq, t
		case TokEqEq:
			// herd7's conditions, and FORMAT.md's, compare with '='; '=='
			// is assume's (a statement's) comparison.
			p.errorf(p.tok.Pos, "conditions compare with '=', not '==' (write %s = v)", t.Text)
			return c
		case TokNe:
			c.Op, c.Loc = prog.CNe, t
		case TokAt:
			c.Thread = t
			p.next()
			if p.tok.Kind != TokIdent {
				p.errorf(p.tok.Pos, "expected a label or end after %s@, found %s", t.Text, p.tok.describe())
				return c
			}
			c.Label = p.tok
			c.Op = prog.CAt
			switch p.tok.Text {
			case "end":
				c.Op = prog.CEnd
			case "fail":
				c.Op = prog.CFail
			}
			p.next()
			return c
		default:
			p.errorf(p.tok.Pos, "expected '=', '!=' or '@' after %s in the condition, found %s", t.Text, p.tok.describe())
			return c
		}
		p.next()
		if p.tok.Kind != TokIdent && p.tok.Kind != TokLParen && p.tok.Kind != TokMinus {
			c.Val = p.expect(TokInt, "a value")
			return c
		}
		v := p.parseBinary(4)
		if v.isInt() {
			c.Val = v.Name
		} else {
			c.ValE = v // a constant of a protocol: N - 1
		}
		return c
	}
	p.errorf(t.Pos, "expected a condition (x = v, x != v, T@L, true, ~, '('), found %s", t.describe())
	return &Cond{Op: prog.CTrue, Pos: t.Pos, Height: 1}
}

func (p *parser) parseExpect() *Expect {
	e := &Expect{Pos: p.tok.Pos}
	p.next()
	e.Sem = p.tok
	if p.tok.Kind != TokKeyword || (p.tok.Text != "rdma" && p.tok.Text != "sc" && p.tok.Text != "robust") {
		p.errorf(p.tok.Pos, "expected rdma, sc or robust after expect, found %s", p.tok.describe())
		return e
	}
	p.next()
	e.Word = p.tok
	ok := p.tok.Kind == TokKeyword
	if e.Sem.Text == "robust" {
		ok = ok && (p.tok.Text == "yes" || p.tok.Text == "no")
		if !ok {
			p.errorf(p.tok.Pos, "expected yes or no after expect robust, found %s", p.tok.describe())
			return e
		}
	} else {
		ok = ok && (p.tok.Text == "allowed" || p.tok.Text == "forbidden")
		if !ok {
			p.errorf(p.tok.Pos, "expected allowed or forbidden after expect %s, found %s", e.Sem.Text, p.tok.describe())
			return e
		}
	}
	p.next()
	p.endOfDecl("the expect line")
	return e
}
