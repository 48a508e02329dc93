package differ

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"rdmasim/corpus/gen"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// wordsPrograms has a multi-word put and a multi-word get (SEMANTICS-VERBS.md
// 1), in the core format and in the protocol language, and the final
// outcomes every room must find (SPIN's search of the Promela machines
// among them).
var wordsPrograms = map[string]struct {
	op prog.Op
	opProgram
}{
	"put": {prog.OpPut, opProgram{src: "node A { a0 = 1; a1 = 2 }\nnode B { y0 = 0; y1 = 0 }\nthread T on A { a1 := 3; (y0, y1) := (a0, a1) }\nexists (y0 = 1 /\\ y1 = 3)\n",
		outcomes: []string{"y0=1; y1=3;"}}},
	"get": {prog.OpGet, opProgram{src: "node A { a = 1; r0 = 0; r1 = 0; r2 = 0 }\nnode B { y0 = 0; y1 = 2; y2 = 3 }\nthread T on A { y0 := a; poll(B); (r0, r1, r2) := (y0, y1, y2); poll(B) }\nexists (r0 = 1 /\\ r1 = 2 /\\ r2 = 3)\n",
		outcomes: []string{"r0=1; r1=2; r2=3;"}}},
	"protocol put": {prog.OpPut, opProgram{src: "node A { a[2] = 1 }\nnode B { y[2] = 0 }\nthread T on A { a[1] := 1; y[0..1] := a[0..1] fenced }\nexists (y[0] = 1 /\\ y[1] = 1)\n",
		outcomes: []string{"y[0]=1; y[1]=1;"}}},
	"in-order get": {prog.OpGet, opProgram{src: "placement in-order\nnode A { r[2] = 0; a = 5 }\nnode B { y[2] = 5 }\nthread T on A { y[1] := a; r[0..1] := y[0..1] }\nexists (r[0] = 5 /\\ r[1] = 5)\n",
		outcomes: []string{"r[0]=5; r[1]=5;"}}},
}

// TestWordsInEveryRoom walks multi-word puts and gets through every room
// of TestEveryOpInEveryRoom: both machines with and without the reduction,
// the model, the decider's typed refusal naming multi-word (or fenced,
// first), robustness by enumeration, the Promela machines run by SPIN,
// the robustness model's refusal, stress, the cost estimate.
func TestWordsInEveryRoom(t *testing.T) {
	spin := true
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not on PATH under CI (make tools installs it): %v", tool, err)
			}
			spin = false
		}
	}
	for name, tc := range wordsPrograms {
		t.Run(name, func(t *testing.T) {
			p, err := parse.Parse("words.rdma", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			words := false
			for _, in := range p.Threads[0].Code {
				words = words || in.Op == tc.op && in.Words > 1
			}
			if !words || prog.FirstVerbs(p) == nil {
				t.Fatalf("the program has no multi-word %s", tc.op)
			}
			everyRoom(t, tc.op, tc.opProgram, spin)
		})
	}
}

// TestWordsGenerated: corpus/gen with Config.Verbs draws two-word puts and
// gets, so that the fuzzer (fuzz --verbs) compares every semantics on
// them; without Verbs it draws none.
func TestWordsGenerated(t *testing.T) {
	n := 300
	verbs := gen.DefaultConfig()
	verbs.Verbs = true
	words := map[prog.Op]int{}
	for _, cfg := range []gen.Config{verbs, gen.DefaultConfig()} {
		for i := 0; i < n; i++ {
			p := gen.Program(rand.New(rand.NewPCG(uint64(i), 0)), cfg, fmt.Sprintf("g%d", i))
			for _, th := range p.Threads {
				for _, in := range th.Code {
					if in.Words > 1 {
						if !cfg.Verbs {
							t.Fatalf("a multi-word %v without Config.Verbs", in.Op)
						}
						words[in.Op]++
					}
				}
			}
			if _, err := parse.Parse("g.rdma", []byte(p.String())); err != nil {
				t.Fatalf("generated program does not parse back: %v\n%s", err, p)
			}
		}
	}
	for _, op := range []prog.Op{prog.OpPut, prog.OpGet} {
		if words[op] == 0 {
			t.Errorf("no generated program has a multi-word %v", op)
		}
	}
	t.Logf("multi-word: %v", words)
}
