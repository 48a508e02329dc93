// Package decide decides robustness with the seed paper's instrumentation
// (section 6): it searches the instrumented SC machine of package
// opsem/instr for a target state. When the machine is finite (no poll lies
// on a loop, so every poll counter has a finite cap), the search is explore's
// breadth-first search, with everything that search offers: workers, a
// visited set on disk, a memory budget, a frontier that spills, checkpoints.
// Otherwise poll counters can grow without bound: explore's search runs
// first all the same, and is exact when no reachable state has a counter
// above counterCeiling; at the first that has, the search is package
// explore/cover's Karp–Miller construction, which decides coverability, so
// that the decider terminates on every program, loops and polls included;
// it runs in memory on one core.
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
	"strings"
	"time"

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
	// AllowAtomics decides programs with remote atomics instead of
	// refusing them (instr.Options.AllowAtomics): EXPERIMENTAL, its
	// "robust" rests on a normal form not proved for atomics.
	AllowAtomics bool

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
	// Blocks, when the decision took one search per block of threads
	// (see Decide), lists them: "3 blocks of threads that can share an
	// SC cycle, one searched per orbit of the symmetry: {client[0]
	// server} (and 2 images)". Empty for one search.
	Blocks string
	// WitnessCut names the bound that cut the search for a concrete run
	// behind a violation the Karp–Miller search found with pumped
	// counters ("max-states=N"). The violation is certain all the same
	// (the construction decides coverability exactly); only its witness
	// is missing.
	WitnessCut string
}

// Certain reports whether the answer is certain.
func (r *Result) Certain() bool { return !r.Robust || r.Complete }

// Decide decides whether p is robust. Every SC cycle lies within one block
// of threads of p's conflict graph (instr.Blocks): when there are several,
// Decide searches the instrumented machine once per block, restricted to
// cycles among its threads (and once per block up to the program's
// symmetry), instead of once with every thread free to mark an exit; the
// restricted searches are each much smaller than the whole, whose states
// multiply every thread's choice of an exit. The answer is the same: not
// robust exactly when some block's search finds a target. On a cluster
// (Settings.Remote) each block's search travels with its own job, which
// names the block.
func Decide(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	blocks := instr.Blocks(p)
	if len(blocks) <= 1 {
		var only uint64
		if len(blocks) == 1 {
			only = blocks[0]
		}
		return decideBlock(ctx, p, opt, only, true)
	}
	var sym *prog.Symmetry
	if opt.Symmetry {
		sym = findSymmetry(p, opt)
	}
	reps, images, invariant := orbitRepresentatives(p, sym, blocks)
	res := &Result{Workers: 1, Blocks: blockString(p, reps, images)}
	if len(reps) < len(blocks) {
		res.Symmetry = sym.String() + ", one block searched per orbit"
	}
	var deadline time.Time
	if opt.Timeout > 0 {
		deadline = time.Now().Add(opt.Timeout)
	}
	for i, b := range reps {
		bopt := opt
		bopt.Progress = named(opt.Progress, fmt.Sprintf("%s robustness (decider, block %d of %d: %s)", p.Name, i+1, len(reps), threadSet(p, b)))
		if opt.MaxStates > 0 {
			if res.Search.States >= opt.MaxStates {
				res.Complete, res.Bound = false, bound(explore.StateLimit, opt)
				return res, nil
			}
			bopt.MaxStates = opt.MaxStates - res.Search.States
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				res.Complete, res.Bound = false, bound(explore.TimeLimit, opt)
				return res, nil
			}
			bopt.Timeout = left
		}
		r, err := decideBlock(ctx, p, bopt, b, invariant[i])
		if err != nil {
			return nil, err
		}
		res.add(r)
		if r.Bound != "" {
			res.Bound = r.Bound // an absolute bound names opt's, not bopt's
			switch r.Search.Stop {
			case explore.StateLimit, explore.TimeLimit:
				res.Bound = bound(r.Search.Stop, opt)
			}
		}
		if !r.Robust || r.Search.Stop == explore.Canceled {
			res.Complete = false
			return res, nil
		}
		if !r.Complete {
			return res, nil
		}
	}
	res.Robust, res.Complete = true, true
	res.Search.Stop = explore.Complete
	return res, nil
}

// add folds the result r of one block's search into res: its counts, and
// its answer when it is the last.
func (res *Result) add(r *Result) {
	s := &res.Search
	s.States += r.Search.States
	s.Transitions += r.Search.Transitions
	s.MaxDepth = max(s.MaxDepth, r.Search.MaxDepth)
	s.Elapsed += r.Search.Elapsed
	s.StoreBytes = max(s.StoreBytes, r.Search.StoreBytes)
	s.DiskBytes = max(s.DiskBytes, r.Search.DiskBytes)
	s.Accelerations += r.Search.Accelerations
	s.Stop, s.Found = r.Search.Stop, r.Search.Found
	res.Robust, res.Complete = r.Robust, r.Complete
	res.KarpMiller = res.KarpMiller || r.KarpMiller
	res.Workers = max(res.Workers, r.Workers)
	res.Counters = max(res.Counters, r.Counters)
	res.Witness, res.WitnessCut = r.Witness, r.WitnessCut
	if r.Symmetry != "" && !strings.Contains(res.Symmetry, "within a block") {
		if res.Symmetry != "" {
			res.Symmetry += "; "
		}
		res.Symmetry += r.Symmetry + " within a block"
	}
}

