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

// fencedPrograms has, for each operation that takes the fenced mark (the
// fence flag of its work request, SEMANTICS-VERBS.md 4), a program that
// marks it after a get on its queue pair (so that the mark makes it wait)
// and the final outcomes every room must find.
var fencedPrograms = map[prog.Op]opProgram{
	prog.OpPut: {"node A { a = 2; r = 0 }\nnode B { y = 1 }\nthread T on A { r := y; y := a fenced }\nexists (y = 2 /\\ r = 1)\n", []string{"y=2; r=1;"}, false, false, false},
	prog.OpGet: {"node A { r = 0; s = 0 }\nnode B { y = 1; z = 2 }\nthread T on A { r := y; s := z fenced }\nthread U on B { z := 2 }\nexists (s = 2)\n", []string{"s=2;"}, false, false, false},
	prog.OpRFAA: {"node A { r = 9; s = 0 }\nnode B { C = 4 }\nthread T on A { s := C; r := rfaa(C, 2) fenced; poll(B); poll(B) }\nexists (C = 6 /\\ r = 4)\n",
		[]string{"C=6; r=4;"}, false, false, false},
	prog.OpRCAS: {"node A { r = 9; s = 0 }\nnode B { L = 0 }\nthread T on A { s := L; r := rcas(L, 0, 1) fenced; poll(B); poll(B) }\nexists (L = 1 /\\ r = 0)\n",
		[]string{"L=1; r=0;"}, false, false, false},
}

// TestFencedInEveryRoom walks a fenced put, get and remote atomic through
// every room of TestEveryOpInEveryRoom (both machines with and without the
// reduction, the model, the decider's typed refusal naming fenced, or
// remote atomics first, robustness by enumeration, Promela run by SPIN and
// the robustness model's refusal, stress, the cost estimate).
func TestFencedInEveryRoom(t *testing.T) {
	spin := true
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not on PATH under CI (make tools installs it): %v", tool, err)
			}
			spin = false
		}
	}
	for op, tc := range fencedPrograms {
		t.Run(op.String(), func(t *testing.T) {
			p, err := parse.Parse("fenced.rdma", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			fenced := false
			for _, in := range p.Threads[0].Code {
				fenced = fenced || in.Op == op && in.Fenced
			}
			if !fenced || prog.FirstAnyVerbs(p) == nil {
				t.Fatalf("the program has no fenced %s", op)
			}
			everyRoom(t, op, tc, spin)
		})
	}
}

// TestFencedGenerated: corpus/gen with Config.Verbs marks puts, gets and
// remote atomics fenced, so that the fuzzer (fuzz --verbs) compares every
// semantics on them; without Verbs it marks none.
func TestFencedGenerated(t *testing.T) {
	n := 300
	if raceOn {
		n = 100
	}
	verbs, atomics := gen.DefaultConfig(), gen.DefaultConfig()
	verbs.Verbs = true
	atomics.Verbs, atomics.Atomics = true, true
	fenced := map[prog.Op]int{}
	for _, cfg := range []gen.Config{verbs, atomics, gen.DefaultConfig()} {
		for i := 0; i < n; i++ {
			p := gen.Program(rand.New(rand.NewPCG(uint64(i), 0)), cfg, fmt.Sprintf("g%d", i))
			for _, th := range p.Threads {
				for _, in := range th.Code {
					if in.Fenced {
						if !cfg.Verbs {
							t.Fatalf("a fenced %v without Config.Verbs", in.Op)
						}
						fenced[in.Op]++
					}
				}
			}
		}
	}
	for _, op := range []prog.Op{prog.OpPut, prog.OpGet, prog.OpRCAS, prog.OpRFAA} {
		if fenced[op] == 0 {
			t.Errorf("no generated program has a fenced %v", op)
		}
	}
	t.Logf("fenced: %v", fenced)
}
