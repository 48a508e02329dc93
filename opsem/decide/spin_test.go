package decide_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"rdmasim/corpus/gen"
	"rdmasim/corpus/surface"
	"rdmasim/explore"
	"rdmasim/explore/cover"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/job"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

var spinN = flag.Int("spin.n", 40, "generated programs of each generator TestSpinReductionsAgree draws")

// spinStates bounds each search of TestSpinReductionsAgree: a block whose
// search (with or without the reductions) it cuts is not compared.
const spinStates = 100_000

// TestSpinReductionsAgree: the instrumented machine's reductions of spin
// loops (instr/spin.go: loop switches, settled skips, stutter reads,
// retired threads) change state counts, never answers. For every block the
// decider searches (job.Decider.InstrOptions: cycle threads, frozen
// threads), the machine with its reductions and the same machine under
// Options.NoReduction reach a target alike: on the protocols of
// corpus/protocols at their default parameters and on generated protocols
// with loops (half of them lowered with their registers at run time).
// Retired threads need a block that leaves some thread out of the cycle,
// which most protocols with three or more threads have. Count-boxed.
func TestSpinReductionsAgree(t *testing.T) {
	files, err := filepath.Glob("../../corpus/protocols/*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no protocols: %v", err)
	}
	// The litmus tests with remote atomics: decided with AllowAtomics,
	// whose reductions (instr/atomcanon.go, instr/solo.go) are off under
	// NoReduction too.
	atoms, _ := filepath.Glob("../../corpus/litmus/ATOM-*.rdma")
	files = append(files, atoms...)
	if underRace {
		// Under the race detector, every fourth file (their blocks'
		// searches were most of the 9 minutes this test took under it
		// at a load of 8); make test runs the test whole without the
		// race detector, after.
		files = everyKth(files, 4)
	}
	var ps []*prog.Program
	var srcs []string // a generated program's text, "" for a file
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		if prog.FirstVerbs(p) != nil {
			continue // multi-word: the decider refuses them
		}
		ps, srcs = append(ps, p), append(srcs, "")
	}
	n, limit := *spinN, uint64(spinStates)
	if underRace {
		// ten times slower: 6 programs of each generator, small searches;
		// make test's race-free pass does the rest
		n, limit = min(n, 6), spinStates/10
	}
	for i := 0; len(ps) < len(files)+n/2 && i < 20*n; i++ {
		seed := surface.ProgramSeed(97, i)
		opt := parse.Options{}
		if i%2 == 1 {
			opt.Registers = parse.RegistersRuntime
		}
		src := surface.Generate(seed)
		p, err := parse.ParseOptions("gen.rdma", []byte(src), opt)
		if err != nil || !verdict.HasLoops(p) {
			continue // over a lowering limit, or no loop
		}
		ps, srcs = append(ps, p), append(srcs, src)
	}
	// Core programs of three or four threads with loops: blocks that
	// leave threads out, whose threads may retire.
	cfg := gen.DefaultConfig()
	cfg.Threads, cfg.Loops = [2]int{3, 4}, true
	rng := rand.New(rand.NewPCG(98, 99))
	for i := 0; i < 2*n; i++ {
		p := gen.Program(rng, cfg, fmt.Sprintf("gen-%d", i))
		ps, srcs = append(ps, p), append(srcs, p.String())
	}
	// The same with remote atomics (rcas, rfaa), half of them in the
	// contention shape, which the decider answers with AllowAtomics.
	acfg := cfg
	acfg.Threads, acfg.Atomics = [2]int{2, 4}, true
	for i := 0; i < 2*n; i++ {
		c := acfg
		if i%2 == 1 {
			c = acfg.Contended()
			c.Loops = true
		}
		p := gen.Program(rng, c, fmt.Sprintf("gen-atomics-%d", i))
		ps, srcs = append(ps, p), append(srcs, p.String())
	}
	ctx := context.Background()
	var compared, partial, violations, cut, atomics int
	var reduced, unreduced uint64
	for i, p := range ps {
		p, _ = prog.WithoutRangeChecks(p) // as robust decides
		blocks := instr.Blocks(p)
		if len(blocks) == 1 {
			blocks = []uint64{0}
		}
		for _, b := range blocks {
			o := job.Decider{Block: b, AllowAtomics: true}.InstrOptions(p)
			r, err := spinSearchMax(ctx, p, o, limit)
			if err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
			o.NoReduction = true
			u, err := spinSearchMax(ctx, p, o, limit)
			if err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
			if r.Stop == explore.StateLimit || u.Stop == explore.StateLimit {
				cut++
				continue
			}
			if (r.Found >= 0) != (u.Found >= 0) {
				t.Errorf("%s, block %b: a violation with the reductions: %v, without: %v\n%s",
					p.Name, b, r.Found >= 0, u.Found >= 0, srcs[i])
			}
			compared++
			if prog.HasAtomics(p) {
				atomics++
			}
			if b != 0 && o.Frozen|b != 1<<len(p.Threads)-1 {
				partial++ // a thread runs that is not in the cycle: it may retire
			}
			if r.Found >= 0 {
				violations++
				continue
			}
			reduced += r.States
			unreduced += u.States
		}
	}
	t.Logf("%d searches compared (%d with threads outside the block, %d violations, %d with atomics), %d cut; robust blocks: %d states reduced, %d unreduced",
		compared, partial, violations, atomics, cut, reduced, unreduced)
	if compared < len(files)/2 || partial < 3 || violations < 5 || atomics < n {
		t.Errorf("too few comparisons: %d (%d partial blocks, %d violations)", compared, partial, violations)
	}
	if reduced >= unreduced {
		t.Errorf("the reductions stored %d states, no fewer than the %d without", reduced, unreduced)
	}
}

