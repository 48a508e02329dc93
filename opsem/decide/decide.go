// Package decide decides robustness with the seed paper's instrumentation
// (section 6): it searches the instrumented SC machine of package
// opsem/instr for a target state, deciding coverability with Karp–Miller
// acceleration when poll counters can grow without bound, so that it
// terminates on every program, loops and polls included.
//
// A violation found is turned into a witness: the violating trace τ = τ1 τ2
// with its values, rf, mo, nfo and pf, which is checked against the
// declarative model (ob acyclic, sc cyclic) and replayed on the RDMA
// queue-pair machine as a concrete run.
package decide

import (
	"context"
	"fmt"
	"time"

	"rdmasim/explore"
	"rdmasim/explore/cover"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/prog"
)

// Options configure a decision.
type Options struct {
	// EagerGuess guesses the boundary memory up front (see instr.Options).
	EagerGuess bool
	// MaxStates bounds the states of the instrumented search; zero means
	// no bound. A search cut by it answers nothing certain.
	MaxStates uint64
	// Timeout bounds the search; zero means none.
	Timeout time.Duration
	// Progress, if non-nil, is called about once a second.
	Progress func(explore.Stats)
	// NoWitness skips rebuilding, checking and replaying the violation.
	NoWitness bool
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
	// Counters is the number of poll counters of the instrumented program.
	Counters int
	// Witness is the violation, when not robust (and not NoWitness).
	Witness *Witness
}

// Certain reports whether the answer is certain.
func (r *Result) Certain() bool { return !r.Robust || r.Complete }

// Decide decides whether p is robust.
func Decide(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	m, err := instr.New(p, instr.Options{EagerGuess: opt.EagerGuess})
	if err != nil {
		return nil, err
	}
	s := cover.New(m, cover.Options{MaxStates: opt.MaxStates, Timeout: opt.Timeout, Progress: opt.Progress})
	sr, err := s.Run(ctx, m.Target)
	if err != nil {
		return nil, fmt.Errorf("deciding robustness of %s: %w", p.Name, err)
	}
	res := &Result{Robust: sr.Found < 0, Search: sr, Counters: m.Counters()}
	switch sr.Stop {
	case explore.Complete:
		res.Complete = true
	case explore.Stopped:
	case explore.StateLimit:
		res.Bound = fmt.Sprintf("max-states=%d", opt.MaxStates)
	case explore.TimeLimit:
		res.Bound = fmt.Sprintf("timeout=%s", opt.Timeout)
	default:
		res.Bound = sr.Stop.String()
	}
	if res.Robust || opt.NoWitness {
		return res, nil
	}
	path, err := s.Path(sr.Found)
	if err != nil {
		return nil, err
	}
	if hasOmega(m, path) {
		// The abstract run pumps counters; find a concrete one.
		path, err = concrete(ctx, m, opt)
		if err != nil {
			return nil, fmt.Errorf("deciding robustness of %s: %w", p.Name, err)
		}
	}
	w, err := buildWitness(m, path)
	if err != nil {
		return nil, fmt.Errorf("deciding robustness of %s: %w", p.Name, err)
	}
	res.Witness = w
	return res, nil
}

// hasOmega reports whether a state of path has an ω counter.
func hasOmega(m *instr.Machine, path []explore.Step) bool {
	k := m.Counters()
	for _, st := range path {
		c := st.State[len(st.State)-4*k:]
		for j := 0; j < k; j++ {
			if c[4*j]&c[4*j+1]&c[4*j+2]&c[4*j+3] == 0xFF {
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
		return nil, fmt.Errorf("no concrete run to the violation found by the accelerated search (%s after %d states)", r.Stop, r.States)
	}
	return s.Path(uint64(found))
}
