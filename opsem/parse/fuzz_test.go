package parse

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"rdmasim/opsem/prog"
)

// fuzzSeeds are inputs worth mutating, among them those of the bugs fixed
// while writing these tests (the fuzzer found none of its own in its first
// runs; TestGood and TestNestingLimit hold the regressions that need another
// file name or megabytes of input).
var fuzzSeeds = []string{
	// The free-form name stopped only at '#', not at '//': "a//b" was one
	// name, although '//' starts a comment everywhere else.
	"litmus a//b\n",
	"litmus //x\n",
	// Names with odd bytes are words, and must print back as they were.
	"litmus \x00\v\f\"\n",
	"litmus {}()\n\"\\\\\\\"\"\n",
	// Deep nesting used to overflow the stack (with megabytes of it).
	"exists ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~(((((((((((((((x = 1)))))))))))))))",
	"node n { x }\nthread p on n { loop { loop { loop { choose { loop { } } or { } } } } }",
	// Lookahead across a lexical error.
	"node n { x }\nthread p on n { x$ }",
	"node n { x }\nthread p on n { choose { } or { }\n$ }",
	"node n { x }\nthread p on n { L:\n\n$ }",
	// Conditions of every shape.
	"node n { x }\nthread p on n { L: skip }\nreach ~(p@L \\/ ~p@end) /\\ (x != 0 \\/ true) /\\ ~~x == 3",
	"",
	"\r\n;;\n",
}

var errorRE = regexp.MustCompile(`^t\.rdma:(\d+):(\d+): \S`)

func FuzzParse(f *testing.F) {
	for _, file := range corpusFiles(f) {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, tc := range goodCases {
		f.Add([]byte(tc.src))
	}
	for _, tc := range badCases {
		if len(tc.src) <= 2000 { // the limit tests are large and slow to mutate
			f.Add([]byte(tc.src))
		}
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for _, s := range surfaceSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}

// checkParse is the property of FuzzParse: Parse never panics; a failure is
// an ErrorList of well-formed messages at positions inside the input; a
// program prints to text that parses to an equal program and prints the
// same.
func checkParse(t *testing.T, src []byte) {
	p, err := Parse("t.rdma", src)
	if err != nil {
		if p != nil {
			t.Errorf("a program came back with the error %v", err)
		}
		l, ok := err.(ErrorList)
		if !ok || len(l) == 0 {
			t.Fatalf("error %v is a %T, want a non-empty ErrorList", err, err)
		}
		if !errorRE.MatchString(l.Error()) {
			t.Fatalf("error %q is not file:line:col: message", l.Error())
		}
		lines := bytes.Split(src, []byte("\n"))
		for _, e := range l {
			msg := e.Error()
			if !errorRE.MatchString(msg) || strings.ContainsAny(e.Msg, "\n\r") || !utf8.ValidString(e.Msg) {
				t.Errorf("badly formed error %q", msg)
			}
			if e.Pos.Line < 1 || e.Pos.Line > len(lines) || e.Pos.Col < 1 || e.Pos.Col > len(lines[e.Pos.Line-1])+1 {
				t.Errorf("error %q lies outside the input", msg)
			}
		}
		return
	}
	if lowered(p) {
		// A protocol: its threads have no statement trees to print. Its
		// lowering is a function of the input (parsing again gives an
		// equal program), and its graph prints.
		q, err := Parse("t.rdma", src)
		if err != nil {
			t.Fatalf("second parse fails: %v", err)
		}
		if d := diffPrograms(p, q); len(d) > 0 {
			t.Fatalf("a second lowering differs:\n  %s\ninput:\n%q", strings.Join(d, "\n  "), src)
		}
		_ = p.CodeString()
		return
	}
	text := p.String()
	q, err := Parse("t.rdma", []byte(text))
	if err != nil {
		t.Fatalf("printed program does not parse: %v\ninput:\n%q\nprinted:\n%s", err, src, text)
	}
	if again := q.String(); again != text {
		t.Fatalf("print is not a fixpoint:\nfirst:\n%s\nsecond:\n%s", text, again)
	}
	if d := diffPrograms(p, q); len(d) > 0 {
		t.Fatalf("reparsed program differs:\n  %s\ninput:\n%q\nprinted:\n%s", strings.Join(d, "\n  "), src, text)
	}
}

// FuzzParseGenerated checks the property of FuzzParse on programs built from
// the fuzzer's bytes by a generator that knows the grammar, so that most
// inputs get past the syntax into the resolver, the compiler and the
// printer. The generator makes mistakes on purpose (names that collide or
// are undeclared, wrong ownership, bad values), at a low rate.
func FuzzParseGenerated(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz"))
	f.Add(bytes.Repeat([]byte{7, 200, 13, 42, 99, 1, 0, 255}, 16))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{data: data}
		checkParse(t, []byte(g.program()))
	})
}

