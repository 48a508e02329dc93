// Package stress tests a program the way litmus7 tests hardware: it takes
// many random walks over the RDMA (or SC) machine of the program and counts
// the final outcomes they reach, giving a histogram of outcomes with their
// frequencies instead of the exact set of outcomes that verdict computes.
//
// Each walk starts at the initial configuration and takes transitions
// chosen uniformly at random among those enabled until it reaches a final
// configuration, a configuration with no enabled transition (blocked, or cut
// by a bound such as max-inflight), or the depth bound. Loops make runs
// unbounded: walks follow them up to the depth bound.
//
// With a bias P > 0, at every configuration where both a CPU step of some
// thread and some NIC step are enabled, a step chooses, with probability P,
// uniformly among the CPU steps only (and otherwise uniformly among all
// enabled transitions). NIC steps are thereby delayed: operations stay
// longer in the queue-pair buffers, and reorderings that need many CPU steps
// to overtake a NIC step (such as a put reading its source after later local
// writes) become frequent.
//
// Walks are reproducible: the same program, options and seed give the same
// walks, the same histogram and the same first witness.
package stress

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// DefaultDepth is the step bound of one walk when Options.Depth is zero.
const DefaultDepth = 10000

// seedStream is the PCG stream (second seed word) of every stress run; the
// first word is Options.Seed.
const seedStream = 0x5eed

// Options configure a stress run.
type Options struct {
	Semantics machine.Semantics
	Machine   machine.Options // bounds; Dead is computed by Run
	Walks     uint64          // walks to take
	Depth     int             // steps per walk at most; 0 means DefaultDepth
	// Bias is the probability, in [0, 1], of preferring CPU steps over NIC
	// steps where both are enabled (see the package comment).
	Bias float64
	Seed uint64 // seeds the generator (PCG)
	// First stops at the first walk that decides the query (see
	// Result.First) and records it.
	First bool
	// Progress, when non-nil, is called about once a second.
	Progress func(Progress)
}

// Progress is a snapshot of a running stress test.
type Progress struct {
	Walks, Steps uint64
	Elapsed      time.Duration
}

// Outcome is one distinct final outcome: the values of Result.Locs, and how
// many walks ended in it.
type Outcome struct {
	Values []uint8
	// Satisfies: the query's condition holds in the outcome (always false
	// for reach queries, which are about every configuration of a walk, and
	// for files without a query).
	Satisfies bool
	Count     uint64
}

// Witness is the walk that decided the query, for Options.First.
type Witness struct {
	Walk uint64 // 1-based number of the walk
	// End is why the walk ended: "final", or "reach" when a reach query's
	// condition held at its last configuration.
	End       string
	Run       *verdict.Run
	FinalText string // the last configuration, printed
}

// Result is the outcome of a stress run.
type Result struct {
	Semantics machine.Semantics
	Query     prog.Query
	Locs      []int     // locations shown in outcomes
	Outcomes  []Outcome // distinct final outcomes, sorted by value
	// Walks counts the walks taken (an interrupted walk is not counted);
	// Final, Blocked, CutDepth, CutBound and Stopped split them by how they
	// ended: at a final configuration, at a configuration with no enabled
	// transition, by the depth bound, by a machine bound (max-inflight,
	// unroll) that disabled every transition, or (Options.First on a reach
	// query) at the first configuration satisfying the condition.
	Walks, Final, Blocked, CutDepth, CutBound, Stopped uint64
	// Deadlocked counts the Blocked walks that ended in a deadlock (a
	// thread waits at a poll with nothing left to complete, see
	// machine.Deadlock) rather than at an assume whose test fails.
	Deadlocked uint64
	Steps      uint64 // transitions taken in all
	// Positive and Negative count walks: for exists, ~exists and forall,
	// the walks ending in a final configuration that satisfies the
	// condition, and those ending in one that does not; for reach, the
	// walks on which some configuration satisfies it, and the others. Both
	// are zero without a query.
	Positive, Negative uint64
	// Pruned is the set of machine bounds that cut some transition on some
	// walk; Bound names them ("" when none did).
	Pruned      uint32
	Bound       string
	Interrupted bool // the context was cancelled before every walk was taken
	Elapsed     time.Duration
	// First is the first walk that decided the query, under Options.First:
	// one ending in a final configuration that satisfies the condition
	// (exists, ~exists, no query: any final configuration) or violates it
	// (forall), or for reach the walk up to the first configuration that
	// satisfies it. Nil when none was found or First is off.
	First *Witness
}

// Validated reports whether the walks validate the query's claim, as
// litmus7 says: for exists and reach some walk satisfied the condition, for
// ~exists none did, for forall every walk that reached a final
// configuration did. Random walks cannot prove the absence of an outcome,
// so a false for exists (or a true for ~exists) is evidence, not proof.
func (r *Result) Validated() bool {
	switch r.Query.Kind {
	case prog.QNotExists:
		return r.Positive == 0
	case prog.QForall:
		return r.Negative == 0
	}
	return r.Positive > 0
}

