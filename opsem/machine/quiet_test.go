package machine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// quietSmall returns the random programs of the quiet tests: two or three
// threads over three nodes (A, B, C), each drawing up to four statements
// from an alphabet where puts and gets on two queue pairs, polls, fences
// and quiet are frequent.
func quietSmall(t *testing.T, n int) []*prog.Program {
	t.Helper()
	rng := rand.New(rand.NewPCG(32, 6))
	// Locations: A has x, r; B has y, s; C has z. Threads run on A or B
	// and reach the other node and C.
	alphabet := func(local [2]string, other [2]string, remote string) []string {
		x, r, y := local[0], local[1], other[0]
		return []string{
			y + " := " + x, "z := " + r, y + " := " + r, // puts (two queue pairs)
			r + " := " + y, x + " := z", // gets
			"poll(" + remote + ")", "poll(C)", "rfence(" + remote + ")",
			"quiet", "quiet", "quiet",
			x + " := 1", r + " := 2",
			"assume(" + x + " == 0)", "assume(" + r + " != 0)", "assume(" + x + " == 1)",
			"choose { quiet } or { skip }",
		}
	}
	onA := alphabet([2]string{"x", "r"}, [2]string{"y", "s"}, "B")
	onB := alphabet([2]string{"y", "s"}, [2]string{"x", "r"}, "A")
	return alphabetPrograms(t, rng, n, "quiet", "node A { x = 0; r = 1 }\nnode B { y = 0; s = 1 }\nnode C { z = 0 }\n", onA, onB)
}

