package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/verdict"
	"rdmasim/store"
)

// searchFlags are the flags every exploring command shares.
type searchFlags struct {
	json            bool
	unroll          int
	maxInflight     int
	maxStates       uint64
	timeout         time.Duration
	order           string
	progress        bool
	workers         int
	store           string
	storeDir        string
	memBudget       string
	frontierBudget  string
	checkpoint      string
	checkpointEvery time.Duration
	resume          bool // set by rdmasim resume (a hidden flag)
	reduce          bool
}

// maxWorkers bounds --workers.
const maxWorkers = 256

func (f *searchFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.json, "json", false, "print one JSON object per file on one line")
	fs.IntVar(&f.unroll, "unroll", 0, "iterations of each loop per entry, 0 = unbounded (loops are explored to a fixpoint)")
	fs.IntVar(&f.maxInflight, "max-inflight", machine.DefaultOptions().MaxInflight, "operations in the buffers of one queue pair")
	fs.Uint64Var(&f.maxStates, "max-states", 0, "stop after this many distinct configurations, 0 = no limit")
	fs.DurationVar(&f.timeout, "timeout", 0, "stop after this long (e.g. 30s, 5m), 0 = no limit")
	fs.StringVar(&f.order, "order", "bfs", "search order: bfs (shortest witnesses) or dfs")
	fs.BoolVar(&f.reduce, "reduce", true, "partial-order reduction of the RDMA machine: NIC steps that touch no memory and commute with everything (a get or fence leaving B1, a get request arriving, a put's acknowledgement, a get's response returning) are taken alone and at once, and so are a thread's submissions of puts, gets and rfences and its polls unless a reach condition reads a control point (T@L, T@end); configurations where one is enabled are not stored. Outcomes, reachable conditions, witnesses (real runs, every step listed) and bounds are exact; configuration counts and depths smaller (--reduce=false explores every interleaving)")
	fs.IntVar(&f.workers, "workers", 0, "goroutines expanding states in a breadth-first search, 0 = one per core (GOMAXPROCS); results are identical for any number")
	fs.StringVar(&f.store, "store", "mem", "visited set: mem (in memory, spilling to disk beyond --mem-budget) or pebble (on disk, github.com/cockroachdb/pebble)")
	fs.StringVar(&f.storeDir, "store-dir", "", "directory for the visited set on disk (default: a temporary directory, removed afterwards; one left by a killed run is removed by the next run that makes one there)")
	fs.StringVar(&f.memBudget, "mem-budget", "", "memory for the visited set's in-memory tables, e.g. 512MiB, 2GiB, 1G or bytes: with --store mem the set spills to a Pebble database on disk when they are full; with --store pebble, its write buffer; robust's Karp–Miller search (a poll on a loop), which keeps every state in memory, stops there, cut (default: a quarter of the machine's memory; 256MiB of write buffer for pebble)")
	fs.StringVar(&f.frontierBudget, "frontier-budget", "", "memory for the breadth-first frontier, beyond which it spills to disk (--store-dir, else the checkpoint directory, else $TMPDIR), e.g. 64MiB; with it, --store pebble, --store-dir or --mem-budget, the parent records of witnesses go to disk too (default: a quarter of --mem-budget, at least 4MiB, with those flags; else all in memory)")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "save the search in this directory periodically, at its end and on SIGINT/SIGTERM; continue it with 'rdmasim resume DIR' (one input file)")
	fs.DurationVar(&f.checkpointEvery, "checkpoint-every", time.Minute, "period of the checkpoints of --checkpoint (0: only at the end and on a signal)")
	fs.BoolVar(&f.resume, "resume", false, "continue the search saved in --checkpoint (used by rdmasim resume)")
	fs.MarkHidden("resume")
	fs.BoolVar(&f.progress, "progress", false, "print progress on stderr once a second (default when stderr is a terminal)")
}

