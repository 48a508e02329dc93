package robust

import (
	"context"
	"fmt"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// Why the decider ran alone (Result.Alone).
const (
	// AloneLoops: the program has loops, which enumeration bounds.
	AloneLoops = "loops"
	// AloneCheckpoint: the searches are checkpointed (Settings.Checkpoint).
	AloneCheckpoint = "checkpoint"
	// AloneAtomics: the program has remote atomics, which the decider
	// refuses (*instr.AtomicsError): enumeration on the machine answers
	// alone, loops bounded as enumeration bounds them.
	AloneAtomics = "atomics"
	// AloneVerbs: the program uses a verbs feature the decider does not
	// cover (prog.FirstVerbs: multi-word operations), which it refuses
	// (*instr.FeatureError): enumeration on the machine answers alone,
	// loops bounded as enumeration bounds them.
	AloneVerbs = "verbs"
	// AloneInflight: a queue pair of the loop-free program has more
	// operations than the machine's max-inflight lets be in flight at
	// once (see inflightMayCut), so that enumeration may be cut by it and
	// then cannot answer "robust" with certainty: the decider, which can,
	// runs alone.
	AloneInflight = "max-inflight"
	// AloneSymmetry: the program has a verified symmetry group
	// (prog.FindSymmetry), which reduces the decider's search and not
	// enumeration's with event graphs.
	AloneSymmetry = "symmetry"
)

// Alone returns why method Auto would run one method alone on p with
// these search settings: the decider (AloneLoops, AloneCheckpoint), or
// enumeration on the machine (AloneAtomics, AloneVerbs); "" when it runs enumeration
// within its budget and then, if need be, the decider (or the decider
// alone, AloneSymmetry, which auto finds itself).
func Alone(p *prog.Program, s explore.Settings) string {
	switch {
	case prog.HasVerbs(p):
		return AloneVerbs
	case prog.HasAtomics(p):
		return AloneAtomics
	case verdict.HasLoops(p):
		return AloneLoops
	case s.Checkpoint != nil:
		return AloneCheckpoint
	}
	return ""
}

// EnumBudget is how many configurations method Auto lets enumeration on
// the machine explore before it hands a loop-free program to the decider
// (see auto): about half a second of enumeration on a 2-core machine.
// Small programs, where enumeration is often the faster method, are
// answered by it alone; larger ones go to the decider, which is then the
// faster (the measurements are in BENCHMARKS.md, "Time to verdict").
const EnumBudget = 500_000

// auto answers for method Auto: with remote atomics, by enumeration on the
// machine and, when that is not certain, the decider's experimental
// instrumentation hunting for violations (autoAtomics); with loops, checkpoints or a symmetry group, by the
// decider alone; otherwise by the two in turn (staged, with EnumBudget).
func auto(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	why := Alone(p, opt.Verdict.Settings)
	if why == AloneAtomics && opt.AtomicsExperimental && !verdict.HasLoops(p) {
		// Opted in: a loop-free program with atomics goes the way of
		// every loop-free program (Options.AtomicsExperimental).
		if why = ""; opt.Verdict.Settings.Checkpoint != nil {
			why = AloneCheckpoint
		}
	}
	if why == "" && opt.Verdict.Settings.Symmetry {
		if sym, _ := prog.FindSymmetry(p); sym != nil {
			why = AloneSymmetry
		}
	}
	if why == "" && inflightMayCut(p, opt.Verdict.Machine.MaxInflight) {
		why = AloneInflight
	}
	if why == AloneAtomics {
		return autoAtomics(ctx, p, opt)
	}
	if why == AloneVerbs {
		// The decider would refuse (*instr.FeatureError): enumeration
		// on the machine answers, and the headline says why.
		e := opt
		e.Method = EnumMachine
		r, err := byMethod(ctx, p, e)
		if err != nil {
			return nil, err
		}
		r.Alone = AloneVerbs
		return r, nil
	}
	if why != "" {
		opt.Method = Decider
		r, err := byMethod(ctx, p, opt)
		if err != nil {
			return nil, err
		}
		r.Alone = why
		return r, nil
	}
	run := func(m Method) func(context.Context, explore.Settings) (*Result, error) {
		return func(ctx context.Context, s explore.Settings) (*Result, error) {
			o := opt
			o.Method, o.Verdict.Settings = m, s
			return byMethod(ctx, p, o)
		}
	}
	return staged(ctx, opt.Verdict.Settings, stage{EnumMachine, run(EnumMachine)}, stage{Decider, run(Decider)}, EnumBudget)
}

// stage is one method of staged: run answers with the settings it is
// given, and stops early, uncertain, when its context is cancelled.
type stage struct {
	method Method
	run    func(ctx context.Context, s explore.Settings) (*Result, error)
}

// staged runs first with every worker and its state limit lowered to
// budget; if that answers with certainty, the answer is first's. Otherwise
// second runs with the settings s (its timeout what is left of s's), and
// its certain answer is taken, with first listed as stopped by what cut
// it. When neither is certain, the answer is first's if it covered
// everything within the machine's bounds ("robust within bounds" says more
// than "unknown": enumeration cut by max-inflight alone), else second's.
//
// The two run in turn, not at once: each gets the whole machine, where two
// searches sharing the workers answer in about twice the faster one's time
// alone.
func staged(ctx context.Context, s explore.Settings, first, second stage, budget uint64) (*Result, error) {
	start := time.Now()
	fs := s
	if fs.MaxStates == 0 || fs.MaxStates > budget {
		fs.MaxStates = budget
	}
	a, err := first.run(ctx, fs)
	if err != nil {
		return nil, err
	}
	if a.Certain() || ctx.Err() != nil {
		return a, nil
	}
	ss := s
	if s.Timeout > 0 {
		ss.Timeout = s.Timeout - time.Since(start)
		if ss.Timeout <= 0 {
			return a, nil // the time is up: first's answer, uncertain
		}
	}
	b, err := second.run(ctx, ss)
	if err != nil {
		return nil, err
	}
	if !b.Certain() && a.Coverage() == verdict.WithinBounds {
		a.Stopped = append(a.Stopped, Stopped{Method: second.method, Bound: b.Bound})
		return a, nil
	}
	st := Stopped{Method: first.method, Bound: a.Bound}
	if a.Search.Stop == explore.StateLimit && fs.MaxStates == budget && fs.MaxStates != s.MaxStates {
		st.Bound = fmt.Sprintf("auto's budget of %s", report.Plural(int(budget), first.method.unit()))
	}
	b.Stopped = append(b.Stopped, st)
	return b, nil
}

// inflightMayCut reports whether enumeration on the machine, with at most
// maxInflight operations in flight per queue pair (0: the default), may be
// cut by that bound on the loop-free program p: some queue pair carries
// more operations than maxInflight-1 (a put whose remote write is still on
// its way counts twice: n polled puts need n+1, as MP(n) of BENCHMARKS.md
// shows). It counts every instruction, whichever branch it is on, so it
// may say so of a program that never has that many in flight.
func inflightMayCut(p *prog.Program, maxInflight int) bool {
	if maxInflight == 0 {
		maxInflight = machine.DefaultOptions().MaxInflight
	}
	ops := make([]int, len(p.QPs))
	for t := range p.Threads {
		for _, in := range p.Threads[t].Code {
			if in.Op.IsRemote() {
				ops[in.QP]++
			}
		}
	}
	for _, n := range ops {
		if n+1 > maxInflight {
			return true
		}
	}
	return false
}
