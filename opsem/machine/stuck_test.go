package machine

import (
	"testing"
)

// TestStuck explores every configuration of small programs on both machines,
// with and without the reduction, and counts the configurations
// StuckEncoded calls filtered and deadlocked, and the final ones.
func TestStuck(t *testing.T) {
	const nodes = "node A { x = 0; one = 1 }\nnode B { y = 0 }\n"
	tests := []struct {
		name                       string
		threads                    string
		final, filtered, deadlocks int // distinct configurations, on each machine
	}{
		{"ends", "thread T0 on A { y := x; poll(B) }", 1, 0, 0},
		{"poll too many", "thread T0 on A { y := x; poll(B); poll(B) }", 0, 0, 1},
		{"poll nothing", "thread T0 on A { poll(B) }", 0, 0, 1},
		{"rfence is no operation", "thread T0 on A { rfence(B); poll(B) }", 0, 0, 1},
		{"assume fails", "thread T0 on A { assume(x == 1) }", 0, 1, 0},
		{"assume before poll", "thread T0 on A { assume(x == 1); poll(B) }", 0, 1, 0},
		{"assume holds", "thread T0 on A { assume(x == 0); x := 1 }", 1, 0, 0},
		{"assume wins", "thread T0 on A { poll(B) }\nthread T1 on B { assume(y == 1) }", 0, 1, 0},
		{"other thread ends", "thread T0 on A { poll(B) }\nthread T1 on B { y := 1 }", 0, 0, 1},
		{"either", "thread T0 on A { choose { assume(x == 1) } or { poll(B) } }", 0, 1, 1},
	}
	for _, tc := range tests {
		for _, sc := range []bool{false, true} {
			for _, reduce := range []bool{false, true} {
				opt := DefaultOptions()
				opt.Reduce, opt.ControlHidden = reduce, reduce
				d := newDriver(t, nodes+tc.threads+"\n", opt, sc)
				final, filtered, deadlocks := 0, 0, 0
				seen := map[string]bool{string(d.state): true}
				queue := [][]byte{d.state}
				for len(queue) > 0 {
					s := queue[0]
					queue = queue[1:]
					if d.m.FinalEncoded(s) {
						final++
					}
					switch d.m.StuckEncoded(s) {
					case Filtered:
						filtered++
					case Deadlock:
						deadlocks++
						if w := d.m.Waiting(s); w == "" {
							t.Errorf("%s: a deadlock with no thread waiting", tc.name)
						}
					}
					var next [][]byte
					d.m.Successors(s, func(_ uint64, n []byte) { next = append(next, append([]byte(nil), n...)) })
					for _, n := range next {
						if !seen[string(n)] {
							seen[string(n)] = true
							queue = append(queue, n)
						}
					}
				}
				if final != tc.final || filtered != tc.filtered || deadlocks != tc.deadlocks {
					t.Errorf("%s (sc %v, reduce %v): final %d, filtered %d, deadlocked %d; want %d, %d, %d",
						tc.name, sc, reduce, final, filtered, deadlocks, tc.final, tc.filtered, tc.deadlocks)
				}
			}
		}
	}
}

// TestStuckWaiting names each waiting thread, its statement and its line.
func TestStuckWaiting(t *testing.T) {
	d := newDriver(t, "node A { x = 0 }\nnode B { y = 0 }\nthread T0 on A { poll(B) }\nthread T1 on B { y := 1 }\n", DefaultOptions(), false)
	d.do("T1")
	if k := d.m.StuckEncoded(d.state); k != Deadlock {
		t.Fatalf("StuckEncoded = %v, want deadlock", k)
	}
	if got, want := d.m.Waiting(d.state), "T0 at poll(B) (line 3)"; got != want {
		t.Errorf("Waiting = %q, want %q", got, want)
	}
}
