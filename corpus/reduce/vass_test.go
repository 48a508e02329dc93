package reduce

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// loadAll loads every instance matching glob with load, keyed by file
// name without extension, and fails when there are fewer than min.
func loadAll[T any](t *testing.T, glob string, min int, load func(string) (T, error)) map[string]T {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) < min {
		t.Fatalf("want at least %d instances of %s, found %d (%v)", min, glob, len(files), err)
	}
	out := map[string]T{}
	for _, f := range files {
		v, err := load(f)
		if err != nil {
			t.Fatalf("%v", err)
		}
		out[strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))] = v
	}
	return out
}

// parseGenerated parses a generated program's source.
func parseGenerated(t *testing.T, name string, src []byte) *prog.Program {
	t.Helper()
	p, err := parse.Parse(name+".rdma", src)
	if err != nil {
		t.Fatalf("generated program does not parse: %v\n%s", err, src)
	}
	return p
}

// vassFiles loads every instance of corpus/vass.
func vassFiles(t *testing.T) map[string]*VASS { return loadAll(t, "../vass/*.vass", 8, LoadVASS) }

// vassProgram generates and parses v's program.
func vassProgram(t *testing.T, v *VASS) *prog.Program { return parseGenerated(t, v.Name, v.Program()) }

// TestVASSFiles checks every instance file: it parses, prints back to an
// equal instance, states its answer, the Karp–Miller check agrees with it,
// a breadth-first search finds a run exactly when it is coverable, and the
// generated program parses and carries the matching expect lines.
func TestVASSFiles(t *testing.T) {
	var coverable, notCoverable, large, twoPumped int
	for name, v := range vassFiles(t) {
		t.Run(name, func(t *testing.T) {
			if v.Name != name {
				t.Errorf("instance name %q, want the file name %q", v.Name, name)
			}
			again, err := ParseVASS("again", []byte(v.String()))
			if err != nil {
				t.Fatalf("String() does not parse: %v\n%s", err, v)
			}
			if again.String() != v.String() {
				t.Errorf("String() round trip differs:\n%s\nvs\n%s", v, again)
			}
			if v.Expect == ExpectNone {
				t.Fatal("no expect line")
			}
			want := v.Expect == ExpectYes
			if got := v.Coverable(); got != want {
				t.Errorf("Coverable() = %v, the file expects %v", got, want)
			}
			run, found := v.ShortestRun(40)
			if found != want {
				t.Errorf("ShortestRun(40) found=%v, the file expects coverable=%v", found, want)
			}
			if found {
				coverable++
				peak, ok := v.Peak(run)
				if !ok {
					t.Errorf("ShortestRun returned a run that is not one: %v", run)
				}
				if peak > 3 {
					large++
				}
				if v.Counters > 1 && len(run) > 2*v.Counters+2 {
					twoPumped++
				}
			} else {
				notCoverable++
			}

			p := vassProgram(t, v)
			robust, ok := p.Expectation(prog.Robust)
			if !ok || robust.Yes == want {
				t.Errorf("generated program: expect robust %v (present %v), want %v", robust.Yes, ok, !want)
			}
			for _, sem := range []prog.Semantics{prog.RDMA, prog.SC} {
				e, ok := p.Expectation(sem)
				if !ok || e.Yes != want {
					t.Errorf("generated program: expect %v %v (present %v), want allowed=%v", sem, e.Yes, ok, want)
				}
			}
			if p.Query.Kind != prog.QReach {
				t.Errorf("generated program: query %v, want reach", p.Query.Kind)
			}
		})
	}
	t.Run("coverage", func(t *testing.T) {
		if coverable < 4 || notCoverable < 3 || large < 2 || twoPumped < 1 {
			t.Errorf("corpus/vass: %d coverable, %d not, %d needing a counter > 3, %d with two counters pumped",
				coverable, notCoverable, large, twoPumped)
		}
	})
}

// TestVASSChain checks the scaled family: the accepting state needs the
// counter at n, the shortest run has 2n transitions, and chain-5.vass is
// VASSChain(5).
func TestVASSChain(t *testing.T) {
	for _, n := range []int{1, 2, 5, 17, MaxChain} {
		v := VASSChain(n)
		if err := v.Validate(); err != nil {
			t.Fatalf("VASSChain(%d): %v", n, err)
		}
		if !v.Coverable() {
			t.Errorf("VASSChain(%d) not coverable", n)
		}
		run, ok := v.ShortestRun(2 * n)
		peak, _ := v.Peak(run)
		if !ok || len(run) != 2*n || peak != n {
			t.Errorf("VASSChain(%d): shortest run %v (found %v, peak %d), want %d transitions, peak %d", n, run, ok, peak, 2*n, n)
		}
		if _, ok := v.ShortestRun(2*n - 1); ok {
			t.Errorf("VASSChain(%d): a run shorter than %d", n, 2*n)
		}
		vassProgram(t, v)
	}
	if VASSChain(0).String() != VASSChain(1).String() || VASSChain(1000).String() != VASSChain(MaxChain).String() {
		t.Error("VASSChain does not clamp n")
	}
	file, err := LoadVASS("../vass/chain-5.vass")
	if err != nil {
		t.Fatal(err)
	}
	if file.String() != VASSChain(5).String() {
		t.Errorf("chain-5.vass:\n%s\nVASSChain(5):\n%s", file, VASSChain(5))
	}
}

