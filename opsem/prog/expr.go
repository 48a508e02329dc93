package prog

import (
	"fmt"
	"strconv"
	"strings"
)

// An Expr is an expression over constants and register locations, in
// postfix order: the run-time registers' arithmetic (see
// docs/DESIGN-PROTOCOLS.md, "registers at run time"). It reads registers
// only, so evaluating it makes no event and its && and || need not skip
// their right side.
type Expr []Term

// A Term is one step of an Expr: a constant or a register pushed on the
// stack, or an operator applied to the top one or two values.
type Term struct {
	Kind TermKind
	Val  int64 // TConst: the constant; TLoc: the register location
}

// TermKind says what a Term does.
type TermKind uint8

// Term kinds. The binary operators take the second value from the top as
// their left operand; comparisons and the logical operators give 0 or 1.
const (
	TConst TermKind = iota // push Val
	TLoc                   // push the value of location Val
	TNeg                   // -a
	TNot                   // !a
	TAdd                   // a + b
	TSub                   // a - b
	TMul                   // a * b
	TDiv                   // a / b, truncated; fails when b = 0
	TMod                   // a % b, with a's sign; fails when b = 0
	TEq                    // a == b
	TNe                    // a != b
	TLt                    // a < b
	TLe                    // a <= b
	TGt                    // a > b
	TGe                    // a >= b
	TAnd                   // a && b
	TOr                    // a || b
)

var termOps = [...]string{TNeg: "-", TNot: "!", TAdd: "+", TSub: "-", TMul: "*", TDiv: "/", TMod: "%",
	TEq: "==", TNe: "!=", TLt: "<", TLe: "<=", TGt: ">", TGe: ">=", TAnd: "&&", TOr: "||"}

// arity returns how many values k takes from the stack.
func (k TermKind) arity() int {
	switch k {
	case TConst, TLoc:
		return 0
	case TNeg, TNot:
		return 1
	}
	return 2
}

