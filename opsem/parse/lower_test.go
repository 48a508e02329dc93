package parse

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/opsem/prog"
)

var updateLower = flag.Bool("update-lower", false, "rewrite testdata/lower/*.golden")

// TestLowerGolden pins the lowering of the protocols in testdata/lower: the
// control-flow graph each thread is compiled to, with its source map. Review
// a change with git diff after go test -run TestLowerGolden -update-lower.
func TestLowerGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/lower/*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := File(f)
			if err != nil {
				t.Fatal(err)
			}
			for i := range p.Threads {
				if !p.Threads[i].Lowered {
					t.Errorf("thread %s was not lowered", p.Threads[i].Name)
				}
			}
			got := p.CodeString()
			golden := strings.TrimSuffix(f, ".rdma") + ".golden"
			if *updateLower {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-lower)", err)
			}
			if got != string(want) {
				t.Errorf("lowering differs from %s:\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

// TestLowerShape checks properties every lowering has, on the golden files
// and on the cases below: registers cost only the valuations a run reaches,
// every cycle passes a loop head (prog.Compile checks it), and labels name
// every copy of their statement.
func TestLowerShape(t *testing.T) {
	tests := []struct {
		name, src string
		check     func(t *testing.T, p *prog.Program)
	}{
		{"a 0..255 counter taking four values costs four stores",
			"node A { x = 0 }\nthread T on A { reg r : 0..255\n for k in 0..3 { r := r + 1; x := r } }",
			func(t *testing.T, p *prog.Program) {
				if n := len(p.Threads[0].Code); n != 5 {
					t.Errorf("%d instructions, want 4 stores and the end:\n%s", n, p.CodeString())
				}
			}},
		{"a register test costs nothing",
			"node A { x = 0 }\nthread T on A { reg r = 1\n if (r == 1) { x := 1 } else { x := 2 } }",
			func(t *testing.T, p *prog.Program) {
				c := p.Threads[0].Code
				if len(c) != 2 || c[0].Op != prog.OpWrite || c[0].A != 1 {
					t.Errorf("want x := 1 and the end:\n%s", p.CodeString())
				}
			}},
		{"a test on memory reads once: assume and its negation",
			"node A { x : 0..3 = 0; y = 0 }\nthread T on A { if (x == 2) { y := 1 } }",
			func(t *testing.T, p *prog.Program) {
				c := p.Threads[0].Code
				if c[0].Op != prog.OpSwitch || c[0].X != 0 || len(c[0].Alts) != 2 || c[c[0].Alts[0]].Op+c[c[0].Alts[1]].Op != prog.OpAssumeEq+prog.OpAssumeNe {
					t.Errorf("want switch x { assume(x == 2) } or { assume(x != 2) }:\n%s", p.CodeString())
				}
				// One read, one alternative per value: x = 2 takes assume(x == 2), any other value the other.
				for v := 0; v <= prog.MaxValue; v++ {
					a := &c[c[0].Alts[c[0].SwitchAlt(uint8(v))]]
					if (a.Op == prog.OpAssumeEq) != (v == 2) {
						t.Errorf("x = %d takes %s", v, p.StmtString(a.Stmt))
					}
				}
			}},
		{"a while over memory is a loop head",
			"node A { x = 0 }\nnode B { y = 1 }\nthread T on A { while (x == 0) { skip } }\nthread U on B { x := y }",
			func(t *testing.T, p *prog.Program) {
				if p.Threads[0].Loops != 1 {
					t.Errorf("%d loops, want 1:\n%s", p.Threads[0].Loops, p.CodeString())
				}
			}},
		{"a while over registers unrolls",
			"node A { x = 0 }\nthread T on A { reg r : 0..3\n while (r < 3) { r := r + 1; x := r } }",
			func(t *testing.T, p *prog.Program) {
				if p.Threads[0].Loops != 0 || len(p.Threads[0].Code) != 4 {
					t.Errorf("want three stores, no loop:\n%s", p.CodeString())
				}
			}},
		{"a label names each copy of its statement",
			"node A { x = 0 }\nthread T on A { for k in 0..2 { L: x := k } }\nreach T@L",
			func(t *testing.T, p *prog.Program) {
				if n := len(p.Threads[0].LabelPCs("L")); n != 3 {
					t.Errorf("label L names %d instructions, want 3", n)
				}
			}},
		{"asserts without a query ask whether one fails",
			"node A { x = 0 }\nthread T on A { x := 1; assert(x == 1) }\nthread U on A { x := 2 }",
			func(t *testing.T, p *prog.Program) {
				if p.Query.Kind != prog.QReach || p.Query.Cond.Op != prog.CFail {
					t.Errorf("query %v %s, want reach T@fail", p.Query.Kind, p.CondString(p.Query.Cond))
				}
			}},
		{"a domain follows NIC copies",
			"node A { x = 0; s = 5 }\nnode B { y = 0; d = 0 }\nthread T on A { y := s }\nthread U on B { reg r\n d := y\n r := d }",
			func(t *testing.T, p *prog.Program) {
				// r := d branches over d's values: 0 (initial) and 5 (copied from s through y).
				if !strings.Contains(p.CodeString(), "assume(d == 5)") {
					t.Errorf("d's domain misses 5:\n%s", p.CodeString())
				}
			}},
		{"params from the options override the file's",
			"param N = 1\nnode A { b[N] = 0 }\nthread T on A { skip }",
			func(t *testing.T, p *prog.Program) {
				if len(p.Locs) != 3 {
					t.Errorf("%d locations, want 3 with N=3", len(p.Locs))
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opt Options
			if strings.Contains(tc.src, "param N") {
				opt.Params = map[string]int{"N": 3}
			}
			p, err := ParseOptions("t.rdma", []byte(tc.src), opt)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p)
		})
	}
}

// TestUndeclaredParam: a --param whose name the file does not declare is an
// error naming the params the file has, not silently ignored (issue 34).
func TestUndeclaredParam(t *testing.T) {
	const withN = "param N = 2\nparam K = 1\nnode A { b[N] = 0 }\nthread T on A { skip }\n"
	const none = "node A { x = 0 }\nthread T on A { x := 1 }\n"
	for _, tc := range []struct {
		name, src string
		params    map[string]int
		want      string // the first error, or "" for none
	}{
		{"declared", withN, map[string]int{"N": 3}, ""},
		{"wrong case", withN, map[string]int{"n": 2}, "t.rdma:1:7: --param n=2: the file declares no param n; its params: N, K (did you mean N?)"},
		{"another name", withN, map[string]int{"M": 3}, "t.rdma:1:7: --param M=3: the file declares no param M; its params: N, K"},
		{"one of two unknown", withN, map[string]int{"N": 3, "Q": 1}, "t.rdma:1:7: --param Q=1: the file declares no param Q; its params: N, K"},
		{"a litmus test", none, map[string]int{"N": 3}, "t.rdma:1:1: --param N=3: the file declares no param N; it declares none (drop --param, or declare it: param N = 3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOptions("t.rdma", []byte(tc.src), Options{Params: tc.params})
			got := ""
			if err != nil {
				got = err.(ErrorList)[0].Error()
			}
			if got != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}

// TestLowerErrors checks the messages of mistakes only a protocol can make.
func TestLowerErrors(t *testing.T) {
	const two = "node A { x = 0; a[2] = 0 }\nnode B { y = 0 }\n"
	tests := []struct{ name, src, want string }{
		{"remote read in an expression", two + "thread T on A { reg r\n r := y + 1 }",
			"t.rdma:4:7: y is on node B: thread T reads only the memory of its own node A (get it into a location of A first: l := y)"},
		{"expression stored to a remote location", two + "thread T on A { reg r\n y := r + 1 }",
			"t.rdma:4:2: y is on node B: a value goes to another node only by a put from a location of A (l := r + 1; y := l)"},
		{"unknown name", two + "thread T on A { x := q + 1 }",
			"t.rdma:3:22: unknown name q (declare a register with reg q, or a location in a node)"},
		{"register named as a location", two + "thread T on A { reg x\n skip }",
			"t.rdma:3:21: register x has the name of a location"},
		{"break outside a loop", two + "thread T on A { x := 1; break }",
			"t.rdma:3:25: break outside a loop"},
		{"array without its index", two + "thread T on A { reg r\n r := a }",
			"t.rdma:4:7: a takes 1 indices, not 0"},
		{"assume that never holds, nothing to wait on", "node A { }\nthread T on A { reg r = 1\n assume(r == 2) }",
			"t.rdma:3:2: assume(r == 2) never holds here, and node A has no location for the thread to wait on: declare one"},
		{"cas into a register", two + "thread T on A { reg r\n r := cas(x, 0, 1) }",
			"t.rdma:4:2: cas writes the old value to a location of the thread's node (x := cas(z, a, b)), not to register r; read x afterwards"},
		{"poll of the own node", "param N = 2\nnode m[i] for i in 0..N-1 { f = 0 }\nthread t[i] on m[i] for i in 0..N-1 { poll(m[i]) }",
			"t.rdma:3:44: poll(m[0]): m[0] is the thread's own node; it names the remote node of a queue pair"},
		{"a family's range not constant", "node m[i] for i in 0..K { f = 0 }\nthread T on m[0] { skip }",
			"t.rdma:1:23: the range of node m: K is not a constant (a number, a param, or a family's or for loop's index)"},
		{"initial value outside the range", "node A { x : 1..3 = 0 }\nthread T on A { skip }",
			"t.rdma:1:21: the initial value 0 of x is outside its range 1..3"},
		{"register range outside 0..255", "node A { x = 0 }\nthread T on A { reg r : 0..300\n skip }",
			"t.rdma:2:25: the range 0..300 of register r is not within 0..255"},
		{"unknown node of a family", "node m[i] for i in 0..1 { f = 0 }\nthread T on m[2] { skip }",
			"t.rdma:2:13: unknown node m[2] (declare it with node m { ... })"},
		{"a label fail", two + "thread T on A { fail: skip }",
			"t.rdma:3:17: fail cannot be a label: T@fail means the thread has stopped at an error"},
		{"a call with the wrong arity", "node A { x = 0 }\nnode B { y = 0 }\nproc p(a, b) { a := b }\nthread T on A { p(y) }",
			"t.rdma:4:17: p takes 2 arguments, not 1"},
		{"an unknown procedure", "node A { x = 0 }\nproc p(a) { a := 1 }\nthread T on A { q(x) }",
			"t.rdma:3:17: unknown statement or procedure q (declare it with proc q(...) { ... })"},
		{"a recursive procedure", "node A { x = 0 }\nproc p(a) { p(a) }\nthread T on A { p(x) }",
			"t.rdma:2:13: calls nested more than 50 deep: does p call itself?"},
		{"comparison chain", two + "thread T on A { reg r\n assert(0 < r < 2) }",
			"t.rdma:4:15: comparisons do not chain: write (a < b) && (b < c)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.rdma", []byte(tc.src))
			if err == nil {
				t.Fatalf("parsed, want %q", tc.want)
			}
			if got := err.(ErrorList)[0].Error(); got != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}
