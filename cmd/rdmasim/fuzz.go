package main

import (
	"cmp"
	"context"
	"fmt"
	"rdmasim/corpus/surface"
	"strconv"
	"sync"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/corpus/fuzz"
	"rdmasim/explore/dist"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/report"
)

func cmdFuzz(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("fuzz", e)
	jsonOut := fs.Bool("json", false, "print the summary as one JSON object")
	seed := fs.Uint64("seed", 1, "seed of the run: program i is drawn from a seed derived from it and i alone")
	countFlag := fs.Int("count", 1000, "programs to check (0 = no limit: until --time or Ctrl-C)")
	dur := fs.Duration("time", 0, "stop starting programs after this long (e.g. 10m); without --count, no program limit")
	programSeeds := fs.StringSlice("program-seed", nil, "check exactly the program of this program seed (as printed for a disagreement, e.g. 0x1f2e...); repeatable")
	workers := fs.Int("workers", 1, "programs checked in parallel")
	maxStates := fs.Uint64("max-states", 100000, "bound of each machine search and of the decider per program (0 = none); a cut search is not compared")
	inflight := fs.Int("max-inflight", machine.DefaultOptions().MaxInflight, "operations in the buffers of one queue pair")
	modelCost := fs.Float64("max-model-cost", 20, "leave the declarative model out of programs whose reads-from search could run away (many reads and writes of one location; 0 = never)")
	timeout := fs.Duration("timeout", 10*time.Second, "time allowed per program; slower programs are reported and not compared (0 = none)")
	spinEvery := fs.Int("spin-every", 1000, "also compare SPIN on every N-th program when spin and gcc are on the PATH (0 = never)")
	regressDir := fs.String("regress-dir", "corpus/regress", "directory for minimised disagreements as .rdma regression tests (\"\" = write none)")
	noMin := fs.Bool("no-minimize", false, "report disagreements without minimising them")
	surfaceFlag := fs.Bool("surface", false, "draw programs of the protocol language (registers, expressions, if/while/for, assert, arrays, families) and compare every semantics on their lowering; a disagreement is kept whole as the protocol's text in --regress-dir")
	minTime := fs.Duration("minimize-time", 2*time.Minute, "time allowed to minimise one disagreement")
	atomics := fs.Bool("atomics", false, "put remote atomics (rcas, rfaa) in the generated programs")
	verbs := fs.Bool("verbs", false, "put the verbs features of issue 32 that are built (quiet, the fenced, unsignaled and inline marks, two-word puts and gets; SEMANTICS-VERBS.md) in the generated programs")
	placement := fs.String("placement", "any", "the order in which the words of a multi-word put or get reach memory, for every semantics compared: any or in-order (the generated programs then carry a placement in-order line; SEMANTICS-VERBS.md 1)")
	atomicsExp := fs.Bool("atomics-experimental", false, "with --atomics, also compare the decider's experimental instrumentation of remote atomics (robust --atomics-experimental) with both enumerations on every program with atomics")
	repairFlag := fs.Bool("repair", false, "also run rdmasim repair on every program the decider finds not robust, and check its answer: the repaired program robust by enumeration on the RDMA machine, no new deadlock, no insertion that can be dropped")
	progress := fs.Bool("progress", false, "print progress on stderr once a second (default when stderr is a terminal)")
	var cf clusterFlags
	cf.registerCampaign(fs, "check the programs in batches on a cluster")
	if code := parseFlags(fs, args, e, "fuzz [--seed S] [--count N | --time T] [flags]"); code >= 0 {
		return code
	}
	place, placeErr := placementFlag(*placement)
	opt := fuzz.Options{
		Seed:       *seed,
		Count:      *countFlag,
		Duration:   *dur,
		Workers:    *workers,
		Differ:     differ.Options{MaxStates: *maxStates, MaxInflight: *inflight, MaxModelCost: *modelCost, DeciderAtomics: *atomicsExp, Placement: place},
		Timeout:    *timeout,
		SpinEvery:  *spinEvery,
		NoMinimize: *noMin,
		Surface:    *surfaceFlag,
		Atomics:    *atomics,
		Verbs:      *verbs,
		Repair:     *repairFlag,
		Minimize:   fuzz.MinimizeOptions{Time: *minTime},
		RegressDir: *regressDir,
	}
	if *dur > 0 && !fs.Changed("count") {
		opt.Count = 0
	}
	var err error
	if placeErr != nil {
		err = placeErr
	}
	if fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments %q: fuzz generates its programs", fs.Args())
	}
	var seedErr error
	for _, s := range *programSeeds {
		v, perr := strconv.ParseUint(s, 0, 64)
		if perr != nil {
			seedErr = fmt.Errorf("--program-seed %q: want an unsigned integer (0x... for hex)", s)
			break
		}
		opt.ProgramSeeds = append(opt.ProgramSeeds, v)
	}
	if err == nil {
		err = opt.Check()
	}
	if err == nil && cf.active() {
		err = cmp.Or(cf.checkCampaign(), opt.CheckCampaign())
	}
	if err = cmp.Or(seedErr, err); err != nil {
		fmt.Fprintf(e.stderr, "rdmasim fuzz: %v\n", err)
		return exitUsage
	}
	spinNote := opt.ResolveSpin()
	var mu sync.Mutex // serialises output from the workers
	opt.Found = func(d *fuzz.Disagreement) {
		if *jsonOut {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fuzz.WriteDisagreement(e.stdout, d)
	}
	if *progress || e.isTerminal && !*jsonOut {
		opt.Progress = func(p fuzz.Progress) {
			mu.Lock()
			defer mu.Unlock()
			e.progress.work("fuzz", "programs", uint64(p.Programs), uint64(opt.Count), p.Elapsed, report.Plural(p.Disagreements, "disagreement"))
		}
	}
	if len(opt.ProgramSeeds) > 0 && !*jsonOut {
		for _, s := range opt.ProgramSeeds {
			if opt.Surface {
				fmt.Fprintf(e.stdout, "Program seed %#x (protocol language):\n", s)
				report.WriteConfig(e.stdout, surface.Generate(s))
				continue
			}
			p, desc := fuzz.GenerateVerbs(s, *atomics, *verbs)
			fmt.Fprintf(e.stdout, "Program seed %#x (%s):\n", s, desc)
			report.WriteConfig(e.stdout, p.String())
		}
	}
	var sum *fuzz.Summary
	if cf.active() {
		sum, err = fuzzCluster(ctx, e, &cf, opt, spinNote, 0)
		if err != nil {
			fmt.Fprintf(e.stderr, "rdmasim fuzz: %v\n", err)
			return exitInternal
		}
	} else if sum, err = fuzz.Run(ctx, opt); err != nil {
		fmt.Fprintf(e.stderr, "rdmasim fuzz: %v\n", err)
		return exitUsage
	}
	if *jsonOut {
		writeJSON(e.stdout, sum.JSON(opt, spinNote))
	} else {
		fuzz.WriteSummary(e.stdout, sum, opt, spinNote)
	}
	switch {
	case sum.Interrupted:
		fmt.Fprintln(e.stderr, "rdmasim fuzz: interrupted; the summary covers the programs checked")
		return exitInterrupt
	case len(sum.Disagreements) > 0 || sum.Ended:
		return exitFailed
	}
	return exitOK
}

// fuzzCluster runs the fuzz run of opt on the cluster of cf as a campaign
// of batches (fuzz.RunCampaign; spin is this process's SPIN note, which
// each worker's must equal; ackWait is how long a worker may stay silent
// before its batch goes to another, 0 for dist's default), and returns its
// summary with the workers that took part.
func fuzzCluster(ctx context.Context, e *env, cf *clusterFlags, opt fuzz.Options, spin string, ackWait time.Duration) (*fuzz.Summary, error) {
	workers := map[string]bool{}
	cfg := dist.CampaignConfig{Kind: fuzz.TaskKind, Name: "fuzz", AckWait: ackWait, Served: func(_ int, w string) { workers[w] = true }}
	sum, err := fuzz.RunCampaign(ctx, opt, spin, func(ctx context.Context, tasks [][]byte, result func(int, []byte) error) error {
		return cf.runCampaign(ctx, e, cfg, tasks, result)
	})
	if err != nil {
		return nil, err
	}
	sum.Workers = len(workers)
	return sum, nil
}
