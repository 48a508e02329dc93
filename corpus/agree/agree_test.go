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
// On programs with remote atomics the decider refuses (instr.AtomicsError)
// and the enumerations are compared with each other, unless
// -agree.atomics-experimental asks for the decider's experimental
// instrumentation of them (SEMANTICS-ATOMICS.md, 5.4; make agree ATOMICS=1
// passes it): then it is compared as on any program, exactly on loop-free
// programs and one way with loops, and its violations must replay.
//
// go test ./corpus/agree runs a few hundred programs; make agree N=100000
// runs more (-agree.n), -agree.parallel at a time (one per core by
// default), reported in seed order. A disagreement prints the program: keep it as a
// litmus test in corpus/litmus/ with the verdicts that must hold and a line
// on which side was wrong.
package agree

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/corpus/gen"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

var (
	count  = flag.Int("agree.n", 300, "generated programs to compare")
	seed   = flag.Uint64("agree.seed", 1, "seed of the first program")
	loops  = flag.Bool("agree.loops", false, "generate programs with loops (compared with loops unrolled twice)")
	atoms  = flag.Bool("agree.atomics", false, "generate programs with remote atomics (rcas, rfaa)")
	verbs  = flag.Bool("agree.verbs", false, "generate programs with the verbs features (quiet, fenced, multi-word puts and gets; SEMANTICS-VERBS.md), as fuzz --verbs does")
	place  = flag.String("agree.placement", "any", "placement of a multi-word operation's words (any or in-order); in-order programs carry the placement line")
	limit  = flag.Duration("agree.timeout", 20*time.Second, "time allowed per program; slower programs are reported and not compared")
	exper  = flag.Bool("agree.atomics-experimental", false, "compare the decider's experimental instrumentation of remote atomics (robust --atomics-experimental) with both enumerations on programs with atomics (without it the decider is skipped on them)")
	every  = flag.Int("agree.progress", 0, "print a progress line every this many programs (0 = none)")
	slowAt = flag.Duration("agree.slow", 0, "print the seed of every program that takes longer than this (0 = none)")
	maxSt  = flag.Uint64("agree.decider-max-states", 0, "bound of the decider's searches on programs with remote atomics (0 = none; the machines stay unbounded); a cut search is not compared")
	par    = flag.Int("agree.parallel", runtime.GOMAXPROCS(0), "programs compared at once (each with its own -agree.timeout); results are reported in seed order")
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

// outcome is what check found on one program besides its disagreements.
type outcome struct {
	// decided: the decider answered with certainty and was compared with
	// the enumerations; skipped says why it was not ("" when decided).
	decided bool
	skipped string
	robust  bool // the decider's answer, when decided
}

// check compares the semantics on one program (package corpus/differ) and
// returns a description of every disagreement. A program whose machine
// search a bound cut is not compared (errNotCompared). A program on which
// the decider was not compared (it refuses remote atomics without
// -agree.atomics-experimental, or a bound cut its search) keeps the other
// comparisons: its disagreements are returned all the same, and the
// outcome says why the decider was left out.
func check(ctx context.Context, p *prog.Program, unroll int, pl machine.Placement) ([]string, outcome, error) {
	opt := differ.Options{Unroll: unroll, DeciderAtomics: *exper, Placement: pl}
	if prog.HasAtomics(p) {
		opt.DeciderMaxStates = *maxSt
	}
	r, err := differ.Check(ctx, p, opt)
	if err != nil {
		if ctx.Err() != nil {
			return nil, outcome{}, ctx.Err()
		}
		return nil, outcome{}, err
	}
	if r.WasSkipped(string(differ.OutcomesRDMA)) || r.WasSkipped(string(differ.OutcomesSC)) {
		return nil, outcome{}, errNotCompared
	}
	var o outcome
	for _, sk := range r.Skipped {
		if sk.What == "decider" {
			o.skipped = sk.Why
		}
	}
	if o.skipped == "" && r.Decide != nil && r.Decide.Certain() {
		o.decided, o.robust = true, r.Decide.Robust
	}
	var problems []string
	for _, pr := range r.Problems {
		problems = append(problems, pr.String())
	}
	return problems, o, nil
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
	cfg.Verbs = *verbs
	pl, err := machine.ParsePlacement(*place)
	if err != nil {
		t.Fatalf("-agree.placement: %v", err)
	}
	start := time.Now()
	disagreements, skipped, slow := 0, 0, 0
	blocks := 0 // programs the decider searches block by block (instr.Blocks)
	frozen := 0 // programs with a block search that freezes threads (instr.Influence)
	// Programs with remote atomics: how many, on how many the decider was
	// compared (robust, with loops), and why it was not on the others.
	withAtomics, decidedAtomics, decidedRobust, decidedLoops := 0, 0, 0, 0
	notDecided := map[string]int{}
	// Compared programs with a verbs feature, by the first one they use.
	withVerbs := map[string]int{}
	// Programs are compared -agree.parallel at a time (the model's search
	// is sequential) and reported in seed order, so that the output and
	// the first disagreements do not depend on the schedule.
	type result struct {
		p        *prog.Program
		problems []string
		o        outcome
		err      error
		timedOut bool
		took     time.Duration
		done     chan struct{}
	}
	results := make([]*result, n)
	for i := range results {
		results[i] = &result{done: make(chan struct{})}
	}
	next := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range max(1, *par) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := results[i]
				s := *seed + uint64(i)
				c := cfg
				if c.Atomics && i%3 == 2 {
					c = c.Contended()
				}
				r.p = gen.Program(rand.New(rand.NewPCG(s, 0)), c, fmt.Sprintf("gen-%d", s))
				// The program says its placement itself, so that its text,
				// printed on a disagreement, keeps its meaning.
				r.p.InOrder = pl == machine.PlaceInOrder
				ctx, cancel := context.WithTimeout(context.Background(), *limit)
				t0 := time.Now()
				r.problems, r.o, r.err = check(ctx, r.p, unroll, pl)
				r.took, r.timedOut = time.Since(t0), ctx.Err() != nil
				cancel()
				close(r.done)
			}
		}()
	}
	go func() {
		defer close(next)
		for i := 0; i < n; i++ {
			select {
			case next <- i:
			case <-stop:
				return
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	for i := 0; i < n; i++ {
		s := *seed + uint64(i)
		r := results[i]
		<-r.done
		p, problems, o, err, timedOut := r.p, r.problems, r.o, r.err, r.timedOut
		results[i] = nil // let the program go
		if bs := instr.Blocks(p); len(bs) > 1 {
			blocks++
			all := uint64(1)<<len(p.Threads) - 1
			if slices.ContainsFunc(bs, func(b uint64) bool { return instr.Influence(p, b) != all }) {
				frozen++
			}
		}
		if *every > 0 && i > 0 && i%*every == 0 {
			fmt.Fprintf(os.Stderr, "agree: %d programs, %d disagreements, %d over %s, %.1fs\n", i, disagreements, slow, *limit, time.Since(start).Seconds())
		}
		if d := r.took; *slowAt > 0 && d > *slowAt {
			why := ""
			if o.skipped != "" {
				why = ": " + o.skipped
			}
			fmt.Fprintf(os.Stderr, "agree: seed %d took %.1fs (atomics %v, loops %v, decider compared %v%s)\n", s, d.Seconds(), prog.HasAtomics(p), verdict.HasLoops(p), o.decided, why)
		}
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
		if st := prog.FirstAnyVerbs(p); st != nil {
			withVerbs[prog.VerbsFeature(st)]++
		}
		if prog.HasAtomics(p) {
			withAtomics++
			switch {
			case o.decided:
				decidedAtomics++
				if o.robust {
					decidedRobust++
				}
				if verdict.HasLoops(p) {
					decidedLoops++
				}
			case o.skipped != "":
				notDecided[o.skipped]++
			}
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
	if withAtomics > 0 {
		fmt.Fprintf(os.Stderr, "agree: %d compared programs with remote atomics; the decider compared on %d of them (%d robust, %d with loops)", withAtomics, decidedAtomics, decidedRobust, decidedLoops)
		whys := slices.Sorted(maps.Keys(notDecided))
		for _, why := range whys {
			fmt.Fprintf(os.Stderr, "; %d not: %s", notDecided[why], why)
		}
		fmt.Fprintln(os.Stderr)
	}
	if len(withVerbs) > 0 {
		fmt.Fprintf(os.Stderr, "agree: compared programs with a verbs feature (placement %s), by their first:", pl)
		for _, f := range slices.Sorted(maps.Keys(withVerbs)) {
			fmt.Fprintf(os.Stderr, " %d %s", withVerbs[f], f)
		}
		fmt.Fprintln(os.Stderr)
	}
	if *verbs && len(withVerbs) == 0 && n >= 100 {
		t.Errorf("-agree.verbs: none of %d programs has a verbs feature", n)
	}
	if skipped+slow > n/10 {
		t.Errorf("%d of %d programs not compared: the generator makes too many unbounded programs", skipped, n)
	}
}
