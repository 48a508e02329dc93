package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"rdmasim/explore"
	"rdmasim/opsem/job"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/verdict"
)

// searchFlags are the flags every exploring command shares: the choices
// for its searches (explore.Choices) and the machine's bounds.
type searchFlags struct {
	explore.Choices
	json        bool
	unroll      int
	maxInflight int
	progress    bool
	reduce      bool
	placement   string
	params      paramFlag
}

func (f *searchFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.json, "json", false, "print one JSON object per file on one line")
	f.params = paramFlag{}
	f.params.register(fs)
	fs.IntVar(&f.unroll, "unroll", 0, "iterations of each loop per entry, 0 = unbounded (loops are explored to a fixpoint)")
	fs.IntVar(&f.maxInflight, "max-inflight", machine.DefaultOptions().MaxInflight, "operations in the buffers of one queue pair")
	fs.Uint64Var(&f.MaxStates, "max-states", 0, "stop after this many distinct configurations, 0 = no limit")
	fs.DurationVar(&f.Timeout, "timeout", 0, "stop after this long (e.g. 30s, 5m), 0 = no limit")
	fs.StringVar(&f.Order, "order", "bfs", "search order: bfs (shortest witnesses) or dfs")
	fs.BoolVar(&f.reduce, "reduce", true, "partial-order reduction of the RDMA machine: NIC steps that touch no memory and commute with everything (a get or fence leaving B1, a get request arriving, a put's acknowledgement, a get's response returning) are taken alone and at once, and so are a thread's submissions of puts, gets and rfences and its polls unless a reach condition reads a control point (T@L, T@end); configurations where one is enabled are not stored. Outcomes, reachable conditions, witnesses (real runs, every step listed) and bounds are exact; configuration counts and depths smaller (--reduce=false explores every interleaving)")
	fs.StringVar(&f.placement, "placement", "any", placementUsage)
	fs.BoolVar(&f.NoSymmetry, "no-symmetry", false, "turn off symmetry reduction: by default the searches of check, explore and robust's decider store one configuration per orbit of a family of identical threads (thread client[k] ... for k in ...) once the program is verified invariant under every permutation of them, and say so (symmetry: 4 instances of client (24 permutations)); a query that names instances keeps only the permutations fixing them. Outcomes (closed under the permutations), verdicts, deadlocks and witnesses (real runs) are the same, configuration counts smaller. Robustness by enumeration (event graphs) is not reduced (docs/SYMMETRY.md)")
	fs.IntVar(&f.Workers, "workers", 0, "goroutines expanding states in a breadth-first search, 0 = one per core (GOMAXPROCS); results are identical for any number")
	fs.StringVar(&f.Store, "store", "mem", "visited set: mem (in memory, spilling to disk beyond --mem-budget) or pebble (on disk, github.com/cockroachdb/pebble)")
	fs.StringVar(&f.StoreDir, "store-dir", "", "directory for the visited set on disk (default: a temporary directory, removed afterwards; one left by a killed run is removed by the next run that makes one there)")
	fs.StringVar(&f.MemBudget, "mem-budget", "", "memory for the visited set's in-memory tables, e.g. 512MiB, 2GiB, 1G or bytes: with --store mem the set spills to a Pebble database on disk when they are full; with --store pebble, its write buffer; robust's Karp–Miller search (a poll on a loop), which keeps every state in memory, stops there, cut (default: a quarter of the machine's memory; 256MiB of write buffer for pebble)")
	fs.StringVar(&f.FrontierBudget, "frontier-budget", "", "memory for the breadth-first frontier, beyond which it spills to disk (--store-dir, else the checkpoint directory, else $TMPDIR), e.g. 64MiB; with it, --store pebble, --store-dir or --mem-budget, the parent records of witnesses go to disk too (default: a quarter of --mem-budget, at least 4MiB, with those flags; else all in memory)")
	fs.StringVar(&f.Checkpoint, "checkpoint", "", "save the search in this directory periodically, at its end and on SIGINT/SIGTERM; continue it with 'rdmasim resume DIR' (one input file)")
	fs.DurationVar(&f.CheckpointEvery, "checkpoint-every", time.Minute, "period of the checkpoints of --checkpoint (0: only at the end and on a signal)")
	fs.BoolVar(&f.Resume, "resume", false, "continue the search saved in --checkpoint (used by rdmasim resume)")
	fs.MarkHidden("resume")
	fs.BoolVar(&f.progress, "progress", false, "print progress on stderr once a second (default when stderr is a terminal)")
}

