// Package decide decides robustness with the seed paper's instrumentation
// (section 6): it searches the instrumented SC machine of package
// opsem/instr for a target state. When the machine is finite (no poll lies
// on a loop, so every poll counter has a finite cap), the search is explore's
// breadth-first search, with everything that search offers: workers, a
// visited set on disk, a memory budget, a frontier that spills, checkpoints.
// Otherwise poll counters can grow without bound, and the search is
// package explore/cover's Karp–Miller construction, which decides
// coverability, so that the decider terminates on every program, loops and
// polls included; it runs in memory on one core.
//
// A violation found is turned into a witness: the violating trace τ = τ1 τ2
// with its values, rf, mo, nfo and pf, which is checked against the
// declarative model (ob acyclic, sc cyclic) and replayed on the RDMA
// queue-pair machine as a concrete run.
package decide

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"rdmasim/explore"
	"rdmasim/explore/cover"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/job"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// Options configure a decision.
type Options struct {
	// EagerGuess guesses the boundary memory up front (see instr.Options).
	EagerGuess bool
	// NoWitness skips rebuilding, checking and replaying the violation.
	NoWitness bool

	// KarpMiller makes the decider use the Karp–Miller search even when
	// the instrumented machine is finite (to compare the two).
	KarpMiller bool
	// MaxBytes bounds the memory of the Karp–Miller search, which keeps
	// every state it finds: when its tree and visited set reach it, the
	// search stops, cut (Bound "mem-budget=..."). Zero means no bound.
	// explore's search keeps within NewSet's budget instead.
	MaxBytes uint64

	// Settings are those of the search. MaxStates and Timeout cut it (a
	// search cut by them answers nothing certain); Progress is called
	// about once a second. The Karp–Miller search ignores the others: it
	// runs in memory on one core, breadth-first, without checkpoints.
	// A checkpointed decision saves the target found, so that a resumed
	// one gives the result of an uninterrupted one.
	explore.Settings
}

// Result is the decider's answer.
type Result struct {
	Robust bool
	// Complete: the search covered the whole (accelerated) state space, so
	// Robust is certain. A violation is always certain.
	Complete bool
	// Bound names what cut an incomplete search.
	Bound  string
	Search cover.Result
	// KarpMiller: the search was the Karp–Miller construction (the
	// machine is infinite, or Options.KarpMiller), which runs on one core
	// in memory and is not checkpointed; else explore's search.
	KarpMiller bool
	// Workers is the number of goroutines that expanded states.
	Workers int
	// Counters is the number of poll counters of the instrumented program.
	Counters int
	// Witness is the violation, when not robust (and not NoWitness),
	// unless WitnessCut says why there is none.
	Witness *Witness
	// Symmetry describes the group the search reduced by
	// (Settings.Symmetry and a verified group of the program, see
	// prog.FindSymmetry): "4 instances of client (24 permutations)"; empty
	// without.
	Symmetry string
	// WitnessCut names the bound that cut the search for a concrete run
	// behind a violation the Karp–Miller search found with pumped
	// counters ("max-states=N"). The violation is certain all the same
	// (the construction decides coverability exactly); only its witness
	// is missing.
	WitnessCut string
}

// Certain reports whether the answer is certain.
func (r *Result) Certain() bool { return !r.Robust || r.Complete }

// Decide decides whether p is robust.
func Decide(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	m, err := instr.New(p, instr.Options{EagerGuess: opt.EagerGuess})
	if err != nil {
		return nil, err
	}
	var (
		sr   cover.Result
		path func(int64) ([]explore.Step, error)
		res  = &Result{Counters: m.Counters(), Workers: 1}
	)
	if m.Finite() && !opt.KarpMiller {
		// explore's search: its machine is the job's.
		j := job.Job{Kind: job.Decide, Semantics: machine.RDMA, Symmetry: opt.Symmetry, Decider: job.Decider{EagerGuess: opt.EagerGuess}}
		var b *job.Built
		if b, err = j.BuildFrom(p); err != nil {
			return nil, err
		}
		m = b.Instr
		if b.Symmetry != nil {
			res.Symmetry = b.Symmetry.String()
		}
		var closeSearch func()
		sr, res.Workers, path, closeSearch, err = search(ctx, p, m, j, opt)
		if err == nil {
			defer closeSearch()
		}
	} else {
		res.KarpMiller = true
		s := cover.New(m, cover.Options{MaxStates: opt.MaxStates, Timeout: opt.Timeout, Progress: named(opt.Progress, p.Name+" decider (Karp–Miller)"), MaxBytes: opt.MaxBytes})
		sr, err = s.Run(ctx, m.Target)
		path = s.Path
	}
	if err != nil {
		return nil, &explore.SearchError{Err: fmt.Errorf("deciding robustness of %s: %w", p.Name, err)}
	}
	res.Robust, res.Search = sr.Found < 0, sr
	res.Complete = sr.Stop == explore.Complete
	if !res.Complete && sr.Stop != explore.Stopped {
		res.Bound = bound(sr.Stop, opt)
	}
	if res.Robust || opt.NoWitness {
		return res, nil
	}
	steps, err := path(sr.Found)
	if err != nil {
		return nil, &explore.SearchError{Err: fmt.Errorf("deciding robustness of %s: %w", p.Name, err)}
	}
	if hasOmega(m, steps) {
		// The abstract run pumps counters; find a concrete one.
		steps, err = concrete(ctx, m, opt)
		var nc *NoConcreteRunError
		if errors.As(err, &nc) && (nc.Stop == explore.StateLimit || nc.Stop == explore.TimeLimit) {
			res.WitnessCut = bound(nc.Stop, opt)
			return res, nil
		}
		if err != nil {
			return nil, &explore.SearchError{Err: fmt.Errorf("deciding robustness of %s: %w", p.Name, err)}
		}
	}
	w, err := buildWitness(m, steps)
	if err != nil {
		return nil, &explore.SearchError{Err: fmt.Errorf("deciding robustness of %s: %w", p.Name, err)}
	}
	res.Witness = w
	return res, nil
}

