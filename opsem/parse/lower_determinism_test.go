package parse

import (
	"strings"
	"testing"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
)

// TestLoweringDeterministic lowers programs with several loops again and
// again: every lowering must be the same (the loops' numbers once came out
// in a map's random order, which FuzzParse's property caught on a surface
// seed).
func TestLoweringDeterministic(t *testing.T) {
	for i, src := range surfaceSeeds {
		first, err := Parse("t.rdma", []byte(src))
		if err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		for n := 0; n < 10; n++ {
			again, err := Parse("t.rdma", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if d := diffPrograms(first, again); len(d) > 0 {
				t.Fatalf("seed %d: lowering %d differs:\n  %s", i, n, strings.Join(d, "\n  "))
			}
		}
	}
}

// TestWidening lowers counters kept in memory, whose domains grow by one
// value per specialisation round, with and without widening: the code must
// be the same (a domain only over-approximates what memory holds, and these
// chains end at their range anyway), and widening must settle in a few
// rounds where growing one value at a time takes one round per value.
func TestWidening(t *testing.T) {
	tests := []struct {
		name, src string
		maxRounds int // with widening
	}{
		{"counter", `litmus counter
node S { D = 0 }
node c { d = 0; v = 0 }
thread t on c {
  while (v != 3) {
    d := D
    v := d + 1
    D := v
  }
}
exists (D = 1)
`, widenAfter + 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lower := func(after int) (*prog.Program, int) {
				f, perrs := syntax.ParseFile("t.rdma", []byte(tc.src))
				if perrs != nil {
					t.Fatal(perrs)
				}
				lw := &Lowerer{File: "t.rdma", Params: map[string]int{}, Locs: map[string]int{}, Nodes: map[string]int{},
					Arrays: map[string]int{}, widenAfter: after}
				prg, errs := lw.lower(f, Options{})
				if errs != nil {
					t.Fatal(errs)
				}
				if err := prog.Compile(prg); err != nil {
					t.Fatal(err)
				}
				return prg, lw.rounds
			}
			wide, r1 := lower(widenAfter)
			slow, r0 := lower(0)
			if d := diffPrograms(slow, wide); len(d) > 0 {
				t.Fatalf("widening changed the code:\n  %s", strings.Join(d, "\n  "))
			}
			if r1 > tc.maxRounds {
				t.Errorf("with widening: %d rounds, want at most %d (without: %d)", r1, tc.maxRounds, r0)
			}
			if r0 <= r1 {
				t.Errorf("without widening %d rounds, with %d: the test no longer exercises widening", r0, r1)
			}
		})
	}
}
