package parse

import (
	"strings"
	"testing"

	"rdmasim/opsem/prog"
)

// TestWords parses multi-word puts and gets (SEMANTICS-VERBS.md 1): the
// core format's word lists and the protocol language's word ranges, one
// instruction each with its words, printed back as written (the core form
// parses back to the same program).
func TestWords(t *testing.T) {
	cases := []struct {
		name, nodes, body string
		op                prog.Op
		words             int
		printed           string
		fenced            bool
	}{
		{"core put", "node A { x0 = 1; x1 = 2 }\nnode B { y0 = 0; y1 = 0 }\n", "(y0, y1) := (x0, x1)", prog.OpPut, 2, "(y0, y1) := (x0, x1)", false},
		{"core get", "node A { x0 = 1; x1 = 2; x2 = 0 }\nnode B { y0 = 0; y1 = 0; y2 = 0 }\n", "(x0, x1, x2) := (y0, y1, y2)", prog.OpGet, 3, "(x0, x1, x2) := (y0, y1, y2)", false},
		{"core fenced", "node A { x0 = 1; x1 = 2 }\nnode B { y0 = 0; y1 = 0 }\n", "(y0, y1) := (x0, x1) fenced", prog.OpPut, 2, "(y0, y1) := (x0, x1) fenced", true},
		{"protocol put", "node A { x[2] = 1 }\nnode B { y[2] = 0 }\n", "y[0..1] := x[0..1]", prog.OpPut, 2, "y[0..1] := x[0..1]", false},
		{"word list in a protocol", "param N = 1\nnode A { x0 = 1; x1 = 2 }\nnode B { y0 = 0; y1 = 0 }\n", "(x0, x1) := (y0, y1) fenced", prog.OpGet, 2, "(x0, x1) := (y0, y1) fenced", true},
		{"protocol get of a middle", "param N = 4\nnode A { x[N] = 1 }\nnode B { y[N] = 0 }\n", "x[1..N-1] := y[1..3]", prog.OpGet, 3, "x[1..3] := y[1..3]", false},
		{"protocol in a for", "node A { x[4] = 1 }\nnode B { y[4] = 0 }\n", "for k in 1..1 { y[2..3] := x[k..k+1] }", prog.OpPut, 2, "y[2..3] := x[1..2]", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, "t.rdma", tc.nodes+"thread p on A {\n  "+tc.body+"\n}\n")
			var in *prog.Instr
			for i := range p.Threads[0].Code {
				if p.Threads[0].Code[i].Op == tc.op {
					in = &p.Threads[0].Code[i]
				}
			}
			if in == nil {
				t.Fatalf("no %v instruction in %v", tc.op, p.Threads[0].Code)
			}
			if in.Words != tc.words || in.Stmt.Words != tc.words || in.Fenced != tc.fenced {
				t.Errorf("words %d (statement %d), fenced %v; want %d, %v", in.Words, in.Stmt.Words, in.Fenced, tc.words, tc.fenced)
			}
			for i := 1; i < in.Words; i++ {
				if p.Locs[in.X+i].Node != p.Locs[in.X].Node || p.Locs[in.Y+i].Node != p.Locs[in.Y].Node {
					t.Errorf("word %d is on another node", i)
				}
			}
			want(t, "printed", p.StmtString(in.Stmt), tc.printed)
			if strings.HasPrefix(tc.name, "core") {
				checkRoundTrip(t, "t.rdma", p)
			}
			if s := prog.FirstAnyVerbs(p); s == nil || prog.VerbsFeature(s) != "multi-word" {
				t.Errorf("FirstAnyVerbs does not name the feature")
			}
		})
	}
}

// TestWordsErrors: each misuse of a word list or range is an error at its
// position.
func TestWordsErrors(t *testing.T) {
	const core = "node A { x0 = 1; x1 = 2; x2 = 0; z = 0 }\nnode B { y0 = 0; y1 = 0; y2 = 0; y3 = 0; y4 = 0 }\n"
	const arrays = "node A { x[4] = 1; z[2] = 0 }\nnode B { y[4] = 0 }\n"
	cases := []struct{ name, nodes, body, err string }{
		{"not consecutive", core, "(y0, y1) := (x1, x0)", "t.rdma:3:34: x0 is not the location declared after x1 on node A"},
		{"across nodes", core, "(y0, y1) := (z, y0)", "t.rdma:3:33: y0 is not the location declared after z on node A"},
		{"one word", core, "(y0) := (x0)", "t.rdma:3:17: (y0) names one word"},
		{"counts differ", core, "(y0, y1, y2) := (x0, x1)", "t.rdma:3:17: 3 words := 2 words"},
		{"too many", core, "(y0, y1, y2, y3, y4) := (x0, x1, x2, z, x0)", "t.rdma:3:17: 5 words: a multi-word put or get moves 2 to 4"},
		{"two local sides", core, "(x0, x1) := (x1, x2)", "t.rdma:3:17: x0 := x1 copies between two locations of A"},
		{"one word on the right", core, "(y0, y1) := x0", "t.rdma:3:29: expected a list of words (x0, x1) after ':='"},
		{"range from a word", arrays, "y[0..1] := x[0]", "t.rdma:3:28: y[..] := x[0]: a word range is copied from a word range"},
		{"ranges differ", arrays, "y[0..2] := x[0..1]", "t.rdma:3:17: y[..2] := x[..1]: 3 words from 2"},
		{"range of one", arrays, "y[1..1] := x[1..1]", "t.rdma:3:19: the word range y[1..1] has 1 words"},
		{"local range", arrays, "z[0..1] := x[0..1]", "t.rdma:3:17: z[0..1] := x[0..1] copies words with one work request"},
		{"register bound", arrays, "reg k : 0..3 = 1\n  y[0..k] := x[0..1]", "t.rdma:4:8: the word range y[..k] ends at a register, k"},
		{"list in a protocol, not consecutive", "param N = 1\n" + core, "(y0, y1) := (x1, x0)", "t.rdma:4:34: x0 is not the location declared after x1 on node A"},
		{"range in an expression", arrays, "reg k : 0..3 = 1\n  k := x[0..1]", "t.rdma:4:11: expected ']' to close the '[' at 4:9, found '..'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.rdma", []byte(tc.nodes+"thread p on A { "+tc.body+" }\n"))
			if err == nil {
				t.Fatalf("parsed, want an error starting %q", tc.err)
			}
			if !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("error\n got: %s\nwant: %s...", err, tc.err)
			}
		})
	}
}
