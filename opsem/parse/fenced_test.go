package parse

import (
	"strings"
	"testing"

	"rdmasim/opsem/prog"
)

// TestFenced parses the fenced mark (SEMANTICS-VERBS.md 4) on a put, a
// get and the remote atomics, in the core format and in the protocol
// language, and checks the instruction's flag and the printing.
func TestFenced(t *testing.T) {
	const nodes = "node n1 { x = 0; r = 0 }\nnode n2 { y = 0 }\n"
	cases := []struct {
		name, body string
		op         prog.Op
		printed    string
	}{
		{"put", "y := x fenced", prog.OpPut, "y := x fenced"},
		{"get", "x := y fenced", prog.OpGet, "x := y fenced"},
		{"rcas", "x := rcas(y, 0, 1) fenced", prog.OpRCAS, "x := rcas(y, 0, 1) fenced"},
		{"rfaa", "x := rfaa(y, 2) fenced", prog.OpRFAA, "x := rfaa(y, 2) fenced"},
		{"protocol put", "reg k : 0..1 = 0\n  y := x fenced\n  r := k + 1", prog.OpPut, ""},
		{"protocol get of an element", "for i in 0..0 { x := y fenced }", prog.OpGet, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, "t.rdma", nodes+"thread p on n1 {\n  "+tc.body+"\n}\n")
			var in *prog.Instr
			for i := range p.Threads[0].Code {
				if p.Threads[0].Code[i].Op == tc.op {
					in = &p.Threads[0].Code[i]
				}
			}
			if in == nil {
				t.Fatalf("no %v instruction in %v", tc.op, p.Threads[0].Code)
			}
			if !in.Fenced || !in.Stmt.Fenced {
				t.Errorf("instruction fenced %v, statement fenced %v, want both", in.Fenced, in.Stmt.Fenced)
			}
			if s := prog.FirstAnyVerbs(p); s == nil || prog.VerbsFeature(s) != "fenced" {
				t.Errorf("FirstAnyVerbs does not name fenced")
			}
			if tc.printed != "" {
				want(t, "printed", p.StmtString(in.Stmt), tc.printed)
				checkRoundTrip(t, "t.rdma", p)
			}
		})
	}
	// Unmarked operations stay unmarked.
	p := mustParse(t, "t.rdma", nodes+"thread p on n1 { y := x; x := y }\n")
	for _, in := range p.Threads[0].Code {
		if in.Fenced {
			t.Errorf("%v is fenced without the mark", in.Op)
		}
	}
}

// TestFencedErrors: fenced marks only a put, a get or a remote atomic, at
// the end of its statement; each misuse reported at its position.
func TestFencedErrors(t *testing.T) {
	const nodes = "node n1 { x = 0; z = 0 }\nnode n2 { y = 0 }\n"
	cases := []struct{ name, body, err string }{
		{"a constant write", "x := 1 fenced", "t.rdma:3:25: fenced marks a put, a get or a remote atomic"},
		{"a cas", "x := cas(z, 0, 1) fenced", "t.rdma:3:36: fenced marks a put, a get or a remote atomic"},
		{"protocol local copy", "reg k : 0..1 = 0\n  x := z fenced", "t.rdma:4:10: fenced marks a put, a get or a remote atomic"},
		{"protocol expression", "reg k : 0..1 = 0\n  x := k + 1 fenced", "t.rdma:4:14: fenced marks a put, a get or a remote atomic"},
		{"alone", "fenced", `t.rdma:3:18: expected a statement, found keyword "fenced"`},
		{"a location named fenced", "fenced := 1", `t.rdma:3:18: "fenced" is a keyword`},
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