// interrupted says on stderr that command cmd was interrupted, what its
// report covers and, when the search was checkpointed, how to continue it.
func (f *searchFlags) interrupted(e *env, cmd, covers string) {
	msg := fmt.Sprintf("rdmasim %s: interrupted; %s", cmd, covers)
	if f.Checkpoint != "" {
		msg += fmt.Sprintf("; the search is saved in %s: continue it with 'rdmasim resume %s'", f.Checkpoint, f.Checkpoint)
	}
	fmt.Fprintln(e.stderr, msg)
}

// searchJob returns the description of the search of kind on file under
// sem that the flags choose: the params, the machine's bounds and
// reduction, symmetry unless --no-symmetry (job.Job).
func (f *searchFlags) searchJob(kind job.Kind, file string, sem machine.Semantics) job.Job {
	return job.Job{Kind: kind, File: file, Params: f.params, Semantics: sem,
		Machine:  job.MachineOptions{MaxInflight: f.maxInflight, Unroll: f.unroll, Reduce: f.reduce, Placement: f.place()},
		Symmetry: !f.NoSymmetry}
}

// place returns --placement's value (options has checked it).
func (f *searchFlags) place() machine.Placement {
	p, _ := machine.ParsePlacement(f.placement)
	return p
}

// program returns file's program as the flags give it (its params): a job
// that names the program and no search, which job.Remote gives to each
// search's own job on a cluster (clusterFlags.remote).
func (f *searchFlags) program(file string) job.Job {
	return job.Job{File: file, Params: f.params}
}

// options checks the flags and returns the options of the searches.
func (f *searchFlags) options(e *env) (verdict.Options, error) {
	st, err := f.Settings()
	if err != nil {
		return verdict.Options{}, err
	}
	o := verdict.Options{Machine: machine.Options{MaxInflight: f.maxInflight, Unroll: f.unroll, Reduce: f.reduce, Placement: f.place()}, Settings: st}
	if _, err := placementFlag(f.placement); err != nil {
		return o, err
	}
	if err := machine.InflightBound.CheckFlag(f.maxInflight); err != nil {
		return o, err
	}
	if err := machine.UnrollBound.CheckFlag(f.unroll); err != nil {
		return o, err
	}
	if f.MemBudget != "" && e.tuneGC != nil {
		e.tuneGC()
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
	if err == nil && (sf.Checkpoint != "" || sf.Resume) {
		err = sf.setupCheckpoint(fs, name, &opt)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim %s: %v\n", name, err)
		return verdict.Options{}, exitUsage
	}
	return opt, -1
}

// placementUsage is the help of --placement, on every command that has it.
const placementUsage = "the order in which the words of one multi-word put or get (y[0..1] := x[0..1]) reach memory: any (the default: the verbs documentation promises no order within a work request) or in-order (address order, as ibv_query_qp_data_in_order reports of some devices); work requests stay in order either way, a file's placement in-order line holds whatever the flag, and programs without multi-word operations are unaffected (SEMANTICS-VERBS.md 1)"

// placementFlag parses --placement's value s.
func placementFlag(s string) (machine.Placement, error) {
	p, err := machine.ParsePlacement(s)
	if err != nil {
		return p, fmt.Errorf("--placement: %w", err)
	}
	return p, nil
}
