// Package fuzz is rdmasim's differential fuzzer. It draws random programs
// (package corpus/gen, with a configuration drawn per program: sizes,
// nodes, threads, loops, choose, the instruction mix), compares every
// semantics on each (package corpus/differ: machine and declarative model
// outcomes under RDMA and SC, robustness by both enumerations and by the
// decider, whose witnesses are validated and replayed, and SPIN on the
// exported Promela models every so often), and on a disagreement shrinks
// the program by delta debugging over its syntax tree (Minimize) and writes
// the result as a regression test (WriteRegression).
//
// Runs are reproducible: program i of a run with seed S is drawn, its
// configuration included, from ProgramSeed(S, i) alone, and checked with
// bounds that do not depend on timing (a per-program timeout aside, whose
// victims are reported apart and never counted as agreeing). A disagreement
// reports its program seed; Options.ProgramSeeds checks exactly those
// programs again.
//
// The declarative model's search notices a deadline only between event
// sets, and on programs with many reads and writes of one location a single
// event set can take minutes: differ.Options.MaxModelCost keeps the model
// off such programs, and a watchdog (Options.StuckAfter) gives up on a
// program that still does not stop, so that a run always ends and Ctrl-C
// always prints its summary.
package fuzz

import (
	"context"
	"errors"
	"fmt"
	"rdmasim/corpus/surface"
	"rdmasim/opsem/parse"
	"strings"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// defaultStuckAfter is Options.StuckAfter's default.
const defaultStuckAfter = 2 * time.Minute

// KindError is the kind of a disagreement where a semantics failed with an
// error on a valid program (not a timeout).
const KindError differ.Kind = "error"

// Options configure Run.
type Options struct {
	// Seed is the run's seed; program i is drawn from ProgramSeed(Seed, i).
	Seed uint64
	// Count is the number of programs to check; 0 means no limit (Duration
	// or ctx ends the run).
	Count int
	// Duration stops the run after this long: no program is started after
	// it, the ones under way are finished. 0 means no limit.
	Duration time.Duration
	// ProgramSeeds, when not empty, are the seeds of exactly the programs
	// to check (Seed and Count are then ignored).
	ProgramSeeds []uint64
	// Workers is the number of programs checked in parallel (0 means 1).
	Workers int
	// Differ bounds the comparisons: MaxStates, MaxInflight, Unroll (its
	// Checks field is ignored: every comparison is made, SPIN as SpinEvery
	// says).
	Differ differ.Options
	// Timeout bounds the check of one program (and each check of the
	// minimiser); 0 means none. Programs over it are reported as slow.
	Timeout time.Duration
	// SpinEvery compares SPIN on program i when i % SpinEvery == 0 (SPIN
	// compiles a C program per machine, about a second each); 0 never.
	SpinEvery int
	// NoMinimize reports disagreements without minimising them.
	NoMinimize bool
	// Surface draws programs of the protocol language (corpus/surface's
	// generator) and compares every semantics on their lowering. The
	// lowered programs have no statement trees to minimise: a
	// disagreement is kept as the protocol's text, whole.
	Surface bool
	// Atomics puts remote atomics (rcas, rfaa) in the generated programs
	// (GenerateWith).
	Atomics bool
	// Verbs puts the verbs features of issue 32 that are built (quiet, the
	// fenced and inline marks, two-word puts and gets) in the generated
	// programs (GenerateVerbs).
	Verbs bool
	// Repair runs rdmasim repair on every program the decider finds not
	// robust and checks its answer by enumeration (differ.CheckRepair).
	Repair bool
	// Minimize bounds the minimisation of each disagreement.
	Minimize MinimizeOptions
	// RegressDir is where minimised disagreements are written as .rdma
	// files; "" writes none.
	RegressDir string
	// Progress, when non-nil, is called about once a second.
	Progress func(Progress) `json:"-"`
	// Found, when non-nil, is called with each disagreement once it is
	// minimised and written (from the worker that found it).
	Found func(*Disagreement) `json:"-"`
	// StuckAfter is how long a program may run past its deadline (Timeout
	// for its check, plus Minimize.Time while it is minimised; once ctx is
	// done, the moment it was done) before Run gives up on it (a search
	// that does not notice cancellation): the program goes to
	// Summary.Stuck, uncounted, and is left running while a new worker
	// goes on with the run. When more programs than Workers are stuck at
	// once, or ctx is done, Run returns at once (Summary.Ended). 0 means
	// two minutes.
	StuckAfter time.Duration

	// check replaces differ.Check in tests.
	check func(context.Context, *prog.Program, differ.Options) (*differ.Report, error)
	// first is the index in the whole run of the first program checked:
	// a batch of a run on a cluster (Task) checks programs first,
	// first+1, ... (ProgramSeed(Seed, first+i)); 0 in a run of one
	// process.
	first int
	// renderRegress makes each disagreement's regression file
	// (Disagreement.regression) without writing it: a batch's worker
	// renders it, the coordinator writes it (RunCampaign).
	renderRegress bool
}

// Progress is a snapshot of a running fuzz.
type Progress struct {
	Programs      int
	Disagreements int
	Elapsed       time.Duration
}

// Disagreement is a program on which semantics disagree.
type Disagreement struct {
	Index   int    // program index in the run (in ProgramSeeds when given)
	Seed    uint64 // program seed: Generate(Seed) draws the program again
	Config  string // the drawn configuration, described
	Program *prog.Program
	// Source is a protocol's text (Options.Surface), of which Program is
	// the lowering; "" for core programs.
	Source   string
	Problems []differ.Problem // of Program; KindError: the error's text
	// Kind is the kind minimised: the first of Problems.
	Kind differ.Kind
	// Minimal is the minimised program, MinimalProblems its problems of
	// Kind (nil when not minimised).
	Minimal         *prog.Program
	MinimalProblems []differ.Problem
	Minimized       MinimizeStats
	// File is the regression file written ("" when none), or the reason
	// none was written in FileErr.
	File    string
	FileErr error
	// regression is the regression file rendered by a batch's worker
	// (Options.renderRegress), for the coordinator to write.
	regression *regressionFile
}

// regressionFile is a disagreement's regression test: its name (the file
// is name.rdma) and text, or why it could not be made.
type regressionFile struct {
	Name string `json:"name"`
	Text string `json:"text"`
	Err  string `json:"err,omitempty"`
}

// Summary is the result of Run.
type Summary struct {
	Seed     uint64
	Programs int // programs checked (those ctx stopped are not counted)
	Elapsed  time.Duration
	// Interrupted: ctx ended the run before Count programs were checked.
	Interrupted   bool
	Disagreements []*Disagreement // in program order
	// Slow are the seeds of the programs whose check took longer than
	// Options.Timeout: not compared.
	Slow []uint64
	// Skipped counts, per comparison and reason, the programs on which a
	// comparison was not made because a bound cut a search
	// ("robust-enum: machine enumeration cut by max-states=100000").
	Skipped map[string]int
	// Compared counts, per comparison (outcomes-rdma, outcomes-sc,
	// robust-enum, decider, spin-rdma, spin-sc), the programs on which it
	// was made.
	Compared map[string]int
	// Stuck are the seeds of the programs Run gave up waiting for
	// (Options.StuckAfter); they are not counted. Ended: Run returned
	// without waiting for them (too many at once, or ctx was done).
	Stuck []uint64
	Ended bool
	// Robust and NotRobust count the programs by reference robustness
	// (differ.Report.Robust).
	Robust, NotRobust int
	Stats             Stats
	// Workers is the number of a cluster's workers that checked batches
	// of the run (RunCampaign's caller sets it); 0 in one process.
	Workers int
}

// Rate returns the programs checked per second.
func (s *Summary) Rate() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Programs) / s.Elapsed.Seconds()
}

