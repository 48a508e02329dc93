package fuzz

import (
	"testing"

	"rdmasim/opsem/prog"
)

// TestInlineDrawn: the programs of fuzz --verbs have puts marked inline
// (SEMANTICS-VERBS.md 5, gen.Config.Verbs), so that the comparisons cover
// them; the programs without --verbs have none. It logs how many of the
// first 400 programs of seeds 4242 and 7 have one (the cross-check's runs).
func TestInlineDrawn(t *testing.T) {
	for _, seed := range []uint64{4242, 7} {
		with, without := 0, 0
		for i := 0; i < 400; i++ {
			has := func(p *prog.Program) bool {
				for _, th := range p.Threads {
					for _, in := range th.Code {
						if in.Inline {
							return true
						}
					}
				}
				return false
			}
			if p, _ := GenerateVerbs(ProgramSeed(seed, i), false, true); has(p) {
				with++
			}
			if p, _ := GenerateVerbs(ProgramSeed(seed, i), false, false); has(p) {
				without++
			}
		}
		if with < 40 || without != 0 {
			t.Errorf("seed %d: %d of 400 programs with an inline put under --verbs (want 40 or more), %d without it (want 0)", seed, with, without)
		}
		t.Logf("seed %d: %d of 400 programs have an inline put", seed, with)
	}
}
