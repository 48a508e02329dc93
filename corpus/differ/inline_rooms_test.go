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

// inlinePrograms has puts marked inline (SEMANTICS-VERBS.md 5), each with
// its buffer reused at once or after a get on its queue pair, in the core
// format and in the protocol language, and the final outcomes every room
// must find (the same under RDMA and SC: the mark is what makes them so).
var inlinePrograms = map[string]opProgram{
	"put": {src: "node A { a = 1 }\nnode B { y = 0 }\nthread T on A { y := a inline; a := 2 }\nexists (y = 1)\n",
		outcomes: []string{"y=1;"}},
	"fenced put": {src: "node A { a = 2; r = 0 }\nnode B { y = 1 }\nthread T on A { r := y; y := a inline fenced; a := 3 }\nexists (y = 2 /\\ r = 1)\n",
		outcomes: []string{"y=2; r=1;"}},
	"protocol put": {src: "node A { a[2] = 1 }\nnode B { y[2] = 0 }\nthread T on A { y[1] := a[0] inline; a[0] := 4 }\nexists (y[1] = 1)\n",
		outcomes: []string{"y[1]=1;"}},
	"protocol two-word put": {src: "node A { a[2] = 1 }\nnode B { y[2] = 0 }\nthread T on A { y[0..1] := a[0..1] inline; a[1] := 4 }\nexists (y[0] = 1 /\\ y[1] = 1)\n",
		outcomes: []string{"y[0]=1; y[1]=1;"}, promelaRefuses: true},
}

// TestInlineInEveryRoom walks inline puts through every room of
// TestEveryOpInEveryRoom: both machines with and without the reduction,
// the model, the decider's typed refusal naming inline (or fenced, or
// multi-word, first), robustness by enumeration, Promela run by SPIN (the
// two-word put: its typed refusal) and the robustness model's refusal,
// stress, the cost estimate.
func TestInlineInEveryRoom(t *testing.T) {
	spin := true
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not on PATH under CI (make tools installs it): %v", tool, err)
			}
			spin = false
		}
	}
	for name, tc := range inlinePrograms {
		t.Run(name, func(t *testing.T) {
			p, err := parse.Parse("inline.rdma", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			inline := false
			for _, in := range p.Threads[0].Code {
				inline = inline || in.Op == prog.OpPut && in.Inline
			}
			if !inline || prog.FirstVerbs(p) == nil {
				t.Fatalf("the program has no inline put")
			}
			everyRoom(t, prog.OpPut, tc, spin)
		})
	}
}

// TestInlineGenerated: corpus/gen with Config.Verbs marks puts inline, and
// only puts, so that the fuzzer (fuzz --verbs) compares every semantics on
// them; without Verbs it marks none. Every program parses back.
func TestInlineGenerated(t *testing.T) {
	n := 300
	if raceOn {
		n = 100
	}
	verbs := gen.DefaultConfig()
	verbs.Verbs = true
	inline, fenced, words := 0, 0, 0
	for _, cfg := range []gen.Config{verbs, gen.DefaultConfig()} {
		for i := 0; i < n; i++ {
			p := gen.Program(rand.New(rand.NewPCG(uint64(i), 0)), cfg, fmt.Sprintf("g%d", i))
			for _, th := range p.Threads {
				for _, in := range th.Code {
					if !in.Inline {
						continue
					}
					if !cfg.Verbs || in.Op != prog.OpPut {
						t.Fatalf("an inline %v (Config.Verbs %v)", in.Op, cfg.Verbs)
					}
					inline++
					if in.Fenced {
						fenced++
					}
					if in.Words > 1 {
						words++
					}
				}
			}
			if _, err := parse.Parse("g.rdma", []byte(p.String())); err != nil {
				t.Fatalf("generated program does not parse back: %v\n%s", err, p)
			}
		}
	}
	if inline == 0 || fenced == 0 || words == 0 {
		t.Errorf("generated inline puts: %d, fenced %d, two-word %d: want some of each", inline, fenced, words)
	}
	t.Logf("inline puts: %d (fenced %d, two-word %d)", inline, fenced, words)
}