// Finite reports whether the instrumented machine of p is finite, so that
// Decide searches it with explore's search (workers, visited sets on disk,
// checkpoints) rather than the Karp–Miller construction: no poll of p lies
// on a loop.
func Finite(p *prog.Program) (bool, error) {
	m, err := instr.New(p, instr.Options{})
	if err != nil {
		return false, err
	}
	return m.Finite(), nil
}

// search runs explore's search of the finite instrumented machine m until a
// target state: Found in the result is its id, or -1. It also returns the
// number of workers that expanded states, the paths to the states found,
// and release, which releases the search once its paths are no longer
// needed.
func search(ctx context.Context, p *prog.Program, m *instr.Machine, j job.Job, opt Options) (res cover.Result, workers int, path func(int64) ([]explore.Step, error), release func(), err error) {
	res.Found = -1
	target := m.Clone() // Visit may run while m expands a state
	s, closeSearch, err := opt.Open(explore.Cloning(m), explore.Caller{
		Key:   j.Key(),
		Name:  p.Name + " robustness (decider)",
		Trace: !opt.NoWitness,
		Visit: func(id uint64, st []byte, _ int) bool {
			if target.Target(st) {
				res.Found = int64(id)
				return false
			}
			return true
		},
		Meta:    json.RawMessage(j.Encode()),
		Save:    func() (json.RawMessage, error) { return json.Marshal(res.Found) },
		Restore: func(b json.RawMessage) error { return json.Unmarshal(b, &res.Found) },
	})
	if err != nil {
		return res, 0, nil, nil, err
	}
	r, err := s.Run(ctx)
	if err != nil {
		closeSearch()
		return res, 0, nil, nil, err
	}
	res.Stats, res.Stop = r.Stats, r.Stop
	if res.Found >= 0 {
		// A resumed search that had found its target ends at once.
		res.Stop = explore.Stopped
	}
	path = func(id int64) ([]explore.Step, error) { return s.Path(uint64(id)) }
	return res, r.Workers, path, closeSearch, nil
}

// bound names what stopped a search that did not complete.
func bound(stop explore.Stop, opt Options) string {
	switch stop {
	case explore.StateLimit:
		return verdict.StatesBound(opt.MaxStates)
	case explore.TimeLimit:
		return verdict.TimeoutBound(opt.Timeout)
	case explore.MemoryLimit:
		return "mem-budget=" + sizeString(opt.MaxBytes)
	}
	return stop.String() // explore.Canceled: "interrupted", as verdict says

}

// sizeString writes a size in bytes as KiB, MiB or GiB when it is a whole
// number of them.
func sizeString(n uint64) string {
	for _, u := range []struct {
		name string
		size uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// hasOmega reports whether a state of path has an ω counter.
func hasOmega(m *instr.Machine, path []explore.Step) bool {
	k := m.Counters()
	for _, st := range path {
		c := st.State[len(st.State)-cover.CounterBytes*k:]
		for j := 0; j < k; j++ {
			if cover.Counter(c, j) == cover.Omega {
				return true
			}
		}
	}
	return false
}

// concrete searches the instrumented machine without acceleration for a
// shortest run to a target, which exists because the accelerated search
// found one: breadth-first search reaches it at its finite depth.
func concrete(ctx context.Context, m *instr.Machine, opt Options) ([]explore.Step, error) {
	found := int64(-1)
	c := m.Clone()
	s := explore.New(m, explore.Options{Trace: true, MaxStates: opt.MaxStates, Timeout: opt.Timeout,
		Visit: func(id uint64, st []byte, _ int) bool {
			if c.Target(st) {
				found = int64(id)
				return false
			}
			return true
		}})
	r, err := s.Run(ctx)
	if err != nil {
		return nil, err
	}
	if found < 0 {
		return nil, &NoConcreteRunError{Stop: r.Stop, States: r.States}
	}
	return s.Path(uint64(found))
}

// NoConcreteRunError is Decide's error when the Karp–Miller search found a
// violation whose run pumps counters (ω) and the search of the machine
// without acceleration for a concrete run to it ended without one. A
// complete search that finds none is a bug of the decider; one that a
// bound cut (Stop: explore.StateLimit, TimeLimit) answers nothing.
type NoConcreteRunError struct {
	Stop   explore.Stop // how the concrete search ended
	States uint64       // the states it explored
}

func (e *NoConcreteRunError) Error() string {
	return fmt.Sprintf("no concrete run to the violation found by the accelerated search (%s after %d states)", e.Stop, e.States)
}

// named fills in the search's name in the progress reports of the
// Karp–Miller search, as explore.Settings.Open does for explore's.
func named(progress func(explore.Stats), name string) func(explore.Stats) {
	if progress == nil {
		return nil
	}
	return func(s explore.Stats) {
		s.Search = name
		progress(s)
	}
}
