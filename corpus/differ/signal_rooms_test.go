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

// unsignaledPrograms has, for each operation that takes the unsignaled mark
// (a work request posted without a completion entry, SEMANTICS-VERBS.md 2),
// a program that marks it before a signalled operation of its queue pair
// and one poll, which matches the signalled one and waits for both; and the
// final outcomes every room must find. A thread that polled twice would
// never end (nothing to match the second poll), so every room would find no
// outcome.
var unsignaledPrograms = map[string]struct {
	op prog.Op
	opProgram
}{
	"put": {prog.OpPut, opProgram{src: "node A { a = 2; r = 0 }\nnode B { x = 0 }\nthread T on A { a := 3; x := a unsignaled; r := x; poll(B) }\nexists (x = 3 /\\ r = 3)\n",
		outcomes: []string{"x=3; r=3;"}}},
	"get": {prog.OpGet, opProgram{src: "node A { r = 0; s = 0 }\nnode B { y = 1; z = 2 }\nthread T on A { r := y unsignaled; s := z; poll(B) }\nthread U on B { y := 1 }\nexists (r = 1 /\\ s = 2)\n",
		outcomes: []string{"r=1; s=2;"}}},
	"rfaa": {prog.OpRFAA, opProgram{src: "node A { a = 1; r = 9 }\nnode B { C = 4; y = 0 }\nthread T on A { r := rfaa(C, 2) unsignaled; y := a; poll(B) }\nexists (C = 6 /\\ r = 4)\n",
		outcomes: []string{"C=6; r=4;"}}},
	"rcas": {prog.OpRCAS, opProgram{src: "node A { a = 1; r = 9 }\nnode B { L = 0; y = 0 }\nthread T on A { r := rcas(L, 0, 1) unsignaled; y := a; poll(B) }\nexists (L = 1 /\\ r = 0)\n",
		outcomes: []string{"L=1; r=0;"}}},
	"fenced put": {prog.OpPut, opProgram{src: "node A { a = 2; r = 0 }\nnode B { x = 0; y = 1 }\nthread T on A { r := y unsignaled; x := a fenced unsignaled; y := a; poll(B) }\nexists (x = 2 /\\ r = 1)\n",
		outcomes: []string{"x=2; r=1;"}}},
	"protocol get": {prog.OpGet, opProgram{src: "node A { r[2] = 0 }\nnode B { y[2] = 3 }\nthread T on A { r[0] := y[0] unsignaled; r[1] := y[1]; poll(B) }\nthread U on B { y[1] := 3 }\nexists (r[0] = 3 /\\ r[1] = 3)\n",
		outcomes: []string{"r[0]=3; r[1]=3;"}}},
}

// TestUnsignaledInEveryRoom walks unsignaled puts, gets and remote atomics
// through every room of TestEveryOpInEveryRoom: both machines with and
// without the reduction, the model, the decider's typed refusal naming
// unsignaled (or fenced, first), robustness by enumeration, Promela run by
// SPIN and the robustness model's refusal, stress, the cost estimate.
func TestUnsignaledInEveryRoom(t *testing.T) {
	spin := true
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not on PATH under CI (make tools installs it): %v", tool, err)
			}
			spin = false
		}
	}
	for name, tc := range unsignaledPrograms {
		t.Run(name, func(t *testing.T) {
			p, err := parse.Parse("unsignaled.rdma", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			marked := false
			for _, in := range p.Threads[0].Code {
				marked = marked || in.Op == tc.op && in.Unsignaled
			}
			if !marked || prog.FirstVerbs(p) == nil {
				t.Fatalf("the program has no unsignaled %s", tc.op)
			}
			everyRoom(t, tc.op, tc.opProgram, spin)
		})
	}
}

// TestUnsignaledGenerated: corpus/gen with Config.Verbs marks puts, gets
// and remote atomics unsignaled, so that the fuzzer (fuzz --verbs) compares
// every semantics on them, and most generated polls still have a signalled
// operation to match; without Verbs it marks none.
func TestUnsignaledGenerated(t *testing.T) {
	n := 300
	if raceOn {
		n = 100
	}
	verbs, atomics := gen.DefaultConfig(), gen.DefaultConfig()
	verbs.Verbs = true
	atomics.Verbs, atomics.Atomics = true, true
	marked := map[prog.Op]int{}
	polls, matched := 0, 0
	for _, cfg := range []gen.Config{verbs, atomics, gen.DefaultConfig()} {
		for i := 0; i < n; i++ {
			p := gen.Program(rand.New(rand.NewPCG(uint64(i), 0)), cfg, fmt.Sprintf("g%d", i))
			for _, th := range p.Threads {
				signalled := map[int]int{} // per queue pair, signalled operations so far (straight-line code)
				for _, in := range th.Code {
					if in.Unsignaled {
						if !cfg.Verbs {
							t.Fatalf("an unsignaled %v without Config.Verbs", in.Op)
						}
						marked[in.Op]++
					}
					switch {
					case in.Op == prog.OpPut || in.Op == prog.OpGet || in.Op.IsAtomic():
						if !in.Unsignaled {
							signalled[in.QP]++
						}
					case in.Op == prog.OpPoll && cfg.Verbs:
						polls++
						if signalled[in.QP] > 0 {
							signalled[in.QP]--
							matched++
						}
					}
				}
			}
		}
	}
	for _, op := range []prog.Op{prog.OpPut, prog.OpGet, prog.OpRCAS, prog.OpRFAA} {
		if marked[op] == 0 {
			t.Errorf("no generated program has an unsignaled %v", op)
		}
	}
	if polls == 0 || matched*10 < polls*7 {
		t.Errorf("%d of %d generated polls have a signalled operation to match: want at least 70%%", matched, polls)
	}
	t.Logf("unsignaled: %v; polls matched %d of %d", marked, matched, polls)
}