// TestVASSRobustMachine decides the generated programs' robustness by
// enumeration on the RDMA machine (verdict.RobustMachine, depth first). A coverable
// instance's program is found non-robust with the leader's loop unrolled
// just enough for the shortest accepting run and C'a, and max-inflight its
// counter peak; a not coverable one's shows no violation within the bounds
// (its exploration is infinite without them).
func TestVASSRobustMachine(t *testing.T) {
	t.Parallel()
	files := vassFiles(t)
	for _, tc := range []struct {
		name        string
		unroll, mif int // 0: derived from the shortest run
	}{
		{name: "trivial"}, {name: "init-accept"}, {name: "inc-dec"}, {name: "pump4"},
		{name: "chain-5"}, {name: "both2"}, {name: "transfer3"},
		{name: "dec-blocked", unroll: 4, mif: 2},
		{name: "conserve", unroll: 8, mif: 2},
		{name: "grow-forever", unroll: 6, mif: 3},
		{name: "unreachable-accept", unroll: 5, mif: 3},
	} {
		v := files[tc.name]
		if v == nil {
			t.Fatalf("no instance %s", tc.name)
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := v.Expect == ExpectNo
			unroll, mif := tc.unroll, tc.mif
			if unroll == 0 {
				run, ok := v.ShortestRun(40)
				if !ok {
					t.Fatal("no accepting run")
				}
				peak, _ := v.Peak(run)
				unroll, mif = len(run)+1, max(peak, 1)
			}
			// Depth first: the search stops at the first violation, which
			// breadth first reaches only after every shorter run (20 s for
			// transfer3, against milliseconds).
			opt := verdict.Options{Machine: machine.Options{MaxInflight: mif, Unroll: unroll}, Settings: explore.Settings{Order: explore.DFS}}
			r, err := verdict.RobustMachine(context.Background(), vassProgram(t, v), opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Robust != want {
				t.Errorf("unroll %d, max-inflight %d: robust=%v (%s), want %v", unroll, mif, r.Robust, r.Coverage(), want)
			}
			if !r.Robust && (r.Graph == nil || len(r.Graph.Cycle) < 2) {
				t.Error("violation without an sc cycle")
			}
			if r.Robust && r.Coverage() == verdict.Unknown {
				t.Errorf("search stopped early: %s", r.Bound)
			}
		})
	}
}

// TestVASSReach answers the generated programs' reach leader@ACC query on
// the RDMA and SC machines (loops explored to a fixpoint, max-inflight
// bounding the counters): allowed exactly for coverable instances.
func TestVASSReach(t *testing.T) {
	t.Parallel()
	for name, v := range vassFiles(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := v.Expect == ExpectYes
			mif := 2
			if run, ok := v.ShortestRun(40); ok {
				peak, _ := v.Peak(run)
				mif = max(peak, 1)
			}
			p := vassProgram(t, v)
			for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
				r, err := verdict.Compute(context.Background(), p, sem,
					verdict.Options{Machine: machine.Options{MaxInflight: mif}, Settings: explore.Settings{MaxStates: 200000}})
				if err != nil {
					t.Fatal(err)
				}
				if r.Allowed != want {
					t.Errorf("%s, max-inflight %d: allowed=%v (%s), want %v", sem, mif, r.Allowed, r.Coverage(), want)
				}
				if !r.Allowed && r.Coverage() == verdict.Unknown {
					t.Errorf("%s: search stopped early: %s", sem, r.Bound)
				}
			}
		})
	}
}

