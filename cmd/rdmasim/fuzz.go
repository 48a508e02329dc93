package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/corpus/fuzz"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/report"
)

// fuzzJSON is the JSON form of a fuzz run's summary.
type fuzzJSON struct {
	Seed          uint64             `json:"seed"`
	Programs      int                `json:"programs"`
	Seconds       float64            `json:"seconds"`
	Rate          float64            `json:"programs_per_second"`
	Interrupted   bool               `json:"interrupted"`
	Disagreements []fuzzDisagreement `json:"disagreements"`
	Slow          []string           `json:"slow"`  // program seeds over --timeout
	Stuck         []string           `json:"stuck"` // program seeds that did not stop (the run ended there)
	Compared      map[string]int     `json:"compared"`
	Skipped       map[string]int     `json:"not_compared"`
	Robust        int                `json:"robust"`
	NotRobust     int                `json:"not_robust"`
	WithLoops     int                `json:"with_loops"`
	WithChoose    int                `json:"with_choose"`
	Instructions  map[string]int     `json:"instructions"`
	PPO           []fuzzPPOEntryJSON `json:"ppo"`
	Spin          string             `json:"spin"` // "every N programs", or why SPIN is off
	Options       map[string]string  `json:"options"`
}

type fuzzDisagreement struct {
	Index        int      `json:"index"`
	ProgramSeed  string   `json:"program_seed"`
	Kind         string   `json:"kind"`
	Problems     []string `json:"problems"`
	Config       string   `json:"config"`
	Program      string   `json:"program"`
	Minimal      string   `json:"minimal,omitempty"`
	Instructions [2]int   `json:"instructions"` // before and after minimising
	File         string   `json:"file,omitempty"`
	FileError    string   `json:"file_error,omitempty"`
}