// decideBlock decides whether p has a violation whose SC cycle lies among
// the threads of block (every thread when 0), searching the instrumented
// machine restricted to them. When Settings.Symmetry asks for it, the
// search reduces by p's symmetry group if symmetric (the group maps the
// block onto itself, as it does the one block of a program whose conflict
// graph is one block), else by the permutations that fix the block's
// threads (prog.Symmetry.Without).
func decideBlock(ctx context.Context, p *prog.Program, opt Options, block uint64, symmetric bool) (*Result, error) {
	// The job is the machine's one recipe (symmetry included); the
	// Karp–Miller search takes the same machine without its symmetry.
	j := job.Job{Kind: job.Decide, Semantics: machine.RDMA, Symmetry: opt.Symmetry,
		Decider: job.Decider{EagerGuess: opt.EagerGuess, Block: block, Symmetric: symmetric, AllowAtomics: opt.AllowAtomics}}
	b, err := j.BuildFrom(p)
	if err != nil {
		return nil, err
	}
	m := b.Instr
	var (
		sr   cover.Result
		path func(int64) ([]explore.Step, error)
		res  = &Result{Counters: m.Counters(), Workers: 1}
	)
	start := time.Now()
	finite := m.Finite()
	over := false
	if !opt.KarpMiller && (finite || opt.Remote == nil) {
		if b.Symmetry != nil {
			res.Symmetry = b.Symmetry.String()
		}
		var ceiling uint32 // none: every counter is capped
		if !finite {
			ceiling = counterCeiling
		}
		var closeSearch func()
		sr, res.Workers, path, closeSearch, over, err = search(ctx, p, m, j, opt, ceiling)
		if err == nil {
			if over {
				closeSearch()
				res.Symmetry = ""
			} else {
				defer closeSearch()
			}
		}
	}
	if err == nil && (opt.KarpMiller || !finite && (opt.Remote != nil || over)) {
		m.UseSymmetry(nil)
		kopt := cover.Options{MaxStates: opt.MaxStates, Timeout: opt.Timeout, Progress: named(opt.Progress, p.Name+" decider (Karp–Miller)"), MaxBytes: opt.MaxBytes}
		if opt.Timeout > 0 {
			if kopt.Timeout -= time.Since(start); kopt.Timeout <= 0 {
				kopt.Timeout = time.Nanosecond
			}
		}
		res.KarpMiller, res.Workers = true, 1
		s := cover.New(m, kopt)
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

// counterCeiling is the counter value past which the decider gives an
// instrumented machine with a poll on a loop to the Karp–Miller
// construction: up to it, explore's search (workers, symmetry, a visited
// set on disk, a fraction of the memory) runs it, and finishes exactly when
// no reachable state has a counter above it. A loop that submits faster
// than it polls passes it within a few iterations.
const counterCeiling = 8

// search runs explore's search of the finite instrumented machine m until a
// target state: Found in the result is its id, or -1. It also returns the
// number of workers that expanded states, the paths to the states found,
// and release, which releases the search once its paths are no longer
// needed.
//
// With a ceiling (not 0), the machine may be infinite (a poll on a loop):
// the search stops, over, at the first state with a counter above the
// ceiling, for the Karp–Miller construction to decide instead; when no
// state has one, the machine's reachable part is finite after all and the
// search is exact.
func search(ctx context.Context, p *prog.Program, m *instr.Machine, j job.Job, opt Options, ceiling uint32) (res cover.Result, workers int, path func(int64) ([]explore.Step, error), release func(), over bool, err error) {
	res.Found = -1
	first := explore.FirstWhere(m.Clone().Target) // a clone: Visit may run while m expands a state
	k := m.Counters()
	s, closeSearch, err := opt.Open(explore.Cloning(m), explore.Caller{
		Key:   j.Key(),
		Job:   j.Encode(),
		Name:  p.Name + " robustness (decider)",
		Trace: !opt.NoWitness,
		Visit: func(id uint64, st []byte, _ int) bool {
			if ceiling > 0 {
				c := st[len(st)-cover.CounterBytes*k:]
				for x := 0; x < k; x++ {
					if cover.Counter(c, x) > ceiling {
						over = true
						return false
					}
				}
			}
			if !first.Visit(id, st, 0) {
				res.Found = first.ID
				return false
			}
			return true
		},
		Meta:    json.RawMessage(j.Encode()),
		Save:    func() (json.RawMessage, error) { return json.Marshal(res.Found) },
		Restore: func(b json.RawMessage) error { return json.Unmarshal(b, &res.Found) },
	})
	if err != nil {
		return res, 0, nil, nil, false, err
	}
	r, err := s.Run(ctx)
	if err != nil {
		closeSearch()
		return res, 0, nil, nil, false, err
	}
	res.Stats, res.Stop = r.Stats, r.Stop
	if res.Found >= 0 {
		// A resumed search that had found its target ends at once.
		res.Stop = explore.Stopped
	}
	path = func(id int64) ([]explore.Step, error) { return s.Path(uint64(id)) }
	return res, r.Workers, path, closeSearch, over, nil
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
	first := explore.FirstWhere(m.Clone().Target)
	s := explore.New(m, explore.Options{Trace: true, MaxStates: opt.MaxStates, Timeout: opt.Timeout, Visit: first.Visit})
	r, err := s.Run(ctx)
	if err != nil {
		return nil, err
	}
	if !first.Found() {
		return nil, &NoConcreteRunError{Stop: r.Stop, States: r.States}
	}
	return s.Path(uint64(first.ID))
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

// findSymmetry returns the verified symmetry group the decider reduces p
// by, as its job builds it (job.Job.BuildFrom): prog.FindSymmetry's, or,
// for a program with remote atomics decided with Options.AllowAtomics,
// instr.AtomicsSymmetry's. nil for none.
func findSymmetry(p *prog.Program, opt Options) *prog.Symmetry {
	if prog.HasAtomics(p) {
		if !opt.AllowAtomics {
			return nil
		}
		return instr.AtomicsSymmetry(p)
	}
	sym, _ := prog.FindSymmetry(p)
	return sym
}
