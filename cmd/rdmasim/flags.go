package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
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
	json        bool
	unroll      int
	maxInflight int
	maxStates   uint64
	timeout     time.Duration
	order       string
	progress    bool
	workers     int
	store       string
	storeDir    string
}

func (f *searchFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.json, "json", false, "print one JSON object per file on one line")
	fs.IntVar(&f.unroll, "unroll", 0, "iterations of each loop per entry, 0 = unbounded (loops are explored to a fixpoint)")
	fs.IntVar(&f.maxInflight, "max-inflight", machine.DefaultOptions().MaxInflight, "operations in the buffers of one queue pair")
	fs.Uint64Var(&f.maxStates, "max-states", 0, "stop after this many distinct configurations, 0 = no limit")
	fs.DurationVar(&f.timeout, "timeout", 0, "stop after this long (e.g. 30s, 5m), 0 = no limit")
	fs.StringVar(&f.order, "order", "bfs", "search order: bfs (shortest witnesses) or dfs")
	fs.IntVar(&f.workers, "workers", 1, "parallel BFS workers (results are identical for any number)")
	fs.StringVar(&f.store, "store", "mem", "visited set: mem (in memory) or pebble (on disk, github.com/cockroachdb/pebble)")
	fs.StringVar(&f.storeDir, "store-dir", "", "directory for --store pebble (default: a temporary directory, removed afterwards)")
	fs.BoolVar(&f.progress, "progress", false, "print progress on stderr once a second (default when stderr is a terminal)")
}

func (f *searchFlags) options(e *env) (verdict.Options, error) {
	o := verdict.Options{
		Machine:   machine.Options{MaxInflight: f.maxInflight, Unroll: f.unroll},
		MaxStates: f.maxStates,
		Timeout:   f.timeout,
		Workers:   f.workers,
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
	switch f.store {
	case "mem":
		if f.storeDir != "" {
			return o, fmt.Errorf("--store-dir needs --store pebble")
		}
	case "pebble":
		n := 0
		o.NewSet = func() (store.Set, error) {
			// One database per search: check runs several searches per file.
			if f.storeDir == "" {
				return store.OpenPebble("", store.PebbleOptions{Temp: true})
			}
			n++
			return store.OpenPebble(filepath.Join(f.storeDir, fmt.Sprintf("search-%d", n)), store.PebbleOptions{})
		}
	default:
		return o, fmt.Errorf("--store %q: want mem or pebble", f.store)
	}
	if f.workers < 1 || f.workers > 256 {
		return o, fmt.Errorf("--workers %d: want 1..256", f.workers)
	}
	if f.unroll < 0 || f.unroll > 254 {
		return o, fmt.Errorf("--unroll %d: want 0..254", f.unroll)
	}
	if f.progress || e.isTerminal && !f.json {
		o.Progress = func(s explore.Stats) { printProgress(e, s) }
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
// the command (help or error), or -1 to go on.
func parseFlags(fs *pflag.FlagSet, args []string, e *env, synopsis string) int {
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: rdmasim %s\n\nflags:\n%s", synopsis, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		fmt.Fprintf(e.stderr, "rdmasim: %v\n", err)
		fs.Usage()
		return exitUsage
	}
	return -1
}

func printProgress(e *env, s explore.Stats) {
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(s.States) / s.Elapsed.Seconds()
	}
	fmt.Fprintf(e.stderr, "rdmasim: %s states, %s states/s, frontier %s, depth %d, memory %s, store %s\n",
		count(s.States), count(uint64(rate)), count(s.Frontier), s.MaxDepth, bytesize(peakRSS()), bytesize(s.StoreBytes))
}

// count prints n with thousands separators.
func count(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func bytesize(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
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
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim %s: %v\n", name, err)
		return verdict.Options{}, exitUsage
	}
	return opt, -1
}
