package fuzz

import (
	"testing"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/parse"
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

// TestStatsInlineRows: Stats counts the classes of the events before and
// after an inline put's read in program order, on its queue pair and on
// another, and nothing for a program without an inline put.
func TestStatsInlineRows(t *testing.T) {
	src := "node A { a = 1; b = 0 }\nnode B { x = 0; z = 0 }\nnode C { y = 0 }\n" +
		"thread T on A { y := a; x := a; rfence(B); z := a inline; b := 2; a := z }\nexists true\n"
	p, err := parse.Parse("i.rdma", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var s Stats
	s.Add(p)
	if s.Inline.Programs != 1 {
		t.Fatalf("Inline.Programs = %d, want 1", s.Inline.Programs)
	}
	wantBefore := map[axiom.Class]PPOCount{axiom.ClassCPU: {0, 0}, axiom.ClassNLR: {1, 1}, axiom.ClassNRW: {1, 1}, axiom.ClassNF: {1, 0}, axiom.ClassNRR: {0, 0}}
	for c, n := range wantBefore {
		if got := s.Inline.Before[c]; got != n {
			t.Errorf("Before[%s] = %v, want %v", c, got, n)
		}
	}
	wantAfter := map[axiom.Class]PPOCount{axiom.ClassCPU: {1, 0}, axiom.ClassNLR: {0, 0}, axiom.ClassNRW: {0, 0}, axiom.ClassNRR: {1, 0}, axiom.ClassNLW: {1, 0}}
	for c, n := range wantAfter {
		if got := s.Inline.After[c]; got != n {
			t.Errorf("After[%s] = %v, want %v", c, got, n)
		}
	}
	var m Stats
	m.Merge(&s)
	m.Merge(&s)
	if m.Inline.Programs != 2 || m.Inline.Before[axiom.ClassNLR].OtherQP != 2 {
		t.Errorf("merged: %d programs, nlR before on another queue pair %d; want 2, 2", m.Inline.Programs, m.Inline.Before[axiom.ClassNLR].OtherQP)
	}
	q, err := parse.Parse("q.rdma", []byte("node A { a = 1 }\nnode B { x = 0 }\nthread T on A { x := a; a := 2 }\nexists true\n"))
	if err != nil {
		t.Fatal(err)
	}
	var u Stats
	u.Add(q)
	if u.Inline != (InlineCounts{}) {
		t.Errorf("a program without an inline put counted: %+v", u.Inline)
	}
}
