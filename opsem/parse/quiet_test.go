package parse

import (
	"strings"
	"testing"

	"rdmasim/opsem/prog"
)

// TestQuiet parses quiet (SEMANTICS-VERBS.md 6) in the core format and in
// the protocol language (inside a loop, an if on a register and a
// procedure), and checks its statement, its instruction (no queue pair, no
// node) and its printing.
func TestQuiet(t *testing.T) {
	const nodes = "node n1 { x = 0; r = 0 }\nnode n2 { y = 0 }\n"
	cases := []struct {
		name, src string
		quiets    int // OpQuiet instructions in the lowered code
	}{
		{"core", nodes + "thread p on n1 { y := x; quiet; r := 1 }\n", 1},
		{"core, first and last", nodes + "thread p on n1 { quiet; y := x; quiet }\n", 2},
		{"protocol, after an if", nodes + "thread p on n1 {\n  reg k : 0..1 = 1\n  if (k == 1) { y := x }\n  quiet\n  r := 1\n}\n", 1},
		{"protocol, in a for", nodes + "thread p on n1 {\n  for i in 0..1 { y := x; quiet }\n}\n", 2},
		{"protocol, in a procedure", nodes + "proc flush() { quiet }\nthread p on n1 {\n  y := x\n  flush()\n}\n", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, "t.rdma", tc.src)
			n := 0
			for _, in := range p.Threads[0].Code {
				if in.Op != prog.OpQuiet {
					continue
				}
				n++
				want(t, "kind", in.Stmt.Kind, prog.SQuiet)
				want(t, "queue pair", in.QP, -1)
				want(t, "remote", in.Remote, -1)
				want(t, "printed", p.StmtString(in.Stmt), "quiet")
			}
			if n != tc.quiets {
				t.Errorf("%d quiet instructions, want %d", n, tc.quiets)
			}
			if s := prog.FirstAnyVerbs(p); s == nil || prog.VerbsFeature(s) != "quiet" {
				t.Errorf("FirstAnyVerbs does not name quiet")
			}
			if strings.HasPrefix(tc.name, "core") {
				checkRoundTrip(t, "t.rdma", p)
			}
		})
	}
}

// TestQuietErrors: quiet takes no operand and is a keyword, each misuse
// reported at its position.
func TestQuietErrors(t *testing.T) {
	const nodes = "node n1 { x = 0 }\nnode n2 { y = 0 }\n"
	cases := []struct{ name, body, err string }{
		{"a node", "quiet(n2)", "t.rdma:3:23: quiet takes no node: it waits for every queue pair of the thread"},
		{"a location named quiet", "quiet := 1", `t.rdma:3:18: "quiet" is a keyword`},
		{"a synonym", "shmem_quiet()", "t.rdma:3:18: unknown statement shmem_quiet"},
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
