package surface

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"
)

var (
	agreeN    = flag.Int("surface.n", 300, "programs TestAgreement draws")
	agreeSeed = flag.Uint64("surface.seed", 1, "seed of TestAgreement's programs")
)

// TestAgreement draws programs (Generate) and compares the lowering with
// the interpreter on each: no disagreement is allowed. make agree-surface
// runs it on 10^4 programs.
func TestAgreement(t *testing.T) {
	start := time.Now()
	var agreed, skipped, failed int
	reasons := map[string]int{}
	for i := 0; i < *agreeN; i++ {
		seed := ProgramSeed(*agreeSeed, i)
		src := Generate(seed)
		rep, err := Compare(context.Background(), "gen.rdma", []byte(src), Options{MaxStates: 50000})
		if err != nil {
			t.Fatalf("program %d (seed %#x): %v\n%s", i, seed, err, src)
		}
		switch {
		case rep.Skipped != "":
			skipped++
			r := rep.Skipped
			if j := strings.Index(r, ": "); j >= 0 && strings.HasPrefix(r, "the lowering") {
				r = r[j+2:]
				if k := strings.Index(r, ": "); k >= 0 {
					r = r[k+2:]
				}
			}
			reasons[r]++
		case len(rep.Problems) > 0:
			failed++
			if failed <= 3 {
				t.Errorf("program %d (seed %#x) disagrees:\n%s\n%s", i, seed, strings.Join(rep.Problems, "\n"), src)
			}
		default:
			agreed++
		}
	}
	t.Logf("%d programs in %s: %d agree, %d disagree, %d skipped", *agreeN, time.Since(start).Round(time.Millisecond), agreed, failed, skipped)
	for r, n := range reasons {
		t.Logf("  skipped %d: %s", n, r)
	}
}
