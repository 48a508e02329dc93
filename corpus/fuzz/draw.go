package fuzz

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"rdmasim/corpus/gen"
	"rdmasim/opsem/prog"
)

// ProgramSeed returns the seed of program i of a run with seed seed: a
// splitmix64 mix of both, so that neighbouring runs and programs share
// nothing.
func ProgramSeed(seed uint64, i int) uint64 {
	z := seed*0x9e3779b97f4a7c15 + uint64(i) + 1
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Generate draws the program of a program seed: first a configuration
// (DrawConfig), then the program, both from one generator seeded with seed.
// It returns the program and a description of the configuration.
func Generate(seed uint64) (*prog.Program, string) { return GenerateWith(seed, false) }

// GenerateWith is Generate, with remote atomics (rcas, rfaa) in the
// programs when atomics is set (Options.Atomics): the configuration is
// drawn as without them, then gen.Config.Atomics is turned on, so that a
// program seed draws the same configuration either way.
func GenerateWith(seed uint64, atomics bool) (*prog.Program, string) {
	return GenerateVerbs(seed, atomics, false)
}

// GenerateVerbs is GenerateWith, with the verbs features of issue 32
// (gen.Config.Verbs: quiet, the fenced and inline marks, two-word puts and
// gets) in the programs when verbs is set
// (Options.Verbs); the configuration is drawn as without them, so that a
// program seed draws the same configuration either way.
func GenerateVerbs(seed uint64, atomics, verbs bool) (*prog.Program, string) {
	rng := rand.New(rand.NewPCG(seed, 0x6675_7a7a)) // "fuzz"
	cfg, desc := DrawConfig(rng)
	if verbs {
		cfg.Verbs = true
		desc += ", verbs"
	}
	if atomics {
		cfg.Atomics = true
		desc += ", atomics"
		if rng.IntN(3) == 0 { // a third of them: the shape of issue 35, which the other mixes did not draw
			cfg = cfg.Contended()
			desc += ", contention (gen.Config.Contended: threads 3-4 on nodes 2-3, locs/node 2, instrs 2-3, motifs)"
		}
	}
	return gen.Program(rng, cfg, fmt.Sprintf("fuzz-%016x", seed)), desc
}

// DrawConfig draws a generator configuration: mostly small programs (the
// generator's defaults), also single-node programs, four threads, longer
// threads under a smaller state budget, more values, loops (a quarter of
// the programs), no choose, a message-passing mix (a fifth of the programs:
// puts, polls and assumes) and random instruction mixes (two fifths) that
// make some kinds rare and others frequent.
func DrawConfig(rng *rand.Rand) (gen.Config, string) {
	c := gen.DefaultConfig()
	var d []string
	pick := func(opts [][2]int) [2]int { return opts[rng.IntN(len(opts))] }
	c.Nodes = pick([][2]int{{2, 2}, {2, 3}, {2, 3}, {2, 3}, {1, 3}, {3, 4}})
	c.Threads = pick([][2]int{{1, 2}, {1, 3}, {1, 3}, {2, 3}, {2, 4}})
	c.Instrs = pick([][2]int{{1, 3}, {1, 5}, {1, 5}, {2, 5}, {2, 6}})
	c.LocsPerNode = pick([][2]int{{1, 2}, {1, 3}, {2, 4}})
	c.Values = 2 + rng.IntN(3)
	c.MaxOps = 2 + rng.IntN(4)
	c.Budget = []int{300, 1000, 1000, 3000}[rng.IntN(4)]
	// The declarative model's enumeration grows fast with long threads
	// of reads (assume, cas) of few locations: keep many threads short.
	if c.Threads[1] >= 4 {
		c.Instrs[1] = min(c.Instrs[1], 4)
	}
	if c.Instrs[1] >= 6 {
		c.Budget = min(c.Budget, 1000)
	}
	d = append(d, fmt.Sprintf("nodes %d-%d, threads %d-%d, instrs %d-%d, locs/node %d-%d, values %d, max-ops %d, budget %d",
		c.Nodes[0], c.Nodes[1], c.Threads[0], c.Threads[1], c.Instrs[0], c.Instrs[1], c.LocsPerNode[0], c.LocsPerNode[1], c.Values, c.MaxOps, c.Budget))
	c.Loops = rng.IntN(4) == 0
	c.Choose = rng.IntN(5) != 0
	if c.Loops {
		d = append(d, "loops")
	}
	if !c.Choose {
		d = append(d, "no choose")
	}
	switch {
	case rng.IntN(5) == 0:
		// Message passing: puts and polls on one side, assumes on the
		// other, the shapes where NIC steps must not be reordered
		// across CPU steps (they expose a wrong partial-order
		// reduction, which the default mixes rarely do).
		c.Threads[0] = max(c.Threads[0], 2)
		c.Threads[1] = max(c.Threads[1], 2)
		c.Nodes[0] = max(c.Nodes[0], 2)
		c.Nodes[1] = max(c.Nodes[1], 2)
		c.MaxOps = max(c.MaxOps, 3)
		c.Weights = [gen.NumKinds]int{gen.KWrite: 3, gen.KAssumeEq: 3, gen.KAssumeNe: 1, gen.KCAS: 1,
			gen.KGet: 4, gen.KPut: 5, gen.KRFence: 1, gen.KPoll: 5}
		d = append(d, "message passing")
	case rng.IntN(2) == 0:
		for k := range gen.KRCAS { // the atomics keep their weights (gen.Config.Atomics)
			c.Weights[k] = rng.IntN(7)
		}
		c.Weights[gen.KWrite] = max(c.Weights[gen.KWrite], 1)
		// Remote operations in at least half of the mixes.
		if rng.IntN(2) == 0 {
			c.Weights[gen.KGet] = max(c.Weights[gen.KGet], 2)
			c.Weights[gen.KPut] = max(c.Weights[gen.KPut], 2)
		}
		var w []string
		for k, x := range c.Weights[:gen.KRCAS] {
			w = append(w, fmt.Sprintf("%s:%d", KindNames[k], x))
		}
		d = append(d, "weights "+strings.Join(w, " "))
	}
	return c, strings.Join(d, ", ")
}