// interrupted says on stderr that command cmd was interrupted, what its
// report covers and, when the search was checkpointed, how to continue it.
func (f *searchFlags) interrupted(e *env, cmd, covers string) {
	msg := fmt.Sprintf("rdmasim %s: interrupted; %s", cmd, covers)
	if f.checkpoint != "" {
		msg += fmt.Sprintf("; the search is saved in %s: continue it with 'rdmasim resume %s'", f.checkpoint, f.checkpoint)
	}
	fmt.Fprintln(e.stderr, msg)
}

func (f *searchFlags) options(e *env) (verdict.Options, error) {
	o := verdict.Options{
		Machine:  machine.Options{MaxInflight: f.maxInflight, Unroll: f.unroll, Reduce: f.reduce},
		Settings: explore.Settings{MaxStates: f.maxStates, Timeout: f.timeout, Workers: f.workers},
	}
	if o.Workers == 0 {
		o.Workers = min(runtime.GOMAXPROCS(0), maxWorkers)
	}
	switch f.order {
	case "bfs":
		o.Order = explore.BFS
	case "dfs":
		o.Order = explore.DFS
	default:
		return o, fmt.Errorf("--order %q: want bfs or dfs", f.order)
	}
	if f.maxInflight < 1 || f.maxInflight > 250 {
		return o, fmt.Errorf("--max-inflight %d: want 1..250", f.maxInflight)
	}
	budget, err := f.budget()
	if err != nil {
		return o, err
	}
	switch f.store {
	case "mem":
		// The spill directory: a temporary directory made at the first
		// spill, in --store-dir, else in the checkpoint directory (where
		// resume clears what a killed run left), else in $TMPDIR.
		dir := f.storeDir
		if dir == "" {
			dir = f.checkpoint
		}
		popt := store.PebbleOptions{Temp: true, CacheBytes: store.SpillCache(budget)}
		o.NewSet = func() (store.Set, error) {
			return store.NewSpill(budget, dir, popt), nil
		}
	case "pebble":
		popt := store.PebbleOptions{Temp: f.storeDir == ""}
		if f.memBudget != "" {
			popt.BufferBytes = int64(min(budget, math.MaxInt64))
		}
		n := 0
		o.NewSet = func() (store.Set, error) {
			// One database per search: check runs several searches per file.
			if f.storeDir == "" {
				return store.OpenPebble(f.checkpoint, popt)
			}
			n++
			dir := filepath.Join(f.storeDir, fmt.Sprintf("search-%d", n))
			if f.resume {
				// The database of the interrupted run holds states
				// past its checkpoint: start afresh.
				if err := os.RemoveAll(dir); err != nil {
					return nil, fmt.Errorf("clearing the store of the interrupted run: %w", err)
				}
			}
			return store.OpenPebble(dir, popt)
		}
	default:
		return o, fmt.Errorf("--store %q: want mem or pebble", f.store)
	}
	if f.memBudget != "" && e.tuneGC != nil {
		e.tuneGC()
	}
	if f.store == "pebble" || f.memBudget != "" || f.storeDir != "" || f.frontierBudget != "" {
		if o.SpillDir, o.FrontierBudget, err = f.spill(budget); err != nil {
			return o, err
		}
	}
	if f.workers < 0 || f.workers > maxWorkers {
		return o, fmt.Errorf("--workers %d: want 0..%d", f.workers, maxWorkers)
	}
	if f.unroll < 0 || f.unroll > 254 {
		return o, fmt.Errorf("--unroll %d: want 0..254", f.unroll)
	}
	if f.progress || e.isTerminal && !f.json {
		o.Progress = e.progress.search
	}
	return o, nil
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, e *env) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	return fs
}

