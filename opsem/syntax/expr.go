package syntax

import (
	"strconv"
	"strings"

	"rdmasim/opsem/prog"
)

// Expr is an expression of the protocol language: a number, a name (a
// register, a constant, a location, a node), a name with indices (an array
// element, a family member), or an operator applied to operands.
type Expr struct {
	Pos  prog.Pos
	Kind ExprKind
	Name Token   // ExprInt (its text), ExprName
	Idx  []*Expr // ExprName: the indices, outermost first
	Op   Tok     // ExprUnary, ExprBinary: the operator token
	L, R *Expr
}

// ExprKind says which expression an Expr is: a number, a truth value, a
// name (with indices or not), or an operator with one operand or two.
type ExprKind uint8

const (
	ExprInt ExprKind = iota
	ExprBool
	ExprName
	ExprUnary
	ExprBinary
)

// String prints e in the protocol language, parenthesised where it matters.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b, 0)
	return b.String()
}

// precedence of binary operators: larger binds tighter.
func precedence(op Tok) int {
	switch op {
	case TokOrOr:
		return 1
	case TokAndAnd:
		return 2
	case TokEqEq, TokNe, TokLt, TokLe, TokGt, TokGe:
		return 3
	case TokPlus, TokMinus:
		return 4
	case TokStar, TokSlash, TokPercent:
		return 5
	}
	return 0
}

var opText = map[Tok]string{TokOrOr: "||", TokAndAnd: "&&", TokEqEq: "==", TokNe: "!=", TokLt: "<", TokLe: "<=",
	TokGt: ">", TokGe: ">=", TokPlus: "+", TokMinus: "-", TokStar: "*", TokSlash: "/", TokPercent: "%", TokBang: "!"}

func (e *Expr) write(b *strings.Builder, outer int) {
	switch e.Kind {
	case ExprInt, ExprBool:
		b.WriteString(e.Name.Text)
	case ExprName:
		b.WriteString(e.Name.Text)
		for _, i := range e.Idx {
			b.WriteByte('[')
			i.write(b, 0)
			b.WriteByte(']')
		}
	case ExprUnary:
		b.WriteString(opText[e.Op])
		e.L.write(b, 6)
	case ExprBinary:
		p := precedence(e.Op)
		if p <= outer {
			b.WriteByte('(')
		}
		e.L.write(b, p-1)
		b.WriteString(" " + opText[e.Op] + " ")
		e.R.write(b, p)
		if p <= outer {
			b.WriteByte(')')
		}
	}
}

// simple reports whether e is a plain name (no indices).
func (e *Expr) SimpleName() bool { return e != nil && e.Kind == ExprName && len(e.Idx) == 0 }

// isInt reports whether e is a number literal.
func (e *Expr) isInt() bool { return e != nil && e.Kind == ExprInt }

// parseExpr parses an expression: C's operators on numbers and truth values
// (|| && == != < <= > >= + - * / % ! and unary -), with C's precedence.
func (p *parser) parseExpr() *Expr { return p.parseBinary(1) }

func (p *parser) parseBinary(min int) *Expr {
	l := p.parseUnaryExpr()
	for !p.failed() {
		op := p.tok
		prec := precedence(op.Kind)
		if op.Kind == TokEq && min <= 3 {
			p.errorf(op.Pos, "expressions compare with '==', not '='")
			return l
		}
		if prec < min || prec == 0 {
			return l
		}
		p.next()
		if !p.enter(op.Pos, "expression") {
			return l
		}
		r := p.parseBinary(prec + 1)
		p.depth--
		l = &Expr{Pos: op.Pos, Kind: ExprBinary, Op: op.Kind, L: l, R: r}
		if prec == 3 && precedence(p.tok.Kind) == 3 {
			p.errorf(p.tok.Pos, "comparisons do not chain: write (a %s b) && (b %s c)", opText[op.Kind], opText[p.tok.Kind])
		}
	}
	return l
}

