package machine

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// inlinePrograms returns n random programs over two nodes whose puts are
// often marked inline (SEMANTICS-VERBS.md 5), some of them fenced or of two
// words (x0..x1), mixed with unmarked puts reading the same source, gets
// writing it, CPU writes reusing it, polls and rfences.
func inlinePrograms(t *testing.T, n int) []*prog.Program {
	t.Helper()
	rng := rand.New(rand.NewPCG(32, 5))
	alphabet := func(x, r, y, s, remote string) []string {
		return []string{
			y + "0 := " + x + "0 inline", y + "1 := " + x + "0 inline", // one-word inline puts
			y + "0 := " + x + "0 inline", // a two-word inline put (withWords)
			y + "1 := " + x + "0 inline fenced",
			y + "1 := " + x + "0",      // an unmarked put of the same buffer
			x + "0 := " + s + "1",      // a get into the buffer
			r + "1 := " + s + "1",      // a get elsewhere
			x + "0 := 5", x + "0 := 6", // the buffer reused
			"poll(" + remote + ")", "rfence(" + remote + ")",
			"assume(" + r + "1 != 0)",
		}
	}
	onA := alphabet("x", "r", "y", "s", "B")
	onB := alphabet("y", "s", "x", "r", "A")
	ps := alphabetPrograms(t, rng, n, "inline",
		"node A { x0 = 1; x1 = 2; r0 = 0; r1 = 0 }\nnode B { y0 = 3; y1 = 4; s0 = 0; s1 = 7 }\n", onA, onB)
	for i, p := range ps {
		if i%3 == 0 {
			withWords(t, p)
		}
	}
	return ps
}

// inlineCorpus returns the inline litmus tests of corpus/litmus.
func inlineCorpus(t *testing.T) []*prog.Program {
	t.Helper()
	files, _ := filepath.Glob("../../corpus/litmus/INLINE-*.rdma")
	var ps []*prog.Program
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestInlineIncremental is TestSuccessorsIncremental on inlinePrograms:
// the byte-level step (fast.go, inlineput.go) emits exactly what the
// decoded step gives, on the RDMA machine, the SC machine and the RDMA
// machine with event graphs.
func TestInlineIncremental(t *testing.T) {
	n := 150
	if raceOn {
		n = 15
	}
	inline := 0
	for i, p := range append(inlinePrograms(t, n), inlineCorpus(t)...) {
		checkIncremental(t, fmt.Sprintf("%s\n%s", p.Name, p), p, Options{MaxInflight: 1 + i%3, Unroll: 1})
		if prog.HasVerbs(p) {
			inline++
		}
	}
	if inline < n/2 {
		t.Fatalf("only %d of %d programs have a verbs feature", inline, n)
	}
}

// TestInlineReduce compares the reduced and the full RDMA machine on
// inlinePrograms and the inline litmus tests (reduceAgrees; every other
// program with ControlHidden, under which an inline put's submission must
// stay visible: it reads memory).
func TestInlineReduce(t *testing.T) {
	n := 300
	if raceOn {
		n = 30
	}
	var full, red int
	for i, p := range append(inlinePrograms(t, n), inlineCorpus(t)...) {
		f, r := reduceAgrees(t, p, Options{MaxInflight: 1 + i%3, Unroll: 1}, i)
		full += f
		red += r
	}
	t.Logf("%d programs: %d configurations, %d reduced", n, full, red)
}

// TestInlineReadsAtSubmission runs hand-made programs to their final
// memories: an inline put carries the value its source had when it was
// submitted (the paper's 5.1 shape, the buffer reused at once), an unmarked
// one may carry the later one; an inline put after an unmarked put of the
// same buffer may carry the old value while the unmarked one carries the
// new; an earlier get into the buffer is not waited for.
func TestInlineReadsAtSubmission(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		loc       string
		want      []uint8 // the final values of loc, sorted
	}{
		{"inline", "thread T on A { y := x inline; x := 2 }", "y", []uint8{1}},
		{"unmarked", "thread T on A { y := x; x := 2 }", "y", []uint8{1, 2}},
		{"inline-words", "thread T on A { (y, z) := (x, w) inline; x := 2; w := 2 }", "z", []uint8{5}},
		{"unmarked-then-inline", "thread T on A { y := x; z := x inline; x := 2 }", "y", []uint8{1, 2}},
		{"unmarked-then-inline-z", "thread T on A { y := x; z := x inline; x := 2 }", "z", []uint8{1}},
		{"inline-then-unmarked", "thread T on A { z := x inline; x := 2; y := x }", "y", []uint8{2}},
		{"get-not-waited", "thread T on A { x := u; y := x inline }", "y", []uint8{1, 3}},
		{"get-unmarked", "thread T on A { x := u; y := x }", "y", []uint8{1, 3}},
		{"fenced-get", "thread T on A { x := u; y := x inline fenced }", "y", []uint8{1, 3}},
		{"fenced-inline-then-put", "thread T on A { r := u; y := x inline fenced; z := r }", "z", []uint8{3}},
		{"inline-then-put", "thread T on A { r := u; y := x inline; z := r }", "z", []uint8{0, 3}},
	} {
		src := "litmus " + tc.name + "\nnode A { x = 1; w = 5; r = 0 }\nnode B { y = 0; z = 0; u = 3 }\n" + tc.src + "\nexists true\n"
		p, err := parse.Parse(tc.name+".rdma", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := finalValues(t, p, p.LocIndex(tc.loc))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: final %s in %v, want %v\n%s", tc.name, tc.loc, got, tc.want, p)
		}
	}
}

// finalValues returns the sorted values of location l in the final
// configurations of p's full RDMA machine.
func finalValues(t *testing.T, p *prog.Program, l int) []uint8 {
	t.Helper()
	m, err := NewRDMA(p, Options{MaxInflight: 4})
	if err != nil {
		t.Fatal(err)
	}
	st := m.newState()
	seen := map[string]bool{}
	queue := [][]byte{m.Initial(nil)}
	vals := map[uint8]bool{}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.decode(s, st)
		if m.Final(st) {
			vals[st.Mem(l)] = true
		}
		m.Successors(s, func(_ uint64, next []byte) {
			if !seen[string(next)] {
				seen[string(next)] = true
				queue = append(queue, append([]byte(nil), next...))
			}
		})
	}
	var out []uint8
	for v := range vals {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}
