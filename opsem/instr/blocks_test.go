package instr

import (
	"slices"
	"testing"
)

// TestBlocks checks the blocks of the conflict graph on small programs:
// threads that share a location (one access a write) are adjacent, a cycle
// of three threads is one block, a thread joining two others that do not
// conflict is a cut vertex, a thread that conflicts only with itself is a
// block alone, and one that conflicts with nothing is in none.
func TestBlocks(t *testing.T) {
	tests := []struct {
		name, src string
		want      [][]string
	}{
		{"store buffering", `litmus sb
node A { x = 0; y = 0 }
thread T0 on A { x := 1; assume(y == 0) }
thread T1 on A { y := 1; assume(x == 0) }
exists true`, [][]string{{"T0", "T1"}}},
		{"two puts read by one thread", `litmus pp
node A { x = 1; y = 1 }
node B { d = 0; f = 0 }
thread T0 on A { d := x }
thread T1 on A { f := y }
thread T2 on B { assume(f == 1); assume(d == 0) }
exists true`, [][]string{{"T0", "T2"}, {"T1", "T2"}}},
		{"a triangle", `litmus tri
node A { x = 0; y = 0; z = 0 }
thread T0 on A { x := 1; assume(z == 0) }
thread T1 on A { y := 1; assume(x == 0) }
thread T2 on A { z := 1; assume(y == 0) }
exists true`, [][]string{{"T0", "T1", "T2"}}},
		{"two pairs apart", `litmus apart
node A { x = 0; y = 0; u = 0; v = 0 }
thread T0 on A { x := 1; assume(y == 0) }
thread T1 on A { y := 1; assume(x == 0) }
thread T2 on A { u := 1; assume(v == 0) }
thread T3 on A { v := 1; assume(u == 0) }
exists true`, [][]string{{"T0", "T1"}, {"T2", "T3"}}},
		{"alone with itself, and apart", `litmus self
node A { x = 0; y = 0; z = 0 }
thread T0 on A { x := 1; assume(x == 0) }
thread T1 on A { y := 1 }
thread T2 on A { z := 1 }
exists true`, [][]string{{"T0"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, tc.src)
			var got [][]string
			for _, b := range Blocks(p) {
				var names []string
				for th := range p.Threads {
					if b&(1<<th) != 0 {
						names = append(names, p.Threads[th].Name)
					}
				}
				got = append(got, names)
			}
			if !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("Blocks = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestInfluence: a search for cycles among some threads keeps running the
// threads that may write what they read, directly or through others; two
// store-buffering pairs apart do not influence each other, and a reader
// influences no one.
func TestInfluence(t *testing.T) {
	p := mustParse(t, `litmus apart
node A { x = 0; y = 0; u = 0; v = 0; w = 0; z = 0 }
thread T0 on A { x := 1; assume(y == 0) }
thread T1 on A { y := 1; assume(x == 0) }
thread T2 on A { u := 1; assume(v == 0) }
thread T3 on A { v := 1; assume(u == 0) }
thread T4 on A { assume(w == 0); assume(x == 1) }
thread T5 on A { z := 1; assume(u == 1) }
thread T6 on A { w := 1 }
exists true`)
	for _, tc := range []struct{ set, want uint64 }{
		{1 << 0, 1<<0 | 1<<1},
		{1 << 3, 1<<2 | 1<<3},
		{1<<1 | 1<<2, 0b1111},
		{1 << 4, 1<<4 | 1<<6 | 1<<0 | 1<<1}, // reads w (T6) and x (T0, which reads y of T1)
		{1 << 5, 1<<5 | 1<<2 | 1<<3},        // reads u; writes z, which nobody reads
		{1 << 6, 1 << 6},                    // reads nothing
	} {
		if got := Influence(p, tc.set); got != tc.want {
			t.Errorf("Influence(%b) = %b, want %b", tc.set, got, tc.want)
		}
	}
}
