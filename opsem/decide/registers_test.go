package decide_test

import (
	"context"
	"flag"
	"testing"
	"time"

	"rdmasim/corpus/surface"
	"rdmasim/explore"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

var (
	regN    = flag.Int("registers.n", 150, "programs TestRegistersAgreement draws")
	regSeed = flag.Uint64("registers.seed", 2027, "seed of TestRegistersAgreement's programs")
)

// regStates bounds each search of TestRegistersAgreement: a program whose
// search it cuts is not compared.
const regStates = 300_000

// TestRegistersAgreement draws protocol programs (corpus/surface), lowers
// each with its registers kept at run time, and on those that keep some
// (prog.HasRegisters) compares the decider with enumeration on the RDMA
// machine whenever both answer with certainty, and the decider on the
// run-time lowering with the decider on the static one (the same program,
// its registers specialised), and with the decider's variants (symmetry,
// eager guesses). Count-boxed: -registers.n programs from
// -registers.seed; no disagreement is allowed.
func TestRegistersAgreement(t *testing.T) {
	n := *regN
	if testing.Short() {
		n = min(n, 40)
	}
	if underRace {
		// Under the race detector (CI), ten times slower: 6 programs
		// (10 s; the 7th to 12th took 116 s more, 126 s in all); make
		// test's race-free pass draws all. Its searches run on one
		// worker (regDecide), where the race detector has little to see.
		n = min(n, 6)
	}
	var kept, vsEnum, vsStatic, vsSym, vsEager, violations, skipped int
	ctx := context.Background()
	for i := 0; i < n; i++ {
		seed := surface.ProgramSeed(*regSeed, i)
		src := []byte(surface.Generate(seed))
		rt, err := parse.ParseOptions("gen.rdma", src, parse.Options{Registers: parse.RegistersRuntime})
		if err != nil || !prog.HasRegisters(rt) || prog.HasAtomics(rt) {
			continue // over a lowering limit, nothing kept at run time, or atomics (the decider refuses them)
		}
		kept++
		dec := regDecide(t, ctx, rt, robust.Decider, false)
		// The decider's variants: reduced by the program's symmetry, and
		// guessing the boundary memory up front.
		if ds := regDecide(t, ctx, rt, robust.Decider, true); ds.Certain() && dec.Certain() {
			vsSym++
			if ds.Robust != dec.Robust {
				t.Errorf("program %d (seed %#x): decider robust %v, %v with symmetry (%s):\n%s", i, seed, dec.Robust, ds.Robust, ds.Symmetry, src)
			}
		}
		unrt, _ := prog.WithoutRangeChecks(rt) // as robust.Decide answers
		if de, err := decide.Decide(ctx, unrt, decide.Options{EagerGuess: true, NoWitness: true, Settings: explore.Settings{MaxStates: regStates, Workers: 1}}); err != nil {
			t.Fatalf("program %d: eager decider: %v", i, err)
		} else if de.Certain() && dec.Certain() {
			vsEager++
			if de.Robust != dec.Robust {
				t.Errorf("program %d (seed %#x): decider robust %v, %v with eager guesses:\n%s", i, seed, dec.Robust, de.Robust, src)
			}
		}
		if enum := regDecide(t, ctx, rt, robust.EnumMachine, false); dec.Certain() && enum.Certain() {
			vsEnum++
			if !dec.Robust {
				violations++
			}
			if dec.Robust != enum.Robust {
				t.Errorf("program %d (seed %#x): decider robust %v (%d states), enumeration robust %v:\n%s", i, seed, dec.Robust, dec.Search.States, enum.Robust, src)
			}
		} else {
			skipped++
		}
		st, err := parse.ParseOptions("gen.rdma", src, parse.Options{Registers: parse.RegistersStatic})
		if err != nil {
			continue
		}
		if ds := regDecide(t, ctx, st, robust.Decider, false); ds.Certain() && dec.Certain() {
			vsStatic++
			if ds.Robust != dec.Robust {
				t.Errorf("program %d (seed %#x): decider robust %v at run time, %v specialised:\n%s", i, seed, dec.Robust, ds.Robust, src)
			}
		}
	}
	t.Logf("%d programs: %d kept registers at run time; %d compared with enumeration (%d not robust), %d not (a search cut); %d compared with the static lowering; %d with the decider under symmetry, %d with eager guesses",
		n, kept, vsEnum, violations, skipped, vsStatic, vsSym, vsEager)
	if kept < n/5 || vsEnum < kept/3 || vsStatic < kept/2 {
		t.Errorf("too few comparisons (kept %d of %d, %d against enumeration, %d against the static lowering): the test tests little", kept, n, vsEnum, vsStatic)
	}
}

// regDecide answers on p by method m, its searches cut at regStates,
// reduced by p's symmetry when sym.
func regDecide(t *testing.T, ctx context.Context, p *prog.Program, m robust.Method, sym bool) *robust.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute) // a safety net, never the box: regStates cuts first
	defer cancel()
	r, err := robust.Decide(ctx, p, robust.Options{Method: m, Verdict: verdict.Options{Machine: machine.DefaultOptions(),
		Settings: explore.Settings{MaxStates: regStates, Workers: 1, Symmetry: sym}}})
	if err != nil {
		t.Fatalf("%s: %s: %v", p.Name, m, err)
	}
	return r
}
