package parse

import (
	"strings"
	"testing"

	"rdmasim/opsem/prog"
)

// TestUnsignaled parses the unsignaled mark (SEMANTICS-VERBS.md 2) on a
// put, a get, the remote atomics and a multi-word put, with and without
// fenced in either order, in the core format and in the protocol language,
// and checks the instruction's flags and the printing (fenced first).
func TestUnsignaled(t *testing.T) {
	const nodes = "node n1 { x = 0; x1 = 0; r = 0 }\nnode n2 { y = 0; y1 = 0 }\n"
	cases := []struct {
		name, body string
		op         prog.Op
		fenced     bool
		printed    string
	}{
		{"put", "y := x unsignaled", prog.OpPut, false, "y := x unsignaled"},
		{"get", "x := y unsignaled", prog.OpGet, false, "x := y unsignaled"},
		{"rcas", "x := rcas(y, 0, 1) unsignaled", prog.OpRCAS, false, "x := rcas(y, 0, 1) unsignaled"},
		{"rfaa", "x := rfaa(y, 2) unsignaled", prog.OpRFAA, false, "x := rfaa(y, 2) unsignaled"},
		{"fenced unsignaled", "y := x fenced unsignaled", prog.OpPut, true, "y := x fenced unsignaled"},
		{"unsignaled fenced", "x := y unsignaled fenced", prog.OpGet, true, "x := y fenced unsignaled"},
		{"multi-word put", "(y, y1) := (x, x1) unsignaled", prog.OpPut, false, "(y, y1) := (x, x1) unsignaled"},
		{"protocol put", "reg k : 0..1 = 0\n  y := x unsignaled\n  r := k + 1", prog.OpPut, false, ""},
		{"protocol get of an element", "for i in 0..0 { x := y unsignaled fenced }", prog.OpGet, true, ""},
		{"protocol rfaa", "reg k : 0..1 = 0\n  r := rfaa(y, 1) unsignaled\n  x := k + 1", prog.OpRFAA, false, ""},
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
			if !in.Unsignaled || !in.Stmt.Unsignaled || in.Fenced != tc.fenced {
				t.Errorf("instruction unsignaled %v (statement %v), fenced %v; want unsignaled, fenced %v", in.Unsignaled, in.Stmt.Unsignaled, in.Fenced, tc.fenced)
			}
			if s := prog.FirstVerbs(p); s == nil {
				t.Errorf("FirstVerbs does not find the mark")
			} else if f := prog.VerbsFeature(s); f != "unsignaled" && !(tc.fenced && f == "fenced") && !(strings.HasPrefix(tc.name, "multi") && f == "multi-word") {
				t.Errorf("VerbsFeature names %q", f)
			}
			if tc.printed != "" {
				want(t, "printed", p.StmtString(in.Stmt), tc.printed)
				checkRoundTrip(t, "t.rdma", p)
			}
		})
	}
	p := mustParse(t, "t.rdma", nodes+"thread p on n1 { y := x; x := y; poll(n2) }\n")
	for _, in := range p.Threads[0].Code {
		if in.Unsignaled {
			t.Errorf("%v is unsignaled without the mark", in.Op)
		}
	}
	if prog.FirstVerbs(p) != nil {
		t.Errorf("FirstVerbs finds a feature in a program without one")
	}
}

// TestUnsignaledErrors: unsignaled marks only a put, a get or a remote
// atomic, once; the spellings that are not the mark get a hint; each
// mistake reported at its position.
func TestUnsignaledErrors(t *testing.T) {
	const nodes = "node n1 { x = 0; z = 0 }\nnode n2 { y = 0 }\n"
	cases := []struct{ name, body, err string }{
		{"a constant write", "x := 1 unsignaled", "t.rdma:3:25: unsignaled marks a put, a get or a remote atomic"},
		{"a cas", "x := cas(z, 0, 1) unsignaled", "t.rdma:3:36: unsignaled marks a put, a get or a remote atomic"},
		{"protocol local copy", "reg k : 0..1 = 0\n  x := z unsignaled", "t.rdma:4:10: unsignaled marks a put, a get or a remote atomic"},
		{"protocol expression", "reg k : 0..1 = 0\n  x := k + 1 unsignaled", "t.rdma:4:14: unsignaled marks a put, a get or a remote atomic"},
		{"British", "y := x unsignalled", "t.rdma:3:25: unsignalled is not a mark: did you mean unsignaled?"},
		{"capitalised", "y := x Unsignaled", "t.rdma:3:25: Unsignaled is not a mark: did you mean unsignaled?"},
		{"signaled", "y := x signaled", "t.rdma:3:25: signaled is not a mark: operations are signalled unless marked"},
		{"the verbs flag", "y := x IBV_SEND_SIGNALED", "t.rdma:3:25: IBV_SEND_SIGNALED is not a mark"},
		{"twice", "y := x unsignaled unsignaled", "t.rdma:3:36: unsignaled is written once"},
		{"alone", "unsignaled", `t.rdma:3:18: expected a statement, found keyword "unsignaled"`},
		{"a location named unsignaled", "unsignaled := 1", `t.rdma:3:18: "unsignaled" is a keyword`},
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
