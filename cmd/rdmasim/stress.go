package main

import (
	"context"
	"fmt"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/report"
	"rdmasim/opsem/stress"
)

func cmdStress(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("stress", e)
	params := paramFlag{}
	params.register(fs)
	jsonOut := fs.Bool("json", false, "print one JSON object per file on one line")
	walks := fs.Uint64("walks", 100000, "random walks to take")
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same walks and output")
	depth := fs.Int("depth", stress.DefaultDepth, "steps per walk at most (loops make runs unbounded)")
	bias := fs.Float64("bias", 0, "probability (0..1) that a step where CPU and NIC transitions are both enabled takes a CPU step, chosen uniformly among the CPU steps; otherwise steps are uniform over all enabled transitions")
	first := fs.Bool("first", false, "stop at the first walk that decides the query (satisfies the condition; violates it for forall; reach: stops at the first configuration satisfying it) and print it step by step")
	sem := fs.String("semantics", "rdma", "machine to walk: rdma or sc")
	unroll := fs.Int("unroll", 0, "iterations of each loop per entry, 0 = unbounded")
	inflight := fs.Int("max-inflight", machine.DefaultOptions().MaxInflight, "operations in the buffers of one queue pair")
	placement := fs.String("placement", "any", placementUsage)
	progress := fs.Bool("progress", false, "print progress (walks, steps/s) on stderr once a second (default when stderr is a terminal)")
	if code := parseFlags(fs, args, e, "stress [flags] FILE..."); code >= 0 {
		return code
	}
	s, err := semantics(*sem)
	place, perr := placementFlag(*placement)
	if err == nil {
		err = perr
	}
	opt := stress.Options{
		Semantics: s,
		Machine:   machine.Options{MaxInflight: *inflight, Unroll: *unroll, Placement: place},
		Walks:     *walks,
		Depth:     *depth,
		Bias:      *bias,
		Seed:      *seed,
		First:     *first,
	}
	if err == nil {
		err = opt.CheckFlags()
	}
	if err == nil && fs.NArg() == 0 {
		err = fmt.Errorf("no input files")
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim stress: %v\n", err)
		return exitUsage
	}
	showProgress := *progress || e.isTerminal && !*jsonOut
	current := "" // the program being stressed, for progress
	if showProgress {
		opt.Progress = func(p stress.Progress) {
			e.progress.work(current+" stress", "walks", p.Walks, uint64(opt.Walks), p.Elapsed, report.Count(p.Steps)+" steps")
		}
	}
	code := exitOK
	for _, file := range fs.Args() {
		p, err := params.load(ctx, file)
		if err != nil {
			code = max(code, fileFailed(e, *jsonOut, file, report.ErrorText(err), err))
			continue
		}
		current = p.Name
		r, err := stress.Run(ctx, p, opt)
		if err != nil {
			code = max(code, fileFailed(e, *jsonOut, file, fmt.Sprintf("rdmasim stress: %v", err), err))
			continue
		}
		if *jsonOut {
			writeJSON(e.stdout, r.JSON(file, p, opt))
		} else {
			stress.WriteText(e.stdout, p, opt, r)
		}
		if showProgress && r.Elapsed > 0 {
			fmt.Fprintf(e.stderr, "rdmasim: %s: %s steps in %.2fs, %s steps/s\n",
				file, report.Count(r.Steps), r.Elapsed.Seconds(), report.Count(uint64(float64(r.Steps)/r.Elapsed.Seconds())))
		}
		if r.Interrupted {
			fmt.Fprintf(e.stderr, "rdmasim stress: interrupted; the histogram above covers %s\n", report.Plural(int(r.Walks), "walk"))
			return exitInterrupt
		}
	}
	return code
}