// result is what checking one program gave.
type result struct {
	index    int
	seed     uint64
	report   *differ.Report
	disagree *Disagreement
	slow     bool
	skip     string // why the program was not checked (a protocol too large to lower)
	stopped  bool   // ctx ended the run first: not counted
	stats    Stats
}

// Run checks programs as opt says until Count programs are checked,
// Duration has passed or ctx is done, and returns what it found. Failures to
// write a regression file are in Disagreement.FileErr; the error is for bad
// options.
func Run(ctx context.Context, opt Options) (*Summary, error) {
	if opt.Count < 0 || opt.Workers < 0 || opt.SpinEvery < 0 {
		return nil, errors.New("fuzz: negative count, workers or spin-every")
	}
	r := newRunner(ctx, opt)
	stopProgress := r.reportProgress()
	go r.feed()
	r.mu.Lock()
	for range r.workers {
		r.startWorker()
	}
	r.mu.Unlock()
	r.watch()
	stopProgress()
	return r.summary(), nil
}

// add counts r into s.
func (s *Summary) add(r *result) {
	s.Programs++
	s.Stats.Merge(&r.stats)
	switch {
	case r.slow:
		s.Slow = append(s.Slow, r.seed)
		return
	case r.skip != "":
		s.Skipped["program: "+r.skip]++
		return
	case r.disagree != nil:
		s.Disagreements = append(s.Disagreements, r.disagree)
	}
	rep := r.report
	if rep == nil {
		return
	}
	for _, sk := range rep.Skipped {
		s.Skipped[sk.What+": "+sk.Why]++
	}
	for _, what := range comparisons {
		made := !rep.WasSkipped(what)
		switch what {
		case string(differ.SpinRDMA), string(differ.SpinSC):
			made = made && spinRan(rep, differ.Kind(what))
		case "decider":
			made = made && (rep.Decide != nil || rep.DecideErr != nil)
		case string(differ.RobustSymmetry):
			made = made && rep.Symmetric
		case string(differ.OutcomesSymmetry):
			made = made && rep.OutcomesSymmetric
		case string(differ.Deadlocks):
			made = made && rep.Machine[0] != nil
		case string(differ.ErrorsRDMA), string(differ.ErrorsSC):
			made = made && rep.Model[0] != nil && verdict.HasErrorPoints(rep.Program)
		case string(differ.ReachRDMA), string(differ.ReachSC):
			made = made && rep.ReachQuery
		case string(differ.Repair):
			made = made && rep.Repaired != nil && rep.Repaired.Found() && len(rep.Repaired.Insertions) > 0
		}
		if made {
			s.Compared[what]++
		}
	}
	if prog.HasAtomics(rep.Program) && !rep.WasSkipped(string(differ.OutcomesRDMA)) && !rep.WasSkipped(string(differ.OutcomesSC)) {
		s.Stats.CheckedAtomics++
	}
	certain := func(r *robust.Result) bool { return r != nil && r.Certain() }
	if prog.HasAtomics(rep.Program) && certain(rep.Decide) && !rep.WasSkipped("decider") && (certain(rep.RobustMachine) || certain(rep.RobustModel)) {
		s.Stats.DecidedAtomics++
		if rep.Decide.Robust {
			s.Stats.DecidedAtomicsRobust++
		}
		if verdict.HasLoops(rep.Program) {
			s.Stats.DecidedAtomicsLoops++
		}
	}
	within := func(r *robust.Result) bool { return r != nil && r.Robust && r.Coverage() == verdict.WithinBounds }
	if prog.HasAtomics(rep.Program) && verdict.HasLoops(rep.Program) && certain(rep.Decide) && rep.Decide.Robust && !rep.WasSkipped("decider") &&
		!certain(rep.RobustMachine) && !certain(rep.RobustModel) && (within(rep.RobustMachine) || within(rep.RobustModel)) {
		s.Stats.DecidedAtomicsBounded++
	}
	if robust, ok := rep.Robust(); ok {
		if robust {
			s.Robust++
		} else {
			s.NotRobust++
		}
	}
}

