package robust

import (
	"context"
	"strings"
	"sync"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
	"rdmasim/store"
)

// Why the decider ran alone (Result.Alone).
const (
	// AloneLoops: the program has loops, which enumeration bounds.
	AloneLoops = "loops"
	// AloneCheckpoint: the searches are checkpointed (Settings.Checkpoint).
	AloneCheckpoint = "checkpoint"
	// AloneAtomics: the program has remote atomics, which the decider
	// refuses (instr.ErrAtomics): enumeration on the machine answers
	// alone, loops bounded as enumeration bounds them.
	AloneAtomics = "atomics"
)

// Alone returns why method Auto would run one method alone on p with
// these search settings: the decider (AloneLoops, AloneCheckpoint), or
// enumeration on the machine (AloneAtomics); "" when it races the decider
// and enumeration on the machine.
func Alone(p *prog.Program, s explore.Settings) string {
	switch {
	case prog.HasAtomics(p):
		return AloneAtomics
	case verdict.HasLoops(p):
		return AloneLoops
	case s.Checkpoint != nil:
		return AloneCheckpoint
	}
	return ""
}

// auto answers for method Auto: on a loop-free program by racing the
// decider and enumeration on the machine and taking the first certain
// answer (see the package comment); otherwise by the decider alone. When
// neither method of a race answers with certainty (a bound cut both
// searches, or ctx was cancelled), the answer is enumeration's if it
// covered every configuration within the machine's bounds ("robust within
// bounds" says more than "unknown"), else the decider's. An error of
// either method ends the race with that error.
func auto(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	if why := Alone(p, opt.Verdict.Settings); why == AloneAtomics {
		opt.Method = EnumMachine
		r, err := byMethod(ctx, p, opt)
		if err != nil {
			return nil, err
		}
		r.Alone = why
		return r, nil
	} else if why != "" {
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
	return race(ctx, opt.Verdict.Settings, []racer{{Decider, run(Decider)}, {EnumMachine, run(EnumMachine)}})
}

// racer is one method of a race: run answers with the settings it is
// given, and stops early, uncertain, when its context is cancelled.
type racer struct {
	method Method
	run    func(ctx context.Context, s explore.Settings) (*Result, error)
}

// race runs the racers concurrently with shares of s (see share) and
// returns the first certain answer, once every other racer, cancelled, has
// returned: a race leaves nothing running. The order of racers breaks
// ties when no answer is certain: the first uncertain answer that covered
// everything within bounds, else the first racer's.
func race(ctx context.Context, s explore.Settings, racers []racer) (*Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type done struct {
		i   int
		a   *Result
		err error
	}
	results := make(chan done, len(racers)) // buffered: no racer waits to hand in its answer
	settings := share(s, len(racers))
	for i, r := range racers {
		go func() {
			a, err := r.run(ctx, settings[i])
			results <- done{i, a, err}
		}()
	}
	answers := make([]*Result, len(racers))
	winner, pending := -1, len(racers)
	var firstErr error
	for pending > 0 {
		d := <-results
		pending--
		switch {
		case d.err != nil && winner < 0:
			// Once a certain answer is in, a cancelled racer's error
			// changes nothing.
			if firstErr == nil {
				firstErr = d.err
			}
			cancel()
		case d.err != nil:
		case winner < 0 && firstErr == nil && d.a.Certain():
			winner = d.i
			answers[d.i] = d.a
			cancel()
		default:
			answers[d.i] = d.a
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	certain := winner >= 0
	if !certain {
		winner = 0
		for i, a := range answers {
			// Enumeration cut by max-inflight alone covered everything
			// within the machine's bounds: "robust within bounds".
			if a.Coverage() == verdict.WithinBounds {
				winner = i
				break
			}
		}
	}
	res := answers[winner]
	for i, r := range racers {
		if i == winner {
			continue
		}
		st := Stopped{Method: r.method}
		if !certain {
			st.Bound = answers[i].Bound
		}
		res.Stopped = append(res.Stopped, st)
	}
	return res, nil
}

// share returns the settings of each of n concurrent searches from s: the
// workers split among them (each at least one; the first ones get what does
// not divide evenly), and the callbacks, which the searches' goroutines call,
// serialized. Progress then reports the searches' statistics added up (the
// greatest depth and elapsed time), so that a caller sees one search doing
// all the work, about once a second as one search would (each search
// reports about once a second); NewSet and Checkpoint, which a caller may
// write to number its searches, are called one at a time.
func share(s explore.Settings, n int) []explore.Settings {
	var mu sync.Mutex
	last := make([]explore.Stats, n)
	reported := time.Duration(-1) // the elapsed time of the last report
	out := make([]explore.Settings, n)
	for i := range out {
		t := s
		if s.Workers > 1 {
			t.Workers = max(1, s.Workers/n)
			if i < s.Workers%n {
				t.Workers++
			}
		}
		if f := s.Progress; f != nil {
			t.Progress = func(st explore.Stats) {
				mu.Lock()
				defer mu.Unlock()
				last[i] = st
				total := sum(last)
				if reported >= 0 && total.Elapsed < reported+progressPeriod {
					return
				}
				reported = total.Elapsed
				f(total)
			}
		}
		if f := s.NewSet; f != nil {
			t.NewSet = func() (store.Set, error) {
				mu.Lock()
				defer mu.Unlock()
				return f()
			}
		}
		if f := s.Checkpoint; f != nil {
			t.Checkpoint = func() *explore.Checkpoint {
				mu.Lock()
				defer mu.Unlock()
				return f()
			}
		}
		out[i] = t
	}
	return out
}

// progressPeriod is the least time between two progress reports of a race.
const progressPeriod = 900 * time.Millisecond

// sum adds up the statistics of concurrent searches.
func sum(stats []explore.Stats) explore.Stats {
	var t explore.Stats
	var names []string
	for _, s := range stats {
		if s.Search != "" {
			names = append(names, s.Search)
		}
		t.States += s.States
		t.Transitions += s.Transitions
		t.Frontier += s.Frontier
		t.StoreBytes += s.StoreBytes
		t.DiskBytes += s.DiskBytes
		t.MaxDepth = max(t.MaxDepth, s.MaxDepth)
		t.Elapsed = max(t.Elapsed, s.Elapsed)
	}
	t.Search = strings.Join(names, " + ")
	return t
}
