package parse

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
)

// corpusFiles returns the litmus corpus shipped with the repository.
func corpusFiles(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob("../../corpus/litmus/*.rdma")
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatal("no corpus files in ../../corpus/litmus")
	}
	return files
}

// diffPrograms compares two programs structurally and returns their
// differences, one per entry. It walks every field of the program (nodes,
// locations, threads with their statements and compiled code, queue pairs,
// the query's condition, expect lines) but ignores positions (prog.Pos) and
// the Instr.Stmt back pointers, and treats nil and empty slices alike.
// Walking by reflection means a field added to the model later is compared
// too.
func diffPrograms(a, b *prog.Program) []string {
	var d []string
	diffValues(&d, "Program", reflect.ValueOf(a), reflect.ValueOf(b))
	return d
}

var (
	posType   = reflect.TypeFor[prog.Pos]()
	instrType = reflect.TypeFor[prog.Instr]()
)

func diffValues(d *[]string, path string, a, b reflect.Value) {
	if len(*d) > 20 {
		return
	}
	if a.Type() != b.Type() {
		*d = append(*d, fmt.Sprintf("%s: types %s and %s", path, a.Type(), b.Type()))
		return
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				*d = append(*d, fmt.Sprintf("%s: nil %v vs nil %v", path, a.IsNil(), b.IsNil()))
			}
			return
		}
		diffValues(d, path, a.Elem(), b.Elem())
	case reflect.Struct:
		if a.Type() == posType {
			return
		}
		for i := 0; i < a.NumField(); i++ {
			f := a.Type().Field(i)
			if a.Type() == instrType && f.Name == "Stmt" {
				// A back pointer into the statement tree, compared
				// through Thread.Body; only its presence matters.
				if a.Field(i).IsNil() != b.Field(i).IsNil() {
					*d = append(*d, fmt.Sprintf("%s.Stmt: nil %v vs nil %v", path, a.Field(i).IsNil(), b.Field(i).IsNil()))
				}
				continue
			}
			diffValues(d, path+"."+f.Name, a.Field(i), b.Field(i))
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			*d = append(*d, fmt.Sprintf("%s: length %d vs %d", path, a.Len(), b.Len()))
			return
		}
		for i := 0; i < a.Len(); i++ {
			diffValues(d, fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
		}
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !a.Equal(b) {
			*d = append(*d, fmt.Sprintf("%s: %v vs %v", path, a.Interface(), b.Interface()))
		}
	default:
		*d = append(*d, fmt.Sprintf("%s: cannot compare kind %s", path, a.Kind()))
	}
}

// checkRoundTrip prints p, parses the text again under the same file name,
// and checks that the result equals p and prints to the same text.
func checkRoundTrip(t *testing.T, filename string, p *prog.Program) {
	t.Helper()
	text := p.String()
	q, err := Parse(filename, []byte(text))
	if err != nil {
		t.Fatalf("printed program does not parse: %v\n%s", err, text)
	}
	if again := q.String(); again != text {
		t.Errorf("print is not a fixpoint:\nfirst:\n%s\nsecond:\n%s", text, again)
	}
	if d := diffPrograms(p, q); len(d) > 0 {
		t.Errorf("reparsed program differs:\n  %s\nprinted text:\n%s", strings.Join(d, "\n  "), text)
	}
}

func TestCorpusRoundTrip(t *testing.T) {
	for _, file := range corpusFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p, err := File(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Threads) == 0 {
				t.Errorf("no threads")
			}
			checkRoundTrip(t, file, p)
		})
	}
}

func TestDiffProgramsSeesDifferences(t *testing.T) {
	src := "node a { x = 1; y }\nnode b { z }\nthread p on a { L: z := x; poll(b) }\nreach p@L /\\ z = 1\nexpect sc allowed"
	a := mustParse(t, "t.rdma", src)
	if d := diffPrograms(a, mustParse(t, "t.rdma", "\n\n"+src)); len(d) != 0 {
		t.Fatalf("same program at other positions differs: %v", d)
	}
	for _, change := range []struct{ from, to, want string }{
		{"x = 1", "x = 2", "Program.Locs[0].Init: 1 vs 2"},
		{"z = 1", "z = 0", "Program.Query.Cond.R.Val: 1 vs 0"},
		{"sc allowed", "sc forbidden", "Program.Expects[0].Yes: true vs false"},
		{"L: z := x", "L: y := z", "Program.Threads[0].Body[0].Kind: 5 vs 4"},
		{"; poll(b)", "", "Program.Threads[0].Body: length 2 vs 1"},
	} {
		b := mustParse(t, "t.rdma", strings.Replace(src, change.from, change.to, 1))
		d := diffPrograms(a, b)
		if len(d) == 0 || d[0] != change.want {
			t.Errorf("%q -> %q: differences %q, want first %q", change.from, change.to, d, change.want)
		}
	}
}

func mustParse(t *testing.T, filename, src string) *prog.Program {
	t.Helper()
	p, err := Parse(filename, []byte(src))
	if err != nil {
		var l ErrorList
		if errors.As(err, &l) {
			t.Fatalf("parse: %s", l.Detail())
		}
		t.Fatalf("parse: %v", err)
	}
	return p
}

// helpers for the checks of good inputs

func loc(t *testing.T, p *prog.Program, name string) int {
	t.Helper()
	i := p.LocIndex(name)
	if i < 0 {
		t.Fatalf("no location %s", name)
	}
	return i
}

func node(t *testing.T, p *prog.Program, name string) int {
	t.Helper()
	i := p.NodeIndex(name)
	if i < 0 {
		t.Fatalf("no node %s", name)
	}
	return i
}

