package machine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// withWords makes every put and get of p between locations named like x0
// and y0, each followed in declaration order by x1 and y1 on its node, a
// two-word operation x0..x1 := y0..y1 (SEMANTICS-VERBS.md 1), and returns
// p. It lets these tests write multi-word programs in the core format.
func withWords(t *testing.T, p *prog.Program) *prog.Program {
	t.Helper()
	pair := func(l int) bool {
		a := p.Locs[l].Name
		if !strings.HasSuffix(a, "0") || l+1 >= len(p.Locs) {
			return false
		}
		b := p.Locs[l+1]
		return b.Name == strings.TrimSuffix(a, "0")+"1" && b.Node == p.Locs[l].Node
	}
	n := 0
	for th := range p.Threads {
		for pc := range p.Threads[th].Code {
			in := &p.Threads[th].Code[pc]
			if (in.Op == prog.OpPut || in.Op == prog.OpGet) && pair(in.X) && pair(in.Y) {
				in.Words, in.Stmt.Words = 2, 2
				n++
			}
		}
	}
	return p
}

// wordsPrograms returns n random programs over two nodes whose puts and
// gets move two words (y0..y1 := x0..x1, r0..r1 := s0..s1) or one, mixed
// with writes, polls, rfences and assumes.
func wordsPrograms(t *testing.T, n int) []*prog.Program {
	t.Helper()
	rng := rand.New(rand.NewPCG(32, 1))
	alphabet := func(x, r, y, s, remote string) []string {
		return []string{
			y + "0 := " + x + "0", y + "0 := " + x + "0", // two-word puts
			r + "0 := " + s + "0", // a two-word get
			y + "1 := " + x + "1", // a one-word put of a word of the same buffers
			r + "1 := " + s + "1", // a one-word get
			x + "0 := 5", x + "1 := 6",
			"poll(" + remote + ")", "rfence(" + remote + ")",
			"assume(" + r + "1 != 0)", "assume(" + x + "0 == 1)",
		}
	}
	onA := alphabet("x", "r", "y", "s", "B")
	onB := alphabet("y", "s", "x", "r", "A")
	ps := alphabetPrograms(t, rng, n, "words",
		"node A { x0 = 1; x1 = 2; r0 = 0; r1 = 0 }\nnode B { y0 = 3; y1 = 4; s0 = 0; s1 = 0 }\n", onA, onB)
	for _, p := range ps {
		withWords(t, p)
	}
	return ps
}

// TestWordsIncremental is TestSuccessorsIncremental on multi-word programs
// under both placements: the byte-level step (fast.go) emits exactly what
// the decoded step (nic.go, machine.go) gives, on the RDMA machine, the SC
// machine and the RDMA machine with event graphs.
func TestWordsIncremental(t *testing.T) {
	n := 150
	if raceOn {
		n = 15
	}
	words := 0
	for i, p := range wordsPrograms(t, n) {
		for _, pl := range []Placement{PlaceAny, PlaceInOrder} {
			checkIncremental(t, fmt.Sprintf("%s (%v)\n%s", p.Name, pl, p), p, Options{MaxInflight: 1 + i%3, Unroll: 1, Placement: pl})
		}
		if prog.HasVerbs(p) {
			words++
		}
	}
	if words < n/2 {
		t.Fatalf("only %d of %d programs have a multi-word operation", words, n)
	}
}

// TestWordsReduce compares the reduced and the full RDMA machine on
// wordsPrograms under both placements, as TestQuietReduce does. The
// reduction's steps of a multi-word operation are those of a one-word one
// (N2, N5, N7 and N8 move one entry or one group and touch no memory), so
// their independence argument is unchanged (reduce.go).
func TestWordsReduce(t *testing.T) {
	n := 300
	if raceOn {
		n = 30
	}
	var full, red int
	for i, p := range wordsPrograms(t, n) {
		for _, pl := range []Placement{PlaceAny, PlaceInOrder} {
			opt := Options{MaxInflight: 1 + i%3, Unroll: 1, Placement: pl}
			f, r := reduceAgrees(t, p, opt, i)
			full += f
			red += r
		}
	}
	t.Logf("%d programs, two placements: %d configurations, %d reduced", n, full, red)
}

