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

// unsignaledSmall returns random programs over two nodes whose puts, gets
// and remote atomics are often marked unsignaled (SEMANTICS-VERBS.md 2),
// mixed with signalled ones and polls, some in a loop (so that the polls
// left are unbounded, or bounded and dropping: canonPolls's two cases).
func unsignaledSmall(t *testing.T, n int) []*prog.Program {
	t.Helper()
	rng := rand.New(rand.NewPCG(32, 5))
	alphabet := func(local, other [2]string, remote string) []string {
		x, r, y, s := local[0], local[1], other[0], other[1]
		return []string{
			r + " := " + y + " unsignaled", x + " := " + s, // gets
			y + " := " + r + " unsignaled", s + " := " + x, // puts
			x + " := " + y + " fenced unsignaled",
			r + " := rfaa(" + s + ", 1) unsignaled",
			"poll(" + remote + ")", "poll(" + remote + ")", "rfence(" + remote + ")",
			"loop { " + y + " := " + r + " unsignaled; poll(" + remote + ") }",
			x + " := 2", "assume(" + x + " == 0)", "assume(" + r + " != 0)",
		}
	}
	onA := alphabet([2]string{"x", "r"}, [2]string{"y", "s"}, "B")
	onB := alphabet([2]string{"y", "s"}, [2]string{"x", "r"}, "A")
	return alphabetPrograms(t, rng, n, "unsignaled", "node A { x = 0; r = 1 }\nnode B { y = 0; s = 1 }\n", onA, onB)
}

// TestUnsignaledIncremental compares fast.go's byte-level step with the
// decoded one (machine.go) on unsignaledSmall's programs, on the RDMA
// machine, the SC machine and with event graphs (checkIncremental): the
// count of unpolled operations (signalled only), the ranks and canonPolls's
// forgetting, which fast.go does at a count equal to the polls left once a
// program has an unsignaled operation (an unsignaled rank may equal it).
func TestUnsignaledIncremental(t *testing.T) {
	n := 150
	if raceOn {
		n = 15
	}
	marked := 0
	for i, p := range unsignaledSmall(t, n) {
		checkIncremental(t, fmt.Sprintf("%s\n%s", p.Name, p), p, Options{MaxInflight: 1 + i%3, Unroll: 1})
		if hasUnsignaled(p) {
			marked++
		}
	}
	if marked < n/2 {
		t.Fatalf("only %d of %d programs have an unsignaled operation", marked, n)
	}
}

// TestUnsignaledReduce compares the reduced and the full RDMA machine on
// unsignaledSmall's programs and the SIGNAL-* litmus tests, as TestReduce
// does. The mark changes only a submission's count and a poll's match,
// which no invisible step reads, so the independence argument of reduce.go
// stands as it is (signal.go).
func TestUnsignaledReduce(t *testing.T) {
	n := 300
	if raceOn {
		n = 30
	}
	ps := unsignaledSmall(t, n)
	files, _ := filepath.Glob("../../corpus/litmus/SIGNAL-*.rdma")
	if len(files) < 4 {
		t.Fatalf("want at least four SIGNAL-* litmus tests, found %d", len(files))
	}
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	var full, red int
	for i, p := range ps {
		f, r := reduceAgrees(t, p, Options{MaxInflight: 1 + i%3, Unroll: 1}, i)
		full += f
		red += r
	}
	t.Logf("%d programs: %d configurations, %d reduced", len(ps), full, red)
}

// TestUnsignaledPoll checks the poll's match on small programs with known
// answers: whether thread T can end (every poll matched, every assume
// passed) under the RDMA and the SC machine, and T's r in the final
// configurations.
func TestUnsignaledPoll(t *testing.T) {
	for _, tc := range []struct {
		name, code   string
		rdmaEnds, sc bool
		r            []uint8 // T's r in the final configurations, sorted
	}{
		{"one signalled op, one poll", "r := x unsignaled; s := y; poll(B)", true, true, []uint8{1}},
		{"two polls, one signalled op", "r := x unsignaled; s := y; poll(B); poll(B)", false, false, nil},
		{"only unsignaled ops", "r := x unsignaled; s := y unsignaled; poll(B)", false, false, nil},
		{"two signalled, two polls", "r := x; s := y unsignaled; s := y; poll(B); poll(B)", true, true, []uint8{1}},
		// The poll of the put waits for the unsignaled get before it:
		// r is 1 after it, under both machines.
		{"poll covers an earlier get", "r := x unsignaled; y := a; poll(B); assume(r == 0)", false, false, nil},
		// It does not wait for the get after it: under RDMA the assume
		// can pass before the get's write lands (SC: never).
		{"poll misses a later get", "y := a; r := x unsignaled; poll(B); assume(r == 0)", true, false, []uint8{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("node A { r = 0; s = 0; a = 1 }\nnode B { x = 1; y = 1 }\nthread T on A { %s }\nexists true\n", tc.code)
			p, err := parse.Parse("poll.rdma", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			for _, sem := range []string{"rdma", "sc"} {
				var m *Machine
				want := tc.rdmaEnds
				if sem == "rdma" {
					m, err = NewRDMA(p, Options{MaxInflight: 4})
				} else {
					m, err = NewSC(p, Options{MaxInflight: 4})
					want = tc.sc
				}
				if err != nil {
					t.Fatal(err)
				}
				_, finals, _, _ := reach(t, m, false)
				var rs []uint8
				for f := range finals {
					rs = append(rs, f[p.LocIndex("r")])
				}
				slices.Sort(rs)
				rs = slices.Compact(rs)
				if ends := len(rs) > 0; ends != want || ends && !slices.Equal(rs, tc.r) {
					t.Errorf("%s: T ends %v with r in %v, want %v with %v", sem, ends, rs, want, tc.r)
				}
			}
		})
	}
}