// TestVASSProgramShape checks the generated text against the paper's
// fragments on a small instance.
func TestVASSProgramShape(t *testing.T) {
	v, err := ParseVASS("shape.vass", []byte("states q0 q1 q2\ncounters 2\ninit q0\naccept q2\nq0 -> q1 : c1 +1\nq1 -> q2 : c1 -1\n"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(v.Program())
	for _, want := range []string{
		"litmus vass-shape\n",
		"node L { x = 0; one = 1; y = 0; a = 1 }\n",
		"node C0 { x0 = 0 }\n",
		"node C1 { x1 = 0 }\n",
		"node D { z = 0; w = 1 }\n",
		"choose { assume(x == 0); x1 := one; x := 1 }",
		"or     { assume(x == 1); poll(C1); x := 2 }",
		"or     { assume(x == 2); ACC: y := w; z := a; a := 2 }",
		"reach leader@ACC\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("program lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, "expect") {
		t.Errorf("no expect line in the instance, but the program has one:\n%s", src)
	}
	// Without transitions the loop body is C'a alone.
	v.Trans = nil
	p := vassProgram(t, v)
	if n := len(p.Threads[0].Body[0].Branches[0]); n != 4 {
		t.Errorf("loop body of a VASS without transitions has %d statements, want 4", n)
	}
}

// TestParseVASSErrors checks the messages for bad input, with positions.
func TestParseVASSErrors(t *testing.T) {
	const head = "counters 2\ninit q0\naccept q1\n"
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "t.vass:1:1: missing counters line (counters N)"},
		{"no init", "counters 1\naccept q\n", "t.vass:1:1: missing init line (init STATE)"},
		{"no accept", "counters 1\ninit q\n", "t.vass:1:1: missing accept line (accept STATE)"},
		{"counters zero", "counters 0\n", `t.vass:1:10: expected a number of counters (1..62), found "0"`},
		{"counters big", "counters 63\n", `t.vass:1:10: expected a number of counters (1..62), found "63"`},
		{"counters word", "counters two\n", `t.vass:1:10: expected a number of counters (1..62), found "two"`},
		{"counters missing", "counters\n", "t.vass:1:9: expected N after counters"},
		{"counters twice", "counters 1\ncounters 2\n", "t.vass:2:1: second counters line (first at line 1)"},
		{"trailing", "counters 1 2\n", `t.vass:1:12: unexpected "2" after the counters line's argument`},
		{"bad name", "vass a*b\n", `t.vass:1:6: invalid vass name "a*b": use 1 to 64 of [A-Za-z0-9_.+-]`},
		{"name slash", "vass a/b\n", `t.vass:1:7: unexpected "/" after the vass line's argument`},
		{"keyword state", "init accept\n", `t.vass:1:6: "accept" is a keyword and cannot name a state`},
		{"bad state", "init 3q\n", `t.vass:1:6: expected a state name, found "3q"`},
		{"unknown directive", "count 2\n", `t.vass:1:1: expected a directive (vass, counters, states, init, accept, expect) or a transition FROM -> TO : cN +1|-1, found "count"`},
		{"no target", head + "q0 ->\n", "t.vass:4:6: expected the target state, found end of line"},
		{"bad target", head + "q0 -> : c0 +1\n", `t.vass:4:7: expected a state name, found ":"`},
		{"garbage", "-> q1\n", `t.vass:1:1: expected a directive (vass, counters, states, init, accept, expect) or a transition FROM -> TO : cN +1|-1, found "->"`},
		{"no colon", head + "q0 -> q1 c0 +1\n", `t.vass:4:10: expected : after the target state, found "c0"`},
		{"short transition", head + "q0 -> q1 :\n", "t.vass:4:11: expected a counter cN, found end of line"},
		{"no delta", head + "q0 -> q1 : c0\n", "t.vass:4:14: expected +1 or -1, found end of line"},
		{"bad counter", head + "q0 -> q1 : d0 +1\n", `t.vass:4:12: expected a counter cN, found "d0"`},
		{"leading zero", head + "q0 -> q1 : c01 +1\n", `t.vass:4:12: expected a counter cN, found "c01"`},
		{"bad delta", head + "q0 -> q1 : c0 +2\n", `t.vass:4:15: expected +1 or -1, found "+2"`},
		{"counter range", head + "q0 -> q1 : c2 -1\n", "t.vass:4:12: counter c2 out of range: the VASS has 2 counters (c0..c1)"},
		{"counter range 1", "counters 1\ninit q0\naccept q1\nq0 -> q1 : c1 -1\n", "t.vass:4:12: counter c1 out of range: the VASS has 1 counter (c0..c0)"},
		{"trailing transition", head + "q0 -> q1 : c0 -1 x\n", `t.vass:4:18: unexpected "x" after the transition`},
		{"expect", head + "expect maybe\n", `t.vass:4:8: expected coverable or not-coverable after expect, found "maybe"`},
		{"states late", head + "states q0 q1\n", "t.vass:4:1: the states line must come before any other mention of a state"},
		{"states twice", "states a a\n", "t.vass:1:10: state a listed twice"},
		{"control", "counters 1\x01\n", "t.vass:1:11: unexpected control character 0x01"},
		{"too many states", "states" + manyStates(MaxVASSStates+1) + "\n", "t.vass:1:1178: too many states (the limit is 256)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ParseVASS("t.vass", []byte(tc.src))
			if err == nil {
				t.Fatalf("parsed: %v", v)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n  %s\nwant\n  %s", err, tc.want)
			}
			if _, ok := err.(*Error); !ok {
				t.Errorf("error of type %T, want *Error", err)
			}
		})
	}
}

