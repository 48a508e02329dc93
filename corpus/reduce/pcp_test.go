package reduce

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// pcpFiles loads every instance of corpus/pcp.
func pcpFiles(t *testing.T) map[string]*PCP { return loadAll(t, "../pcp/*.pcp", 2, LoadPCP) }

// pcpProgram generates and parses p's program.
func pcpProgram(t *testing.T, p *PCP) *prog.Program { return parseGenerated(t, p.Name, p.Program()) }

// easyUnsolvable returns an elementary reason why p has no solution, or ""
// when none of these applies: no pair can start a match, every top word is
// longer (or every one shorter) than its bottom word, or some letter occurs
// more often on top than at the bottom in every pair (or less in every one).
func easyUnsolvable(p *PCP) string {
	start := false
	for _, pr := range p.Pairs {
		if strings.HasPrefix(pr.U, pr.V) || strings.HasPrefix(pr.V, pr.U) {
			start = true
		}
	}
	if !start {
		return "no pair starts a match"
	}
	sign := func(d int) int {
		switch {
		case d > 0:
			return 1
		case d < 0:
			return -1
		}
		return 0
	}
	same := func(diff func(Pair) int) bool {
		s := sign(diff(p.Pairs[0]))
		if s == 0 {
			return false
		}
		for _, pr := range p.Pairs {
			if sign(diff(pr)) != s {
				return false
			}
		}
		return true
	}
	if same(func(pr Pair) int { return len(pr.U) - len(pr.V) }) {
		return "lengths"
	}
	for _, c := range p.Alphabet() {
		if same(func(pr Pair) int { return strings.Count(pr.U, string(c)) - strings.Count(pr.V, string(c)) }) {
			return fmt.Sprintf("count of %c", c)
		}
	}
	return ""
}

// TestPCPFiles checks every instance file: it parses, prints back to an
// equal instance, states its answer, a solution search confirms a solvable
// one and an elementary argument an unsolvable one, and the generated
// program parses and carries the matching expect lines.
func TestPCPFiles(t *testing.T) {
	var short, unsolvable int
	for name, p := range pcpFiles(t) {
		t.Run(name, func(t *testing.T) {
			if p.Name != name {
				t.Errorf("instance name %q, want the file name %q", p.Name, name)
			}
			again, err := ParsePCP("again", []byte(p.String()))
			if err != nil || again.String() != p.String() {
				t.Errorf("String() round trip: %v\n%s", err, p)
			}
			sol, exhausted := p.Solve(12)
			switch p.Expect {
			case ExpectYes:
				if sol == nil || !p.Check(sol) {
					t.Errorf("expect solvable, but Solve(12) = %v", sol)
				}
				if len(sol) <= 2 {
					short++
				}
			case ExpectNo:
				unsolvable++
				if sol != nil {
					t.Errorf("expect unsolvable, but %v is a solution", sol)
				}
				if why := easyUnsolvable(p); why == "" && !exhausted {
					t.Error("expect unsolvable, with no elementary argument")
				}
			default:
				t.Fatal("no expect line")
			}
			pr := pcpProgram(t, p)
			if pr.Query.Kind != prog.QReach || len(pr.Threads) != 4 {
				t.Errorf("generated program: query %v, %d threads", pr.Query.Kind, len(pr.Threads))
			}
			if e, ok := pr.Expectation(prog.RDMA); !ok || e.Yes != (p.Expect == ExpectYes) {
				t.Errorf("generated program: expect rdma %v (present %v)", e.Yes, ok)
			}
			if e, ok := pr.Expectation(prog.SC); !ok || e.Yes {
				t.Errorf("generated program: expect sc %v (present %v), want forbidden", e.Yes, ok)
			}
		})
	}
	t.Run("coverage", func(t *testing.T) {
		if short < 2 || unsolvable < 2 {
			t.Errorf("corpus/pcp: %d solvable instances with a solution of at most 2 pairs, %d unsolvable", short, unsolvable)
		}
	})
}

