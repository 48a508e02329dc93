package fuzz

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"rdmasim/corpus/gen"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

const litmus = "../../corpus/litmus/"

func mustParse(t *testing.T, text string) *prog.Program {
	t.Helper()
	p, err := parse.Parse("test.rdma", []byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return p
}

func TestDdmin(t *testing.T) {
	contains := func(need ...int) func([]int) bool {
		return func(s []int) bool {
			for _, n := range need {
				if !slices.Contains(s, n) {
					return false
				}
			}
			return true
		}
	}
	tests := []struct {
		name string
		n    int
		test func([]int) bool
		want []int
	}{
		{"one", 10, contains(7), []int{7}},
		{"two apart", 10, contains(2, 8), []int{2, 8}},
		{"three", 16, contains(0, 5, 15), []int{0, 5, 15}},
		{"all", 4, contains(0, 1, 2, 3), []int{0, 1, 2, 3}},
		{"none needed", 5, func([]int) bool { return true }, nil},
		{"at least three", 9, func(s []int) bool { return len(s) >= 3 }, nil}, // any 3
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]int, tc.n)
			for i := range items {
				items[i] = i
			}
			calls := 0
			got := ddmin(items, func(s []int) bool { calls++; return tc.test(s) }, func() bool { return false })
			if tc.name == "at least three" {
				if len(got) != 3 {
					t.Fatalf("got %v", got)
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if calls > tc.n*tc.n {
				t.Errorf("%d tests", calls)
			}
		})
	}
}

// TestMinimizeSyntactic minimises programs under predicates on their
// syntax: every pass of the minimiser gets a chance, and the result is
// the smallest program the predicate allows.
func TestMinimizeSyntactic(t *testing.T) {
	const big = `litmus big
node n1 { x = 2; y = 1; z }
node n2 { a = 1; b = 2 }
node n3 { c = 3 }
thread t1 on n1 {
  L1: x := 2
  a := y
  choose { poll(n2) } or { y := cas(z, 2, 3); rfence(n3) }
  loop { b := x; poll(n2) }
  assume(x == 2)
}
thread t2 on n2 {
  b := 1
  loop { choose { z := a } or { c := b } }
  assume(a != 1)
}
thread t3 on n3 { c := 2; z := c }
exists (x = 2 /\ a = 1)
expect rdma allowed
`
	has := func(p *prog.Program, f func(*prog.Stmt) bool) bool {
		found := false
		walkSimple(p, func(s *prog.Stmt) { found = found || f(s) })
		return found
	}
	tests := []struct {
		name  string
		keep  func(*prog.Program) bool
		want  string // the minimal program's threads, printed
		stmts int
	}{
		{"a put", func(p *prog.Program) bool { return has(p, func(s *prog.Stmt) bool { return s.Kind == prog.SPut }) },
			"node n1 { x = 0 }\nnode n2 { a = 0 }\nthread t1 on n1 {\n  a := x\n}\n", 1},
		{"a cas writing at least 1", func(p *prog.Program) bool {
			return has(p, func(s *prog.Stmt) bool { return s.Kind == prog.SCAS && s.B >= 1 })
		}, "thread t1 on n1 {\n  x := cas(x, 0, 1)\n}\n", 1},
		{"a loop", func(p *prog.Program) bool {
			for _, th := range p.Threads {
				for _, s := range th.Body {
					if s.Kind == prog.SLoop {
						return true
					}
				}
			}
			return false
		}, "", 1},
		{"two threads writing", func(p *prog.Program) bool {
			n := 0
			for _, th := range p.Threads {
				if len(th.Body) > 0 && th.Body[0].Kind == prog.SWrite {
					n++
				}
			}
			return n >= 2
		}, "", 2},
		{"an assume of 2", func(p *prog.Program) bool {
			return has(p, func(s *prog.Stmt) bool { return s.Kind == prog.SAssume && s.A == 2 })
		}, "thread t1 on n1 {\n  assume(x == 2)\n}\n", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, big)
			if !tc.keep(p) {
				t.Fatal("predicate does not hold for the input")
			}
			got, st := Minimize(context.Background(), p, func(_ context.Context, q *prog.Program) bool { return tc.keep(q) }, MinimizeOptions{})
			text := got.String()
			if !tc.keep(got) {
				t.Fatalf("result does not keep:\n%s", text)
			}
			if n := CountStatements(got); n != tc.stmts {
				t.Errorf("%d statements, want %d:\n%s", n, tc.stmts, text)
			}
			if tc.want != "" && !strings.Contains(text, tc.want) {
				t.Errorf("got\n%s\nwant threads\n%s", text, tc.want)
			}
			if st.Before != CountInstructions(p) || st.After != CountInstructions(got) || st.Checks == 0 || st.Kept == 0 || st.Exhausted {
				t.Errorf("stats %+v", st)
			}
			if len(got.Expects) != 0 || strings.Contains(text, "L1:") {
				t.Errorf("expects or labels left:\n%s", text)
			}
			if _, err := parse.Parse("x.rdma", []byte(text)); err != nil {
				t.Errorf("result does not parse: %v", err)
			}
		})
	}
}