type fuzzPPOEntryJSON struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Entry   string `json:"entry"`
	SameQP  int    `json:"same_qp"`
	OtherQP int    `json:"other_qp"`
}

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
	minTime := fs.Duration("minimize-time", 2*time.Minute, "time allowed to minimise one disagreement")
	progress := fs.Bool("progress", false, "print progress on stderr once a second (default when stderr is a terminal)")
	if code := parseFlags(fs, args, e, "fuzz [--seed S] [--count N | --time T] [flags]"); code >= 0 {
		return code
	}
	opt := fuzz.Options{
		Seed:       *seed,
		Count:      *countFlag,
		Duration:   *dur,
		Workers:    *workers,
		Differ:     differ.Options{MaxStates: *maxStates, MaxInflight: *inflight, MaxModelCost: *modelCost},
		Timeout:    *timeout,
		SpinEvery:  *spinEvery,
		NoMinimize: *noMin,
		Minimize:   fuzz.MinimizeOptions{Time: *minTime},
		RegressDir: *regressDir,
	}
	if *dur > 0 && !fs.Changed("count") {
		opt.Count = 0
	}
	var err error
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected arguments %q: fuzz generates its programs", fs.Args())
	case *countFlag < 0:
		err = fmt.Errorf("--count %d: want at least 0", *countFlag)
	case *dur < 0:
		err = fmt.Errorf("--time %s: want a positive duration", *dur)
	case *workers < 1 || *workers > 256:
		err = fmt.Errorf("--workers %d: want 1..256", *workers)
	case *inflight < 1 || *inflight > 250:
		err = fmt.Errorf("--max-inflight %d: want 1..250", *inflight)
	case *spinEvery < 0:
		err = fmt.Errorf("--spin-every %d: want at least 0", *spinEvery)
	case !(*modelCost >= 0):
		err = fmt.Errorf("--max-model-cost %g: want at least 0", *modelCost)
	}
	for _, s := range *programSeeds {
		v, perr := strconv.ParseUint(s, 0, 64)
		if perr != nil {
			err = fmt.Errorf("--program-seed %q: want an unsigned integer (0x... for hex)", s)
			break
		}
		opt.ProgramSeeds = append(opt.ProgramSeeds, v)
	}
	if err == nil && opt.Count == 0 && opt.Duration == 0 && len(opt.ProgramSeeds) == 0 {
		err = fmt.Errorf("--count 0 needs --time (or Ctrl-C would be the only way out)")
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim fuzz: %v\n", err)
		return exitUsage
	}
	spinNote := fmt.Sprintf("on every %d-th program", opt.SpinEvery)
	if opt.SpinEvery == 1 {
		spinNote = "on every program"
	}
	switch serr := differ.SpinAvailable(); {
	case opt.SpinEvery == 0:
		spinNote = "off (--spin-every 0)"
	case serr != nil:
		opt.SpinEvery = 0
		spinNote = "off (" + serr.Error() + ")"
	}
	var mu sync.Mutex // serialises output from the workers
	opt.Found = func(d *fuzz.Disagreement) {
		if *jsonOut {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		writeDisagreement(e.stdout, d)
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
			p, desc := fuzz.Generate(s)
			fmt.Fprintf(e.stdout, "Program seed %#x (%s):\n", s, desc)
			report.WriteConfig(e.stdout, p.String())
		}
	}
	sum, err := fuzz.Run(ctx, opt)
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim fuzz: %v\n", err)
		return exitUsage
	}
	if *jsonOut {
		writeFuzzJSON(e.stdout, sum, opt, spinNote)
	} else {
		writeFuzzSummary(e.stdout, sum, opt, spinNote)
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

// stuckAfter is the grace Run gives a program past its deadline.
func stuckAfter(opt fuzz.Options) time.Duration {
	if opt.StuckAfter > 0 {
		return opt.StuckAfter
	}
	return 2 * time.Minute
}

// writeDisagreement prints one disagreement, its minimised program and
// where it was written.
func writeDisagreement(w io.Writer, d *fuzz.Disagreement) {
	fmt.Fprintf(w, "DISAGREEMENT in program %d (program seed %#x): %s\n", d.Index, d.Seed, d.Kind)
	fmt.Fprintf(w, "  config: %s\n", d.Config)
	for _, p := range d.Problems {
		fmt.Fprintf(w, "  %s: %s\n", p.Kind, strings.ReplaceAll(p.Detail, "\n", "\n    "))
	}
	fmt.Fprintf(w, "  rerun: rdmasim fuzz --program-seed %#x\n", d.Seed)
	prog := d.Program
	if d.Minimal != nil {
		prog = d.Minimal
		fmt.Fprintf(w, "  minimised from %d to %d instructions (%d candidates tested", d.Minimized.Before, d.Minimized.After, d.Minimized.Checks)
		if d.Minimized.Exhausted {
			fmt.Fprint(w, ", stopped by the minimisation bounds")
		}
		fmt.Fprintln(w, "):")
		for _, p := range d.MinimalProblems {
			fmt.Fprintf(w, "  %s: %s\n", p.Kind, firstLineOf(p.Detail))
		}
	}
	report.WriteConfig(w, prog.String())
	switch {
	case d.File != "":
		fmt.Fprintf(w, "  written to %s\n", d.File)
	case d.FileErr != nil:
		fmt.Fprintf(w, "  not written: %v\n", d.FileErr)
	}
	fmt.Fprintln(w)
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// comparisons are the comparisons of a summary, in print order.
var comparisons = []string{string(differ.OutcomesRDMA), string(differ.OutcomesSC), string(differ.OutcomesReduced), string(differ.RobustEnum), "decider", string(differ.SpinRDMA), string(differ.SpinSC)}

// writeFuzzSummary prints the summary of a run.
func writeFuzzSummary(w io.Writer, s *fuzz.Summary, opt fuzz.Options, spinNote string) {
	what := fmt.Sprintf("seed %d", s.Seed)
	if len(opt.ProgramSeeds) > 0 {
		what = "program seeds"
	}
	fmt.Fprintf(w, "Fuzz %s: %s in %.1fs (%.1f programs/s), %s\n", what, report.Plural(s.Programs, "program"), s.Elapsed.Seconds(), s.Rate(),
		report.Plural(len(s.Disagreements), "disagreement"))
	if s.Interrupted {
		fmt.Fprintln(w, "Interrupted: the summary covers the programs checked")
	}
	for _, x := range s.Stuck {
		fmt.Fprintf(w, "STUCK: program seed %#x did not stop within %s of its deadline (a search that does not notice cancellation): not compared\n", x, stuckAfter(opt))
	}
	if s.Ended && !s.Interrupted {
		fmt.Fprintln(w, "Ended early: more programs stuck at once than workers")
	}
	timeout := "no timeout"
	if opt.Timeout > 0 {
		timeout = fmt.Sprintf("timeout %s per program", opt.Timeout)
	}
	fmt.Fprintf(w, "Bounds: max-states %d, max-inflight %d, max-model-cost %g, %s; SPIN %s\n", opt.Differ.MaxStates, opt.Differ.MaxInflight,
		opt.Differ.MaxModelCost, timeout, spinNote)
	var cmp []string
	for _, c := range comparisons {
		cmp = append(cmp, fmt.Sprintf("%s %d", c, s.Compared[c]))
	}
	fmt.Fprintf(w, "Compared: %s\n", strings.Join(cmp, ", "))
	if len(s.Skipped) > 0 || len(s.Slow) > 0 {
		fmt.Fprintln(w, "Not compared (a bound cut the search):")
		keys := make([]string, 0, len(s.Skipped))
		for k := range s.Skipped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %6d %s\n", s.Skipped[k], k)
		}
		if len(s.Slow) > 0 {
			var seeds []string
			for _, x := range s.Slow[:min(len(s.Slow), 5)] {
				seeds = append(seeds, fmt.Sprintf("%#x", x))
			}
			more := ""
			if len(s.Slow) > 5 {
				more = ", ..."
			}
			fmt.Fprintf(w, "  %6d programs over the %s timeout, not compared at all (program seeds %s%s)\n", len(s.Slow), opt.Timeout, strings.Join(seeds, ", "), more)
		}
	}
	fmt.Fprintf(w, "Robustness (reference answer): %d robust, %d not robust\n", s.Robust, s.NotRobust)
	st := &s.Stats
	fmt.Fprintf(w, "Programs: %d with loops, %d with choose\n", st.WithLoops, st.WithChoose)
	var ins []string
	for k, n := range st.Instr {
		ins = append(ins, fmt.Sprintf("%s %d", fuzz.KindNames[k], n))
	}
	ins = append(ins, fmt.Sprintf("choose %d", st.Choose), fmt.Sprintf("loop %d", st.Loop))
	fmt.Fprintf(w, "Instructions: %s\n", strings.Join(ins, ", "))
	fmt.Fprintln(w, "PPO table: programs with an event of the row's class before one of the column's in program order;")
	fmt.Fprintln(w, "entries as axiom.PPO gives them, those that depend on the queue pair as same queue pair/other:")
	cells := [fuzz.NumClasses][fuzz.NumClasses]string{}
	width := 4
	for a := range fuzz.NumClasses {
		for b := range fuzz.NumClasses {
			c := ppoCell(st, a, b)
			cells[a][b] = c
			width = max(width, len([]rune(c)))
		}
	}
	fmt.Fprintf(w, "  %-4s", "")
	for b := range fuzz.NumClasses {
		fmt.Fprintf(w, "  %-*s", width, fuzz.ClassNames[b])
	}
	fmt.Fprintln(w)
	for a := range fuzz.NumClasses {
		fmt.Fprintf(w, "  %-4s", fuzz.ClassNames[a])
		for b := range fuzz.NumClasses {
			c := cells[a][b]
			fmt.Fprintf(w, "  %s%s", c, strings.Repeat(" ", width-len([]rune(c))))
		}
		fmt.Fprintln(w)
	}
}

// ppoCell prints one cell of the ppo coverage table.
func ppoCell(st *fuzz.Stats, a, b int) string {
	entry := fuzz.PPOEntry(ppoClass(a), ppoClass(b))
	c := st.PPO[a][b]
	if fuzz.QPDependent(entry) {
		return fmt.Sprintf("%s %d/%d", entry, c.SameQP, c.OtherQP)
	}
	return fmt.Sprintf("%s %d", entry, c.SameQP+c.OtherQP)
}

// ppoClass converts a row or column index of fuzz.Stats.PPO.
func ppoClass(i int) axiom.Class { return axiom.Class(i) }

func writeFuzzJSON(w io.Writer, s *fuzz.Summary, opt fuzz.Options, spinNote string) {
	out := fuzzJSON{Seed: s.Seed, Programs: s.Programs, Seconds: s.Elapsed.Seconds(), Rate: s.Rate(), Interrupted: s.Interrupted,
		Disagreements: []fuzzDisagreement{}, Slow: []string{}, Stuck: []string{}, Compared: map[string]int{}, Skipped: s.Skipped,
		Robust: s.Robust, NotRobust: s.NotRobust, WithLoops: s.Stats.WithLoops, WithChoose: s.Stats.WithChoose,
		Instructions: map[string]int{}, Spin: spinNote,
		Options: map[string]string{
			"max-states": fmt.Sprint(opt.Differ.MaxStates), "max-inflight": fmt.Sprint(opt.Differ.MaxInflight), "timeout": opt.Timeout.String(),
			"max-model-cost": fmt.Sprint(opt.Differ.MaxModelCost),
		}}
	for _, c := range comparisons {
		out.Compared[c] = s.Compared[c]
	}
	for _, x := range s.Slow {
		out.Slow = append(out.Slow, fmt.Sprintf("%#x", x))
	}
	for _, x := range s.Stuck {
		out.Stuck = append(out.Stuck, fmt.Sprintf("%#x", x))
	}
	for k, n := range s.Stats.Instr {
		out.Instructions[fuzz.KindNames[k]] = n
	}
	out.Instructions["choose"], out.Instructions["loop"] = s.Stats.Choose, s.Stats.Loop
	for a := range fuzz.NumClasses {
		for b := range fuzz.NumClasses {
			c := s.Stats.PPO[a][b]
			out.PPO = append(out.PPO, fuzzPPOEntryJSON{From: fuzz.ClassNames[a], To: fuzz.ClassNames[b],
				Entry: fuzz.PPOEntry(ppoClass(a), ppoClass(b)), SameQP: c.SameQP, OtherQP: c.OtherQP})
		}
	}
	for _, d := range s.Disagreements {
		fd := fuzzDisagreement{Index: d.Index, ProgramSeed: fmt.Sprintf("%#x", d.Seed), Kind: string(d.Kind), Config: d.Config,
			Program: d.Program.String(), Instructions: [2]int{d.Minimized.Before, d.Minimized.After}, File: d.File}
		for _, p := range d.Problems {
			fd.Problems = append(fd.Problems, p.Detail)
		}
		if d.Minimal != nil {
			fd.Minimal = d.Minimal.String()
		}
		if d.FileErr != nil {
			fd.FileError = d.FileErr.Error()
		}
		out.Disagreements = append(out.Disagreements, fd)
	}
	writeJSON(w, out)
}
