package machine

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"rdmasim/opsem/parse"
)

// reach explores m completely (breadth-first, no state limit) and returns
// the CPU projections of its reachable configurations (memory, program
// counters, carried values and loop counters: what the partial-order
// reduction must keep), its final memories, its state count and the OR of
// the bounds that cut it.
func reach(t *testing.T, m *Machine) (proj, finals map[string]bool, states int, pruned uint32) {
	t.Helper()
	proj, finals = map[string]bool{}, map[string]bool{}
	seen := map[string]bool{}
	queue := [][]byte{m.Initial(nil)}
	seen[string(queue[0])] = true
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		proj[string(s[:m.lay.qBase])] = true
		if m.FinalEncoded(s) {
			finals[string(s[:len(m.p.Locs)])] = true
		}
		pruned |= m.Successors(s, func(_ uint64, next []byte) {
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
			opt.Reduce = true
			mr, err := NewRDMA(p, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			pf, ff, nf, cf := reach(t, mf)
			pr, fr, nr, cr := reach(t, mr)
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
	t.Logf("%d configurations, %d reduced", full, red)
	if red >= full {
		t.Errorf("the reduction reduced nothing: %d configurations, %d reduced", full, red)
	}
}