// Eval returns the value of e in memory mem (indexed by location); ok is
// false when it divides by zero or multiplies an operand past 2^20 (the
// lowering's "a product too large").
func (e Expr) Eval(mem []byte) (v int64, ok bool) {
	var buf [16]int64
	st := buf[:0]
	for _, t := range e {
		switch t.Kind {
		case TConst:
			st = append(st, t.Val)
			continue
		case TLoc:
			st = append(st, int64(mem[t.Val]))
			continue
		case TNeg:
			st[len(st)-1] = -st[len(st)-1]
			continue
		case TNot:
			st[len(st)-1] = b2i(st[len(st)-1] == 0)
			continue
		}
		a, b := st[len(st)-2], st[len(st)-1]
		st = st[:len(st)-1]
		var r int64
		switch t.Kind {
		case TAdd:
			r = a + b
		case TSub:
			r = a - b
		case TMul:
			if max(-a, a, -b, b) > mulLimit {
				return 0, false
			}
			r = a * b
		case TDiv, TMod:
			if b == 0 {
				return 0, false
			}
			if r = a / b; t.Kind == TMod {
				r = a % b
			}
		case TEq:
			r = b2i(a == b)
		case TNe:
			r = b2i(a != b)
		case TLt:
			r = b2i(a < b)
		case TLe:
			r = b2i(a <= b)
		case TGt:
			r = b2i(a > b)
		case TGe:
			r = b2i(a >= b)
		case TAnd:
			r = b2i(a != 0 && b != 0)
		case TOr:
			r = b2i(a != 0 || b != 0)
		}
		st[len(st)-1] = r
	}
	return st[0], true
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Check returns an error unless e is a well-formed expression (each
// operator finds its operands, one value is left) whose locations are
// below nlocs.
func (e Expr) Check(nlocs int) error {
	depth := 0
	for i, t := range e {
		if t.Kind > TOr {
			return fmt.Errorf("term %d: unknown kind %d", i, t.Kind)
		}
		if t.Kind == TLoc && (t.Val < 0 || t.Val >= int64(nlocs)) {
			return fmt.Errorf("term %d: location %d of %d", i, t.Val, nlocs)
		}
		n := t.Kind.arity()
		if depth < n {
			return fmt.Errorf("term %d: %s needs %d operands, %d on the stack", i, termOps[t.Kind], n, depth)
		}
		depth += 1 - n
	}
	if depth != 1 {
		return fmt.Errorf("%d values left, want 1", depth)
	}
	return nil
}

// Locs returns the locations e reads, in order of first use.
func (e Expr) Locs() []int {
	var out []int
	for _, t := range e {
		if t.Kind == TLoc && !containsInt(out, int(t.Val)) {
			out = append(out, int(t.Val))
		}
	}
	return out
}

func containsInt(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// Format returns e in infix notation, naming location l by name(l), with
// the parentheses the operators' precedence needs.
func (e Expr) Format(name func(int) string) string {
	type part struct {
		s    string
		prec int // of its outermost operator; 9 for an operand
	}
	var st []part
	for _, t := range e {
		switch t.Kind {
		case TConst:
			st = append(st, part{strconv.FormatInt(t.Val, 10), 9})
		case TLoc:
			st = append(st, part{name(int(t.Val)), 9})
		case TNeg, TNot:
			a := st[len(st)-1]
			if a.prec < 8 {
				a.s = "(" + a.s + ")"
			}
			st[len(st)-1] = part{termOps[t.Kind] + a.s, 8}
		default:
			p := precedence(t.Kind)
			a, b := st[len(st)-2], st[len(st)-1]
			st = st[:len(st)-1]
			// Left-associative: a right operand of equal precedence
			// needs parentheses; and comparisons do not chain in the
			// protocol language, so a comparison of comparisons gets
			// them too.
			cmp := func(q int) bool { return (p == 4 || p == 5) && (q == 4 || q == 5) }
			if a.prec < p || cmp(a.prec) {
				a.s = "(" + a.s + ")"
			}
			if b.prec <= p || cmp(b.prec) {
				b.s = "(" + b.s + ")"
			}
			st[len(st)-1] = part{a.s + " " + termOps[t.Kind] + " " + b.s, p}
		}
	}
	if len(st) != 1 {
		return "<" + strings.Repeat("?", len(st)) + ">"
	}
	return st[0].s
}

// precedence returns the binding strength of a binary operator, as in C.
func precedence(k TermKind) int {
	switch k {
	case TMul, TDiv, TMod:
		return 7
	case TAdd, TSub:
		return 6
	case TLt, TLe, TGt, TGe:
		return 5
	case TEq, TNe:
		return 4
	case TAnd:
		return 3
	}
	return 2 // TOr
}

// Local returns what the run-time register instruction in (OpLoad, OpEval,
// OpIf) does in memory mem: the instruction that follows (in.Fail when its
// expression divides by zero or its value leaves in.Lo..in.Hi; the lowering
// leaves Fail -1 only where that cannot happen), and, when
// write, the value v it stores at in.X. The machines share it, so that the
// byte-level step and the structured one cannot differ.
func (in *Instr) Local(mem []byte) (next int, v uint8, write bool) {
	// (An OpLoad that Blocked reports on returns next -1: its caller
	// must not take it.)
	switch in.Op {
	case OpLoad:
		x := mem[in.Y]
		if x < in.Lo || x > in.Hi {
			return in.Fail, 0, false
		}
		return in.Next, x, true
	case OpEval:
		x, ok := in.E.Eval(mem)
		if !ok || x < int64(in.Lo) || x > int64(in.Hi) {
			return in.Fail, 0, false
		}
		return in.Next, uint8(x), true
	case OpIf:
		x, ok := in.E.Eval(mem)
		switch {
		case !ok:
			return in.Fail, 0, false
		case x != 0:
			return in.Alts[0], 0, false
		}
		return in.Alts[1], 0, false
	}
	panic(fmt.Sprintf("prog: Local of %v", in.Op))
}

// Blocked reports whether in, an OpLoad without an error point (Fail -1),
// cannot step in mem: the value of its location lies outside its Lo..Hi.
// The lowering gives a load no error point when no run can bring such a
// value, which holds as long as the program's range checks stop a run at
// a write out of a location's range; robustness drops them
// (WithoutRangeChecks), and a NIC write may then bring one. The load then
// blocks, as the specialised lowering's switch over the location's range
// has no alternative for the value: the run is filtered out there.
func (in *Instr) Blocked(mem []byte) bool {
	if in.Op != OpLoad || in.Fail >= 0 {
		return false
	}
	x := mem[in.Y]
	return x < in.Lo || x > in.Hi
}

// Interval returns bounds lo..hi of the values e can take when each
// location l it reads holds a value in rng(l), and whether it may multiply
// past 2^20 (which Eval refuses, as the lowering does) or divide by zero.
// The bounds are safe, not tight: they tell where an OpEval cannot fail.
func (e Expr) Interval(rng func(l int) (lo, hi int64)) (lo, hi int64, mulFails, divFails bool) {
	type iv struct{ lo, hi int64 }
	var st []iv
	for _, t := range e {
		switch t.Kind {
		case TConst:
			st = append(st, iv{t.Val, t.Val})
			continue
		case TLoc:
			l, h := rng(int(t.Val))
			st = append(st, iv{l, h})
			continue
		case TNeg:
			a := st[len(st)-1]
			st[len(st)-1] = iv{-a.hi, -a.lo}
			continue
		case TNot:
			st[len(st)-1] = iv{0, 1}
			continue
		}
		a, b := st[len(st)-2], st[len(st)-1]
		st = st[:len(st)-1]
		var r iv
		switch t.Kind {
		case TAdd:
			r = iv{a.lo + b.lo, a.hi + b.hi}
		case TSub:
			r = iv{a.lo - b.hi, a.hi - b.lo}
		case TMul:
			if max(-a.lo, a.hi, -b.lo, b.hi) > mulLimit {
				mulFails = true
			}
			ps := []int64{a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}
			r = iv{min(ps[0], ps[1], ps[2], ps[3]), max(ps[0], ps[1], ps[2], ps[3])}
		case TDiv, TMod:
			if b.lo <= 0 && b.hi >= 0 {
				divFails = true
			}
			m := max(-a.lo, a.hi)
			r = iv{-m, m}
		default: // comparisons and logic
			r = iv{0, 1}
		}
		st[len(st)-1] = r
	}
	return st[0].lo, st[0].hi, mulFails, divFails
}

// mulLimit bounds the operands of a product, as the lowering's constant
// folding does ("a product too large").
const mulLimit = 1 << 20
