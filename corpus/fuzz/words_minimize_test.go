package fuzz

import (
	"testing"

	"rdmasim/opsem/parse"
)

// TestReparseWordsSplit: the minimiser's location pass may drop or merge a
// location inside a multi-word put's or get's word range; such a candidate is
// rejected (reparse answers false), not printed, which panicked before
// (prog.Program.WordsString indexing past the locations).
func TestReparseWordsSplit(t *testing.T) {
	src := "litmus w\nnode A { x0 = 1; x1 = 2 }\nnode B { y0 = 0; y1 = 0 }\nthread T on A { (y0, y1) := (x0, x1) }\nexists true\n"
	p, err := parse.Parse("w.rdma", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reparse(p); !ok {
		t.Fatal("the program itself does not reparse")
	}
	// Dropping a location drops the statements that name it, the put
	// with it when it names the first word; one inside the range would
	// split it. Merging x1 into x0 splits it.
	for l := range p.Locs {
		if q, ok := reparse(dropLoc(p, l)); ok && !wordsIntact(q) {
			t.Errorf("dropping %s: a split word range was kept:\n%s", p.Locs[l].Name, q)
		}
	}
	if q, ok := reparse(mergeLoc(p, 1, 0)); ok {
		t.Errorf("merging x1 into x0 kept the two-word put:\n%s", q)
	}
}
