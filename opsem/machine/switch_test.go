package machine

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// explored is what TestSwitchSameRuns compares of a complete search: the
// reachable configurations and those that are final or deadlocked.
type explored struct {
	states, finals, deadlocks map[string]bool
	pruned                    uint32
}

// exploreAll searches m breadth-first; it returns false when the search
// passes limit configurations.
func exploreAll(m *Machine, limit int) (explored, bool) {
	e := explored{states: map[string]bool{}, finals: map[string]bool{}, deadlocks: map[string]bool{}}
	queue := [][]byte{m.Initial(nil)}
	e.states[string(queue[0])] = true
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if m.FinalEncoded(s) {
			e.finals[string(s)] = true
		}
		n := 0
		e.pruned |= m.Successors(s, func(_ uint64, next []byte) {
			n++
			if !e.states[string(next)] {
				e.states[string(next)] = true
				queue = append(queue, bytes.Clone(next))
			}
		})
		if n == 0 && m.StuckEncoded(s) == Deadlock {
			e.deadlocks[string(s)] = true
		}
		if len(e.states) > limit {
			return e, false
		}
	}
	return e, true
}

// TestSwitchSameRuns compares, on every corpus program with a switch, the
// machines of the program with its switches and of the same program with
// each switch turned back into the choose of assumes it was compiled from
// (prog.Unswitch): the SC machine, the RDMA machine, the RDMA machine with
// event graphs, and the reduced RDMA machine. Both programs have the same
// instructions and the same encodings, so configurations compare byte for
// byte. Without the reduction, the configurations with a switch are exactly
// those of the choose in which no thread waits between a choose and its
// assume (such a configuration is only the choose's), with the same final
// and deadlocked ones and the same bounds cutting the search; with it,
// every configuration of the reduced switch machine is one of the full
// choose machine, with the same final memories.
func TestSwitchSameRuns(t *testing.T) {
	var files []string
	for _, dir := range []string{"litmus", "protocols", "regress"} {
		fs, err := filepath.Glob("../../corpus/" + dir + "/*.rdma")
		if err != nil || len(fs) == 0 {
			t.Fatalf("no corpus in %s: %v", dir, err)
		}
		files = append(files, fs...)
	}
	// The whole bound runs without the race detector (make test runs
	// this test again so); under it, the smaller one of -short, and every
	// third file (this test was most of the package's time under the race
	// detector: over 7 minutes at a load of 18).
	limit := 400_000
	if testing.Short() || raceOn {
		limit = 40_000
	}
	if raceOn {
		var sample []string
		for i := 0; i < len(files); i += 3 {
			sample = append(sample, files[i])
		}
		files = sample
	}
	compared, skipped := 0, 0
	var before, after int
	for _, f := range files {
		sw, err := parse.File(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		// between[t][pc]: pc is an alternative of a switch of thread t.
		between := make([][]bool, len(sw.Threads))
		n := 0
		for ti := range sw.Threads {
			code := sw.Threads[ti].Code
			between[ti] = make([]bool, len(code))
			for _, in := range code {
				if in.Op == prog.OpSwitch {
					n++
					for _, a := range in.Alts {
						between[ti][a] = true
					}
				}
			}
		}
		if n == 0 {
			continue
		}
		ch, err := parse.File(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		prog.Unswitch(ch)
		for mode := 0; mode < 4; mode++ {
			opt := Options{MaxInflight: 2, Unroll: 2}
			newM := NewRDMA
			switch mode {
			case 0:
				newM = NewSC
			case 2:
				opt.Graph = true
			}
			name := fmt.Sprintf("%s mode %d", filepath.Base(f), mode)
			mc, err := newM(ch, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ec, ok := exploreAll(mc, limit)
			if !ok {
				skipped++
				continue
			}
			if mode == 3 {
				opt.Reduce = true
			}
			ms, err := newM(sw, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			es, ok := exploreAll(ms, limit)
			if !ok {
				t.Fatalf("%s: the switches' search passes %d configurations, the chooses' does not", name, limit)
			}
			compared++
			before += len(ec.states)
			after += len(es.states)
			for s := range es.states {
				if !ec.states[s] {
					t.Fatalf("%s: with switches %s is reachable, with chooses not", name, ms.Format([]byte(s)))
				}
			}
			if mode == 3 {
				mem := func(set map[string]bool) map[string]bool {
					out := map[string]bool{}
					for s := range set {
						out[s[:len(sw.Locs)]] = true
					}
					return out
				}
				if a, b := mem(es.finals), mem(ec.finals); len(a) != len(b) {
					t.Errorf("%s: %d final memories with switches (reduced), %d with chooses", name, len(a), len(b))
				}
				continue
			}
			for s := range ec.states {
				waits := false
				for ti := range sw.Threads {
					pc, mid := mc.pcOf([]byte(s), ti)
					waits = waits || !mid && between[ti][pc]
				}
				if !waits && !es.states[s] {
					t.Fatalf("%s: with chooses %s is reachable, with switches not", name, mc.Format([]byte(s)))
				}
			}
			if len(es.finals) != len(ec.finals) || len(es.deadlocks) != len(ec.deadlocks) {
				t.Errorf("%s: %d final and %d deadlocked configurations with switches, %d and %d with chooses",
					name, len(es.finals), len(es.deadlocks), len(ec.finals), len(ec.deadlocks))
			}
			if es.pruned != ec.pruned {
				t.Errorf("%s: cut by %b with switches, %b with chooses", name, es.pruned, ec.pruned)
			}
		}
	}
	t.Logf("%d searches compared (%d skipped, over %d configurations): %d configurations with chooses, %d with switches",
		compared, skipped, limit, before, after)
	if compared == 0 || after >= before {
		t.Errorf("nothing compared, or switches saved nothing")
	}
}
