package instr

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"rdmasim/corpus/gen"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestSoloValuesCover: soloValues over-approximates the values the threads
// of a state may still write in τ1 (solo.go). On generated programs with
// remote atomics and on the ATOM-* litmus tests, for states the machine
// reaches, every τ1 write of every run from the state (the steps of the
// machine under NoReduction, which has no solo, searched from it) writes a
// value soloValues lists for its location. Count-boxed.
func TestSoloValuesCover(t *testing.T) {
	var ps []*prog.Program
	files, _ := filepath.Glob("../../corpus/litmus/ATOM-*.rdma")
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	cfg := gen.DefaultConfig()
	cfg.Threads, cfg.Atomics = [2]int{2, 3}, true
	n, want := 60, 500
	if raceOn {
		n, want = 6, 50 // ten times slower; the race-free pass does the rest
	}
	for i := 0; i < n; i++ {
		c := cfg
		if i%2 == 1 {
			c = cfg.Contended()
		}
		ps = append(ps, gen.Program(rng, c, fmt.Sprintf("gen-%d", i)))
	}
	checked := 0
	if raceOn {
		ps = ps[len(files)-4:]
	}
	for _, p := range ps {
		p, _ = prog.WithoutRangeChecks(p)
		m, err := New(p, Options{AllowAtomics: true})
		if err != nil {
			t.Fatal(err)
		}
		if !m.solo {
			continue
		}
		u, err := New(p, Options{AllowAtomics: true, NoReduction: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range soloSample(u, 40) {
			st := m.NewState()
			m.Decode(e, st)
			vals := make([]valset, m.nl)
			var ws uint64
			for t := range st.th {
				if !st.th[t].cpu2 && !m.ended(st, t) {
					ws |= 1 << t
				}
			}
			if !m.soloValues(st, ws, vals) {
				continue
			}
			checked++
			for l, vs := range soloWrites(u, e, 5000) {
				for v := 0; v < 256; v++ {
					if vs.has(uint8(v)) && !vals[l].has(uint8(v)) {
						t.Fatalf("%s: a run writes %d to %s in τ1, which soloValues does not list\n%s", p.Name, v, p.Locs[l].Name, p.String())
					}
				}
			}
		}
	}
	t.Logf("%d states checked", checked)
	if checked < want {
		t.Errorf("only %d states checked", checked)
	}
}

// soloSample returns up to n states of m, breadth first from its initial
// state.
func soloSample(m *Machine, n int) [][]byte {
	seen := map[string]bool{}
	queue := [][]byte{m.Initial(nil)}
	seen[string(queue[0])] = true
	for i := 0; i < len(queue) && len(queue) < n; i++ {
		m.Successors(queue[i], func(_ uint64, next []byte) {
			if !seen[string(next)] && len(queue) < n {
				seen[string(next)] = true
				queue = append(queue, append([]byte(nil), next...))
			}
		})
	}
	return queue
}

// soloWrites returns, per location, the values the τ1 writes of the runs
// of m from e write (the runs within limit states).
func soloWrites(m *Machine, e []byte, limit int) []valset {
	out := make([]valset, m.nl)
	seen := map[string]bool{string(e): true}
	queue := [][]byte{e}
	for i := 0; i < len(queue); i++ {
		m.Successors(queue[i], func(_ uint64, next []byte) {
			c := &m.cur
			if c.Part == 1 {
				ev := c.Event
				switch ev.Kind {
				case prog.EvLW, prog.EvNLW, prog.EvNRW:
					out[ev.Loc].add(ev.Val)
				case prog.EvCAS:
					out[ev.Loc].add(ev.New)
				}
				if c.Also.Kind == prog.EvNAW {
					out[c.Also.Loc].add(c.Also.Val)
				}
			}
			if !seen[string(next)] && len(seen) < limit {
				seen[string(next)] = true
				queue = append(queue, append([]byte(nil), next...))
			}
		})
	}
	return out
}
