// Package agree checks that the semantics of rdmasim agree on generated
// programs: the RDMA machine and the declarative model give the same final
// outcomes (under RDMA and under SC), and robustness by enumeration on the
// machine equals robustness by enumeration of the model's traces, and the
// instrumented decider (package opsem/decide) agrees with both: on
// loop-free programs exactly; with loops, whenever the bounded enumerations
// find a violation the decider must find one too, and a robust answer of the
// decider (which covers every iteration) must not meet a violation. Every
// violation the decider reports comes with a witness that it has checked
// against the model and replayed on the machine (decide fails otherwise).
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
	"testing"
	"time"

	"rdmasim/corpus/gen"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

var (
	count = flag.Int("agree.n", 300, "generated programs to compare")
	seed  = flag.Uint64("agree.seed", 1, "seed of the first program")
	loops = flag.Bool("agree.loops", false, "generate programs with loops (compared with loops unrolled twice)")
	limit = flag.Duration("agree.timeout", 20*time.Second, "time allowed per program; slower programs are reported and not compared")
)

// flagSet reports whether the flag called name was given.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// allLocations returns a copy of p whose query shows every location, so
// that outcomes cover the whole memory and no location is left untracked.
func allLocations(p *prog.Program) *prog.Program {
	q := *p
	q.Query = prog.Query{Kind: prog.QExists, Cond: &prog.Cond{Op: prog.CTrue}}
	return &q
}

// errNotCompared: a bound the model does not share (max-inflight) cut the
// machine search, so the outcome sets are not comparable.
var errNotCompared = errors.New("machine search cut by max-inflight")

// check compares the semantics on one program and returns a description of
// every disagreement.
func check(ctx context.Context, p *prog.Program, unroll int) ([]string, error) {
	p = allLocations(p)
	opt := verdict.Options{Machine: machine.DefaultOptions()}
	opt.Machine.Unroll = unroll
	var problems []string
	mr, err := verdict.Compute(ctx, p, verdict.RDMA, opt)
	if err != nil {
		return nil, err
	}
	ms, err := verdict.Compute(ctx, p, verdict.SC, opt)
	if err != nil {
		return nil, err
	}
	ar, as, err := verdict.ComputeModel(ctx, p, opt)
	if err != nil {
		return nil, err
	}
	for _, pair := range [][2]*verdict.Result{{mr, ar}, {ms, as}} {
		m, a := pair[0], pair[1]
		if m.Search.Pruned&machine.PrunedInflight != 0 || m.Search.Stop != 0 {
			return nil, errNotCompared
		}
		if d := verdict.CompareOutcomes(m, a); !d.Empty() {
			problems = append(problems, fmt.Sprintf("%s outcomes: only machine %v, only model %v", m.Semantics, d.OnlyMachine, d.OnlyModel))
		}
	}
	rm, err := verdict.RobustMachine(ctx, p, opt)
	if err != nil {
		return nil, err
	}
	ra, _, err := verdict.RobustModel(ctx, p, opt)
	if err != nil {
		return nil, err
	}
	if rm.Certain() && ra.Certain() && rm.Robust != ra.Robust {
		problems = append(problems, fmt.Sprintf("robustness: machine %v, model %v", rm.Robust, ra.Robust))
	}
	rd, err := decide.Decide(ctx, p, decide.Options{})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return append(problems, fmt.Sprintf("decider: %v", err)), nil
	}
	if !rd.Certain() {
		return nil, ctx.Err()
	}
	for _, r := range []*verdict.RobustResult{rm, ra} {
		switch {
		case !r.Robust && rd.Robust:
			problems = append(problems, fmt.Sprintf("robustness: %s finds a violation, the decider says robust", r.Method))
		case r.Robust && r.Complete && !rd.Robust:
			problems = append(problems, fmt.Sprintf("robustness: %s says robust (complete), the decider finds a violation", r.Method))
		}
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
	start := time.Now()
	disagreements, skipped, slow := 0, 0, 0
	for i := 0; i < n; i++ {
		s := *seed + uint64(i)
		p := gen.Program(rand.New(rand.NewPCG(s, 0)), cfg, fmt.Sprintf("gen-%d", s))
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
	fmt.Fprintf(os.Stderr, "agree: %d programs, %d compared, %d disagreements, not compared: %d cut by max-inflight, %d over %s; %.1fs (%.0f programs/s)\n",
		n, n-skipped-slow, disagreements, skipped, slow, *limit, el.Seconds(), float64(n)/el.Seconds())
	if skipped+slow > n/10 {
		t.Errorf("%d of %d programs not compared: the generator makes too many unbounded programs", skipped, n)
	}
}
