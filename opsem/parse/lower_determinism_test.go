package parse

import (
	"strings"
	"testing"
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
