package axiom_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// wordsProgram parses src and makes every put and get between locations
// named like x0 and y0, each followed in declaration order by x1 and y1 on
// its node, a two-word operation (SEMANTICS-VERBS.md 1).
func wordsProgram(t *testing.T, name, src string) *prog.Program {
	t.Helper()
	p, err := parse.Parse(name+".rdma", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	pair := func(l int) bool {
		a := p.Locs[l].Name
		return strings.HasSuffix(a, "0") && l+1 < len(p.Locs) && p.Locs[l+1].Name == strings.TrimSuffix(a, "0")+"1" && p.Locs[l+1].Node == p.Locs[l].Node
	}
	for th := range p.Threads {
		for pc := range p.Threads[th].Code {
			in := &p.Threads[th].Code[pc]
			if (in.Op == prog.OpPut || in.Op == prog.OpGet) && pair(in.X) && pair(in.Y) {
				in.Words, in.Stmt.Words = 2, 2
			}
		}
	}
	return p
}

// wordsRandom returns n random programs over two nodes with two-word puts
// and gets, one-word ones on the same words, CPU writes to the sources and
// reads of the targets, polls and rfences.
func wordsRandom(t *testing.T, seed uint64, n int) []*prog.Program {
	rng := rand.New(rand.NewPCG(seed, 7))
	abc := func(x, r, y, s, remote string) []string {
		return []string{
			y + "0 := " + x + "0", y + "0 := " + x + "0", r + "0 := " + s + "0", r + "0 := " + s + "0",
			y + "1 := " + x + "1", r + "1 := " + s + "1",
			x + "0 := 5", x + "1 := 6", x + "1 := 7",
			"poll(" + remote + ")", "rfence(" + remote + ")",
			"assume(" + r + "1 != 0)", "assume(" + x + "0 == 3)", "assume(" + x + "1 == 4)",
		}
	}
	onA, onB := abc("x", "r", "y", "s", "B"), abc("y", "s", "x", "r", "A")
	var out []*prog.Program
	for i := 0; i < n; i++ {
		var src strings.Builder
		fmt.Fprintf(&src, "litmus words-%d\nnode A { x0 = 1; x1 = 2; r0 = 0; r1 = 0 }\nnode B { y0 = 3; y1 = 4; s0 = 0; s1 = 0 }\n", i)
		for th := 0; th < 2+rng.IntN(2); th++ {
			node, a := "A", onA
			if th%2 == 1 {
				node, a = "B", onB
			}
			var code []string
			for k := 1 + rng.IntN(4); k > 0; k-- {
				code = append(code, a[rng.IntN(len(a))])
			}
			fmt.Fprintf(&src, "thread T%d on %s { %s }\n", th, node, strings.Join(code, "; "))
		}
		src.WriteString("exists true\n")
		out = append(out, wordsProgram(t, fmt.Sprintf("words-%d", i), src.String()))
	}
	return out
}

// wordsSeed seeds TestWordsAgree's programs.
var wordsSeed uint64 = 32

// TestWordsAgree compares the model with both machines on random programs
// with multi-word puts and gets, under both placements: the final memories
// of complete RDMA- and SC-consistent traces against the machines' final
// configurations, and robustness against the machine's event-graph search.
func TestWordsAgree(t *testing.T) {
	ctx := context.Background()
	n := 200
	if axiom.RaceEnabled {
		n = 20
	}
	bad := 0
	for _, p := range wordsRandom(t, wordsSeed, n) {
		for _, inOrder := range []bool{false, true} {
			if bad >= 3 {
				return
			}
			pl := machine.PlaceAny
			if inOrder {
				pl = machine.PlaceInOrder
			}
			aopt := axiom.Options{InOrder: inOrder}
			mopt := machine.Options{MaxInflight: 8, Placement: pl}
			rdma, sc, _, err := axiom.Outcomes(ctx, p, aopt)
			if err != nil {
				t.Fatalf("%v\n%s", err, p)
			}
			for k, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
				res, err := verdict.Compute(ctx, p, sem, verdict.Options{Machine: mopt, Settings: explore.Settings{MaxStates: 1 << 21}})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Complete {
					continue
				}
				var got, want []string
				for _, o := range res.Outcomes {
					got = append(got, fmt.Sprint(o.Values))
				}
				mine := rdma
				if k == 1 {
					mine = sc
				}
				for _, m := range mine {
					want = append(want, fmt.Sprint(m))
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					bad++
					t.Errorf("%s outcomes, in-order %v: machine %v, model %v\n%s", sem, inOrder, got, want, p)
				}
			}
			robust, w, _, err := axiom.Robust(ctx, p, aopt)
			if err != nil {
				t.Fatalf("%v\n%s", err, p)
			}
			mr, err := verdict.RobustMachine(ctx, p, verdict.Options{Machine: mopt, Settings: explore.Settings{MaxStates: 1 << 21}})
			if err != nil {
				t.Fatalf("%v\n%s", err, p)
			}
			if mr.Robust != robust && (mr.Complete || !mr.Robust) {
				bad++
				var tr string
				if w != nil {
					tr = w.Format(p)
				}
				t.Errorf("robust, in-order %v: machine %v (complete %v), model %v\n%s\n%s", inOrder, mr.Robust, mr.Complete, robust, p, tr)
			}
		}
	}
}