// TestMinimizeKeepsAThread: a candidate without a thread is no program
// (the parser rejects it), so keep never sees one, even a keep that
// accepts anything.
func TestMinimizeKeepsAThread(t *testing.T) {
	p := mustParse(t, "node a { x }\nnode b { y }\nthread t1 on a { y := x }\n")
	var kept []*prog.Program
	keep := func(_ context.Context, q *prog.Program) bool {
		kept = append(kept, q)
		return true
	}
	m := &minimizer{ctx: context.Background(), keep: keep, opt: MinimizeOptions{MaxChecks: 100, Time: time.Minute},
		deadline: time.Now().Add(time.Minute), tried: map[string]bool{}, cur: p}
	noThreads := clone(p)
	noThreads.Threads = nil
	for name, c := range map[string]*prog.Program{"threads removed": noThreads, "node of the only thread dropped": dropNode(p, 0)} {
		if m.try(c) || len(kept) > 0 {
			t.Errorf("%s: tested as a candidate:\n%s", name, c)
		}
	}
	got, _ := Minimize(context.Background(), p, keep, MinimizeOptions{})
	for _, q := range append(kept, got) {
		if len(q.Threads) == 0 {
			t.Fatalf("a program without a thread was tested or returned:\n%s", q)
		}
	}
	if len(got.Threads) != 1 || CountStatements(got) != 0 {
		t.Errorf("minimal program:\n%s", got)
	}
}

// TestMinimizeSemantic minimises a generated program whose RDMA machine
// has a final outcome its SC machine lacks (a non-SC behaviour) down to
// the two-instruction programs that have one.
func TestMinimizeSemantic(t *testing.T) {
	weak := func(ctx context.Context, p *prog.Program) bool {
		p = showAll(p)
		opt := verdict.Options{Machine: machine.DefaultOptions()}
		r, err := verdict.Compute(ctx, p, machine.RDMA, opt)
		if err != nil || !r.Complete {
			return false
		}
		s, err := verdict.Compute(ctx, p, machine.SC, opt)
		if err != nil || !s.Complete {
			return false
		}
		return len(verdict.CompareOutcomes(r, s).OnlyMachine) > 0
	}
	cfg := gen.DefaultConfig()
	cfg.Instrs = [2]int{4, 5}
	cfg.Threads = [2]int{2, 3}
	found := 0
	for i := 0; found < 3 && i < 200; i++ {
		p := gen.Program(rand.New(rand.NewPCG(uint64(i), 9)), cfg, "weak")
		if !weak(context.Background(), p) {
			continue
		}
		found++
		got, st := Minimize(context.Background(), p, weak, MinimizeOptions{})
		if !weak(context.Background(), got) {
			t.Fatalf("result is not weak:\n%s", got)
		}
		t.Logf("%d -> %d instructions, %d checks:\n%s", st.Before, st.After, st.Checks, got)
		if st.After > 3 || len(got.Threads) > 2 {
			t.Errorf("from\n%s\nminimised only to\n%s", p, got)
		}
	}
	if found == 0 {
		t.Fatal("no weak program generated")
	}
}

