package main

import (
	"context"
	"fmt"
	"strings"

	"rdmasim/corpus/fuzz"
	"rdmasim/corpus/suite"
	"rdmasim/explore"
	"rdmasim/explore/dist"
	"rdmasim/opsem/job"
	"rdmasim/store"
)

// cmdWorker serves the partitions of distributed searches (explore, check
// and robust with --nats or --cluster) and the tasks of campaigns (corpus
// and fuzz with --cluster or --nats) on the NATS server of --nats until interrupted.
func cmdWorker(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("worker", e)
	var nf natsFlags
	nf.register(fs, "the NATS server (JetStream) whose runs to serve, e.g. nats://host:4222")
	id := fs.String("id", "", "this worker's name: restarted with the same name it takes its partition back at once (default: host name and process id)")
	once := fs.Bool("once", false, "exit after serving one run")
	quiet := fs.BoolP("quiet", "q", false, "say nothing on stderr but errors and refused runs")
	c := explore.Choices{Order: "bfs"}
	fs.StringVar(&c.Store, "store", "mem", "each partition's visited set: mem (in memory, spilling to disk beyond --mem-budget) or pebble (on disk)")
	fs.StringVar(&c.StoreDir, "store-dir", "", "directory for the visited sets on disk (default: temporary directories)")
	fs.StringVar(&c.MemBudget, "mem-budget", "", "memory for a partition's visited set, e.g. 2GiB (default: a quarter of the machine's memory)")
	if code := parseFlags(fs, args, e, "worker --nats URL [flags]"); code >= 0 {
		return code
	}
	if nf.url == "" || fs.NArg() > 0 {
		fmt.Fprintln(e.stderr, "rdmasim worker: want --nats URL and no arguments")
		return exitUsage
	}
	st, err := c.Settings()
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim worker: %v\n", err)
		return exitUsage
	}
	nc, err := nf.connect("rdmasim worker")
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim worker: %v\n", err)
		return exitUsage
	}
	defer nc.Close()
	w := &dist.Worker{Factory: job.Machine, ID: *id, Once: *once, NewSet: func() (store.Set, error) { return st.NewSet("") },
		Tasks: map[string]func(context.Context, []byte) ([]byte, error){suite.TaskKind: suite.Task, fuzz.TaskKind: fuzz.Task},
		Log: func(s string) {
			if !*quiet || strings.Contains(s, " refuses ") || strings.Contains(s, " failed") {
				fmt.Fprintf(e.stderr, "rdmasim %s\n", s)
			}
		}}
	if err := w.Run(ctx, nc); err != nil {
		fmt.Fprintf(e.stderr, "rdmasim worker: %v\n", err)
		return exitInternal
	}
	if ctx.Err() != nil {
		return exitInterrupt
	}
	return exitOK
}
