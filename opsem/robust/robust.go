// Package robust decides robustness the fastest way it can be decided
// completely. Two methods are complete on a loop-free program: the decider
// of package decide (the paper's instrumented SC machine) and enumeration on
// the RDMA machine (verdict.RobustMachine), which explores every run with its
// event graph. Enumeration is often much the faster (it finds the violation
// of corpus/bench/sb5.rdma, store buffering in a ring of five threads, in
// under a second, where the decider needs about ten), but a machine bound
// (max-inflight) can cut it, and then only the decider can answer "robust"
// (corpus/bench/decide-mp10.rdma). Auto therefore races them, each on half of the
// workers, and takes the first certain answer: a violation, which either
// method finds only if it is real (both are sound), or "robust" from a
// search that covered everything. The other method is then cancelled.
//
// With loops, enumeration bounds the iterations of each loop, so that its
// "robust" holds only within that bound; only the decider is complete, and
// it runs alone. It also runs alone when the searches are checkpointed: a
// checkpoint directory numbers its searches in the order they are opened,
// which a race would make depend on timing.
package robust

import (
	"context"
	"sync"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
	"rdmasim/store"
)

// The methods Auto runs.
const (
	Decide      = "decide"       // package decide's decider
	EnumMachine = "enum-machine" // verdict.RobustMachine
)

// Why the decider ran alone (Result.Alone).
const (
	// AloneLoops: the program has loops, which enumeration bounds.
	AloneLoops = "loops"
	// AloneCheckpoint: the searches are checkpointed (Settings.Checkpoint).
	AloneCheckpoint = "checkpoint"
)

// Options configure Auto.
type Options struct {
	// Verdict are enumeration's options: the machine's bounds and the
	// search settings. The decider searches with the same settings. When
	// the two race, each gets half of Settings.Workers (at least one), and
	// each search applies MaxStates and Timeout on its own.
	Verdict verdict.Options
	// MaxBytes bounds the memory of the decider's Karp–Miller search (see
	// decide.Options).
	MaxBytes uint64
}

// Result is the answer of Auto: the decider's or enumeration's.
type Result struct {
	// Method is the method whose answer this is: Decide or EnumMachine.
	Method string
	// Decide is the decider's answer when Method is Decide, else nil.
	Decide *decide.Result
	// Machine is enumeration's answer when Method is EnumMachine, else
	// nil.
	Machine *verdict.RobustResult
	// Stopped is the method that raced this one and whose answer was not
	// taken; empty when the decider ran alone.
	Stopped []verdict.StoppedMethod
	// Alone says why the decider ran alone (AloneLoops, AloneCheckpoint);
	// empty when the methods raced.
	Alone string
}

// Robust returns the answer: whether the program is robust.
func (r *Result) Robust() bool {
	if r.Decide != nil {
		return r.Decide.Robust
	}
	return r.Machine.Robust
}

// Certain reports whether the answer is certain: a violation, or a
// complete search.
func (r *Result) Certain() bool {
	if r.Decide != nil {
		return r.Decide.Certain()
	}
	return r.Machine.Certain()
}

// Alone returns why Auto would run the decider alone on p with these
// search settings (AloneLoops, AloneCheckpoint), or "" when it races the
// two methods.
func Alone(p *prog.Program, s explore.Settings) string {
	switch {
	case verdict.HasLoops(p):
		return AloneLoops
	case s.Checkpoint != nil:
		return AloneCheckpoint
	}
	return ""
}

// Auto decides whether p is robust: on a loop-free program by racing the
// decider and enumeration on the machine and taking the first certain
// answer (see the package comment); otherwise by the decider alone. When
// neither method of a race answers with certainty (a bound cut both
// searches, or ctx was cancelled), the answer is enumeration's if it covered
// every configuration within the machine's bounds ("robust within bounds"
// says more than "unknown"), else the decider's. An error of either method
// ends the race with that error.
func Auto(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	if why := Alone(p, opt.Verdict.Settings); why != "" {
		d, err := decide.Decide(ctx, p, decide.Options{MaxBytes: opt.MaxBytes, Settings: opt.Verdict.Settings})
		if err != nil {
			return nil, err
		}
		return &Result{Method: Decide, Decide: d, Alone: why}, nil
	}
	return race(ctx, opt.Verdict.Settings, []racer{
		{Decide, func(ctx context.Context, s explore.Settings) (answer, error) {
			d, err := decide.Decide(ctx, p, decide.Options{MaxBytes: opt.MaxBytes, Settings: s})
			return answer{d: d}, err
		}},
		{EnumMachine, func(ctx context.Context, s explore.Settings) (answer, error) {
			vopt := opt.Verdict
			vopt.Settings = s
			m, err := verdict.RobustMachine(ctx, p, vopt)
			return answer{m: m}, err
		}},
	})
}

// racer is one method of a race: run answers with the settings it is
// given, and stops early, uncertain, when its context is cancelled.
type racer struct {
	method string
	run    func(ctx context.Context, s explore.Settings) (answer, error)
}

// answer is what one racer answered: d for the decider, m for enumeration.
type answer struct {
	d *decide.Result
	m *verdict.RobustResult
}

func (a answer) certain() bool {
	if a.d != nil {
		return a.d.Certain()
	}
	return a.m.Certain()
}

// withinBounds reports whether an uncertain answer covered every
// configuration within the machine's bounds (enumeration cut by
// max-inflight): it is then "robust within bounds".
func (a answer) withinBounds() bool {
	return a.m != nil && a.m.Coverage() == verdict.WithinBounds
}

func (a answer) bound() string {
	if a.d != nil {
		return a.d.Bound
	}
	return a.m.Bound
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
		a   answer
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
	answers := make([]*answer, len(racers))
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
		case winner < 0 && firstErr == nil && d.a.certain():
			winner = d.i
			answers[d.i] = &d.a
			cancel()
		default:
			answers[d.i] = &d.a
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	certain := winner >= 0
	if !certain {
		winner = 0
		for i, a := range answers {
			if a.withinBounds() {
				winner = i
				break
			}
		}
	}
	res := &Result{Method: racers[winner].method, Decide: answers[winner].d, Machine: answers[winner].m}
	for i, r := range racers {
		if i == winner {
			continue
		}
		st := verdict.StoppedMethod{Method: r.method}
		if !certain {
			st.Bound = answers[i].bound()
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
	for _, s := range stats {
		t.States += s.States
		t.Transitions += s.Transitions
		t.Frontier += s.Frontier
		t.StoreBytes += s.StoreBytes
		t.DiskBytes += s.DiskBytes
		t.MaxDepth = max(t.MaxDepth, s.MaxDepth)
		t.Elapsed = max(t.Elapsed, s.Elapsed)
	}
	return t
}