func (p *parser) parseUnaryExpr() *Expr {
	t := p.tok
	switch t.Kind {
	case TokBang, TokMinus:
		if !p.enter(t.Pos, "expression") {
			return &Expr{Pos: t.Pos, Kind: ExprInt, Name: Token{Text: "0"}}
		}
		p.next()
		e := &Expr{Pos: t.Pos, Kind: ExprUnary, Op: t.Kind, L: p.parseUnaryExpr()}
		p.depth--
		return e
	case TokLParen:
		if !p.enter(t.Pos, "expression") {
			return &Expr{Pos: t.Pos, Kind: ExprInt, Name: Token{Text: "0"}}
		}
		p.parens++
		p.next()
		e := p.parseExpr()
		p.parens--
		p.depth--
		if p.tok.Kind != TokRParen {
			p.errorf(p.tok.Pos, "expected ')' to close the '(' at %s, found %s", t.Pos, p.tok.describe())
			return e
		}
		p.next()
		return e
	case TokInt:
		p.next()
		return &Expr{Pos: t.Pos, Kind: ExprInt, Name: t}
	case TokKeyword:
		if t.Text == "true" || t.Text == "false" {
			p.next()
			return &Expr{Pos: t.Pos, Kind: ExprBool, Name: t}
		}
	case TokIdent:
		return p.parseRef("a name")
	}
	p.errorf(t.Pos, "expected an expression (a number, a name, '(', '!' or '-'), found %s", t.describe())
	return &Expr{Pos: t.Pos, Kind: ExprInt, Name: Token{Text: "0"}}
}

// parseRef parses a name with optional indices: x, buf[i], flag[i][j].
func (p *parser) parseRef(what string) *Expr {
	t := p.name(what)
	e := &Expr{Pos: t.Pos, Kind: ExprName, Name: t}
	for p.tok.Kind == TokLBrack && !p.failed() {
		open := p.tok
		p.next()
		if !p.enter(open.Pos, "expression") {
			return e
		}
		p.parens++
		e.Idx = append(e.Idx, p.parseExpr())
		p.parens--
		p.depth--
		if p.tok.Kind != TokRBrack {
			p.errorf(p.tok.Pos, "expected ']' to close the '[' at %s, found %s", open.Pos, p.tok.describe())
			return e
		}
		p.next()
	}
	return e
}

// parseWordRef parses a location reference whose last index may be a word
// range, `buf[i][lo..hi]` (SEMANTICS-VERBS.md 1): it returns the reference
// to the first word (its last index lo) and hi, or nil for a plain
// reference.
func (p *parser) parseWordRef(what string) (*Expr, *Expr) {
	t := p.name(what)
	e := &Expr{Pos: t.Pos, Kind: ExprName, Name: t}
	var hi *Expr
	for p.tok.Kind == TokLBrack && !p.failed() {
		open := p.tok
		if hi != nil {
			p.errorf(open.Pos, "a word range %s[..] is the last index", e.Name.Text)
			return e, hi
		}
		p.next()
		if !p.enter(open.Pos, "expression") {
			return e, hi
		}
		p.parens++
		e.Idx = append(e.Idx, p.parseExpr())
		if p.tok.Kind == TokDotDot {
			p.next()
			hi = p.parseExpr()
		}
		p.parens--
		p.depth--
		if p.tok.Kind != TokRBrack {
			p.errorf(p.tok.Pos, "expected ']' to close the '[' at %s, found %s", open.Pos, p.tok.describe())
			return e, hi
		}
		p.next()
	}
	return e, hi
}

// parseRange parses LO..HI, two expressions.
func (p *parser) parseRange(what string) (lo, hi *Expr) {
	lo = p.parseBinary(4)
	if p.tok.Kind != TokDotDot {
		p.errorf(p.tok.Pos, "expected '..' in %s (lo..hi), found %s", what, p.tok.describe())
		return lo, lo
	}
	p.next()
	hi = p.parseBinary(4)
	return lo, hi
}

// IntValue returns the number of an ExprInt expression.
func IntValue(e *Expr) (int, bool) {
	v, err := strconv.Atoi(e.Name.Text)
	return v, err == nil
}