// TestWordsSC: every final memory of the SC machine is one of the RDMA
// machine's, under either placement, and the in-order machine's finals are
// among the any-order machine's.
func TestWordsSC(t *testing.T) {
	for i, p := range wordsPrograms(t, 200) {
		opt := Options{MaxInflight: 1 + i%3, Unroll: 1}
		finals := map[Placement]map[string]bool{}
		for _, pl := range []Placement{PlaceAny, PlaceInOrder} {
			opt.Placement = pl
			m, err := NewRDMA(p, opt)
			if err != nil {
				t.Fatal(err)
			}
			_, finals[pl], _, _ = reach(t, m, false)
		}
		sc, err := NewSC(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		_, fs, _, _ := reach(t, sc, false)
		for f := range fs {
			if !finals[PlaceInOrder][f] {
				t.Fatalf("SC final %v is no final of the in-order RDMA machine\n%s", []byte(f), p)
			}
		}
		for f := range finals[PlaceInOrder] {
			if !finals[PlaceAny][f] {
				t.Fatalf("in-order final %v is no final of the any-order machine\n%s", []byte(f), p)
			}
		}
	}
}

// TestWordsPlacement: what each placement allows, on programs whose
// answer is known by hand. A final configuration exists only if every
// assume passed.
func TestWordsPlacement(t *testing.T) {
	const nodes = "node A { x0 = 1; x1 = 1; f = 1; r0 = 0; r1 = 0 }\nnode B { y0 = 0; y1 = 0; g = 0 }\n"
	for _, tc := range []struct {
		name, threads string
		any, inOrder  bool // a final configuration is reachable (RDMA)
		sc            bool
	}{
		// Last-word polling of a two-word message: seeing the last word
		// and not the first needs out-of-order placement.
		{"last-word", "thread T on A { y0 := x0 }\nthread U on B { assume(y1 == 1); assume(y0 == 0) }", true, false, false},
		// The first word without the last: in-order placement allows it.
		{"first-word", "thread T on A { y0 := x0 }\nthread U on B { assume(y0 == 1); assume(y1 == 0) }", true, true, false},
		// Two work requests of one queue pair stay FIFO: a flag put after
		// the message is placed after both of its words.
		{"fifo", "thread T on A { y0 := x0; g := f }\nthread U on B { assume(g == 1); assume(y0 == 0) }", false, false, false},
		{"fifo-last", "thread T on A { y0 := x0; g := f }\nthread U on B { assume(g == 1); assume(y1 == 0) }", false, false, false},
		// A two-word get torn against a two-word put: the get reads its
		// words one by one (tear.go), and the put's words may land
		// between its reads whatever the placement: it reads y0 before
		// the put's words land, y1 after.
		{"get-torn", "thread T on A { y0 := x0 }\nthread U on B { g := 1 }\nthread V on A { r0 := y0; poll(B); assume(r0 == 0); assume(r1 == 1) }", true, true, false},
		// A two-word get torn by the responder's CPU writes: y1's new
		// value with y0's old, though y0 was written first (it reads y0,
		// then both writes happen, then y1); y0's new value with y1's old
		// SC allows too (the get between the two writes).
		{"get-torn-cpu-new-last", "thread U on B { y0 := 1; y1 := 1 }\nthread V on A { r0 := y0; poll(B); assume(r0 == 0); assume(r1 == 1) }", true, true, false},
		{"get-torn-cpu-new-first", "thread U on B { y0 := 1; y1 := 1 }\nthread V on A { r0 := y0; poll(B); assume(r0 == 1); assume(r1 == 0) }", true, true, true},
		// The order that needs the reads out of word order: y1 written
		// first, then y0; seeing y0's new value and y1's old needs the get
		// to read y1 before y1's write and y0 after y0's.
		{"get-torn-cpu-reverse", "thread U on B { y1 := 1; y0 := 1 }\nthread V on A { r0 := y0; poll(B); assume(r0 == 1); assume(r1 == 0) }", true, true, false},
		// A two-word put's source torn by another thread's CPU writes:
		// x1 then x0 written, the put reads x1 before and x0 after (the
		// in-order column tells torn reads from snapshot ones).
		{"source-torn", "thread T on A { y0 := x0 }\nthread U on A { x1 := 0; x0 := 0 }\nthread W on B { assume(y1 == 1); assume(y0 == 0) }", true, true, false},
		{"get-torn-first", "thread T on A { y0 := x0 }\nthread V on A { r0 := y0; poll(B); assume(r0 == 1); assume(r1 == 0) }", true, true, false},
		// A two-word get reading a one-word put's word: both orders.
		{"get-one-word", "thread T on A { y1 := x1 }\nthread V on A { r0 := y0; poll(B); assume(r1 == 1) }", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "litmus " + tc.name + "\n" + nodes + tc.threads + "\nexists true\n"
			p, err := parse.Parse(tc.name+".rdma", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			withWords(t, p)
			for _, c := range []struct {
				sc   bool
				pl   Placement
				want bool
			}{{false, PlaceAny, tc.any}, {false, PlaceInOrder, tc.inOrder}, {true, PlaceAny, tc.sc}} {
				for _, reduce := range []bool{false, true} {
					opt := Options{MaxInflight: 4, Placement: c.pl, Reduce: reduce && !c.sc}
					var m *Machine
					if c.sc {
						m, err = NewSC(p, opt)
					} else {
						m, err = NewRDMA(p, opt)
					}
					if err != nil {
						t.Fatal(err)
					}
					_, finals, _, _ := reach(t, m, false)
					if got := len(finals) > 0; got != c.want {
						t.Errorf("sc %v, placement %v, reduce %v: final reachable %v, want %v\n%s", c.sc, c.pl, reduce, got, c.want, p)
					}
				}
			}
		})
	}
}