// TestPCPSolve checks the bounded solver.
func TestPCPSolve(t *testing.T) {
	for _, tc := range []struct {
		src       string
		sol       []int // nil: none
		exhausted bool
	}{
		{"a / a\n", []int{0}, false},
		{"a / ab\nb / a\n", nil, false}, // bottom stays ahead by one b
		{"ab / b\n", nil, true},
		{"a / baa\nab / aa\nbba / bb\n", []int{2, 1, 2, 0}, false},
		{"b / ab\nab / b\n", nil, true}, // no start
	} {
		p, err := ParsePCP("s", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		sol, ex := p.Solve(10)
		if fmt.Sprint(sol) != fmt.Sprint(tc.sol) || ex != tc.exhausted {
			t.Errorf("%q: Solve = %v, %v; want %v, %v", tc.src, sol, ex, tc.sol, tc.exhausted)
		}
	}
	p := &PCP{Pairs: []Pair{{"ab", "a"}, {"b", "bb"}}}
	if !p.Check([]int{0, 1}) || p.Check([]int{1, 0}) || p.Check(nil) || p.Check([]int{2}) {
		t.Error("Check")
	}
}

// TestPCPProgramShape checks the generated text against the appendix code,
// with the two corrections (see PCP.Program).
func TestPCPProgramShape(t *testing.T) {
	p, err := ParsePCP("shape.pcp", []byte("ab / a\nb / bb\n"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(p.Program())
	for _, want := range []string{
		"litmus pcp-shape\n",
		"node n1 { idx1 = 1; idx2 = 2; top1 = 1; end1 = 3 }\n",
		"node n2 { x1 = 0; f1 = 0; L2a = 1; L2b = 2; top2 = 1; end2 = 3 }\n",
		"node n4 { y1 = 0; g1 = 0; y2 = 0; g2 = 0 }\n",
		// p1: Ai, then the end markers.
		"  choose { x1 := idx1; f1 := top1; x2 := idx1; f2 := top1 }\n",
		"  x1 := end1\n  x2 := end1\n}",
		// p2: B1 sends a, b; the handshake in the order of process 4.
		"choose { assume(x1 == 1); y1 := L2a; g1 := top2; y1 := L2b; g1 := top2 }",
		"x1 := 0; assume(f1 == 0); assume(f1 == 1); f1 := 0; assume(x1 == 0)",
		"  assume(x1 == 3)    # F1: the end marker\n  assume(f1 == 0)    # F2: no unread message\n  y1 := end2\n",
		// p3: C2 sends b, b, each followed by g2 (not f2).
		"or     { assume(x2 == 2); y2 := L3b; g2 := top3; y2 := L3b; g2 := top3 }",
		// p4: Dσ and the two handshakes.
		"choose { assume(y1 == 1); assume(y2 == 1) }",
		"y1 := 0; assume(g1 == 0); assume(g1 == 1); g1 := 0; assume(y1 == 0); y2 := 0; assume(g2 == 0); assume(g2 == 1); g2 := 0; assume(y2 == 0)",
		"  assume(y1 == 3)\n  assume(g1 == 0)\n  assume(y2 == 3)\n  assume(g2 == 0)\n}",
		"reach p1@end /\\ p2@end /\\ p3@end /\\ p4@end\n",
		"expect sc forbidden\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("program lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, "expect rdma") {
		t.Errorf("no expect line in the instance, but the program has expect rdma:\n%s", src)
	}
	pcpProgram(t, p)
}

// channelProgram is one channel of the reduction on its own: thread snd
// sends the values seq (each 1 or 2) and the end marker 3 as p1 sends
// indices, and thread rcv receives them with the handshake hs, its loop run
// at least once as in p2; rcv tracks what it read with an automaton in st
// (state k after the first k values read right, 9 after any mistake). The
// query asks whether every final configuration has st = len(seq).
func channelProgram(seq []int, hs []string) string {
	n := len(seq)
	var b strings.Builder
	b.WriteString("node s { c1 = 1; c2 = 2; top = 1; end = 3 }\nnode r { m = 0; f = 0; st = 0 }\nthread snd on s {")
	for _, v := range seq {
		fmt.Fprintf(&b, " m := c%d; f := top;", v)
	}
	b.WriteString(" m := end }\n")
	var recv []string
	for v := 1; v <= 2; v++ {
		var track []string
		for q := 0; q <= n; q++ {
			next := 9
			if q < n && seq[q] == v {
				next = q + 1
			}
			track = append(track, fmt.Sprintf("{ assume(st == %d); st := %d }", q, next))
		}
		track = append(track, "{ assume(st == 9); skip }")
		recv = append(recv, fmt.Sprintf("{ assume(m == %d); choose %s }", v, strings.Join(track, " or ")))
	}
	body := "choose " + strings.Join(recv, " or ") + "; " + strings.Join(hs, "; ")
	fmt.Fprintf(&b, "thread rcv on r {\n  %s\n  loop { %s }\n  assume(m == 3); assume(f == 0)\n}\nforall (st = %d)\n", body, body, n)
	return b.String()
}

// TestPCPChannel checks the lemma the reduction rests on, on the RDMA
// machine, exhaustively: with the handshake the generator uses, the
// receiver can end, and whenever it ends it has read exactly the values
// sent, in order (no loss, no duplicate). It also checks that the
// handshake's checks are needed (without R3 or R6 values get lost or
// duplicated) and that the appendix's literal order for processes 2 and 3
// (assume(f = ⊤); assume(f = ⊥); f := ⊤) lets the receiver never end.
func TestPCPChannel(t *testing.T) {
	t.Parallel()
	good := handshake("m", "f")
	for _, tc := range []struct {
		name string
		hs   []string
		ends bool // some final configuration
		safe bool // every final configuration has read the right sequence
	}{
		{"generator", good, true, true},
		{"without-R3", []string{good[0], good[2], good[3], good[4]}, true, false},
		{"without-R6", good[:4], true, false},
		{"appendix-p2-literal", []string{"m := 0", "assume(f == 1)", "assume(f == 0)", "f := 1", "assume(m == 0)"}, false, true},
	} {
		for _, seq := range [][]int{{1, 1, 2}, {2, 1, 2}} {
			t.Run(fmt.Sprintf("%s-%v", tc.name, seq), func(t *testing.T) {
				t.Parallel()
				src := channelProgram(seq, tc.hs)
				p, err := parse.Parse("channel.rdma", []byte(src))
				if err != nil {
					t.Fatalf("%v\n%s", err, src)
				}
				// Unroll 3: the receiver may try a fourth message, so a
				// duplicate would show.
				r, err := verdict.Compute(context.Background(), p, machine.RDMA,
					verdict.Options{Machine: machine.Options{MaxInflight: 8, Unroll: 3}})
				if err != nil {
					t.Fatal(err)
				}
				if r.Coverage() == verdict.Unknown {
					t.Fatalf("search incomplete: %s", r.Bound)
				}
				if ends := len(r.Outcomes) > 0; ends != tc.ends {
					t.Errorf("receiver can end: %v, want %v (outcomes %v)", ends, tc.ends, r.Outcomes)
				}
				if safe := r.Negative == 0; safe != tc.safe {
					t.Errorf("only correct sequences read: %v, want %v (outcomes %v)", safe, tc.safe, r.Outcomes)
				}
			})
		}
	}
}

// pcpUnroll is the loop bound a solution needs: p1 and p2, p3 iterate once
// per index after the first, p4 once per letter after the first.
func pcpUnroll(p *PCP, sol []int) int {
	letters := 0
	for _, i := range sol {
		letters += len(p.Pairs[i].U)
	}
	return max(1, len(sol)-1, letters-1)
}

// TestPCPWitness confirms, for the solvable instances with short solutions,
// that the generated program's reach query holds on the RDMA machine: a
// guided search (see guided) finds a run in which all four threads end. The
// wikipedia instance's shortest solution has 4 pairs and 9 letters: p4's
// loop would need unrolling 8 times, beyond a fast test.
func TestPCPWitness(t *testing.T) {
	t.Parallel()
	files := pcpFiles(t)
	for _, name := range []string{"one-letter", "solvable-1", "solvable-2"} {
		p := files[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sol, _ := p.Solve(4)
			if sol == nil {
				t.Fatal("no solution")
			}
			opt := machine.Options{MaxInflight: 8, Unroll: pcpUnroll(p, sol)}
			found, r, err := guidedReach(context.Background(), pcpProgram(t, p), opt, 500000)
			if err != nil {
				t.Fatal(err)
			}
			if !found {
				t.Errorf("no run ends every thread (unroll %d, %d configurations, %v)", opt.Unroll, r.States, r.Stop)
			}
		})
	}
}

// TestPCPUnsolvableBounded checks that no witness appears for the unsolvable
// instances: not in the guided search, exhaustive under its discipline with
// every loop unrolled once and then twice (once only under the race
// detector), nor in the first 30,000
// configurations of the unrestricted machine (breadth first). Reachability
// being undecidable, nothing more can be checked.
func TestPCPUnsolvableBounded(t *testing.T) {
	t.Parallel()
	for name, p := range pcpFiles(t) {
		if p.Expect != ExpectNo {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pr := pcpProgram(t, p)
			unrolls := []int{1, 2}
			if raceEnabled {
				unrolls = unrolls[:1] // unroll 2 takes 10 s under the race detector
			}
			for _, unroll := range unrolls {
				found, r, err := guidedReach(context.Background(), pr, machine.Options{MaxInflight: 8, Unroll: unroll}, 500000)
				if err != nil {
					t.Fatal(err)
				}
				if found || r.Stop != explore.Complete {
					t.Errorf("guided search, unroll %d: found=%v, %v after %d configurations", unroll, found, r.Stop, r.States)
				}
			}
			res, err := verdict.Compute(context.Background(), pr, machine.RDMA,
				verdict.Options{Machine: machine.Options{MaxInflight: 2, Unroll: 1}, Settings: explore.Settings{MaxStates: 30000}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Allowed {
				t.Errorf("unrestricted machine: a run ends every thread")
			}
		})
	}
}

// TestPCPSC checks on the SC machine, completely, that even the one-letter
// instance's program cannot end every thread: the reduction needs the RDMA
// buffers (see PCP.Program).
func TestPCPSC(t *testing.T) {
	t.Parallel()
	p := pcpFiles(t)["one-letter"]
	r, err := verdict.Compute(context.Background(), pcpProgram(t, p), machine.SC,
		verdict.Options{Machine: machine.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Allowed || !r.Complete {
		t.Errorf("SC: allowed=%v complete=%v (%s)", r.Allowed, r.Complete, r.Bound)
	}
}

// TestParsePCPErrors checks the messages for bad input, with positions.
func TestParsePCPErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "# nothing\n", "t.pcp:1:1: no pairs (write one pair a line: TOP / BOTTOM)"},
		{"no slash", "ab a\n", `t.pcp:1:4: expected / between the top and the bottom word, found "a"`},
		{"no bottom", "ab /\n", "t.pcp:1:5: expected the bottom word, found end of line"},
		{"no top", "/ ab\n", `t.pcp:1:1: expected the top word, found "/"`},
		{"only top", "ab\n", "t.pcp:1:3: expected / between the top and the bottom word, found end of line"},
		{"upper case", "aB / b\n", `t.pcp:1:2: invalid letter 'B' in word "aB": words are over a..z`},
		{"digit", "ab / b1\n", `t.pcp:1:7: invalid letter '1' in word "b1": words are over a..z`},
		{"three words", "a / b / c\n", `t.pcp:1:7: unexpected "/" after the pair`},
		{"colon", "a : b\n", `t.pcp:1:3: expected / between the top and the bottom word, found ":"`},
		{"expect", "a / a\nexpect maybe\n", `t.pcp:2:8: expected solvable or unsolvable after expect, found "maybe"`},
		{"expect twice", "expect solvable\nexpect solvable\n", "t.pcp:2:1: second expect line (first at line 1)"},
		{"expect missing", "expect\n", "t.pcp:1:7: expected solvable or unsolvable after expect"},
		{"name", "pcp a*\n", `t.pcp:1:5: invalid pcp name "a*": use 1 to 64 of [A-Za-z0-9_.+-]`},
		{"name trailing", "pcp a b\n", `t.pcp:1:7: unexpected "b" after the pcp line's argument`},
		{"too many pairs", strings.Repeat("a / a\n", MaxPCPPairs+1), "t.pcp:101:1: too many pairs (the limit is 100)"},
		{"too many letters", strings.Repeat(strings.Repeat("a", 100)+" / a\n", 6), "t.pcp:6:1: too many letters (the limit is 500 in all top words, and in all bottom words)"},
		{"control", "a / a\x00\n", "t.pcp:1:6: unexpected control character 0x00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePCP("t.pcp", []byte(tc.src))
			if err == nil {
				t.Fatalf("parsed: %v", p)
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

// TestParsePCPDefaults checks the defaults, and that words named like the
// directives are pairs.
func TestParsePCPDefaults(t *testing.T) {
	p, err := ParsePCP("x/inst.pcp", []byte("pcp / expect\nexpect/pcp // both are pairs\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "inst" || p.Expect != ExpectNone || fmt.Sprint(p.Pairs) != "[{pcp expect} {expect pcp}]" {
		t.Errorf("parsed %+v", p)
	}
	if string(p.Alphabet()) != "ceptx" {
		t.Errorf("alphabet %q", p.Alphabet())
	}
	if p.Validate() != nil {
		t.Error(p.Validate())
	}
	for _, bad := range []*PCP{
		{Name: "x"},
		{Name: "x y", Pairs: []Pair{{"a", "a"}}},
		{Name: "x", Pairs: []Pair{{"", "a"}}},
		{Name: "x", Pairs: []Pair{{"A", "a"}}},
		{Name: "x", Pairs: []Pair{{"a", "a"}}, Expect: 3},
	} {
		if bad.Validate() == nil {
			t.Errorf("invalid instance accepted: %+v", bad)
		}
	}
}

// TestPCPLimits checks that an instance at the limits yields a program the
// .rdma parser accepts.
func TestPCPLimits(t *testing.T) {
	p := &PCP{Name: "big"}
	for i := 0; i < MaxPCPPairs; i++ {
		w := strings.Repeat(string(rune('a'+i%26)), MaxPCPLetters/MaxPCPPairs)
		p.Pairs = append(p.Pairs, Pair{w, w})
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	pcpProgram(t, p)
	v := &VASS{Name: "big", Counters: MaxVASSCounters, Init: 0, Accept: MaxVASSStates - 1}
	for i := 0; i < MaxVASSStates; i++ {
		v.States = append(v.States, fmt.Sprintf("q%d", i))
	}
	for i := 0; i < MaxVASSTransitions; i++ {
		v.Trans = append(v.Trans, Transition{From: i % MaxVASSStates, To: (i + 1) % MaxVASSStates, Counter: i % MaxVASSCounters, Delta: 1 - 2*(i%2)})
	}
	if err := v.Validate(); err != nil {
		t.Fatal(err)
	}
	vassProgram(t, v)
}
