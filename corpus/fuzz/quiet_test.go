package fuzz

import (
	"testing"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/parse"
)

// TestStatsQuietColumn: Stats counts the classes of the events before a
// quiet in program order (its column of the ppo table), on any queue pair
// and through a choose, and nothing after it.
func TestStatsQuietColumn(t *testing.T) {
	src := "node A { a = 1; b = 0 }\nnode B { x = 0 }\nnode C { y = 0 }\n" +
		"thread T on A { x := a; choose { y := a } or { skip }; quiet; b := y }\n" +
		"thread U on A { quiet; rfence(B) }\nexists true\n"
	p, err := parse.Parse("q.rdma", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var s Stats
	s.Add(p)
	want := map[axiom.Class]int{axiom.ClassCPU: 0, axiom.ClassNLR: 1, axiom.ClassNRW: 1, axiom.ClassNRR: 0, axiom.ClassNLW: 0, axiom.ClassNF: 0}
	for c, n := range want {
		if got := s.QuietAfter[c]; got != n {
			t.Errorf("QuietAfter[%s] = %d, want %d", c, got, n)
		}
	}
	var m Stats
	m.Merge(&s)
	m.Merge(&s)
	if m.QuietAfter[axiom.ClassNRW] != 2 {
		t.Errorf("merged QuietAfter[nrW] = %d, want 2", m.QuietAfter[axiom.ClassNRW])
	}
}
