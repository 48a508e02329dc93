package main

import (
	"context"
	"fmt"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/report"
	"rdmasim/opsem/stress"
)

func cmdRun(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("run", e)
	params := paramFlag{}
	params.register(fs)
	jsonOut := fs.Bool("json", false, "print the run as one JSON object")
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same run")
	maxSteps := fs.Int("steps", 10000, "stop after this many steps")
	sem := fs.String("semantics", "rdma", "machine to run: rdma or sc")
	unroll := fs.Int("unroll", 0, "iterations of each loop per entry, 0 = unbounded")
	inflight := fs.Int("max-inflight", machine.DefaultOptions().MaxInflight, "operations in the buffers of one queue pair")
	placement := fs.String("placement", "any", placementUsage)
	if code := parseFlags(fs, args, e, "run [flags] FILE"); code >= 0 {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "rdmasim run: want exactly one input file")
		return exitUsage
	}
	s, err := semantics(*sem)
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim run: %v\n", err)
		return exitUsage
	}
	if *maxSteps < 1 {
		fmt.Fprintf(e.stderr, "rdmasim run: --steps %d: want at least 1\n", *maxSteps)
		return exitUsage
	}
	place, perr := placementFlag(*placement)
	for _, err := range []error{machine.InflightBound.CheckFlag(*inflight), machine.UnrollBound.CheckFlag(*unroll), perr} {
		if err != nil {
			fmt.Fprintf(e.stderr, "rdmasim run: %v\n", err)
			return exitUsage
		}
	}
	file := fs.Arg(0)
	p, err := params.load(ctx, file)
	if err != nil {
		return fileFailed(e, *jsonOut, file, report.ErrorText(err), err)
	}
	r, err := stress.Walk(ctx, p, stress.WalkOptions{Semantics: s, Machine: machine.Options{MaxInflight: *inflight, Unroll: *unroll, Placement: place}, Seed: *seed, MaxSteps: *maxSteps})
	if err != nil {
		return fileFailed(e, *jsonOut, file, fmt.Sprintf("rdmasim run: %v", err), err)
	}
	if *jsonOut {
		writeJSON(e.stdout, r.JSON(file))
	} else {
		r.WriteText(e.stdout)
	}
	if ctx.Err() != nil {
		return exitInterrupt
	}
	return exitOK
}
