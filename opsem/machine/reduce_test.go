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

// reach explores m completely (breadth-first, no state limit) and returns
// the CPU projections of its reachable configurations (memory, program
// counters, carried values and loop counters: what the partial-order
// reduction must keep; memory alone under Options.ControlHidden), its final memories, its state count and the OR of
// the bounds that cut it. Under Options.Reduce it also checks that every
// successor is settled (no invisible step is enabled in it, by a scan of
// every queue pair) and, if explain, that ExplainChain's steps lead to it.
func reach(t *testing.T, m *Machine, explain bool) (proj, finals map[string]bool, states int, pruned uint32) {
	t.Helper()
	proj, finals = map[string]bool{}, map[string]bool{}
	seen := map[string]bool{}
	queue := [][]byte{m.Initial(nil)}
	seen[string(queue[0])] = true
	chk := m.Clone() // Successors uses m's reducer
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if m.opt.ControlHidden {
			proj[string(s[:len(m.p.Locs)])] = true
		} else {
			proj[string(s[:m.lay.qBase])] = true
		}
		if m.FinalEncoded(s) {
			finals[string(s[:len(m.p.Locs)])] = true
		}
		pruned |= m.Successors(s, func(l uint64, next []byte) {
			if chk.red != nil {
				checkSettled(t, chk, s, l, next, explain)
			}
			if !seen[string(next)] {
				seen[string(next)] = true
				queue = append(queue, bytes.Clone(next))
			}
		})
		if len(seen) > 2_000_000 {
			t.Fatalf("%s: more than 2e6 states", m.p.Name)
		}
	}
	return proj, finals, len(seen), pruned
}

// project returns the projections proj of a full machine's configurations
// as reach gives them for a reduced machine: proj itself, or their memories
// if hidden (Options.ControlHidden) is set. nloc is the count of locations.
func project(proj map[string]bool, nloc int, hidden bool) map[string]bool {
	if !hidden {
		return proj
	}
	mem := map[string]bool{}
	for k := range proj {
		mem[k[:nloc]] = true
	}
	return mem
}

// checkSettled checks that the successor next that the reduced machine of
// chk emitted under label l from s is settled and, if explain, that
// ExplainChain leads to it.
func checkSettled(t *testing.T, chk *Machine, s []byte, l uint64, next []byte, explain bool) {
	t.Helper()
	if chk.red.invisible(next) {
		t.Fatalf("%s: successor %s of %s under %s is not settled: %s is enabled in it",
			chk.p.Name, chk.Format(next), chk.Format(s), chk.Explain(s, l).Rule, chk.Explain(next, chk.red.stepLabel).Rule)
	}
	if !explain {
		return
	}
	if run := chk.ExplainChain(s, l); !bytes.Equal(run[len(run)-1].Post, next) {
		t.Fatalf("%s: ExplainChain from %s under label %x ends at %s, Successors emitted %s",
			chk.p.Name, chk.Format(s), l, chk.Format(run[len(run)-1].Post), chk.Format(next))
	}
}