// parseFlags parses args, returning the exit code to use when parsing ends
// the command (help or error), or -1 to go on. Help that was asked for
// (--help, -h) goes to stdout, exit 0; after a bad flag, to stderr, exit 2;
// either way wrapped to e's columns.
func parseFlags(fs *pflag.FlagSet, args []string, e *env, synopsis string) int {
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: rdmasim %s\n\nflags:\n%s", synopsis, fs.FlagUsagesWrapped(e.columns()))
	}
	fs.Usage = func() { usage(e.stdout) } // pflag calls it for --help only
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		fmt.Fprintf(e.stderr, "rdmasim: %v\n", err)
		usage(e.stderr)
		return exitUsage
	}
	if err := negativeDuration(fs); err != nil {
		fmt.Fprintf(e.stderr, "rdmasim %s: %v\n", fs.Name(), err)
		return exitUsage
	}
	return -1
}

// negativeDuration rejects a negative value given to a duration flag of fs.
// time.ParseDuration, and so pflag, accepts "-1s", but every duration of
// the CLI is a time limit or a period, where it means nothing: a negative
// --timeout would otherwise pass for "no limit". (Counts are unsigned flags,
// which pflag rejects negative, or are checked against their range by their
// command.)
func negativeDuration(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err != nil || f.Value.Type() != "duration" {
			return
		}
		if d, derr := fs.GetDuration(f.Name); derr == nil && d < 0 {
			err = fmt.Errorf("--%s %s: want a duration of 0 or more", f.Name, f.Value)
		}
	})
	return err
}

// peakRSS returns the peak resident memory of the process, in bytes, or the
// Go runtime's view of it where the OS does not say.
func peakRSS() uint64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil && ru.Maxrss > 0 {
		return uint64(ru.Maxrss) * 1024 // Linux reports KiB
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Sys
}

// parseSearch parses the flags of an exploring command that takes input
// files: fs has the command's own flags and sf's already registered. It
// returns the search options, or the exit code that ends the command (>= 0).
func parseSearch(fs *pflag.FlagSet, sf *searchFlags, args []string, e *env, name string) (verdict.Options, int) {
	if code := parseFlags(fs, args, e, name+" [flags] FILE..."); code >= 0 {
		return verdict.Options{}, code
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(e.stderr, "rdmasim %s: no input files\n", name)
		return verdict.Options{}, exitUsage
	}
	opt, err := sf.options(e)
	if err == nil && (sf.checkpoint != "" || sf.resume) {
		err = sf.setupCheckpoint(fs, name, &opt)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim %s: %v\n", name, err)
		return verdict.Options{}, exitUsage
	}
	return opt, -1
}

// budget returns the memory budget of the visited set: --mem-budget, or by
// default a quarter of the machine's memory (see defaultBudget).
func (f *searchFlags) budget() (uint64, error) {
	if f.memBudget == "" {
		return store.DefaultBudget(), nil
	}
	n, err := store.ParseSize(f.memBudget)
	if err != nil {
		return 0, fmt.Errorf("--mem-budget %q: %w", f.memBudget, err)
	}
	return n, nil
}

// minFrontierBudget is the least memory a breadth-first frontier that spills
// to disk is given.
const minFrontierBudget = 4 << 20

// spill returns where the searches of a run with a disk store or a memory
// budget keep their parent records and the part of their frontiers beyond
// the returned budget (see explore.Options.SpillDir): --store-dir, else the
// checkpoint directory, else $TMPDIR. The frontier gets --frontier-budget,
// else a quarter of the visited set's budget (--mem-budget, or Pebble's
// default buffer), at least minFrontierBudget.
func (f *searchFlags) spill(budget uint64) (string, int64, error) {
	if f.store == "pebble" && f.memBudget == "" {
		budget = store.DefaultPebbleBuffer
	}
	frontier := int64(max(budget/4, minFrontierBudget))
	if f.frontierBudget != "" {
		n, err := store.ParseSize(f.frontierBudget)
		if err != nil {
			return "", 0, fmt.Errorf("--frontier-budget %q: %w", f.frontierBudget, err)
		}
		frontier = int64(n)
	}
	dir := cmp.Or(f.storeDir, f.checkpoint)
	if dir == "" {
		return os.TempDir(), frontier, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, fmt.Errorf("creating the directory for the frontier and parent records: %w", err)
	}
	return dir, frontier, nil
}
