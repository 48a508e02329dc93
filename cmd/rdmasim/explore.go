package main

import (
	"context"
	"fmt"

	"rdmasim/opsem/job"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

func cmdExplore(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("explore", e)
	var sf searchFlags
	sf.register(fs)
	sem := fs.String("semantics", "rdma", "machine to explore: rdma or sc")
	var cf clusterFlags
	cf.register(fs)
	opt, code := parseSearch(fs, &sf, args, e, "explore")
	if code >= 0 {
		return code
	}
	s, err := semantics(*sem)
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim explore: %v\n", err)
		return exitUsage
	}
	nc, stop, code := cf.open(ctx, e, "explore", sf.Choices)
	if code >= 0 {
		return code
	}
	defer stop()
	code = exitOK
	for _, file := range fs.Args() {
		j := sf.searchJob(job.Outcomes, file, s)
		p, err := j.Program(ctx)
		if err != nil {
			code = max(code, fileFailed(e, sf.json, file, report.ErrorText(err), err))
			continue
		}
		if nc != nil {
			if opt.Remote, err = cf.remote(nc, e, "explore", j); err != nil {
				code = max(code, fileFailed(e, sf.json, file, fmt.Sprintf("rdmasim explore: %v", err), err))
				continue
			}
		}
		r, err := verdict.Compute(ctx, p, s, opt)
		if err != nil {
			code = max(code, fileFailed(e, sf.json, file, fmt.Sprintf("rdmasim explore: %v", err), err))
			continue
		}
		stats := report.NewStats(file, p, r, report.PeakRSS())
		if nc != nil {
			stats.Workers = r.Search.Workers
		}
		if sf.json {
			writeJSON(e.stdout, stats)
		} else {
			report.WriteStats(e.stdout, stats)
		}
		if ctx.Err() != nil {
			sf.interrupted(e, "explore", "the statistics above cover what was explored")
			return exitInterrupt
		}
	}
	return code
}

func semantics(s string) (machine.Semantics, error) {
	sem, err := machine.ParseSemantics(s)
	if err != nil {
		return 0, fmt.Errorf("--semantics %w", err)
	}
	return sem, nil
}
