// Command rdmasim answers what programs using Remote Direct Memory Access can
// do: it checks litmus tests under the RDMA queue-pair machine and under
// sequential consistency, explores state spaces and prints random runs.
//
// Usage:
//
//	rdmasim check [flags] FILE...   herd7-style verdicts, checked against expect lines
//	rdmasim explore [flags] FILE... state-space statistics
//	rdmasim robust [flags] FILE...  robustness (every RDMA trace is SC)
//	rdmasim repair [flags] FILE     the polls, rfences and read-backs that make FILE robust (or its query hold)
//	rdmasim graph [flags] FILE      execution graphs of the model (DOT)
//	rdmasim run [flags] FILE        one random run, step by step
//	rdmasim export --promela FILE   the machine (or --robustness: the instrumented program) as Promela for SPIN
//	rdmasim stress [flags] FILE...  litmus7-style histogram of outcomes over random walks
//	rdmasim resume [flags] DIR      continue a run saved with --checkpoint DIR
//	rdmasim fuzz [flags]            differential fuzzing of the semantics on random programs
//	rdmasim corpus DIR...           every .rdma file under DIR through every semantics, against its expect lines
//	rdmasim worker --nats URL       serve a cluster's work: search partitions, corpus files, fuzz batches
//	rdmasim serve [--addr A]        the playground: rdmasim in the browser (or --write DIR: its files)
//	rdmasim help [COMMAND]          the commands, or a command's flags (as COMMAND --help)
//	rdmasim version                 the version (also --version)
//
// Help is wrapped to $COLUMNS, else to the terminal's width, else to 80
// columns.
//
// Exit status: 0 when everything checked out, 1 when a complete verdict
// contradicts an expect line (or semantics disagree), 2 on a usage or input
// error (a bad flag, a file that is missing or does not parse, a program
// the command cannot take), 3 when nothing failed but the declarative model
// could not answer a valid program because its traces exceed the model's
// limit (64 events; check --semantics axiom|both, robust --method
// enum-axiom|both|all, graph), 4 when a search failed for a reason that is
// not the input (explore.SearchError: a full disk, an I/O error of the
// visited set or frontier, a corrupt checkpoint), 130 when interrupted.
package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"rdmasim/store"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
)

// Exit codes.
const (
	exitOK        = 0
	exitFailed    = 1
	exitUsage     = 2
	exitLimit     = 3 // only the declarative model's size limit kept a semantics from answering
	exitInternal  = 4 // a search failed, not because of its input (see failureCode)
	exitInterrupt = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	e := newEnv(os.Stdout, os.Stderr)
	e.tuneGC = tuneGC
	e.cols = helpColumns(os.Getenv("COLUMNS"), os.Stdout, os.Stderr)
	code := profiled(os.Getenv("RDMASIM_CPUPROFILE"), e.stderr, func() int {
		return runEnv(ctx, os.Args[1:], e)
	})
	stop()
	os.Exit(code)
}

// profiled runs f, writing a CPU profile of it (go tool pprof) to file
// unless file is empty. The profile is a developer's tool, so it is set by
// the RDMASIM_CPUPROFILE environment variable rather than by a flag of every
// command; a profile that cannot be written is reported and f runs anyway.
func profiled(file string, stderr io.Writer, f func() int) int {
	if file == "" {
		return f()
	}
	out, err := os.Create(file)
	if err != nil {
		fmt.Fprintf(stderr, "rdmasim: RDMASIM_CPUPROFILE: %v\n", err)
		return f()
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		fmt.Fprintf(stderr, "rdmasim: RDMASIM_CPUPROFILE: %v\n", err)
		out.Close()
		return f()
	}
	code := f()
	pprof.StopCPUProfile()
	if err := out.Close(); err != nil {
		fmt.Fprintf(stderr, "rdmasim: RDMASIM_CPUPROFILE: %v\n", err)
	}
	return code
}