// IsCPU reports whether the RDMA machine's transition label l is a CPU step
// of a thread (rule "step"), as opposed to a NIC rule (N1-N8, F1, F2).
// Labels are thread | rule<<8 | qp<<16 | arg<<24 (opsem/machine).
func IsCPU(l explore.Label) bool { return uint8(l>>8) == machine.RuleStep }

// progressEvery is how many steps pass between looks at the clock.
const progressEvery = 1 << 15

// Run takes opt.Walks random walks over the machine of p and collects their
// outcomes. A cancelled ctx stops it early with what was collected so far
// (Result.Interrupted); the error is for machines that cannot be built.
func Run(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	if opt.Bias < 0 || opt.Bias > 1 {
		return nil, fmt.Errorf("stress %s: bias %g: must be in [0, 1]", p.Name, opt.Bias)
	}
	if opt.Depth <= 0 {
		opt.Depth = DefaultDepth
	}
	q := p.Query
	cond := q.Cond
	if cond == nil {
		cond = &prog.Cond{Op: prog.CTrue}
	}
	res := &Result{Semantics: opt.Semantics, Query: q, Locs: verdict.ShownLocations(p)}
	mopt := opt.Machine
	mopt.Dead = machine.DeadLocations(p, res.Locs)
	mopt.ReadNow = true
	m, err := machine.New(p, opt.Semantics, mopt)
	if err != nil {
		return nil, fmt.Errorf("stress %s under %s: %w", p.Name, opt.Semantics, err)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, seedStream))
	w := explore.NewWalker(m, rng, explore.WalkerOptions{
		MaxSteps: opt.Depth,
		Prefer:   IsCPU,
		Bias:     opt.Bias,
		Trace:    opt.First,
		Done:     ctx.Done(),
	})
	st := m.NewState()
	index := map[string]int{} // outcome values -> index in res.Outcomes
	key := make([]byte, len(res.Locs))

	// For reach queries every configuration of a walk is looked at, until
	// one satisfies the condition.
	reach := q.Kind == prog.QReach
	var hit bool
	var visit func(int, []byte) bool
	if reach {
		visit = func(_ int, s []byte) bool {
			if hit {
				return true
			}
			m.Decode(s, st)
			hit = cond.Eval(p, st)
			return !hit || !opt.First
		}
	}

	start := time.Now()
	lastLook, lastReport := uint64(0), start
	done := ctx.Done()
walks:
	for res.Walks < opt.Walks {
		select {
		case <-done:
			res.Interrupted = true
			break walks
		default:
		}
		hit = false
		r := w.Walk(visit)
		res.Steps += uint64(r.Steps)
		res.Pruned |= r.Pruned
		stopped := r.End == explore.EndStopped && reach && hit && opt.First
		if r.End == explore.EndStopped && !stopped {
			res.Interrupted = true // ctx.Done was closed during the walk
			break
		}
		res.Walks++
		decides := false
		if reach {
			if hit {
				res.Positive++
			} else {
				res.Negative++
			}
			decides = hit
		}
		if stopped {
			res.Stopped++
		} else {
			m.Decode(w.State(), st)
			switch {
			case m.Final(st):
				res.Final++
				for i, l := range res.Locs {
					key[i] = st.Mem(l)
				}
				i, ok := index[string(key)]
				if !ok {
					i = len(res.Outcomes)
					index[string(key)] = i
					sat := !reach && q.Kind != prog.QNone && cond.Eval(p, st)
					res.Outcomes = append(res.Outcomes, Outcome{Values: append([]uint8(nil), key...), Satisfies: sat})
				}
				o := &res.Outcomes[i]
				o.Count++
				if !reach {
					if q.Kind != prog.QNone {
						if o.Satisfies {
							res.Positive++
						} else {
							res.Negative++
						}
					}
					decides = o.Satisfies == (q.Kind != prog.QForall) || q.Kind == prog.QNone
				}
			case r.End == explore.EndDepth:
				res.CutDepth++
			case r.LastPruned != 0:
				res.CutBound++
			default:
				res.Blocked++
				if m.StuckEncoded(w.State()) == machine.Deadlock {
					res.Deadlocked++
				}
			}
		}
		if opt.First && decides {
			res.First = witness(m, w, res.Walks, reach)
			break
		}
		if opt.Progress != nil && res.Steps-lastLook >= progressEvery {
			lastLook = res.Steps
			if now := time.Now(); now.Sub(lastReport) >= time.Second {
				lastReport = now
				opt.Progress(Progress{Walks: res.Walks, Steps: res.Steps, Elapsed: now.Sub(start)})
			}
		}
	}
	res.Elapsed = time.Since(start)
	if res.Pruned != 0 {
		res.Bound = machine.PrunedString(res.Pruned, mopt)
	}
	sort.Slice(res.Outcomes, func(i, j int) bool {
		return string(res.Outcomes[i].Values) < string(res.Outcomes[j].Values)
	})
	return res, nil
}

// witness replays the walker's last walk as a described run.
func witness(m *machine.Machine, w *explore.Walker, walk uint64, reach bool) *Witness {
	run := verdict.Explain(m, m.Initial(nil), w.Trace())
	prev := run.Last()
	end := "final"
	if reach {
		end = "reach"
	}
	return &Witness{Walk: walk, End: end, Run: run, FinalText: m.Format(prev)}
}
