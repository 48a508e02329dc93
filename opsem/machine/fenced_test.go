package machine

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// fencedSmall returns random programs over two nodes whose gets and puts
// are often marked fenced (SEMANTICS-VERBS.md 4) and follow gets on their
// queue pair, so that the mark makes them wait.
func fencedSmall(t *testing.T, n int) []*prog.Program {
	t.Helper()
	rng := rand.New(rand.NewPCG(32, 4))
	alphabet := func(local, other [2]string, remote string) []string {
		x, r, y, s := local[0], local[1], other[0], other[1]
		return []string{
			r + " := " + y, x + " := " + s, r + " := " + y, // gets
			y + " := " + r + " fenced", s + " := " + x + " fenced", // fenced puts
			x + " := " + y + " fenced", // a fenced get
			y + " := " + x,             // a put
			"poll(" + remote + ")", "rfence(" + remote + ")",
			x + " := 2", "assume(" + x + " == 0)", "assume(" + r + " != 0)",
		}
	}
	onA := alphabet([2]string{"x", "r"}, [2]string{"y", "s"}, "B")
	onB := alphabet([2]string{"y", "s"}, [2]string{"x", "r"}, "A")
	return alphabetPrograms(t, rng, n, "fenced", "node A { x = 0; r = 1 }\nnode B { y = 0; s = 1 }\n", onA, onB)
}

// TestFencedReduce compares the reduced and the full RDMA machine on
// fencedSmall's programs and the fenced litmus tests, as TestReduce does:
// the reduction's N2 of a fenced get is taken only once no earlier read of
// its queue pair is pending (settle.go), and stays independent: once enabled
// nothing disables it (only an entry ahead of it in B1 could make a read
// pending), and F2 or N8, which may enable it, are never enabled with it.
func TestFencedReduce(t *testing.T) {
	n := 300
	if raceOn {
		n = 30
	}
	ps := fencedSmall(t, n)
	files, _ := filepath.Glob("../../corpus/litmus/FENCED-*.rdma")
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	var full, red int
	for i, p := range ps {
		opt := Options{MaxInflight: 1 + i%3, Unroll: 1}
		f, r := reduceAgrees(t, p, opt, i)
		full += f
		red += r
	}
	t.Logf("%d programs: %d configurations, %d reduced", len(ps), full, red)
}

// TestFencedWaits checks the guard on every reachable configuration of the
// full machine of fencedSmall's programs: N1 or N2 of a fenced entry at the
// head of B1 is enabled exactly when its kind's rule would be and no get or
// atomic of its queue pair is pending (in B2, B3 or LW), and an unmarked
// entry's is as before.
func TestFencedWaits(t *testing.T) {
	n := 150
	if raceOn {
		n = 20
	}
	waited := 0
	for _, p := range fencedSmall(t, n) {
		m, err := NewRDMA(p, Options{MaxInflight: 2, Unroll: 1})
		if err != nil {
			t.Fatal(err)
		}
		st := m.newState()
		seen := map[string]bool{}
		queue := [][]byte{m.Initial(nil)}
		seen[string(queue[0])] = true
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			labels := map[uint64]bool{}
			m.Successors(s, func(l uint64, next []byte) {
				labels[l] = true
				if !seen[string(next)] {
					seen[string(next)] = true
					queue = append(queue, bytes.Clone(next))
				}
			})
			m.decode(s, st)
			for qi := range st.q {
				q := &st.q[qi]
				if len(q.buf[bufB1]) == 0 {
					continue
				}
				h := q.buf[bufB1][0]
				rule := RuleN2
				want := h.kind == kGet || h.kind == kAtom
				if h.kind == kPut {
					rule, want = RuleN1, len(q.buf[bufLW]) == 0
				}
				if h.kind == kFence {
					continue
				}
				if h.v == fencedMark && q.readsPending() {
					want = false
					waited++
				}
				if got := labels[label(p.QPs[qi].Thread, rule, qi, 0)]; got != want {
					t.Fatalf("%s: %s on queue pair %d enabled %v, want %v (head fenced %v, reads pending %v)", p.Name, ruleNames[rule], qi, got, want, h.v == fencedMark, q.readsPending())
				}
			}
		}
	}
	if waited == 0 {
		t.Fatal("no fenced entry ever waited: the test checked nothing")
	}
	t.Logf("%d configurations where a fenced entry waits", waited)
}