// command is one subcommand of the CLI.
type command struct {
	name  string
	usage string
	run   func(ctx context.Context, args []string, env *env) int
}

// env carries what a command writes to.
type env struct {
	stdout, stderr io.Writer
	// isTerminal reports whether stderr is a terminal (for progress).
	isTerminal bool
	// progress prints progress reports on stderr (in place on a
	// terminal, where stdout and stderr end its pending line first).
	progress *progress
	// tuneGC, if set, is called when a command is given a memory budget
	// (--mem-budget). main sets it to tuneGC; tests leave it nil, so that
	// a command run in the test process does not change its collector.
	tuneGC func()
	// cols is the width help is wrapped to; 0 means defaultColumns (see
	// columns).
	cols int
	// static are the playground's files for serve; nil means those built
	// into the binary (web.Static). Tests give their own.
	static fs.FS
}

func newEnv(stdout, stderr io.Writer) *env {
	e := &env{stdout: stdout, stderr: stderr, isTerminal: isTerminal(stderr)}
	e.progress = newProgress(stderr, e.isTerminal)
	if e.isTerminal {
		e.stdout, e.stderr = ending{stdout, e.progress}, ending{stderr, e.progress}
	}
	return e
}

// tuneGC sets the collector's target to store.BudgetGCPercent, unless the
// GOGC environment variable sets it.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(store.BudgetGCPercent)
	}
}

func commands() []command {
	return []command{
		{"check", "check [flags] FILE...   answer each file's query under RDMA and SC, check its expect lines", cmdCheck},
		{"explore", "explore [flags] FILE... explore the state space and print statistics", cmdExplore},
		{"robust", "robust [flags] FILE...  decide whether every RDMA behaviour is an SC behaviour", cmdRobust},
		{"repair", "repair [flags] FILE     insert the fewest polls, rfences and read-backs that make FILE robust (--goal query: its query hold), and prove it", cmdRepair},
		{"lower", "lower [flags] FILE...   print what is checked: each thread's control-flow graph, a protocol's lowered to the core", cmdLower},
		{"graph", "graph [flags] FILE      draw consistent executions that satisfy the condition (Graphviz DOT)", cmdGraph},
		{"run", "run [flags] FILE        print one random run, reproducible from --seed", cmdRun},
		{"export", "export --promela FILE   write the RDMA (or --semantics sc) machine, or with --robustness the instrumented program, as Promela for SPIN", cmdExport},
		{"stress", "stress [flags] FILE...  count the final outcomes of many random walks (litmus7-style histogram)", cmdStress},
		{"resume", "resume [flags] DIR      continue the check, explore or robust run saved with --checkpoint DIR", cmdResume},
		{"fuzz", "fuzz [flags]            compare every semantics on random programs, minimise and keep disagreements", cmdFuzz},
		{"corpus", "corpus DIR...           check every .rdma file under DIR against its expect lines under every semantics", cmdCorpus},
		{"worker", "worker --nats URL       serve a cluster's work until interrupted: partitions of searches (explore, check, robust), files of corpus, batches of fuzz", cmdWorker},
		{"serve", "serve [--addr A]        serve the playground (rdmasim in the browser) on 127.0.0.1:8080, or --write it to a directory", cmdServe},
		{"help", "help [COMMAND]          print the commands, or one command's flags", cmdHelp},
		{"version", "version                 print rdmasim's version (also --version)", cmdVersion},
	}
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runEnv(ctx, args, newEnv(stdout, stderr))
}

// runEnv executes the command line args in e and returns the exit status.
func runEnv(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		usage(e.stderr, e.columns())
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help":
		usage(e.stdout, e.columns())
		return exitOK
	case "--version", "-version":
		return cmdVersion(ctx, args[1:], e)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], e)
		}
	}
	fmt.Fprintf(e.stderr, "rdmasim: unknown command %q\n", args[0])
	usage(e.stderr, e.columns())
	return exitUsage
}

// isTerminal reports whether w is a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