func want[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// kinds lists the kinds of stmts, with nested blocks in brackets.
func kinds(stmts []*prog.Stmt) string {
	names := map[prog.StmtKind]string{
		prog.SSkip: "skip", prog.SWrite: "write", prog.SAssume: "assume", prog.SCAS: "cas", prog.SGet: "get",
		prog.SPut: "put", prog.SRFence: "rfence", prog.SPoll: "poll", prog.SChoose: "choose", prog.SLoop: "loop",
	}
	var parts []string
	for _, s := range stmts {
		k := names[s.Kind]
		if s.Label != "" {
			k = s.Label + ":" + k
		}
		for _, b := range s.Branches {
			k += "[" + kinds(b) + "]"
		}
		parts = append(parts, k)
	}
	return strings.Join(parts, " ")
}

// condString prints a condition tree in prefix form with indices.
func condString(c *prog.Cond) string {
	switch c.Op {
	case prog.CTrue:
		return "true"
	case prog.CEq:
		return fmt.Sprintf("eq(%d,%d)", c.Loc, c.Val)
	case prog.CNe:
		return fmt.Sprintf("ne(%d,%d)", c.Loc, c.Val)
	case prog.CAt:
		return fmt.Sprintf("at(%d,%s,%v)", c.Thread, c.Label, c.PCs)
	case prog.CEnd:
		return fmt.Sprintf("end(%d)", c.Thread)
	case prog.CNot:
		return "not(" + condString(c.L) + ")"
	case prog.CAnd:
		return "and(" + condString(c.L) + "," + condString(c.R) + ")"
	case prog.COr:
		return "or(" + condString(c.L) + "," + condString(c.R) + ")"
	}
	return "?"
}

const twoNodes = "node n1 { x = 1; y = 0 }\nnode n2 { z = 0; w = 1 }\n"

var goodCases = []struct {
	name     string
	filename string // default t.rdma
	src      string
	check    func(t *testing.T, p *prog.Program)
}{
	{
		name: "get and put decided by ownership",
		src:  twoNodes + "thread p on n1 {\n  x := z\n  w := y\n}\n",
		check: func(t *testing.T, p *prog.Program) {
			b := p.Threads[0].Body
			get, put := b[0], b[1]
			want(t, "get kind", get.Kind, prog.SGet)
			want(t, "get X", get.X, loc(t, p, "x"))
			want(t, "get Y", get.Y, loc(t, p, "z"))
			want(t, "get Remote", get.Remote, node(t, p, "n2"))
			want(t, "put kind", put.Kind, prog.SPut)
			want(t, "put Y", put.Y, loc(t, p, "w"))
			want(t, "put X", put.X, loc(t, p, "y"))
			want(t, "put Remote", put.Remote, node(t, p, "n2"))
			code := p.Threads[0].Code
			want(t, "code length", len(code), 3)
			want(t, "code[0]", code[0].Op, prog.OpGet)
			want(t, "code[1]", code[1].Op, prog.OpPut)
			want(t, "code[2]", code[2].Op, prog.OpEnd)
			want(t, "get X in code", code[0].X, loc(t, p, "x"))
			want(t, "put Y in code", code[1].Y, loc(t, p, "w"))
			want(t, "both on one queue pair", code[0].QP == code[1].QP && code[0].QP >= 0, true)
			want(t, "entry", p.Threads[0].Entry, 0)
			want(t, "get next", code[0].Next, 1)
			want(t, "put next", code[1].Next, 2)
			want(t, "printed", p.StmtString(get)+"; "+p.StmtString(put), "x := z; w := y")
		},
	},
	{
		name: "queue pairs numbered in order of first use per thread",
		src: "node a { xa }\nnode b { xb }\nnode c { xc }\n" +
			"thread p on a {\n  xa := xc\n  rfence(b)\n  loop { poll(c) }\n  xb := xa\n}\n" +
			"thread q on b {\n  choose { loop { poll(c) } } or { xa := xb }\n  xb := xc\n}\n" +
			"thread r on c { skip }\n",
		check: func(t *testing.T, p *prog.Program) {
			a, b, c := node(t, p, "a"), node(t, p, "b"), node(t, p, "c")
			wantQPs := []prog.QP{
				{Thread: 0, Remote: c, Local: 0}, {Thread: 0, Remote: b, Local: 1},
				{Thread: 1, Remote: c, Local: 0}, {Thread: 1, Remote: a, Local: 1},
			}
			if !reflect.DeepEqual(p.QPs, wantQPs) {
				t.Errorf("QPs = %+v, want %+v", p.QPs, wantQPs)
			}
			if got := p.Threads[0].QPs; !reflect.DeepEqual(got, []int{-1, 1, 0}) {
				t.Errorf("thread p QPs = %v", got)
			}
			if got := p.Threads[1].QPs; !reflect.DeepEqual(got, []int{3, -1, 2}) {
				t.Errorf("thread q QPs = %v", got)
			}
			if got := p.Threads[2].QPs; !reflect.DeepEqual(got, []int{-1, -1, -1}) {
				t.Errorf("thread r QPs = %v", got)
			}
			for _, in := range p.Threads[0].Code {
				switch in.Op {
				case prog.OpGet, prog.OpPoll:
					want(t, in.Op.String()+" QP", in.QP, 0)
				case prog.OpRFence, prog.OpPut:
					want(t, in.Op.String()+" QP", in.QP, 1)
				default:
					want(t, in.Op.String()+" QP", in.QP, -1)
				}
			}
		},
	},
	{
		name:     "default name from the file name",
		filename: "some/dir/my-test.v2.rdma",
		src:      "node n { x }\nthread p on n { skip }\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "name", p.Name, "my-test.v2")
			want(t, "file", p.File, "some/dir/my-test.v2.rdma")
		},
	},
	{
		name:     "litmus name overrides the file name",
		filename: "other.rdma",
		src:      "litmus paper-5.1 # comment\nnode n { }\nthread p on n { }\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "name", p.Name, "paper-5.1")
		},
	},
	{
		name: "free-form name and escaped doc string",
		src:  "litmus a/b\\c{d}\"e//f\n\"say \\\"hi\\\" \\\\ bye\"\nnode n { }\nthread p on n { }\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "name", p.Name, `a/b\c{d}"e`)
			want(t, "doc", p.Doc, `say "hi" \ bye`)
		},
	},
	{
		name: "labels resolved to instructions",
		src: twoNodes + "thread p on n1 {\n  A: skip\n  B: choose { C: x := 1 } or { D: skip }\n" +
			"  E: loop { F: z := x }\n  G:\n  x := cas(y, 0, 1)\n}\nreach p@A \\/ p@B \\/ p@C \\/ p@D \\/ p@E \\/ p@F \\/ p@G\n",
		check: func(t *testing.T, p *prog.Program) {
			th := &p.Threads[0]
			ops := map[string]prog.Op{"A": prog.OpSkip, "B": prog.OpBranch, "C": prog.OpWrite, "D": prog.OpSkip,
				"E": prog.OpBranch, "F": prog.OpPut, "G": prog.OpCAS}
			for l, op := range ops {
				pc := th.LabelPC(l)
				if pc < 0 {
					t.Errorf("label %s not bound", l)
					continue
				}
				want(t, "op at "+l, th.Code[pc].Op, op)
				want(t, "label of the statement at "+l, th.Code[pc].Stmt.Label, l)
			}
			want(t, "loop number of E", th.Code[th.LabelPC("E")].Loop, 0)
			want(t, "choose marker of B", th.Code[th.LabelPC("B")].Loop, -1)
			want(t, "entry is A", th.Entry, th.LabelPC("A"))
			var walk func(c *prog.Cond)
			n := 0
			walk = func(c *prog.Cond) {
				switch c.Op {
				case prog.COr:
					walk(c.L)
					walk(c.R)
				case prog.CAt:
					n++
					want(t, "PC of "+c.Label, fmt.Sprint(c.PCs), fmt.Sprint(th.LabelPCs(c.Label)))
				default:
					t.Errorf("unexpected op %d", c.Op)
				}
			}
			walk(p.Query.Cond)
			want(t, "control atoms", n, 7)
		},
	},
	{
		name: "choose with or on the next line",
		src: twoNodes + "thread p on n1 {\n  choose {\n    x := 1\n  }\n  or { x := 2 } # two\n" +
			"  // comment line\n\n  or {\n  }\n  skip\n}\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "kinds", kinds(p.Threads[0].Body), "choose[write][write][] skip")
			br := p.Threads[0].Code[p.Threads[0].Entry]
			want(t, "alternatives", len(br.Alts), 3)
		},
	},
	{
		name: "semicolons separate everything",
		src:  "litmus semi; node n1 { x = 1; y };;node n2 { z }; thread p on n1 { skip;; x := 2 ; z := x; }; exists x = 2; expect sc allowed;",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "name", p.Name, "semi")
			want(t, "kinds", kinds(p.Threads[0].Body), "skip write put")
			want(t, "query", p.Query.Kind, prog.QExists)
			want(t, "expects", len(p.Expects), 1)
		},
	},
	{
		name: "comments of both kinds",
		src: "# leading comment\n// another\nlitmus c // trailing\n\"doc\" # c\nnode n1 { // c\n  x = 1 # c\n  y // c\n}\n" +
			"node n2 { z } # c\nthread p on n1 { # c\n  L: # c\n  x := 3 // c\n  z := x#c\n}\nexists (x = 3 // c\n  /\\ z = 3) # c\nexpect rdma allowed // c\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "name", p.Name, "c")
			want(t, "doc", p.Doc, "doc")
			want(t, "locations", len(p.Locs), 3)
			want(t, "kinds", kinds(p.Threads[0].Body), "L:write put")
			want(t, "cond", condString(p.Query.Cond), "and(eq(0,3),eq(2,3))")
		},
	},
	{
		name: "condition spanning lines inside parentheses",
		src:  twoNodes + "thread p on n1 { skip }\nexists (\n  x = 1 /\\\n  y = 0\n  \\/\n  ~(z = 0\n  )\n)\nexpect sc forbidden\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "cond", condString(p.Query.Cond), "or(and(eq(0,1),eq(1,0)),not(eq(2,0)))")
			want(t, "expects", len(p.Expects), 1)
		},
	},
	{
		name: "precedence and associativity",
		src:  twoNodes + "thread p on n1 { skip }\nforall ~x = 1 /\\ y != 0 \\/ z = 1 /\\ (w = 1 \\/ true) \\/ x = 0 /\\ y = 0 /\\ z = 0\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "kind", p.Query.Kind, prog.QForall)
			want(t, "cond", condString(p.Query.Cond),
				"or(or(and(not(eq(0,1)),ne(1,0)),and(eq(2,1),or(eq(3,1),true))),and(and(eq(0,0),eq(1,0)),eq(2,0)))")
		},
	},
	{
		name: "not exists",
		src:  twoNodes + "thread p on n1 { skip }\n~exists x = 1\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "kind", p.Query.Kind, prog.QNotExists)
			want(t, "printed", strings.Contains(p.String(), "\n~exists x = 1\n"), true)
		},
	},
	{
		name: "reach T@end and T@L",
		src:  twoNodes + "thread p on n1 { skip }\nthread q on n2 { L: skip }\nreach p@end /\\ ~q@L /\\ ~q@end\nexpect rdma allowed\nexpect sc allowed\nexpect robust yes\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "kind", p.Query.Kind, prog.QReach)
			want(t, "cond", condString(p.Query.Cond), "and(and(end(0),not(at(1,L,[0]))),not(end(1)))")
			want(t, "expects", fmt.Sprint(p.Expects[0].Sem, p.Expects[1].Sem, p.Expects[2].Sem), "rdma sc robust")
			want(t, "yes", p.Expects[2].Yes, true)
		},
	},
	{
		name: "nested choose and loop",
		src: twoNodes + "thread p on n1 {\n  loop {\n    choose { loop { choose { skip } or { x := 1 } } } or { loop { } }\n" +
			"    y := 2\n  }\n  choose { choose { skip } or { skip } } or { loop { loop { skip } } }\n}\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "kinds", kinds(p.Threads[0].Body),
				"loop[choose[loop[choose[skip][write]]][loop[]] write] choose[choose[skip][skip]][loop[loop[skip]]]")
			want(t, "loops", p.Threads[0].Loops, 5)
			want(t, "instructions", len(p.Threads[0].Code), 16)
		},
	},
	{
		name: "empty blocks and nodes",
		src:  "node n {}\nnode m { }\nthread p on n {}\nthread q on m {\n}\nthread r on n { choose {} or {}; loop {} }\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "locations", len(p.Locs), 0)
			want(t, "p body", len(p.Threads[0].Body), 0)
			want(t, "p code", len(p.Threads[0].Code), 1)
			want(t, "p entry", p.Threads[0].Code[p.Threads[0].Entry].Op, prog.OpEnd)
			want(t, "r kinds", kinds(p.Threads[2].Body), "choose[][] loop[]")
		},
	},
	{
		name: "values 0 and 255, default initial value 0",
		src: "node n1 { x = 255; y = 0; u; v = 007 }\nnode n2 { z }\nthread p on n1 {\n  x := 255\n  y := 0\n" +
			"  assume(x != 0)\n  assume(y == 255)\n  u := cas(x, 0, 255)\n}\nexists x = 255 /\\ z = 0\n",
		check: func(t *testing.T, p *prog.Program) {
			inits := ""
			for _, l := range p.Locs {
				inits += fmt.Sprintf("%s=%d ", l.Name, l.Init)
			}
			want(t, "inits", inits, "x=255 y=0 u=0 v=7 z=0 ")
			b := p.Threads[0].Body
			want(t, "write 255", b[0].A, uint8(255))
			want(t, "assume ne", b[2].Ne, true)
			want(t, "assume 255", b[3].A, uint8(255))
			want(t, "cas", fmt.Sprint(b[4].X, b[4].Z, b[4].A, b[4].B), "2 0 0 255")
			want(t, "cond", condString(p.Query.Cond), "and(eq(0,255),eq(4,0))")
		},
	},
	{
		name: "an empty thread is a program",
		src:  "node n { }\nthread p on n { }\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "name", p.Name, "t")
			want(t, "threads", len(p.Threads), 1)
			want(t, "query", p.Query.Kind, prog.QNone)
			want(t, "printed", p.String(), "litmus t\nnode n { }\nthread p on n {\n}\n")
		},
	},
	{
		name: "forward reference to a node, shared node, rfence and poll",
		src:  "thread p on n1 { rfence(n2); poll(n2) }\nthread q on n1 { poll(n3) }\nnode n1 { x }\nnode n2 { y }\nnode n3 { z }\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "p node", p.Threads[0].Node, 0)
			want(t, "q node", p.Threads[1].Node, 0)
			want(t, "kinds", kinds(p.Threads[0].Body), "rfence poll")
			want(t, "rfence remote", p.Threads[0].Body[0].Remote, 1)
			want(t, "poll remote", p.Threads[1].Body[0].Remote, 2)
		},
	},
	{
		name: "names that are not keywords",
		src:  "node end { on_ = 1; Exists; x1 }\nnode N2 { r2d2 }\nthread end on end { L_1: r2d2 := on_ }\nreach end@end \\/ end@L_1\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "cond", condString(p.Query.Cond), "or(end(0),at(0,L_1,[0]))")
			want(t, "kind", p.Threads[0].Body[0].Kind, prog.SPut)
		},
	},
	{
		name: "expect robust without a query",
		src:  "node n { x }\nthread p on n { skip }\nexpect robust no\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "expects", len(p.Expects), 1)
			want(t, "word", p.Expects[0].Word(), "no")
		},
	},
	{
		name:     "name from a file name that is no word",
		filename: "dir/my test#1.rdma",
		src:      "node n { x }\nthread p on n { skip }\n",
		check: func(t *testing.T, p *prog.Program) {
			want(t, "name", p.Name, "my test#1")
			want(t, "printed", strings.HasPrefix(p.String(), "node n"), true)
		},
	},
}

func TestGood(t *testing.T) {
	for _, tc := range goodCases {
		t.Run(tc.name, func(t *testing.T) {
			filename := tc.filename
			if filename == "" {
				filename = "t.rdma"
			}
			p := mustParse(t, filename, tc.src)
			tc.check(t, p)
			checkRoundTrip(t, filename, p)
		})
	}
}

func TestNestingLimit(t *testing.T) {
	// At the limit: the deepest program and conditions parse and print to
	// text that parses again.
	deep := "node n { x }\nthread p on n {" + strings.Repeat(" loop {", syntax.MaxDepth-1) + strings.Repeat(" }", syntax.MaxDepth) + "\n" +
		"exists " + strings.Repeat("~", syntax.MaxDepth-1) + "x = 0\n"
	p := mustParse(t, "t.rdma", deep)
	checkRoundTrip(t, "t.rdma", p)
	right := "node n { x }\nthread p on n { }\nexists x = 0" + strings.Repeat(` \/ (x = 1 /\ ~(x = 2`, (syntax.MaxDepth-1)/3) + strings.Repeat("))", (syntax.MaxDepth-1)/3)
	checkRoundTrip(t, "t.rdma", mustParse(t, "t.rdma", right))

	// Far past it: megabytes of nesting end in an error, not a stack
	// overflow.
	for _, open := range []string{"(", "~", "~(", "{ loop "} {
		src := "node n { x }\nthread p on n " + strings.Repeat(open, 4<<20)
		if !strings.Contains(open, "{") {
			src = "exists " + strings.Repeat(open, 4<<20)
		}
		_, err := Parse("t.rdma", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "nested too deeply (the limit is 1000 levels)") {
			t.Errorf("%d times %q: error %v", 4<<20, open, err)
		}
	}
}

func TestFile(t *testing.T) {
	p, err := File("../../corpus/litmus/paper-5.1.rdma")
	if err != nil {
		t.Fatal(err)
	}
	want(t, "name", p.Name, "paper-5.1")
	want(t, "doc", p.Doc, "a put's local read is delayed")
	if _, err := File("no/such/file.rdma"); err == nil || !strings.HasPrefix(err.Error(), "reading program: ") {
		t.Errorf("missing file: err = %v", err)
	}
}

// badCases are inputs that must be rejected, with the exact error.
var badCases = []struct {
	name, src, err string
}{
	// Ownership of locations.
	{"local to local", twoNodes + "thread p on n1 { x := y }",
		"t.rdma:3:18: x := y copies between two locations of n1, the thread's own node, and there is no local copy instruction: one side of := must be on another node (a get or a put), or write a constant (x := v)"},
	{"remote to remote, one node", twoNodes + "thread p on n1 { z := w }",
		"t.rdma:3:18: z := w copies between two remote locations (both on node n2): one side of := must be on n1, the thread's own node"},
	{"remote to remote, two nodes", twoNodes + "node n3 { v }\nthread p on n1 {\n  v := w\n}",
		"t.rdma:5:3: v := w copies between two remote locations (on nodes n3 and n2): one side of := must be on n1, the thread's own node"},
	{"constant to remote", twoNodes + "thread p on n1 { z := 1 }",
		"t.rdma:3:18: cannot write a constant to z on node n2: thread p runs on n1 and writes constants only to its own node (to send a value, put it from a location l of n1: z := l)"},
	{"assume on remote", twoNodes + "thread p on n1 { assume(z == 1) }",
		"t.rdma:3:25: assume reads the thread's own memory, but z is on node n2, not n1 (read it with a get first)"},
	{"cas on remote", twoNodes + "thread p on n1 { x := cas(z, 0, 1) }",
		"t.rdma:3:27: cas works on the thread's own memory, but z is on node n2, not n1"},
	{"cas into remote", twoNodes + "thread p on n1 { z := cas(x, 0, 1) }",
		"t.rdma:3:18: the result of cas goes to the thread's own memory, but z is on node n2, not n1"},
	// Unknown names.
	{"unknown location", twoNodes + "thread p on n1 { x := q }",
		"t.rdma:3:23: unknown location q (declare it in a node: node N { q = 0 })"},
	{"unknown location in condition", twoNodes + "exists q = 1",
		"t.rdma:3:8: unknown location q (declare it in a node: node N { q = 0 })"},
	{"unknown node of thread", twoNodes + "thread p on n3 { skip }",
		"t.rdma:3:13: unknown node n3 (declare it with node n3 { ... })"},
	{"unknown node in poll", twoNodes + "thread p on n1 { poll(n3) }",
		"t.rdma:3:23: unknown node n3 in poll(n3) (declare it with node n3 { ... })"},
	{"unknown node in rfence", twoNodes + "thread p on n1 { rfence(x) }",
		"t.rdma:3:25: unknown node x in rfence(x) (declare it with node x { ... })"},
	{"poll own node", twoNodes + "thread p on n1 { poll(n1) }",
		"t.rdma:3:23: poll(n1): n1 is the thread's own node; poll names the remote node of a queue pair"},
	{"rfence own node", twoNodes + "thread p on n1 { rfence(n1) }",
		"t.rdma:3:25: rfence(n1): n1 is the thread's own node; rfence names the remote node of a queue pair"},
	// Duplicates.
	{"duplicate node", twoNodes + "node n1 { a }",
		"t.rdma:3:6: node n1 declared twice (first at 1:6)"},
	{"duplicate location in a node", "node n { x; y; x = 1 }",
		"t.rdma:1:16: location x declared twice (first at 1:10, on node n); location names are global"},
	{"duplicate location across nodes", twoNodes + "node n3 { x }",
		"t.rdma:3:11: location x declared twice (first at 1:11, on node n1); location names are global"},
	{"duplicate thread", twoNodes + "thread p on n1 { skip }\nthread p on n2 { skip }",
		"t.rdma:4:8: thread p declared twice (first at 3:8)"},
	{"duplicate label", twoNodes + "thread p on n1 { L: skip; L: skip }",
		"t.rdma:3:27: label L used twice in thread p (first at 3:18)"},
	{"duplicate label in a nested block", twoNodes + "thread p on n1 {\n  L: skip\n  loop { choose { skip } or { L: skip } }\n}",
		"t.rdma:5:31: label L used twice in thread p (first at 4:3)"},
	{"label named end", twoNodes + "thread p on n1 { end: skip }",
		"t.rdma:3:18: end cannot be a label: T@end means the thread has terminated"},
	// Values.
	{"value 256", twoNodes + "thread p on n1 { x := 256 }",
		"t.rdma:3:23: value 256 is out of range 0..255"},
	{"huge value", twoNodes + "thread p on n1 { assume(x == 99999999999999999999999) }",
		"t.rdma:3:30: value 99999999999999999999999 is out of range 0..255"},
	{"initial value 256", "node n { x = 256 }",
		"t.rdma:1:14: value 256 is out of range 0..255"},
	{"negative value", "node n { x = -1 }",
		`t.rdma:1:14: expected an initial value (0..255), found '-': values are 0..255`},
	{"condition value 300", twoNodes + "exists x = 300",
		"t.rdma:3:12: value 300 is out of range 0..255"},
	// Queries and expect lines.
	{"two queries", twoNodes + "exists x = 1\nforall x = 2",
		"t.rdma:4:1: a file has at most one query; the first is at 3:1"},
	{"unknown thread in reach", twoNodes + "thread p on n1 { L: skip }\nreach q@L",
		"t.rdma:4:7: unknown thread q in q@L"},
	{"unknown label in reach", twoNodes + "thread p on n1 { L: skip }\nreach p@M",
		"t.rdma:4:9: thread p has no label M"},
	{"T@L in exists", twoNodes + "thread p on n1 { L: skip }\nexists x = 1 /\\ p@L",
		"t.rdma:4:17: control condition p@L is only allowed in reach queries (exists, ~exists and forall look at final configurations, where every thread has ended)"},
	{"T@end in forall", twoNodes + "thread p on n1 { skip }\nforall ~p@end",
		"t.rdma:4:9: control condition p@end is only allowed in reach queries (exists, ~exists and forall look at final configurations, where every thread has ended)"},
	{"expect rdma without a query", twoNodes + "expect rdma allowed",
		"t.rdma:3:1: expect rdma needs a query to check (exists, ~exists, forall or reach)"},
	{"duplicate expect", twoNodes + "exists x = 1\nexpect rdma allowed\nexpect sc allowed\nexpect rdma forbidden",
		"t.rdma:6:1: expect rdma given twice (first at 4:1)"},
	{"expect robust allowed", "expect robust allowed",
		`t.rdma:1:15: expected yes or no after expect robust, found keyword "allowed"`},
	{"expect rdma yes", twoNodes + "exists x = 1\nexpect rdma yes",
		`t.rdma:4:13: expected allowed or forbidden after expect rdma, found keyword "yes"`},
	{"expect unknown semantics", "expect tso allowed",
		`t.rdma:1:8: expected rdma, sc or robust after expect, found name "tso"`},
	{"junk after expect", twoNodes + "exists x = 1\nexpect sc allowed please",
		`t.rdma:4:19: expected end of line or ';' after the expect line, found name "please"`},
	{"tilde without exists", twoNodes + "~forall x = 1",
		`t.rdma:3:2: expected exists after '~', found keyword "forall"`},
	{"reach with unbalanced open parenthesis", twoNodes + "reach (x = 1 /\\ (y = 0)",
		"t.rdma:3:24: expected ')' to close the '(' at 3:7, found end of file"},
	{"reach with unbalanced close parenthesis", twoNodes + "reach (x = 1))",
		"t.rdma:3:14: unbalanced parentheses in the condition: this ')' closes no '('"},
	{"unclosed parenthesis before the next line", twoNodes + "exists (x = 1\nexpect sc allowed",
		`t.rdma:4:1: expected /\, \/ or ')' to close the '(' at 3:8, found keyword "expect"`},
	{"missing connective", twoNodes + "exists x = 1 y = 0",
		`t.rdma:3:14: expected /\, \/ or end of line after the condition, found name "y"`},
	{"empty condition", twoNodes + "exists\n",
		"t.rdma:3:7: expected a condition (x = v, x != v, T@L, true, ~, '('), found newline"},
	{"label after @ missing", twoNodes + "reach p@",
		"t.rdma:3:9: expected a label or end after p@, found end of file"},
	{"== in exists", twoNodes + "exists (z == 1)",
		"t.rdma:3:11: conditions compare with '=', not '==' (write z = v)"},
	{"== in reach", twoNodes + "thread p on n1 { L: skip }\nreach p@L /\\ ~(x == 2)",
		"t.rdma:4:18: conditions compare with '=', not '==' (write x = v)"},
	{"== in forall", twoNodes + "forall x != 1 \\/ y == 0",
		"t.rdma:3:20: conditions compare with '=', not '==' (write y = v)"},
	{"location without comparison", twoNodes + "exists x",
		"t.rdma:3:9: expected '=', '!=' or '@' after x in the condition, found end of file"},
	// Keywords and punctuation.
	{"keyword as node name", "node thread { a }",
		`t.rdma:1:6: "thread" is a keyword and cannot be used as a node name`},
	{"keyword as location name", "node n { x; or }",
		`t.rdma:1:13: "or" is a keyword and cannot be used as a location name`},
	{"keyword assigned in a thread", twoNodes + "thread p on n1 { loop := 1 }",
		`t.rdma:3:18: "loop" is a keyword and cannot be used as a location name`},
	{"keyword as label", twoNodes + "thread p on n1 { skip: skip }",
		`t.rdma:3:18: "skip" is a keyword and cannot be used as a label`},
	{"keyword as thread name", "thread sc on n { skip }",
		`t.rdma:1:8: "sc" is a keyword and cannot be used as a thread name`},
	{"= instead of :=", twoNodes + "thread p on n1 { x = 1 }",
		"t.rdma:3:20: expected ':=' in an assignment, found '=' (write x := ...)"},
	{":= in a node", "node n { x := 1 }",
		"t.rdma:1:12: expected '=' after location x, found ':=' (initial values are written x = v)"},
	{"assume with =", twoNodes + "thread p on n1 { assume(x = 1) }",
		"t.rdma:3:27: assume compares with '==' or '!=', not '=' (write assume(x == v))"},
	{"unterminated string", "litmus a\n\"abc\nnode n { x }",
		`t.rdma:2:1: string not terminated (a doc string ends with " on the same line)`},
	{"two doc strings", `"a"` + "\n" + `"b"`,
		"t.rdma:2:1: doc string given twice (first at 1:1); a file has one"},
	{"illegal character", "node n $ { }",
		`t.rdma:1:8: unexpected character "$"`},
	{"illegal non-ASCII character", "node n { x → 1 }",
		`t.rdma:1:12: unexpected character "→"`},
	{"lone slash", twoNodes + "exists x = 1 / y = 0",
		`t.rdma:3:14: expected /\, \/ or end of line after the condition, found '/'`},
	{"missing } of a thread", twoNodes + "thread p on n1 { skip",
		"t.rdma:3:22: expected '}' to close the '{' at 3:16, found end of file"},
	{"missing } of a thread after a newline", twoNodes + "thread p on n1 {\n  skip\n",
		"t.rdma:5:1: expected '}' to close the '{' at 3:16, found end of file"},
	{"missing } of a node", "node n { x = 1",
		"t.rdma:1:15: expected '}' to close the '{' at 1:8, found end of file"},
	{"missing } of a choose branch", twoNodes + "thread p on n1 { choose { skip } or { skip }",
		"t.rdma:3:45: expected '}' to close the '{' at 3:16, found end of file"},
	{"choose with one branch", twoNodes + "thread p on n1 { choose { skip } }",
		"t.rdma:3:18: choose needs at least two branches: choose { A } or { B }"},
	{"or without a block", twoNodes + "thread p on n1 { choose { skip } or skip }",
		"t.rdma:3:37: expected '{', found keyword \"skip\""},
	{"two litmus names", "litmus a\nlitmus b",
		"t.rdma:2:1: litmus name given twice (first at 1:8)"},
	{"litmus without a name", "litmus # none\nnode n { x }",
		"t.rdma:1:14: expected the test's name after litmus, found newline"},
	{"junk after the litmus name", "litmus a b",
		`t.rdma:1:10: expected end of line or ';' after the litmus name, found name "b"`},
	{"junk after a node", "node n { x } junk",
		`t.rdma:1:14: expected end of line or ';' after the declaration of node n, found name "junk"`},
	{"two declarations on a line", "node n { x } node m { y }",
		`t.rdma:1:14: expected end of line or ';' after the declaration of node n, found keyword "node"`},
	{"junk after a thread", twoNodes + "thread p on n1 { skip } skip",
		`t.rdma:3:25: expected end of line or ';' after the declaration of thread p, found keyword "skip"`},
	{"registers without a mode", "registers fast",
		`t.rdma:1:11: expected runtime, static or auto after registers, found name "fast"`},
	{"registers twice", "registers runtime\nregisters static",
		"t.rdma:2:1: registers given twice (first at 1:11)"},
	{"junk at top level", "x := 1",
		`t.rdma:1:1: expected node, thread, param, registers, placement, a query (exists, ~exists, forall, reach) or expect, found name "x"`},
	{"two statements on a line", twoNodes + "thread p on n1 { skip skip }",
		`t.rdma:3:23: expected ';', newline or '}' after a statement, found keyword "skip"`},
	{"two locations without separator", "node n { x = 1 y }",
		`t.rdma:1:16: expected ';', newline or '}' after location x, found name "y"`},
	{"label without statement", twoNodes + "thread p on n1 { L: }",
		"t.rdma:3:21: expected a statement after label L, found '}' (to label the end of a block, write L: skip)"},
	{"two labels on a statement", twoNodes + "thread p on n1 { L: M: skip }",
		"t.rdma:3:21: second label M on a statement labelled L: a statement has at most one label"},
	{"thread without on", twoNodes + "thread p n1 { skip }",
		`t.rdma:3:10: expected on after the thread name (thread p on N { ... }), found name "n1"`},
	{"brace on the next line", twoNodes + "thread p on n1\n{ skip }",
		"t.rdma:3:15: expected '{' on the same line, found newline"},
	{"cas with a remote location as value", twoNodes + "thread p on n1 { x := cas(y, 0, z) }",
		`t.rdma:3:33: z is on node n2: thread p reads only the memory of its own node n1 (get it into a location of n1 first: l := z)`},
	{"assignment of a keyword", twoNodes + "thread p on n1 { x := skip }",
		`t.rdma:3:23: expected a value, a location or cas(z, a, b) after ':=', found keyword "skip"`},
	{"statement keyword out of place", twoNodes + "thread p on n1 { exists }",
		`t.rdma:3:18: expected a statement, found keyword "exists"`},
	// A program without a thread.
	{"empty file", "",
		"t.rdma:1:1: no thread: a program needs at least one thread (thread T on N { ... })"},
	{"only comments and blank lines", "\n# nothing\n\n  // here\r\n\t\n",
		"t.rdma:6:1: no thread: a program needs at least one thread (thread T on N { ... })"},
	{"nodes, a query and expect lines but no thread", twoNodes + "exists x = 1\nexpect rdma allowed",
		"t.rdma:4:20: no thread: a program needs at least one thread (thread T on N { ... })"},
	{"threads commented out", twoNodes + "# thread p on n1 { z := x }\n",
		"t.rdma:4:1: no thread: a program needs at least one thread (thread T on N { ... })"},
	// Unknown statements: the nearest real one is named.
	{"flush with a node", twoNodes + "thread p on n1 { flush(n2) }",
		"t.rdma:3:18: unknown statement flush; did you mean rfence(n2) or poll(n2)?"},
	{"fence alone", twoNodes + "thread p on n1 {\n  fence\n}",
		"t.rdma:4:3: unknown statement fence; did you mean rfence(m)?"},
	{"misspelt poll", twoNodes + "thread p on n1 { z := x; pol(n2) }",
		"t.rdma:3:26: unknown statement pol; did you mean poll(n2)?"},
	{"capitalised skip", twoNodes + "thread p on n1 { Skip }",
		"t.rdma:3:18: unknown statement Skip; did you mean skip?"},
	{"assert with =", twoNodes + "thread p on n1 { assert(x = 1) }",
		"t.rdma:3:27: assert compares with '==' or '!=', not '=' (write assert(x == v))"},
	{"write as a call", twoNodes + "thread p on n1 { write(z, x) }",
		"t.rdma:3:18: unknown statement write; did you mean a put y := x (y on the remote node, x on the thread's)?"},
	{"unknown call", twoNodes + "thread p on n1 { frobnicate(n2) }",
		"t.rdma:3:18: unknown statement frobnicate (statements are skip, assignments x := ..., assume, assert, rfence, poll, quiet, choose, loop, while, if, for, break and calls of procedures)"},
	{"location alone", twoNodes + "thread p on n1 { x }",
		"t.rdma:3:20: expected ':=' after x, found '}'"},
	{"cas as a statement", twoNodes + "thread p on n1 { cas(x, 0, 1) }",
		"t.rdma:3:18: cas is not a statement: its old value goes to a location of the thread's node (x := cas(z, a, b))"},
	// Several errors: the first is shown, and how many follow.
	{"two errors", twoNodes + "thread p on n1 { x := q; r := y }",
		"t.rdma:3:23: unknown location q (declare it in a node: node N { q = 0 }) (and 1 more error)"},
	{"three errors", twoNodes + "thread p on n1 { x := q; r := y; z := 9 }",
		"t.rdma:3:23: unknown location q (declare it in a node: node N { q = 0 }) (and 2 more errors)"},
	// Limits.
	{"too many nodes", nodes(prog.MaxNodes + 1),
		"t.rdma:65:6: too many nodes (the limit is 64)"},
	{"too many locations", "node n {" + locs(prog.MaxLocs+1) + "}",
		"t.rdma:1:1400: too many locations (the limit is 250)"},
	{"too many threads", "node n { }\n" + threads(prog.MaxThreads+1),
		"t.rdma:66:8: too many threads (the limit is 64)"},
	{"too many instructions", "node n { }\nthread p on n {" + strings.Repeat(" skip;", prog.MaxCode) + " }",
		"t.rdma:2:8: thread p is too long: 4001 instructions, more than the limit of 4000"},
	{"blocks nested too deeply", "node n { }\nthread p on n " + strings.Repeat("{ loop ", syntax.MaxDepth) + "{",
		"t.rdma:2:7015: blocks nested too deeply (the limit is 1000 levels)"},
	{"parentheses nested too deeply", "exists " + strings.Repeat("(", syntax.MaxDepth+1),
		"t.rdma:1:1008: condition nested too deeply (the limit is 1000 levels)"},
	{"negations nested too deeply", "exists " + strings.Repeat("~", syntax.MaxDepth+1),
		"t.rdma:1:1008: condition nested too deeply (the limit is 1000 levels)"},
	{"condition too deep", "node n { x }\nexists x = 0" + strings.Repeat(` \/ x = 0`, syntax.MaxDepth),
		"t.rdma:2:9005: condition nested too deeply (the limit is 1000 levels)"},
}

func nodes(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "node n%d { }\n", i)
	}
	return b.String()
}

func locs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " x%d;", i)
	}
	return b.String()
}