// showAll is differ.ShowAll, without importing the comparisons.
func showAll(p *prog.Program) *prog.Program {
	q := *p
	q.Query = prog.Query{Kind: prog.QExists, Cond: &prog.Cond{Op: prog.CTrue}}
	return &q
}

// TestMinimizeBounds: the check budget stops the minimiser, which then
// says so and returns a program that keeps.
func TestMinimizeBounds(t *testing.T) {
	p := mustParse(t, "node n1 { x }\nnode n2 { y }\nthread t on n1 { x := 1; x := 2; y := x; x := 3 }\n")
	keep := func(_ context.Context, q *prog.Program) bool { return CountStatements(q) >= 1 }
	got, st := Minimize(context.Background(), p, keep, MinimizeOptions{MaxChecks: 1})
	if !st.Exhausted || st.Checks != 1 || !keep(nil, got) {
		t.Fatalf("stats %+v\n%s", st, got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, st = Minimize(ctx, p, keep, MinimizeOptions{})
	if st.Checks != 0 || st.Exhausted || CountStatements(got) != 4 {
		t.Fatalf("cancelled: stats %+v\n%s", st, got)
	}
}

// TestUnwind: a loop unrolled into choose { } or { A } or { A; A } has the
// outcomes of the loop bounded to two iterations.
func TestUnwind(t *testing.T) {
	for _, file := range []string{"paper-vass-loop.rdma", "rule-loop-gets-reorder.rdma", "ppo-33-LOOP-PUT-POLL.rdma", "rule-loop-spin-get-poll.rdma"} {
		t.Run(file, func(t *testing.T) {
			p, err := parse.File(litmus + file)
			if err != nil {
				t.Fatal(err)
			}
			p, ok := reparse(start(p)) // no labels: unwinding copies loop bodies
			if !ok {
				t.Fatal("start does not parse")
			}
			q, ok := reparse(unwind(p, 2))
			if !ok {
				t.Fatalf("unwound program does not parse:\n%s", unwind(p, 2))
			}
			if hasLoops(q) || strings.Contains(q.String(), "loop {") {
				t.Fatalf("loops left:\n%s", q)
			}
			for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
				o := verdict.Options{Machine: machine.DefaultOptions()}
				o.Machine.Unroll = 2
				a, err := verdict.Compute(context.Background(), p, sem, o)
				if err != nil {
					t.Fatal(err)
				}
				o.Machine.Unroll = 0
				b, err := verdict.Compute(context.Background(), q, sem, o)
				if err != nil {
					t.Fatal(err)
				}
				if d := verdict.CompareOutcomes(a, b); !d.Empty() || len(a.Outcomes) == 0 {
					t.Errorf("%s: loop %d outcomes, unwound %d: %+v", sem, len(a.Outcomes), len(b.Outcomes), d)
				}
			}
		})
	}
}

// TestRelabel: dropping and merging nodes and locations renumbers
// everything consistently and drops what used the dropped parts.
func TestRelabel(t *testing.T) {
	const src = `node n1 { x = 1; y }
node n2 { z = 2; w }
node n3 { v }
thread a on n1 { z := x; rfence(n2); y := v; poll(n3) }
thread b on n2 { w := 1; assume(z == 2) }
thread c on n3 { v := 3 }
`
	tests := []struct {
		name string
		f    func(*prog.Program) *prog.Program
		want string // program text, or "" when it must not parse
	}{
		{"drop n3", func(p *prog.Program) *prog.Program { return dropNode(p, 2) },
			"node n1 { x = 1; y = 0 }\nnode n2 { z = 2; w = 0 }\nthread a on n1 {\n  z := x\n  rfence(n2)\n}\nthread b on n2 {\n  w := 1\n  assume(z == 2)\n}\n"},
		{"drop n1", func(p *prog.Program) *prog.Program { return dropNode(p, 0) },
			"node n2 { z = 2; w = 0 }\nnode n3 { v = 0 }\nthread b on n2 {\n  w := 1\n  assume(z == 2)\n}\nthread c on n3 {\n  v := 3\n}\n"},
		{"drop z", func(p *prog.Program) *prog.Program { return dropLoc(p, 2) },
			"node n1 { x = 1; y = 0 }\nnode n2 { w = 0 }\nnode n3 { v = 0 }\nthread a on n1 {\n  rfence(n2)\n  y := v\n  poll(n3)\n}\nthread b on n2 {\n  w := 1\n}\nthread c on n3 {\n  v := 3\n}\n"},
		{"merge w into z", func(p *prog.Program) *prog.Program { return mergeLoc(p, 3, 2) },
			"node n1 { x = 1; y = 0 }\nnode n2 { z = 2 }\nnode n3 { v = 0 }\nthread a on n1 {\n  z := x\n  rfence(n2)\n  y := v\n  poll(n3)\n}\nthread b on n2 {\n  z := 1\n  assume(z == 2)\n}\nthread c on n3 {\n  v := 3\n}\n"},
		// Merging n3 into n2 keeps every statement: v moves to n2.
		{"merge n3 into n2", func(p *prog.Program) *prog.Program { return mergeNode(p, 2, 1) },
			"node n1 { x = 1; y = 0 }\nnode n2 { z = 2; w = 0; v = 0 }\nthread a on n1 {\n  z := x\n  rfence(n2)\n  y := v\n  poll(n2)\n}\nthread b on n2 {\n  w := 1\n  assume(z == 2)\n}\nthread c on n2 {\n  v := 3\n}\n"},
		// Merging n2 into n1 makes z := x local to local: invalid.
		{"merge n2 into n1", func(p *prog.Program) *prog.Program { return mergeNode(p, 1, 0) }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.f(mustParse(t, src))
			q, ok := reparse(c)
			if tc.want == "" {
				if ok {
					t.Fatalf("parses:\n%s", q)
				}
				return
			}
			if !ok {
				t.Fatalf("does not parse:\n%s", c)
			}
			if got := q.String(); got != "litmus test\n"+tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestReplaceCompound: a compound statement is replaced by each of its
// branches in turn, and a choose of three loses each branch in turn.
func TestReplaceCompound(t *testing.T) {
	p := mustParse(t, "node n { x }\nthread t on n { choose { x := 1 } or { x := 2 } or { x := 3 }; loop { assume(x == 1) } }\n")
	var got []string
	for i := 0; i < countCompound(p); i++ {
		for b := 0; ; b++ {
			c, ok := replaceCompound(p, i, b)
			if !ok {
				break
			}
			q, _ := reparse(c)
			got = append(got, strings.Join(strings.Fields(strings.SplitN(q.String(), "{\n", 2)[1]), " "))
		}
	}
	want := []string{
		"x := 1 loop { assume(x == 1) } }",
		"x := 2 loop { assume(x == 1) } }",
		"x := 3 loop { assume(x == 1) } }",
		"choose { x := 2 } or { x := 3 } loop { assume(x == 1) } }",
		"choose { x := 1 } or { x := 3 } loop { assume(x == 1) } }",
		"choose { x := 1 } or { x := 2 } loop { assume(x == 1) } }",
		"choose { x := 1 } or { x := 2 } or { x := 3 } assume(x == 1) }",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