// quietPrograms are the litmus tests of quiet and quietSmall's programs
// that use it.
func quietPrograms(t *testing.T, n int) []*prog.Program {
	t.Helper()
	files, err := filepath.Glob("../../corpus/litmus/QUIET-*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no litmus tests of quiet: %v", err)
	}
	var ps []*prog.Program
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	for _, p := range quietSmall(t, n) {
		if prog.FirstAnyVerbs(p) != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// TestQuietIndependence checks, in every reachable configuration of the
// full RDMA machine of quiet's programs, the argument of reduce.go that
// keeps quiet out of the reduction's invisible steps' way: where a
// thread's quiet is enabled, no NIC step of the reduction's kinds (N2, N3,
// N5, N7, N8) is enabled on a queue pair of that thread (quiet needs its
// buffers empty), and every such step enabled on another thread's queue
// pair commutes with the quiet (either order reaches the same
// configuration, and neither disables the other). It also checks the
// converse: quiet is enabled exactly when its thread's buffers are empty.
func TestQuietIndependence(t *testing.T) {
	n := 200
	if raceOn {
		n = 30
	}
	pairs := 0
	for _, p := range quietPrograms(t, n) {
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
			succ := map[uint64][]byte{}
			m.Successors(s, func(l uint64, next []byte) {
				succ[l] = bytes.Clone(next)
				if !seen[string(next)] {
					seen[string(next)] = true
					queue = append(queue, bytes.Clone(next))
				}
			})
			m.decode(s, st)
			for th := range p.Threads {
				if in := &p.Threads[th].Code[st.pc[th]]; in.Op != prog.OpQuiet {
					continue
				}
				ql := label(th, RuleStep, 0, 0)
				qnext, enabled := succ[ql]
				if enabled != m.quiet(st, th) {
					t.Fatalf("%s: thread %d's quiet enabled %v, its buffers empty %v, in %x", p.Name, th, enabled, m.quiet(st, th), s)
				}
				if !enabled {
					continue
				}
				for l, next := range succ {
					_, rule, qi, _ := unlabel(l)
					switch rule {
					case RuleN2, RuleN3, RuleN5, RuleN7, RuleN8:
					default:
						continue
					}
					if p.QPs[qi].Thread == th {
						t.Fatalf("%s: %s on a queue pair of thread %d enabled with its quiet", p.Name, ruleNames[rule], th)
					}
					a, b := step(m, qnext, l), step(m, next, ql)
					if a == nil || b == nil || !bytes.Equal(a, b) {
						t.Fatalf("%s: quiet of thread %d and %s on queue pair %d do not commute (quiet first: %v, NIC first: %v)", p.Name, th, ruleNames[rule], qi, a != nil, b != nil)
					}
					pairs++
				}
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no configuration had a quiet and an invisible NIC step enabled together: the test checked nothing")
	}
	t.Logf("%d (quiet, NIC step) pairs commute", pairs)
}

// step returns the successor of s by the transition labelled l, nil if it
// is not enabled.
func step(m *Machine, s []byte, l uint64) []byte {
	var out []byte
	m.Successors(s, func(k uint64, next []byte) {
		if k == l {
			out = bytes.Clone(next)
		}
	})
	return out
}

// TestQuietReduce compares the reduced and the full RDMA machine, as
// TestReduce does, on quietSmall's programs: the same projections of the
// reachable configurations (memories alone with control hidden), the same
// final memories, no more states.
func TestQuietReduce(t *testing.T) {
	n := 300
	if raceOn {
		n = 30
	}
	var full, red int
	for i, p := range quietSmall(t, n) {
		opt := Options{MaxInflight: 1 + i%3, Unroll: 1}
		f, r := reduceAgrees(t, p, opt, i)
		full += f
		red += r
	}
	t.Logf("%d programs: %d configurations, %d reduced", n, full, red)
}

// TestQuietEnabled: quiet waits for every buffer of its thread's queue
// pairs, on every queue pair, and for nothing else; it consumes no
// completion; under SC it is one step that changes nothing but the pc.
func TestQuietEnabled(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		sem       Semantics
		outcomes  int // final memories
	}{
		// The put to B must be complete and visible before flag is set:
		// no final memory has flag = 1 and y = 0, and only one exists.
		{"put then flag", "node A { one = 1; flag = 0 }\nnode B { y = 0 }\nthread T on A { y := one; quiet; flag := 1 }\nexists true\n", RDMA, 1},
		// A quiet consumes no completion: the poll after it still goes.
		{"poll after quiet", "node A { one = 1 }\nnode B { y = 0 }\nthread T on A { y := one; quiet; poll(B) }\nexists true\n", RDMA, 1},
		// Two polls after one put: the second blocks, quiet or not.
		{"quiet does not complete twice", "node A { one = 1 }\nnode B { y = 0 }\nthread T on A { y := one; quiet; poll(B); poll(B) }\nexists true\n", RDMA, 0},
		// Nothing outstanding, no queue pair at all.
		{"alone", "node A { x = 0 }\nthread T on A { quiet; x := 1; quiet }\nexists true\n", RDMA, 1},
		{"SC", "node A { one = 1; flag = 0 }\nnode B { y = 0 }\nthread T on A { y := one; quiet; flag := 1 }\nexists true\n", SC, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, tc.src)
			m, err := New(p, tc.sem, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			_, finals, _, _ := reach(t, m, false)
			if len(finals) != tc.outcomes {
				t.Errorf("%d final memories, want %d", len(finals), tc.outcomes)
			}
			for f := range finals {
				// flag, when there is one, is set only after y landed.
				if strings.Contains(tc.src, "flag") && f[1] == 1 && f[2] != 1 {
					t.Errorf("final memory %v: flag set, y not", []byte(f))
				}
			}
		})
	}
}

// alphabetPrograms returns n random programs named name-0, name-1, … with
// the nodes of header and two or three threads alternating on A and B,
// each of one to four statements drawn from onA or onB (quietSmall's and
// fencedSmall's shape).
func alphabetPrograms(t *testing.T, rng *rand.Rand, n int, name, header string, onA, onB []string) []*prog.Program {
	t.Helper()
	var out []*prog.Program
	for i := 0; i < n; i++ {
		var src strings.Builder
		fmt.Fprintf(&src, "litmus %s-%d\n%s", name, i, header)
		for th := 0; th < 2+rng.IntN(2); th++ {
			node, abc := "A", onA
			if th%2 == 1 {
				node, abc = "B", onB
			}
			var code []string
			for k := 1 + rng.IntN(4); k > 0; k-- {
				code = append(code, abc[rng.IntN(len(abc))])
			}
			fmt.Fprintf(&src, "thread T%d on %s { %s }\n", th, node, strings.Join(code, "; "))
		}
		src.WriteString("exists true\n")
		p, err := parse.Parse(name+".rdma", []byte(src.String()))
		if err != nil {
			t.Fatalf("%v\n%s", err, src.String())
		}
		out = append(out, p)
	}
	return out
}
