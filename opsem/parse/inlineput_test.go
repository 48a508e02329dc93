package parse

import (
	"strings"
	"testing"

	"rdmasim/opsem/prog"
)

// TestInline parses the inline mark (SEMANTICS-VERBS.md 5) on puts of one
// and two words, alone and with fenced in either order, in the core format
// and in the protocol language, and checks the flags and the printing.
func TestInline(t *testing.T) {
	const nodes = "node n1 { x = 0; x1 = 0; r = 0 }\nnode n2 { y = 0; y1 = 0 }\n"
	cases := []struct {
		name, body string
		fenced     bool
		words      int
		printed    string
	}{
		{"put", "y := x inline", false, 0, "y := x inline"},
		{"inline fenced", "y := x inline fenced", true, 0, "y := x inline fenced"},
		{"fenced inline", "y := x fenced inline", true, 0, "y := x inline fenced"},
		{"two words", "(y, y1) := (x, x1) inline", false, 2, "(y, y1) := (x, x1) inline"},
		{"protocol put", "reg k : 0..1 = 0\n  y := x inline\n  r := k + 1", false, 0, ""},
		{"protocol element", "for i in 0..0 { y := x inline }", false, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, "t.rdma", nodes+"thread p on n1 {\n  "+tc.body+"\n}\n")
			var in *prog.Instr
			for i := range p.Threads[0].Code {
				if p.Threads[0].Code[i].Op == prog.OpPut {
					in = &p.Threads[0].Code[i]
				}
			}
			if in == nil {
				t.Fatalf("no put in %v", p.Threads[0].Code)
			}
			if !in.Inline || !in.Stmt.Inline || in.Fenced != tc.fenced || max(in.Words, 1) != max(tc.words, 1) {
				t.Errorf("inline %v/%v, fenced %v, words %d; want inline, fenced %v, words %d", in.Inline, in.Stmt.Inline, in.Fenced, in.Words, tc.fenced, tc.words)
			}
			if s := prog.FirstVerbs(p); s == nil || (!tc.fenced && tc.words < 2 && prog.VerbsFeature(s) != "inline") {
				t.Errorf("FirstVerbs does not name inline")
			}
			if tc.printed != "" {
				want(t, "printed", p.StmtString(in.Stmt), tc.printed)
				checkRoundTrip(t, "t.rdma", p)
			}
		})
	}
	p := mustParse(t, "t.rdma", nodes+"thread p on n1 { y := x; x := y fenced }\n")
	for _, in := range p.Threads[0].Code {
		if in.Inline {
			t.Errorf("%v is inline without the mark", in.Op)
		}
	}
}

// TestInlineErrors: inline marks only a put; each misuse is reported at the
// mark's position, in the core format and the protocol language.
func TestInlineErrors(t *testing.T) {
	const nodes = "node n1 { x = 0; z = 0 }\nnode n2 { y = 0; y1 = 0 }\nnode n3 { w = 0 }\n"
	cases := []struct{ name, body, err string }{
		{"a get", "x := y inline", "t.rdma:4:25: inline marks a put (its source is copied when the work request is posted, IBV_SEND_INLINE), not x := y"},
		{"a fenced get", "x := y fenced inline", "t.rdma:4:32: inline marks a put"},
		{"an rcas", "x := rcas(y, 0, 1) inline", "t.rdma:4:37: inline marks a put"},
		{"an rfaa", "x := rfaa(y, 1) inline", "t.rdma:4:34: inline marks a put"},
		{"a constant write", "x := 1 inline", "t.rdma:4:25: inline marks a put"},
		{"a cas", "x := cas(z, 0, 1) inline", "t.rdma:4:36: inline marks a put"},
		{"a two-word get", "(x, z) := (y, y1) inline", "t.rdma:4:36: inline marks a put"},
		{"protocol get", "reg k : 0..1 = 0\n  x := y inline", "t.rdma:5:10: inline marks a put (its source is copied when the work request is posted, IBV_SEND_INLINE), not the get x := y"},
		{"protocol local copy", "reg k : 0..1 = 0\n  x := z inline", "t.rdma:5:10: inline marks a put (its source is copied when the work request is posted, IBV_SEND_INLINE), not the local copy x := z"},
		{"protocol expression", "reg k : 0..1 = 0\n  x := k + 1 inline", "t.rdma:5:14: inline marks a put"},
		{"protocol rfaa", "reg k : 0..1 = 0\n  x := rfaa(y, 1) inline", "t.rdma:5:19: inline marks a put"},
		{"alone", "inline", `t.rdma:4:18: expected a statement, found keyword "inline"`},
		{"twice", "y := x inline inline", `t.rdma:4:`},
		{"a location named inline", "inline := 1", `t.rdma:4:18: "inline" is a keyword`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.rdma", []byte(nodes+"thread p on n1 { "+tc.body+" }\n"))
			if err == nil {
				t.Fatalf("parsed, want an error starting %q", tc.err)
			}
			if !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("error\n got: %s\nwant: %s...", err, tc.err)
			}
		})
	}
}