func threads(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "thread t%d on n { }\n", i)
	}
	return b.String()
}

func TestBad(t *testing.T) {
	names := map[string]bool{}
	for _, tc := range badCases {
		if names[tc.name] {
			t.Errorf("duplicate case name %q", tc.name)
		}
		names[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse("t.rdma", []byte(tc.src))
			if err == nil {
				t.Fatalf("parsed, want error %q; program:\n%s", tc.err, p)
			}
			if p != nil {
				t.Errorf("program returned with the error")
			}
			if got := err.Error(); got != tc.err {
				t.Errorf("error\n got: %s\nwant: %s", got, tc.err)
			}
			var l ErrorList
			if !errors.As(err, &l) || len(l) == 0 {
				t.Fatalf("error is %T, want a non-empty ErrorList", err)
			}
			if d := l.Detail(); !strings.HasPrefix(d, l[0].Error()+"\n") || strings.Count(d, "\n") != len(l) {
				t.Errorf("Detail() = %q", d)
			}
		})
	}
	if len(badCases) < 30 {
		t.Errorf("only %d bad cases", len(badCases))
	}
}

func TestErrorFormat(t *testing.T) {
	e := &Error{Pos: prog.Pos{Line: 2, Col: 3}, Msg: "m"}
	want(t, "without file", e.Error(), "2:3: m")
	e.File = "f.rdma"
	want(t, "with file", e.Error(), "f.rdma:2:3: m")
	want(t, "empty list", ErrorList(nil).Error(), "no errors")
}
