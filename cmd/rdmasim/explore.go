package main

import (
	"context"
	"fmt"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// exploreJSON is the JSON form of an exploration's statistics.
type exploreJSON struct {
	File         string  `json:"file"`
	Name         string  `json:"name"`
	Semantics    string  `json:"semantics"`
	States       uint64  `json:"states"`
	Transitions  uint64  `json:"transitions"`
	MaxDepth     int     `json:"max_depth"`
	Complete     bool    `json:"complete"`
	Bound        string  `json:"bound"`
	Seconds      float64 `json:"seconds"`
	StatesPerSec float64 `json:"states_per_sec"`
	PeakMemory   uint64  `json:"peak_memory_bytes"`
	StoreBytes   uint64  `json:"store_bytes"`
	// Final, filtered (stuck at a failing assume) and deadlocked
	// configurations, and where the first deadlock waits.
	Finals     uint64 `json:"finals"`
	Filtered   uint64 `json:"filtered"`
	Deadlocks  uint64 `json:"deadlocks"`
	DeadlockAt string `json:"deadlock_at,omitempty"`
}

func cmdExplore(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("explore", e)
	var sf searchFlags
	sf.register(fs)
	sem := fs.String("semantics", "rdma", "machine to explore: rdma or sc")
	opt, code := parseSearch(fs, &sf, args, e, "explore")
	if code >= 0 {
		return code
	}
	s, err := semantics(*sem)
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim explore: %v\n", err)
		return exitUsage
	}
	code = exitOK
	for _, file := range fs.Args() {
		p, err := parse.File(file)
		if err != nil {
			code = max(code, fileFailed(e, sf.json, file, report.ErrorText(err), err))
			continue
		}
		r, err := verdict.Compute(ctx, p, s, opt)
		if err != nil {
			code = max(code, fileFailed(e, sf.json, file, fmt.Sprintf("rdmasim explore: %v", err), err))
			continue
		}
		st := r.Search
		rate := 0.0
		if st.Elapsed > 0 {
			rate = float64(st.States) / st.Elapsed.Seconds()
		}
		out := exploreJSON{File: file, Name: p.Name, Semantics: s.String(), States: st.States, Transitions: st.Transitions,
			MaxDepth: st.MaxDepth, Complete: r.Complete, Bound: r.Bound, Seconds: st.Elapsed.Seconds(),
			StatesPerSec: rate, PeakMemory: peakRSS(), StoreBytes: st.StoreBytes,
			Finals: r.Finals, Filtered: r.Filtered, Deadlocks: r.Deadlocks, DeadlockAt: r.DeadlockAt}
		if sf.json {
			writeJSON(e.stdout, out)
		} else {
			complete := "yes"
			if !r.Complete {
				complete = "no, cut by " + r.Bound
			}
			fmt.Fprintf(e.stdout, "Explore %s (%s)\n", p.Name, s)
			fmt.Fprintf(e.stdout, "  states       %s\n", report.Count(st.States))
			fmt.Fprintf(e.stdout, "  transitions  %s\n", report.Count(st.Transitions))
			fmt.Fprintf(e.stdout, "  max depth    %d\n", st.MaxDepth)
			fmt.Fprintf(e.stdout, "  complete     %s\n", complete)
			fmt.Fprintf(e.stdout, "  ends         %s final, %s filtered by an assume, %s deadlocked\n", report.Count(r.Finals), report.Count(r.Filtered), report.Count(r.Deadlocks))
			if r.Deadlocks > 0 {
				fmt.Fprintf(e.stdout, "  deadlock     %s\n", r.DeadlockAt)
			}
			fmt.Fprintf(e.stdout, "  seconds      %.3f\n", st.Elapsed.Seconds())
			fmt.Fprintf(e.stdout, "  states/s     %s\n", report.Count(uint64(rate)))
			fmt.Fprintf(e.stdout, "  peak memory  %s\n", report.Bytes(out.PeakMemory))
			fmt.Fprintf(e.stdout, "  visited set  %s\n", report.Bytes(st.StoreBytes))
		}
		if ctx.Err() != nil {
			sf.interrupted(e, "explore", "the statistics above cover what was explored")
			return exitInterrupt
		}
	}
	return code
}

func semantics(s string) (verdict.Semantics, error) {
	switch s {
	case "rdma":
		return verdict.RDMA, nil
	case "sc":
		return verdict.SC, nil
	}
	return 0, fmt.Errorf("--semantics %q: want rdma or sc", s)
}