// TestReduce checks the partial-order reduction (Options.Reduce) on the
// litmus corpus under several bounds: the reduced RDMA machine is cut by no
// bound the full one is not cut by, and both reach the same CPU projections
// (so the same final outcomes and the same values of any condition), also
// where a bound cuts them (the bounds only disable CPU steps, so the
// reduction is one of the bounded machine); the reduced one never reaches
// more states.
func TestReduce(t *testing.T) {
	files, err := filepath.Glob("../../corpus/litmus/*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var full, red int
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, opt := range []Options{{MaxInflight: 1, Unroll: 2}, {MaxInflight: 2, Unroll: 1}, {MaxInflight: 3, Unroll: 3}} {
			name := fmt.Sprintf("%s inflight=%d unroll=%d", filepath.Base(f), opt.MaxInflight, opt.Unroll)
			mf, err := NewRDMA(p, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			pc, ff, nf, cf := reach(t, mf, false)
			opt.Reduce = true
			for _, hidden := range []bool{false, true} {
				opt.ControlHidden = hidden
				pf := project(pc, len(p.Locs), hidden)
				mr, err := NewRDMA(p, opt)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				name := fmt.Sprintf("%s hidden=%v", name, hidden)
				pr, fr, nr, cr := reach(t, mr, true)
				full += nf
				red += nr
				if nr > nf {
					t.Errorf("%s: reduced machine reaches %d states, full %d", name, nr, nf)
				}
				for k := range pr {
					if !pf[k] {
						t.Errorf("%s: reduced machine reaches projection %x, full does not", name, k)
					}
				}
				if cr&^cf != 0 {
					t.Errorf("%s: reduced search cut by %b, full by %b", name, cr, cf)
				}
				for k := range pf {
					if !pr[k] {
						t.Errorf("%s: full machine reaches projection %x, reduced does not", name, k)
					}
				}
				if len(ff) != len(fr) {
					t.Errorf("%s: %d final memories, reduced %d", name, len(ff), len(fr))
				}
			}
		}
	}
	t.Logf("%d configurations, %d reduced", full, red)
	if red >= full {
		t.Errorf("the reduction reduced nothing: %d configurations, %d reduced", full, red)
	}
}

// TestReduceSmallPrograms compares the reduced and the full RDMA machine, as
// TestReduce does, on random two- and three-thread programs over two nodes
// whose instructions are drawn from a small alphabet in which polls, fences
// and remote operations are frequent: the shapes (put, poll, then a local
// read, on each side) where a reduction that hides a pipeline stage changes
// what a thread can observe.
func TestReduceSmallPrograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// 1,500 programs take 10 s (make test runs them without the race
	// detector too); under the race detector 100.
	n := 1500
	if testing.Short() || raceOn {
		n = 100
	}
	// Each node has locations x and r (A) or y and s (B); a thread on A
	// reaches B's, and the other way round.
	alphabet := func(local, other [2]string, remote string) []string {
		x, r, y, s := local[0], local[1], other[0], other[1]
		return []string{
			y + " := " + x, s + " := " + r, y + " := " + r, // puts
			r + " := " + y, x + " := " + s, // gets
			"poll(" + remote + ")", "poll(" + remote + ")", "rfence(" + remote + ")",
			x + " := 1", r + " := 2",
			"assume(" + x + " == 0)", "assume(" + r + " != 0)", "assume(" + x + " == 1)",
			// a branch past a put, which a thread may take with no
			// submission (see TestReduceSettlesPastLastPut)
			"choose { " + y + " := " + x + " } or { skip }",
		}
	}
	onA := alphabet([2]string{"x", "r"}, [2]string{"y", "s"}, "B")
	onB := alphabet([2]string{"y", "s"}, [2]string{"x", "r"}, "A")
	var full, red int
	for i := 0; i < n; i++ {
		var src strings.Builder
		fmt.Fprintf(&src, "litmus small-%d\nnode A { x = 0; r = 1 }\nnode B { y = 0; s = 1 }\n", i)
		threads := 2 + rng.IntN(2)
		for th := 0; th < threads; th++ {
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
		p, err := parse.Parse("small.rdma", []byte(src.String()))
		if err != nil {
			t.Fatalf("%v\n%s", err, src.String())
		}
		opt := Options{MaxInflight: 1 + rng.IntN(3), Unroll: 1}
		mf, err := NewRDMA(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		// Every other program hides control points
		// (Options.ControlHidden): submissions are settled too, and
		// only memories are compared.
		opt.Reduce, opt.ControlHidden = true, i%2 == 1
		mr, err := NewRDMA(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		pf, _, nf, cf := reach(t, mf, false)
		pf = project(pf, len(p.Locs), opt.ControlHidden)
		pr, _, nr, cr := reach(t, mr, i%10 < 2)
		full += nf
		red += nr
		same := len(pf) == len(pr) && nr <= nf && cr&^cf == 0
		for k := range pr {
			same = same && pf[k]
		}
		if !same {
			t.Fatalf("max-inflight %d, control hidden %v: reduced machine: %d states, %d projections, cut %b; full: %d, %d, cut %b\n%s",
				opt.MaxInflight, opt.ControlHidden, nr, len(pr), cr, nf, len(pf), cf, src.String())
		}
	}
	t.Logf("%d programs: %d configurations, %d reduced", n, full, red)
}

// TestReduceSettlesPastLastPut: a get's response waits in B3 while its
// thread may still submit a put on the queue pair (N8 is then visible); the
// thread takes the branch without the put, a step that touches no queue
// pair, and N8 becomes invisible: the successor must be settled all the
// same.
func TestReduceSettlesPastLastPut(t *testing.T) {
	p := mustParse(t, "node A { x = 0; y = 0 }\nnode B { z = 1; w = 0 }\nthread T on A { y := z; choose { w := x } or { skip }; x := 1 }\nexists true\n")
	for _, hidden := range []bool{false, true} {
		opt := DefaultOptions()
		opt.Reduce, opt.ControlHidden = true, hidden
		m, err := NewRDMA(p, opt)
		if err != nil {
			t.Fatal(err)
		}
		reach(t, m, true)
	}
}

// reduceAgrees explores program p (the i-th of a test's programs) on the
// machine opt makes, without and with the reduction (the control hidden on
// odd i), and fails unless the reduced machine reaches the same
// projections and finals in no more configurations, cut by no bound the
// full one is not. It returns both configuration counts.
func reduceAgrees(t *testing.T, p *prog.Program, opt Options, i int) (full, red int) {
	t.Helper()
	mf, err := NewRDMA(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Reduce, opt.ControlHidden = true, i%2 == 1
	mr, err := NewRDMA(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	pf, ff, nf, cf := reach(t, mf, false)
	pf = project(pf, len(p.Locs), opt.ControlHidden)
	pr, fr, nr, cr := reach(t, mr, i%10 < 2)
	same := len(pf) == len(pr) && len(ff) == len(fr) && nr <= nf && cr&^cf == 0
	for k := range pr {
		same = same && pf[k]
	}
	if !same {
		t.Fatalf("%v, max-inflight %d, control hidden %v: reduced machine: %d states, %d projections, %d finals, cut %b; full: %d, %d, %d, cut %b\n%s",
			opt.Placement, opt.MaxInflight, opt.ControlHidden, nr, len(pr), len(fr), cr, nf, len(pf), len(ff), cf, p)
	}
	return nf, nr
}