// gen writes a random .rdma program, drawing its choices from data. The
// mistakes it makes on purpose are the rare choices, never the choices of
// used-up data (which all read as 0).
type gen struct {
	data    []byte
	off     int
	b       strings.Builder
	locs    []string
	locNode []int // node of each location
	nodes   []string
	cur     int // node of the thread being written
	depth   int
}

// n returns a number in 0..k-1 (0 when the data is used up).
func (g *gen) n(k int) int {
	if g.off >= len(g.data) || k <= 1 {
		return 0
	}
	c := int(g.data[g.off])
	g.off++
	return c % k
}

// rare reports true once in 64 choices.
func (g *gen) rare() bool { return g.n(64) == 63 }

func (g *gen) pick(s ...string) string { return s[g.n(len(s))] }

func (g *gen) w(s ...string) {
	for _, x := range s {
		g.b.WriteString(x)
	}
}

// sep writes a statement separator, sometimes with a comment.
func (g *gen) sep() {
	g.w(g.pick("\n", "; ", "\n  ", " # c\n", " // c\n", ";\n\n", "\r\n"))
}

func (g *gen) value() string {
	if g.rare() {
		return "256"
	}
	return g.pick("0", "1", "2", "255", "0", "1", "007")
}

// loc returns a location: of the current thread's node when local, of
// another node otherwise, and now and then anything or an undeclared one.
func (g *gen) loc(local bool) string {
	if g.rare() {
		return g.pick("x", "y", "q")
	}
	var cands []string
	for i, l := range g.locs {
		if (g.locNode[i] == g.cur) == local || g.rare() {
			cands = append(cands, l)
		}
	}
	if len(cands) == 0 {
		cands = g.locs
	}
	if len(cands) == 0 {
		return "x"
	}
	return cands[g.n(len(cands))]
}

// node returns a node other than the current thread's, usually.
func (g *gen) node() string {
	if g.rare() {
		return g.pick("n0", "zz")
	}
	if len(g.nodes) > 1 {
		i := g.n(len(g.nodes) - 1)
		if i >= g.cur {
			i++
		}
		return g.nodes[i]
	}
	return g.nodes[0]
}

func (g *gen) program() string {
	if g.n(2) == 0 {
		g.w("litmus ", g.pick("t", "a-b.1", "x//c", `we"ird{}`, "\x01"), "\n")
	}
	if g.n(3) == 0 {
		g.w(`"`, g.pick("doc", `a \" b`, `\\`, "", "é"), "\"\n")
	}
	nn := 2 + g.n(3)
	for i := 0; i < nn; i++ {
		name := fmt.Sprintf("n%d", i)
		if g.rare() {
			name = "n0"
		}
		g.nodes = append(g.nodes, name)
		g.w("node ", name, " {")
		for k := 1 + g.n(4); k > 0; k-- {
			l := fmt.Sprintf("%c%d", 'a'+i, len(g.locs))
			if g.rare() && len(g.locs) > 0 {
				l = g.locs[0]
			}
			g.locs = append(g.locs, l)
			g.locNode = append(g.locNode, i)
			g.w(" ", l)
			if g.n(2) == 0 {
				g.w(" = ", g.value())
			}
			g.w(g.pick(";", "\n", ";"))
		}
		g.w(" }")
		g.sep()
	}
	var threads []string
	var labels [][]string
	for i := 1 + g.n(3); i > 0; i-- {
		name := fmt.Sprintf("T%d", len(threads))
		threads = append(threads, name)
		g.cur = g.n(nn)
		node := g.nodes[g.cur]
		if g.rare() {
			node = "zz"
		}
		g.w("thread ", name, " on ", node, " {")
		g.sep()
		var ls []string
		g.block(&ls, 1+g.n(5))
		labels = append(labels, ls)
		g.w("}")
		g.sep()
	}
	query := true
	switch g.n(6) {
	case 0:
		query = false
	case 1:
		g.w("reach ")
		g.cond(threads, labels, 0)
		g.sep()
	default:
		g.w(g.pick("exists ", "~exists ", "forall "))
		g.cond(nil, nil, 0)
		g.sep()
	}
	for i, sem := range []string{"rdma", "sc", "robust"} {
		if g.n(2) == 0 && (query || i == 2 || g.rare()) {
			word := g.pick("allowed", "forbidden")
			if i == 2 {
				word = g.pick("yes", "no")
			}
			if g.rare() {
				word = g.pick("yes", "allowed")
			}
			g.w("expect ", sem, " ", word)
			g.sep()
		}
	}
	return g.b.String()
}

