package decide

import (
	"context"
	"strings"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/parse"
)

// TestBlocksAgree: deciding block by block (Decide) gives the answer of one
// search of the unrestricted machine, on every corpus program and on
// programs whose conflict graph has several blocks, robust or not; a
// violation found in a block comes with a witness (built, checked against
// the model and replayed by Decide).
func TestBlocksAgree(t *testing.T) {
	ctx := context.Background()
	ps := corpus(t)
	robust := map[string]bool{"gated-sb": false, "two-5.1": false, "pair-then-5.1": false, "star": true, "sym-star": false, "sym-star-poll": true}
	for _, src := range []string{
		// Two copies of paper-5.1 apart (a put whose local read is
		// delayed past the thread's later write): each thread is a block
		// alone, with a cycle of its own; not robust.
		`litmus two-5.1
node n1 { x = 1; y = 0 }
node n2 { z = 0; w = 1 }
node n3 { a = 1; b = 0 }
node n4 { c = 0; d = 1 }
thread p on n1 { y := w; z := x; x := 2 }
thread q on n3 { b := d; c := a; a := 2 }
exists true`,
		// A robust pair, then paper-5.1: the violation is in the second
		// block.
		`litmus pair-then-5.1
node A { v = 0 }
node n1 { x = 1; y = 0 }
node n2 { z = 0; w = 1 }
thread T0 on A { v := 1; v := 2 }
thread T1 on A { assume(v == 2) }
thread p on n1 { y := w; z := x; x := 2 }
exists true`,
		// SB-PUT whose first thread waits for a flag of a third: blocks
		// {T0 T1} and {T0 G}. The violation is in the first, and needs G
		// to run (instr.Influence keeps it; freezing every thread outside
		// the block answers "robust").
		`litmus gated-sb
node A { x = 0; one = 1; h = 0 }
node B { z = 0; two = 1 }
thread T0 on A { assume(h == 1); z := one; assume(x == 0) }
thread T1 on B { x := two; assume(z == 0) }
thread G on A { h := 1 }
exists true`,
		// A server between two clients: blocks {c0 s} and {c1 s}, robust.
		`litmus star
node S { r0 = 0; r1 = 0 }
node C0 { m0 = 1 }
node C1 { m1 = 1 }
thread c0 on C0 { r0 := m0; poll(S) }
thread c1 on C1 { r1 := m1; poll(S) }
thread s on S { assume(r0 == 1); assume(r1 == 1) }
exists true`,
		// A symmetric star: the server writes a record and its version,
		// N = 3 clients get both, unpolled (not robust) and polled
		// (robust). One block per orbit is searched, reduced by the
		// permutations of the two other clients.
		symStar(false),
		symStar(true),
	} {
		p, err := parse.Parse("t.rdma", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(instr.Blocks(p)); n < 2 {
			t.Fatalf("%s: %d blocks, want several", p.Name, n)
		}
		ps = append(ps, p)
	}
	several := 0
	for _, p := range ps {
		if len(instr.Blocks(p)) > 1 {
			several++
		}
		whole, err := decideBlock(ctx, p, Options{NoWitness: true}, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		byBlock, err := Decide(ctx, p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if want, ok := robust[p.Name]; ok && byBlock.Robust != want {
			t.Errorf("%s: robust=%v, want %v", p.Name, byBlock.Robust, want)
		}
		if byBlock.Robust != whole.Robust || !whole.Certain() || !byBlock.Certain() {
			t.Errorf("%s: by blocks robust=%v (%s), one search robust=%v", p.Name, byBlock.Robust, byBlock.Blocks, whole.Robust)
		}
		sym, err := Decide(ctx, p, Options{Settings: explore.Settings{Symmetry: true}})
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if sym.Robust != whole.Robust || !sym.Certain() {
			t.Errorf("%s: by blocks with symmetry robust=%v (%s, %s), one search robust=%v", p.Name, sym.Robust, sym.Blocks, sym.Symmetry, whole.Robust)
		}
		if strings.HasPrefix(p.Name, "sym-star") && !strings.Contains(sym.Symmetry, "within a block") {
			t.Errorf("%s: symmetry %q, want the permutations that fix the block", p.Name, sym.Symmetry)
		}
		if !byBlock.Robust && byBlock.Witness == nil && byBlock.WitnessCut == "" {
			t.Errorf("%s: a violation without a witness", p.Name)
		}
		if byBlock.Robust && byBlock.Search.Stop != explore.Complete {
			t.Errorf("%s: robust, search stopped by %v", p.Name, byBlock.Search.Stop)
		}
	}
	if several < 5 { // PUT-PUT-2THR-MP and the four above
		t.Errorf("only %d programs with several blocks", several)
	}
}

// symStar returns the symmetric star of TestBlocksAgree, its gets polled or
// not.
func symStar(poll bool) string {
	name, p := "sym-star", ""
	if poll {
		name, p = "sym-star-poll", "\n  poll(S)"
	}
	return `litmus ` + name + `
param N = 3
node S { rec = 0; ver = 0 }
node c[i] for i in 0..N-1 { r = 0; v = 0 }
thread server on S { rec := 1; ver := 1 }
thread client[i] on c[i] for i in 0..N-1 {
  v[i] := ver` + p + `
  r[i] := rec` + p + `
}
exists true`
}