// spinRan reports whether SPIN ran for the comparison of kind k
// (differ.SpinRDMA or differ.SpinSC).
func spinRan(rep *differ.Report, k differ.Kind) bool {
	i := 0
	if k == differ.SpinSC {
		i = 1
	}
	return rep.Spin[i] != nil || rep.Has(k)
}

// checkOne draws and checks program index with seed seed, and minimises
// and writes a disagreement.
func checkOne(ctx context.Context, opt Options, index int, seed uint64, extend func(time.Duration)) *result {
	r := &result{index: index, seed: seed}
	var (
		p          *prog.Program
		desc, text string
	)
	if opt.Surface {
		text, desc = surface.Generate(seed), "protocol language"
		if seed&1 == 1 {
			// Every other program keeps its registers at run time,
			// and says so in its text, which a regression keeps.
			text, desc = runtimeRegisters(text), "protocol language, registers at run time"
		}
		q, err := parse.Parse(fmt.Sprintf("surface-%016x.rdma", seed), []byte(text))
		if err != nil {
			// The generator writes programs that parse; one that does not
			// lower lowers too large (registers without ranges).
			r.skip = "does not lower: " + firstLine(err.Error())
			return r
		}
		p = q
	} else {
		p, desc = GenerateVerbs(seed, opt.Atomics, opt.Verbs)
	}
	if opt.Differ.Placement == machine.PlaceInOrder {
		// The program says so itself (its placement line), so that its
		// text, a regression file among others, keeps its meaning.
		p.InOrder = true
	}
	r.stats.Add(p)
	dopt := opt.Differ
	dopt.Checks = differ.CheckAll
	if opt.Repair {
		dopt.Checks |= differ.CheckRepair
	}
	if opt.SpinEvery > 0 && index%opt.SpinEvery == 0 {
		dopt.Checks |= differ.CheckSpin
	}
	pctx, cancel := withTimeout(ctx, opt.Timeout)
	check := opt.check
	if check == nil {
		check = differ.Check
	}
	rep, err := check(pctx, p, dopt)
	timedOut := err != nil && pctx.Err() != nil
	cancel()
	switch {
	case ctx.Err() != nil:
		r.stopped = true
		return r
	case timedOut:
		r.slow = true
		return r
	}
	d := &Disagreement{Index: index, Seed: seed, Config: desc, Program: p, Source: text}
	switch {
	case err != nil:
		d.Kind = KindError
		d.Problems = []differ.Problem{{Kind: KindError, Detail: err.Error()}}
	case len(rep.Problems) > 0:
		r.report = rep
		d.Kind = rep.Problems[0].Kind
		d.Problems = rep.Problems
	default:
		r.report = rep
		return r
	}
	r.disagree = d
	if opt.Surface {
		name, text := surfaceRegression(d)
		switch {
		case opt.renderRegress:
			d.regression = &regressionFile{Name: name, Text: text}
		case opt.RegressDir != "":
			d.File, d.FileErr = writeRegressionFile(opt.RegressDir, name, text)
		}
		return r
	}
	if opt.NoMinimize {
		return r
	}
	minTime := opt.Minimize.Time
	if minTime <= 0 {
		minTime = defaultMinimizeTime
	}
	if opt.Timeout > 0 {
		extend(minTime + 2*opt.Timeout) // the last candidate, then the regression's verdicts
	} else {
		extend(0)
	}
	keep := Keeps(d.Kind, opt.Differ, opt.Timeout)
	cond := disputedReach(rep, d.Kind)
	if cond != "" {
		// The minimiser's candidates ask exists true: the disputed reach
		// query goes with each of them (WithReach).
		keep = keepsReach(keep, cond)
	}
	small, st := MinimizeUnroll(ctx, p, keep, opt.Minimize, verdict.LoopBound(p, opt.Differ.Unroll))
	d.Minimized = st
	if ctx.Err() != nil {
		return r
	}
	if cond != "" {
		if q, ok := WithReach(small, cond); ok {
			small = q
		}
	}
	small.InOrder = small.InOrder || p.InOrder
	d.Minimal = small
	mctx, cancel := withTimeout(ctx, opt.Timeout)
	d.MinimalProblems = problemsOf(mctx, small, d.Kind, opt.Differ)
	cancel()
	info := RegressionInfo{RunSeed: opt.Seed, Differ: opt.Differ, Timeout: opt.Timeout}
	switch {
	case opt.renderRegress:
		d.regression = &regressionFile{}
		var err error
		if d.regression.Name, d.regression.Text, err = Regression(ctx, d, info); err != nil {
			d.regression.Err = err.Error()
		}
	case opt.RegressDir != "":
		d.File, d.FileErr = WriteRegression(ctx, opt.RegressDir, d, info)
	}
	return r
}

// withTimeout is context.WithTimeout, or a plain cancel when d is 0.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// runtimeRegisters returns text, a protocol, with a registers line that
// keeps its registers at run time, after its litmus line.
func runtimeRegisters(text string) string {
	first, rest, _ := strings.Cut(text, "\n")
	return first + "\nregisters runtime\n" + rest
}