// TestParseVASSDefaults checks the defaults and the numbering of states.
func TestParseVASSDefaults(t *testing.T) {
	v, err := ParseVASS("dir/my file.vass", []byte("q1 -> q0 : c0 +1 // comment\n# comment\ncounters 1\naccept q0\ninit q1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "my_file" || v.Expect != ExpectNone || v.Init != 0 || v.Accept != 1 ||
		strings.Join(v.States, ",") != "q1,q0" || len(v.Trans) != 1 {
		t.Errorf("parsed %+v", v)
	}
	if !v.Coverable() {
		t.Error("not coverable")
	}
	v, err = ParseVASS("x", []byte("states b a\ncounters 1\ninit a\naccept b\na->b:c0 +1"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Init != 1 || v.Accept != 0 || v.Trans[0] != (Transition{From: 1, To: 0, Counter: 0, Delta: 1}) {
		t.Errorf("parsed %+v", v)
	}
}

// TestVASSValidate checks that hand-built instances are validated.
func TestVASSValidate(t *testing.T) {
	good := func() *VASS { return VASSChain(2) }
	for _, tc := range []struct {
		name   string
		change func(v *VASS)
	}{
		{"name", func(v *VASS) { v.Name = "a b" }},
		{"counters", func(v *VASS) { v.Counters = 0 }},
		{"init", func(v *VASS) { v.Init = 9 }},
		{"state name", func(v *VASS) { v.States[0] = "init" }},
		{"duplicate state", func(v *VASS) { v.States[1] = v.States[0] }},
		{"delta", func(v *VASS) { v.Trans[0].Delta = 2 }},
		{"counter", func(v *VASS) { v.Trans[0].Counter = 1 }},
		{"expect", func(v *VASS) { v.Expect = 7 }},
	} {
		v := good()
		tc.change(v)
		if v.Validate() == nil {
			t.Errorf("%s: invalid VASS accepted", tc.name)
		}
	}
	if err := good().Validate(); err != nil {
		t.Error(err)
	}
}

// TestCoverableKarpMiller checks the coverability check on instances whose
// answer depends on acceleration.
func TestCoverableKarpMiller(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		// A counter pumped in a loop through two states, then 6 decrements.
		{"counters 1\ninit a\naccept f\na -> b : c0 +1\nb -> a : c0 +1\na -> d1 : c0 -1\nd1 -> d2 : c0 -1\nd2 -> d3 : c0 -1\nd3 -> d4 : c0 -1\nd4 -> d5 : c0 -1\nd5 -> f : c0 -1\n", true},
		// Pumping c0 costs c1, which is never incremented: nothing moves.
		{"counters 2\ninit a\naccept f\na -> b : c1 -1\nb -> a : c0 +1\na -> f : c0 -1\n", false},
		// Pumping c0 needs c1 = 1 first, which is given once.
		{"counters 2\ninit s\naccept f\ns -> a : c1 +1\na -> b : c1 -1\nb -> a2 : c0 +1\na2 -> a : c1 +1\na -> f1 : c0 -1\nf1 -> f : c0 -1\n", true},
		// Every loop strictly decreases c0 + c1 after the initial 2 units.
		{"counters 2\ninit s\naccept f\ns -> s1 : c0 +1\ns1 -> q : c0 +1\nq -> m : c0 -1\nm -> q : c1 +1\nq -> n : c1 -1\nn -> n2 : c1 -1\nn2 -> q : c0 +1\nq -> r1 : c0 -1\nr1 -> r2 : c0 -1\nr2 -> f : c1 -1\n", false},
	} {
		v, err := ParseVASS("km", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Coverable(); got != tc.want {
			t.Errorf("Coverable() = %v, want %v for\n%s", got, tc.want, tc.src)
		}
		if _, ok := v.ShortestRun(30); ok != tc.want {
			t.Errorf("ShortestRun(30) found=%v, want %v for\n%s", ok, tc.want, tc.src)
		}
	}
}

// manyStates returns " s0 s1 ... s(n-1)".
func manyStates(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " s%d", i)
	}
	return b.String()
}
