package prog

import (
	"fmt"
	"testing"
)

func TestExprEval(t *testing.T) {
	c := func(v int64) Term { return Term{Kind: TConst, Val: v} }
	l := func(v int64) Term { return Term{Kind: TLoc, Val: v} }
	op := func(k TermKind) Term { return Term{Kind: k} }
	mem := []byte{3, 7, 0}
	name := func(l int) string { return fmt.Sprintf("r%d", l) }
	for _, tc := range []struct {
		e    Expr
		want int64
		ok   bool
		text string
	}{
		{Expr{c(4)}, 4, true, "4"},
		{Expr{l(1), c(1), op(TAdd)}, 8, true, "r1 + 1"},
		{Expr{l(0), l(1), op(TSub), c(2), op(TMul)}, -8, true, "(r0 - r1) * 2"},
		{Expr{l(0), l(1), c(2), op(TMul), op(TSub)}, -11, true, "r0 - r1 * 2"},
		{Expr{l(0), l(1), c(2), op(TSub), op(TSub)}, -2, true, "r0 - (r1 - 2)"},
		{Expr{l(1), l(0), op(TDiv)}, 2, true, "r1 / r0"},
		{Expr{l(1), l(0), op(TMod)}, 1, true, "r1 % r0"},
		{Expr{c(-7), c(2), op(TMod)}, -1, true, "-7 % 2"},
		{Expr{l(1), l(2), op(TDiv)}, 0, false, "r1 / r2"},
		{Expr{l(1), l(2), op(TMod)}, 0, false, "r1 % r2"},
		{Expr{l(0), c(3), op(TEq), l(1), c(7), op(TNe), op(TAnd)}, 0, true, "r0 == 3 && r1 != 7"},
		{Expr{l(0), c(3), op(TLt), l(1), c(7), op(TLe), op(TOr)}, 1, true, "r0 < 3 || r1 <= 7"},
		{Expr{l(2), op(TNot)}, 1, true, "!r2"},
		{Expr{l(0), l(1), op(TAdd), op(TNeg)}, -10, true, "-(r0 + r1)"},
		{Expr{l(0), c(3), op(TGe), l(1), c(8), op(TGt), op(TEq)}, 0, true, "(r0 >= 3) == (r1 > 8)"},
	} {
		if err := tc.e.Check(len(mem)); err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		got, ok := tc.e.Eval(mem)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s = %d, %v; want %d, %v", tc.text, got, ok, tc.want, tc.ok)
		}
		if s := tc.e.Format(name); s != tc.text {
			t.Errorf("Format = %q, want %q", s, tc.text)
		}
	}
}

func TestExprCheck(t *testing.T) {
	for _, e := range []Expr{
		{},
		{{Kind: TAdd}},
		{{Kind: TConst, Val: 1}, {Kind: TConst, Val: 2}},
		{{Kind: TLoc, Val: 5}},
		{{Kind: TConst}, {Kind: TOr + 1}},
	} {
		if e.Check(3) == nil {
			t.Errorf("%v: accepted", e)
		}
	}
}
