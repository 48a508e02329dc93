package report

import (
	"errors"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// TestWords: counts, sizes and herd7's words.
func TestWords(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Count(0), "0"}, {Count(999), "999"}, {Count(4827), "4,827"}, {Count(1234567), "1,234,567"},
		{Plural(1, "step"), "1 step"}, {Plural(0, "state"), "0 states"}, {Plural(12000, "walk"), "12,000 walks"},
		{Bytes(100), "100 B"}, {Bytes(3 << 19), "1.5 MiB"}, {Bytes(2 << 30), "2.0 GiB"},
		{TestKind(prog.QExists), "Allowed"}, {TestKind(prog.QForall), "Required"}, {TestKind(prog.QNone), "Final"},
		{Observation(1, 1, false), "Sometimes"}, {Observation(0, 2, true), "Never"}, {Observation(2, 0, true), "Always"}, {Observation(0, 2, false), "Unknown"},
		{Holds(&verdict.Result{Query: prog.Query{Kind: prog.QExists}, Allowed: true}), "Ok"},
		{Holds(&verdict.Result{Query: prog.Query{Kind: prog.QNotExists}, Allowed: true}), "No"},
		{Holds(&verdict.Result{Query: prog.Query{Kind: prog.QExists}}), "Unknown"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestErrorText: a parse error lists every message with its place; any
// other error is rdmasim's.
func TestErrorText(t *testing.T) {
	_, err := parse.Parse("f.rdma", []byte("node A { x }\n"))
	if err == nil {
		t.Fatal("no parse error")
	}
	if got := ErrorText(err); got == "" || got[:7] != "f.rdma:" {
		t.Errorf("parse error: %q", got)
	}
	if got := ErrorText(errors.New("broken")); got != "rdmasim: broken" {
		t.Errorf("other error: %q", got)
	}
}

// TestOutcome: an outcome over the shown locations, or (final) over none.
func TestOutcome(t *testing.T) {
	p, err := parse.Parse("f.rdma", []byte("node A { x = 0; y = 0 }\nthread T0 on A { x := 1 }\nexists true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Outcome(p, []int{1, 0}, []uint8{2, 1}); got != "y=2; x=1;" {
		t.Errorf("Outcome = %q", got)
	}
	if got := Outcome(p, nil, nil); got != "(final)" {
		t.Errorf("Outcome over no location = %q", got)
	}
}
