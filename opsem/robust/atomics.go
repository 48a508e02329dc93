package robust

import (
	"context"
	"fmt"
	"time"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
)

// HuntBudget is how many states the decider's experimental instrumentation
// of remote atomics may store when method Auto, not opted in to it, runs it
// after an uncertain enumeration (see autoAtomics). The spinning locks of
// corpus/protocols need at most 40,000 at N = 2; at N = 3 their hunts do
// not finish, and a budget of 2,000,000 let atomics-tas-spin's run past
// 1,100,000 states in the two minutes after its enumeration's 82 s (at
// about 10,000 states a second): auto's answer is enumeration's anyway.
const HuntBudget = 500_000

// Hunt is what the decider's experimental instrumentation of remote atomics
// said when method Auto ran it after enumeration gave no certain answer and
// it found no violation with a checked witness (see autoAtomics). It does not
// change the answer: the instrumentation's "robust" rests on a normal form
// that SEMANTICS-ATOMICS.md section 5 does not prove for atomics.
type Hunt struct {
	// Complete: the instrumented machine was searched to the end and has no
	// violation (robust, if the normal form holds).
	Complete bool `json:"complete"`
	// States counts its states.
	States uint64 `json:"states"`
	// Bound is what cut the search when not complete: a bound, or that a
	// violation it found had no checked witness.
	Bound string `json:"bound,omitempty"`
	// Err is why it did not answer at all.
	Err string `json:"error,omitempty"`
}

// String is the hunt as the headline says it, after enumeration's note
// that the decider does not cover remote atomics.
func (h *Hunt) String() string {
	const who = "its experimental instrumentation of them"
	switch {
	case h.Err != "":
		return fmt.Sprintf("%s failed: %s", who, h.Err)
	case h.Complete:
		return fmt.Sprintf("%s finds no violation in %s (a complete search, but no proof: SEMANTICS-ATOMICS.md section 5)", who, report.Plural(int(h.States), "state"))
	}
	return fmt.Sprintf("%s finds no violation in %s (stopped by %s)", who, report.Plural(int(h.States), "state"), h.Bound)
}

// autoAtomics answers for method Auto on a program with remote atomics that
// the decider is not to answer alone: enumeration on the machine first. If
// its answer is not certain (loops bounded by the unroll bound, or a bound of
// the machine or the search), the decider runs with its experimental
// instrumentation of atomics (decide.Options.AllowAtomics) as a hunt for
// violations, within HuntBudget states unless opted in:
//   - a violation it finds with a witness is certain, whatever the normal
//     form: the witness is an RDMA-consistent trace of the declarative model
//     with an sc cycle, replayed on the RDMA machine (decide checks both), so
//     it is the answer;
//   - a complete search without violation is the answer only when the user
//     opted in (Options.AtomicsExperimental; the headline says EXPERIMENTAL);
//     otherwise enumeration's answer stands, with the hunt in Result.Hunt.
func autoAtomics(ctx context.Context, p *prog.Program, opt Options) (*Result, error) {
	start := time.Now()
	e := opt
	e.Method = EnumMachine
	r, err := byMethod(ctx, p, e)
	if err != nil {
		return nil, err
	}
	r.Alone = AloneAtomics
	if r.Certain() || ctx.Err() != nil {
		return r, nil
	}
	d := opt
	d.Method, d.AtomicsExperimental = Decider, true
	if s := &d.Verdict.Settings; !opt.AtomicsExperimental && (s.MaxStates == 0 || s.MaxStates > HuntBudget) {
		s.MaxStates = HuntBudget
	}
	if s := &d.Verdict.Settings; s.Timeout > 0 {
		if s.Timeout -= time.Since(start); s.Timeout <= 0 {
			return r, nil
		}
	}
	h, err := byMethod(ctx, p, d)
	switch {
	case err != nil:
		r.Hunt = &Hunt{Err: err.Error()}
		return r, nil
	case !h.Robust && h.Trace != nil && h.WitnessCut == "":
		h.Stopped = append(h.Stopped, Stopped{Method: EnumMachine, Bound: r.Bound})
		return h, nil
	case h.Robust && h.Complete && opt.AtomicsExperimental:
		h.Stopped = append(h.Stopped, Stopped{Method: EnumMachine, Bound: r.Bound})
		return h, nil
	}
	r.Hunt = &Hunt{Complete: h.Robust && h.Complete, States: h.Search.States, Bound: h.Bound}
	if !h.Robust {
		r.Hunt.Bound = "a violation without a concrete witness (" + h.WitnessCut + ")"
	}
	return r, nil
}