func (g *gen) block(labels *[]string, k int) {
	g.depth++
	defer func() { g.depth-- }()
	for ; k > 0; k-- {
		if g.n(4) == 3 {
			l := fmt.Sprintf("L%d", len(*labels))
			if g.rare() && len(*labels) > 0 {
				l = (*labels)[0]
			}
			*labels = append(*labels, l)
			g.w(l, ":", g.pick(" ", "\n"))
		}
		switch g.n(10) {
		case 0:
			g.w("skip")
		case 1:
			g.w(g.loc(true), " := ", g.value())
		case 2, 3:
			g.w(g.loc(true), " := ", g.loc(false))
		case 4:
			g.w("assume(", g.loc(true), g.pick(" == ", " != "), g.value(), ")")
		case 5:
			g.w(g.loc(true), " := cas(", g.loc(true), ", ", g.value(), ", ", g.value(), ")")
		case 6:
			g.w(g.pick("rfence(", "poll("), g.node(), ")")
		case 7:
			if g.depth < 4 {
				g.w("choose {")
				g.block(labels, g.n(3))
				for i := 1 + g.n(2); i > 0; i-- {
					g.w("}", g.pick(" or {", "\n or {"))
					g.block(labels, g.n(3))
				}
				g.w("}")
			} else {
				g.w("skip")
			}
		case 8:
			if g.depth < 4 {
				g.w("loop {")
				g.block(labels, g.n(3))
				g.w("}")
			} else {
				g.w("skip")
			}
		default:
			g.w(g.loc(false), " := ", g.loc(true))
		}
		g.sep()
	}
}

func (g *gen) cond(threads []string, labels [][]string, depth int) {
	k := g.n(8)
	if depth > 4 {
		k = 0
	}
	switch k {
	case 0, 1:
		op := g.pick(" = ", " != ")
		if g.rare() {
			op = " == " // assume's comparison, not a condition's
		}
		g.w(g.locs[g.n(len(g.locs))], op, g.value())
	case 2:
		if len(threads) > 0 {
			i := g.n(len(threads))
			l := "end"
			if len(labels[i]) > 0 && g.n(3) > 0 {
				l = labels[i][g.n(len(labels[i]))]
			}
			g.w(threads[i], "@", l)
		} else {
			g.w("true")
		}
	case 3:
		g.w("~")
		g.cond(threads, labels, depth+1)
	case 4:
		g.w("(")
		g.cond(threads, labels, depth+1)
		g.w(g.pick(")", "\n)"))
	case 5, 6:
		g.w("(")
		g.cond(threads, labels, depth+1)
		g.w(g.pick(` /\ `, ` \/ `, " /\\\n", " \\/ "))
		g.cond(threads, labels, depth+1)
		g.w(")")
	default:
		g.cond(threads, labels, depth+1)
		g.w(g.pick(` /\ `, ` \/ `))
		g.cond(threads, labels, depth+1)
	}
}

// lowered reports whether p was read as a protocol.
func lowered(p *prog.Program) bool {
	for t := range p.Threads {
		if p.Threads[t].Lowered {
			return true
		}
	}
	return false
}