// everyKth is xs[0], xs[k], xs[2k], ...: the fixed sample a test compares
// under the race detector when the race-free pass compares all of xs.
func everyKth[T any](xs []T, k int) []T {
	var out []T
	for i := 0; i < len(xs); i += k {
		out = append(out, xs[i])
	}
	return out
}

// spinSearchMax searches the instrumented machine of p under o for a
// target, storing at most max states (0: no bound).
func spinSearchMax(ctx context.Context, p *prog.Program, o instr.Options, max uint64) (cover.Result, error) {
	m, err := instr.New(p, o)
	if err != nil {
		return cover.Result{}, err
	}
	return cover.New(m, cover.Options{MaxStates: max}).Run(ctx, m.Target)
}

// TestSpinLoopCost: on a two-phase commit whose coordinator and
// participants wait in spin loops (corpus/protocols/user-2pc.rdma), the
// reductions store at most a tenth of the states the machine stores
// without them, in every block.
func TestSpinLoopCost(t *testing.T) {
	p, err := parse.File("../../corpus/protocols/user-2pc.rdma")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	blocks := instr.Blocks(p)
	if underRace {
		blocks = blocks[:1] // the other is its mirror image; the race-free pass checks both
	}
	for _, b := range blocks {
		o := job.Decider{Block: b}.InstrOptions(p)
		r, err := spinSearchMax(ctx, p, o, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Stop != explore.Complete || r.Found >= 0 {
			t.Fatalf("block %b: %v, found %d: want a complete search without a violation", b, r.Stop, r.Found)
		}
		// The unreduced search needs only to pass ten times as many
		// states (619,409 and 629,291 when run to the end).
		o.NoReduction = true
		u, err := spinSearchMax(ctx, p, o, 10*r.States)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("block %b: %d states reduced; unreduced: %d, %v", b, r.States, u.States, u.Stop)
		if u.Found >= 0 || u.Stop == explore.Complete && u.States < 10*r.States {
			t.Errorf("block %b: %d states with the reductions, more than a tenth of the %d without (found %d)", b, r.States, u.States, u.Found)
		}
	}
}
