// Package agree checks that the semantics of rdmasim agree on generated
// programs, with the comparisons of package corpus/differ: the RDMA machine
// and the declarative model give the same final outcomes (under RDMA and
// under SC), and robustness by enumeration on the machine equals robustness
// by enumeration of the model's traces, and the instrumented decider
// (package opsem/decide) agrees with both: on loop-free programs exactly;
// with loops, whenever the bounded enumerations find a violation the
// decider must find one too, and a robust answer of the decider (which
// covers every iteration) must not meet a violation. Every violation the
// decider reports comes with a witness that it has checked against the
// model and replayed on the machine (decide fails otherwise).
//
// go test ./corpus/agree runs a few hundred programs; make agree N=100000
// runs more (-agree.n). A disagreement prints the program: keep it as a
// litmus test in corpus/litmus/ with the verdicts that must hold and a line
// on which side was wrong.
package agree

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/corpus/gen"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/prog"
)

var (
	count = flag.Int("agree.n", 300, "generated programs to compare")
	seed  = flag.Uint64("agree.seed", 1, "seed of the first program")
	loops = flag.Bool("agree.loops", false, "generate programs with loops (compared with loops unrolled twice)")
	atoms = flag.Bool("agree.atomics", false, "generate programs with remote atomics (rcas, rfaa)")
	limit = flag.Duration("agree.timeout", 20*time.Second, "time allowed per program; slower programs are reported and not compared")
)

// flagSet reports whether the flag called name was given.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// errNotCompared: a bound the model does not share (max-inflight) cut the
// machine search, so the outcome sets are not comparable.
var errNotCompared = errors.New("machine search cut by max-inflight")

// check compares the semantics on one program (package corpus/differ) and
// returns a description of every disagreement. A program whose machine
// search a bound cut is not compared (errNotCompared), and neither is one
// whose decider search did not finish (ctx's error, or nil).
func check(ctx context.Context, p *prog.Program, unroll int) ([]string, error) {
	r, err := differ.Check(ctx, p, differ.Options{Unroll: unroll})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if r.WasSkipped(string(differ.OutcomesRDMA)) || r.WasSkipped(string(differ.OutcomesSC)) {
		return nil, errNotCompared
	}
	if r.WasSkipped("decider") {
		return nil, ctx.Err()
	}
	var problems []string
	for _, pr := range r.Problems {
		problems = append(problems, pr.String())
	}
	return problems, nil
}

func TestAgreement(t *testing.T) {
	n := *count
	if testing.Short() || raceEnabled && !flagSet("agree.n") {
		n = min(n, 40)
	}
	cfg := gen.DefaultConfig()
	unroll := 0
	if *loops {
		cfg.Loops = true
		unroll = 2
	}
	cfg.Atomics = *atoms
	start := time.Now()
	disagreements, skipped, slow := 0, 0, 0
	blocks := 0 // programs the decider searches block by block (instr.Blocks)
	frozen := 0 // programs with a block search that freezes threads (instr.Influence)
	for i := 0; i < n; i++ {
		s := *seed + uint64(i)
		c := cfg
		if c.Atomics && i%3 == 2 {
			c = c.Contended()
		}
		p := gen.Program(rand.New(rand.NewPCG(s, 0)), c, fmt.Sprintf("gen-%d", s))
		if bs := instr.Blocks(p); len(bs) > 1 {
			blocks++
			all := uint64(1)<<len(p.Threads) - 1
			if slices.ContainsFunc(bs, func(b uint64) bool { return instr.Influence(p, b) != all }) {
				frozen++
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), *limit)
		problems, err := check(ctx, p, unroll)
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut {
			slow++
			t.Logf("seed %d: not compared, took more than %s:\n%s", s, *limit, p)
			continue
		}
		if err == errNotCompared {
			skipped++
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", s, err, p)
		}
		if len(problems) > 0 {
			disagreements++
			t.Errorf("seed %d disagrees:\n%v\n%s", s, problems, p)
			if disagreements >= 5 {
				t.Fatal("stopping after 5 disagreements")
			}
		}
	}
	el := time.Since(start)
	fmt.Fprintf(os.Stderr, "agree: %d programs, %d compared, %d disagreements, not compared: %d cut by max-inflight, %d over %s; %.1fs (%.0f programs/s); %d with several blocks of threads (decided block by block), %d of them with threads frozen in a block's search\n",
		n, n-skipped-slow, disagreements, skipped, slow, *limit, el.Seconds(), float64(n)/el.Seconds(), blocks, frozen)
	if skipped+slow > n/10 {
		t.Errorf("%d of %d programs not compared: the generator makes too many unbounded programs", skipped, n)
	}
}
