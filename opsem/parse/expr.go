package parse

import (
	"strconv"
	"strings"

	"rdmasim/opsem/prog"
)

// rawExpr is an expression of the protocol language: a number, a name (a
// register, a constant, a location, a node), a name with indices (an array
// element, a family member), or an operator applied to operands.
type rawExpr struct {
	pos  prog.Pos
	kind exprKind
	name token      // eInt (its text), eName
	idx  []*rawExpr // eName: the indices, outermost first
	op   tok        // eUnary, eBinary: the operator token
	l, r *rawExpr
}

type exprKind uint8

const (
	eInt exprKind = iota
	eBool
	eName
	eUnary
	eBinary
)

// String prints e in the protocol language, parenthesised where it matters.
func (e *rawExpr) String() string {
	var b strings.Builder
	e.write(&b, 0)
	return b.String()
}

// precedence of binary operators: larger binds tighter.
func precedence(op tok) int {
	switch op {
	case tOrOr:
		return 1
	case tAndAnd:
		return 2
	case tEqEq, tNe, tLt, tLe, tGt, tGe:
		return 3
	case tPlus, tMinus:
		return 4
	case tStar, tSlash, tPercent:
		return 5
	}
	return 0
}

var opText = map[tok]string{tOrOr: "||", tAndAnd: "&&", tEqEq: "==", tNe: "!=", tLt: "<", tLe: "<=",
	tGt: ">", tGe: ">=", tPlus: "+", tMinus: "-", tStar: "*", tSlash: "/", tPercent: "%", tBang: "!"}

func (e *rawExpr) write(b *strings.Builder, outer int) {
	switch e.kind {
	case eInt, eBool:
		b.WriteString(e.name.text)
	case eName:
		b.WriteString(e.name.text)
		for _, i := range e.idx {
			b.WriteByte('[')
			i.write(b, 0)
			b.WriteByte(']')
		}
	case eUnary:
		b.WriteString(opText[e.op])
		e.l.write(b, 6)
	case eBinary:
		p := precedence(e.op)
		if p <= outer {
			b.WriteByte('(')
		}
		e.l.write(b, p-1)
		b.WriteString(" " + opText[e.op] + " ")
		e.r.write(b, p)
		if p <= outer {
			b.WriteByte(')')
		}
	}
}

// simple reports whether e is a plain name (no indices).
func (e *rawExpr) simpleName() bool { return e != nil && e.kind == eName && len(e.idx) == 0 }

// isInt reports whether e is a number literal.
func (e *rawExpr) isInt() bool { return e != nil && e.kind == eInt }

// parseExpr parses an expression: C's operators on numbers and truth values
// (|| && == != < <= > >= + - * / % ! and unary -), with C's precedence.
func (p *parser) parseExpr() *rawExpr { return p.parseBinary(1) }

func (p *parser) parseBinary(min int) *rawExpr {
	l := p.parseUnaryExpr()
	for !p.failed() {
		op := p.tok
		prec := precedence(op.kind)
		if op.kind == tEq && min <= 3 {
			p.errorf(op.pos, "expressions compare with '==', not '='")
			return l
		}
		if prec < min || prec == 0 {
			return l
		}
		p.next()
		if !p.enter(op.pos, "expression") {
			return l
		}
		r := p.parseBinary(prec + 1)
		p.depth--
		l = &rawExpr{pos: op.pos, kind: eBinary, op: op.kind, l: l, r: r}
		if prec == 3 && precedence(p.tok.kind) == 3 {
			p.errorf(p.tok.pos, "comparisons do not chain: write (a %s b) && (b %s c)", opText[op.kind], opText[p.tok.kind])
		}
	}
	return l
}

func (p *parser) parseUnaryExpr() *rawExpr {
	t := p.tok
	switch t.kind {
	case tBang, tMinus:
		if !p.enter(t.pos, "expression") {
			return &rawExpr{pos: t.pos, kind: eInt, name: token{text: "0"}}
		}
		p.next()
		e := &rawExpr{pos: t.pos, kind: eUnary, op: t.kind, l: p.parseUnaryExpr()}
		p.depth--
		return e
	case tLParen:
		if !p.enter(t.pos, "expression") {
			return &rawExpr{pos: t.pos, kind: eInt, name: token{text: "0"}}
		}
		p.parens++
		p.next()
		e := p.parseExpr()
		p.parens--
		p.depth--
		if p.tok.kind != tRParen {
			p.errorf(p.tok.pos, "expected ')' to close the '(' at %s, found %s", t.pos, p.tok.describe())
			return e
		}
		p.next()
		return e
	case tInt:
		p.next()
		return &rawExpr{pos: t.pos, kind: eInt, name: t}
	case tKeyword:
		if t.text == "true" || t.text == "false" {
			p.next()
			return &rawExpr{pos: t.pos, kind: eBool, name: t}
		}
	case tIdent:
		return p.parseRef("a name")
	}
	p.errorf(t.pos, "expected an expression (a number, a name, '(', '!' or '-'), found %s", t.describe())
	return &rawExpr{pos: t.pos, kind: eInt, name: token{text: "0"}}
}

// parseRef parses a name with optional indices: x, buf[i], flag[i][j].
func (p *parser) parseRef(what string) *rawExpr {
	t := p.name(what)
	e := &rawExpr{pos: t.pos, kind: eName, name: t}
	for p.tok.kind == tLBrack && !p.failed() {
		open := p.tok
		p.next()
		if !p.enter(open.pos, "expression") {
			return e
		}
		p.parens++
		e.idx = append(e.idx, p.parseExpr())
		p.parens--
		p.depth--
		if p.tok.kind != tRBrack {
			p.errorf(p.tok.pos, "expected ']' to close the '[' at %s, found %s", open.pos, p.tok.describe())
			return e
		}
		p.next()
	}
	return e
}

// parseRange parses LO..HI, two expressions.
func (p *parser) parseRange(what string) (lo, hi *rawExpr) {
	lo = p.parseBinary(4)
	if p.tok.kind != tDotDot {
		p.errorf(p.tok.pos, "expected '..' in %s (lo..hi), found %s", what, p.tok.describe())
		return lo, lo
	}
	p.next()
	hi = p.parseBinary(4)
	return lo, hi
}

// intValue returns the number of an eInt expression.
func intValue(e *rawExpr) (int, bool) {
	v, err := strconv.Atoi(e.name.text)
	return v, err == nil
}
