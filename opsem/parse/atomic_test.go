package parse

import (
	"strings"
	"testing"

	"rdmasim/opsem/prog"
)

// TestAtomics parses the remote atomics rcas and rfaa, in the core format
// and in the protocol language, and checks their statements, instructions
// and printing.
func TestAtomics(t *testing.T) {
	const nodes = "node n1 { x = 0; r = 0 }\nnode n2 { y = 0 }\n"
	cases := []struct {
		name, body string
		kind       prog.StmtKind
		op         prog.Op
		a, b       uint8
		printed    string
	}{
		{"rcas", "x := rcas(y, 1, 2)", prog.SRCAS, prog.OpRCAS, 1, 2, "x := rcas(y, 1, 2)"},
		{"rfaa", "x := rfaa(y, 255)", prog.SRFAA, prog.OpRFAA, 255, 0, "x := rfaa(y, 255)"},
		{"rcas with expressions", "reg k : 0..3 = 1\n  x := rcas(y, k + 1, 2 * k)", prog.SRCAS, prog.OpRCAS, 2, 2, ""},
		{"rfaa with a register", "reg k : 0..3 = 3\n  x := rfaa(y, k)", prog.SRFAA, prog.OpRFAA, 3, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, "t.rdma", nodes+"thread p on n1 {\n  "+tc.body+"\n}\n")
			var in *prog.Instr
			for i := range p.Threads[0].Code {
				if p.Threads[0].Code[i].Op.IsAtomic() {
					in = &p.Threads[0].Code[i]
				}
			}
			if in == nil {
				t.Fatalf("no atomic instruction in %v", p.Threads[0].Code)
			}
			want(t, "op", in.Op, tc.op)
			want(t, "kind", in.Stmt.Kind, tc.kind)
			want(t, "x", p.Locs[in.X].Name, "x")
			want(t, "y", p.Locs[in.Y].Name, "y")
			want(t, "a", in.A, tc.a)
			if tc.op == prog.OpRCAS {
				want(t, "b", in.B, tc.b)
			}
			want(t, "remote", p.Nodes[in.Remote].Name, "n2")
			if len(p.QPs) != 1 || in.QP != 0 {
				t.Errorf("queue pairs %v, instruction's %d: want the one towards n2", p.QPs, in.QP)
			}
			if tc.printed != "" {
				want(t, "printed", p.StmtString(in.Stmt), tc.printed)
				checkRoundTrip(t, "t.rdma", p)
			}
		})
	}
}

// TestAtomicErrors checks the errors of misused atomics, each at its
// position.
func TestAtomicErrors(t *testing.T) {
	const nodes = "node n1 { x = 0 }\nnode n2 { y = 0 }\n"
	cases := []struct{ name, body, err string }{
		{"local target", "x := rcas(x, 0, 1)", "t.rdma:3:28: rcas works on another node's memory"},
		{"remote result", "y := rfaa(y, 1)", "t.rdma:3:18: the old value of rfaa goes to the thread's own memory"},
		{"value out of range", "x := rfaa(y, 256)", "t.rdma:3:31: value 256 is out of range 0..255"},
		{"not a statement", "rcas(y, 0, 1)", "t.rdma:3:18: rcas is not a statement"},
		{"missing argument", "x := rcas(y, 0)", "t.rdma:3:32: expected ',' in rcas(y, expected, new)"},
		{"into a register", "reg k\n  k := rfaa(y, 1)", "t.rdma:4:3: rfaa writes the old value to a location"},
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
