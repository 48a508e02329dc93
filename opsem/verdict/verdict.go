// Package verdict answers a program's query under one semantics: it explores
// the RDMA or SC machine of the program, collects the final outcomes, counts
// the configurations that satisfy the condition, decides whether the
// condition is allowed, and keeps the shortest witness run.
//
// A verdict is three-valued in effect: a condition that some explored
// configuration satisfies is allowed for certain; "forbidden" is certain only
// when the search was complete, and otherwise carries the bound that cut it.
package verdict

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/job"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
)

// Options configure a verdict run. The search settings apply to each
// exploration of a machine that Compute and RobustMachine run; their
// checkpoints save the outcomes, counts and witness collected so far.
type Options struct {
	Machine machine.Options
	Witness bool // rebuild the witness run (keeps a parent record per state)
	// FirstWitness stops the search at the first configuration that
	// settles the query: a witness of exists or reach (an assertion that
	// fails is one), a counterexample of ~exists or forall. The answer is
	// then certain and the outcomes are those met on the way
	// (Result.AtWitness); without it every outcome is listed, as herd7
	// does.
	FirstWitness bool
	// Unchecked says that the program given to Compute is one whose
	// checked ranges were dropped (prog.WithoutRangeChecks), as
	// robustness drops them: its job says so (job.Job.Unchecked), so that
	// a search rebuilt elsewhere from the program's text (Settings.Remote)
	// explores the same machine.
	Unchecked bool
	explore.Settings
}

// Outcome is one distinct final outcome: the values of Result.Locs.
type Outcome struct {
	Values    []uint8
	Satisfies bool // the query's condition holds
}

// Result is the answer for one program under one semantics.
type Result struct {
	Semantics machine.Semantics
	Query     prog.Query
	Locs      []int     // locations shown in outcomes
	Outcomes  []Outcome // distinct final outcomes, sorted by value
	// Positive and Negative count what the condition was evaluated on:
	// distinct final outcomes for exists/~exists/forall, distinct
	// configurations for reach.
	Positive, Negative uint64
	// Allowed: some configuration of the queried kind satisfies the
	// condition (the meaning of expect ... allowed).
	Allowed bool
	// Complete: the search covered every reachable configuration.
	Complete bool
	// Bound names what cut an incomplete search.
	Bound  string
	Search explore.Result
	// Model: the result comes from the declarative model (Search.States
	// then counts traces, not configurations; Finals the distinct final
	// memories of complete traces, Failed the error points reached by
	// statement, Deadlocks the distinct memories of deadlocked traces,
	// counted only when no trace completes: see ComputeModel).
	Model bool
	// Limit, for a model result: the limit of the model that kept it from
	// answering at all (see ModelLimited); Bound then says it too.
	Limit *axiom.LimitError
	// Witness is the shortest run (under BFS; under the reduction, a step
	// and the invisible steps that settle it count as one) to the
	// configuration that decides the query: one satisfying the condition
	// for exists, ~exists and reach, one violating it for forall. Nil when
	// there is none or when Options.Witness is off.
	Witness *Run

	// Finals counts the distinct final configurations explored: every
	// thread ended, every queue pair drained.
	Finals uint64
	// Filtered counts the distinct stuck configurations in which a thread
	// waits at an assume whose test fails: runs the program filters out
	// (machine.Filtered).
	Filtered uint64
	// Deadlocks counts the distinct stuck configurations in which every
	// thread that has not ended waits at a poll with nothing left to
	// complete (machine.Deadlock).
	Deadlocks uint64
	// Failed counts the distinct stuck configurations in which a thread
	// stopped at an error point of a protocol (machine.Failed): runs that
	// end in an error, neither final nor filtered out nor deadlocked.
	Failed uint64
	// DeadlockAt says where the threads of the first deadlock found wait
	// (machine.Machine.Waiting); empty when there is none.
	DeadlockAt string
	// ErrorAt says which error point of a protocol (a failed assertion, a
	// value out of its range) the search reached first, and where:
	// "R at line 15: assertion d == 1 failed"; empty when none was.
	ErrorAt string
	// Errors are the error points the search reached, each described as
	// ErrorAt describes one (a thread at a failed assertion or a value out
	// of its range, by statement; a location holding a value out of its
	// checked range, with the value), sorted and distinct. Under symmetry
	// reduction they are those of the configurations the search kept, one
	// per orbit.
	Errors []string
	// DeadlockRun is the shortest run to a deadlock, as Witness is to the
	// query's configuration; nil when there is none or when
	// Options.Witness is off.
	DeadlockRun *Run
	// AtWitness: the search stopped at the first witness that settled
	// the query (Options.FirstWitness); Outcomes and the counts cover
	// what it met until then.
	AtWitness bool
	// Inflight, when the search's max-inflight was raised step by step
	// (check.Options.Deepen), is the bound of the search that answered:
	// the witness needed no more operations in flight per queue pair.
	Inflight int
	// Symmetry describes the group the search reduced by
	// (Settings.Symmetry and a verified group of the program, restricted
	// to what the query names, see prog.Symmetry.ForCond): "4 instances
	// of client (24 permutations)"; empty when it reduced by none. The
	// outcomes are then closed under the group (the plain search's), the
	// counts of configurations (Search, Finals, Filtered, Deadlocks, and
	// Positive and Negative for reach) are those of one configuration per
	// orbit.
	Symmetry string
}

// Vacuous reports whether every verdict of r about final configurations is
// vacuous: the query is about final configurations, the search was
// complete, no run of the program ends, and some run deadlocks or stops at
// an error point (a failed assertion, a value out of its range).
// "Forbidden" then holds only because the program never terminates
// normally: with --param N=3 a protocol whose every run overflows a range
// has no final configuration, and its exists condition is forbidden over
// nothing. Runs that an assume filters out do not count: a litmus test
// that encodes its condition in assumes and whose every run is filtered
// out under SC rightly has its condition forbidden there.
func (r *Result) Vacuous() bool {
	return r.Complete && r.Finals == 0 && (r.Deadlocks > 0 || r.Failed > 0) && r.Query.Kind != prog.QReach
}

// Coverage is how much of the state space a search covered.
type Coverage string

// Coverages.
const (
	// Complete: every reachable configuration was explored.
	Complete Coverage = "complete"
	// WithinBounds: every configuration within the machine's bounds
	// (max-inflight, unroll) was explored, and a bound cut some runs.
	WithinBounds Coverage = "within-bounds"
	// Unknown: the search stopped early (state limit, timeout, interrupt).
	Unknown Coverage = "unknown"
)

// Coverage classifies the search behind r.
func (r *Result) Coverage() Coverage {
	switch {
	case r.Complete:
		return Complete
	case r.Limit == nil && r.Search.Stop == explore.Complete:
		return WithinBounds
	}
	return Unknown
}

// Run is a sequence of transitions from the initial configuration.
type Run struct {
	Initial     []byte
	InitialText string // the initial configuration, printed
	Steps       []machine.Transition
	// Configs are the configurations of the run whole (machine.Snapshot),
	// for a step-through: Configs[0] the initial one, Configs[i] the one
	// step i reaches (Steps[i-1].Post).
	Configs []machine.Config
}

// Holds reports whether the query's claim holds (herd7's Ok), and whether
// that answer is certain (not an artefact of an incomplete search).
func (r *Result) Holds() (holds, certain bool) {
	switch r.Query.Kind {
	case prog.QNotExists:
		return !r.Allowed, r.Allowed || r.Complete
	case prog.QForall:
		return r.Negative == 0, r.Negative > 0 || r.Complete
	}
	return r.Allowed, r.Allowed || r.Complete
}

// Certain reports whether Allowed is certain: a witness exists, or the search
// was complete.
func (r *Result) Certain() bool { return r.Allowed || r.Complete }

// ShownLocations returns the locations whose final values are listed as
// outcomes: those of the query's condition; when it mentions none, every
// location for queries about final configurations (and for no query), and
// none for reach, which asks about control and memory at any point
// (job.ShownLocations).
func ShownLocations(p *prog.Program) []int { return job.ShownLocations(p) }

// OutcomeMachine returns the machine that Compute explores to answer p's
// query under sem with the options opt: the machine of a job.Outcomes job
// (see job.OutcomeMachine), with the locations nothing observes dead and,
// unless a reach condition reads one, control points hidden. A distributed
// search's workers build it from the job, as Compute does.
func OutcomeMachine(p *prog.Program, sem machine.Semantics, opt machine.Options) (*machine.Machine, error) {
	return job.OutcomeMachine(p, sem, opt)
}

// Compute explores p under sem and answers its query.
func Compute(ctx context.Context, p *prog.Program, sem machine.Semantics, opt Options) (*Result, error) {
	q := p.Query
	cond := q.Cond
	if cond == nil {
		cond = &prog.Cond{Op: prog.CTrue}
	}
	res := &Result{Semantics: sem, Query: q, Locs: ShownLocations(p)}
	// A search that other processes expand (opt.Remote) is reduced by
	// symmetry as this one: they build the machine from the job, reduced
	// (job.Machine).
	j := job.Job{Kind: job.Outcomes, Semantics: sem, Machine: job.MachineOf(opt.Machine), Symmetry: opt.Symmetry,
		Unchecked: opt.Unchecked}
	b, err := j.BuildFrom(p)
	if err != nil {
		return nil, err
	}
	m, sym := b.Outcome, b.Symmetry
	t := newTally(p, m, cond, res, opt.FirstWitness)
	c := explore.Caller{
		Key:   j.Key(),
		Job:   j.Encode(),
		Name:  p.Name + " " + sem.String(),
		Trace: opt.Witness,
		Visit: t.visit,
		Meta:  json.RawMessage(j.Encode()),
		// A checkpoint saves the tally.
		Save:    t.save,
		Restore: t.restore,
	}
	search, closeSet, err := opt.Open(explore.Cloning(m), c)
	if err != nil {
		return nil, &explore.SearchError{Err: err}
	}
	defer closeSet()
	sr, err := search.Run(ctx)
	if err != nil {
		return nil, &explore.SearchError{Err: fmt.Errorf("exploring %s under %s: %w", p.Name, sem, err)}
	}
	res.Search = sr
	if sym != nil && search.Reduced() {
		res.Symmetry = sym.String()
		t.closeUnder(sym)
	}
	res.Complete = sr.Stop == explore.Complete && sr.Pruned == 0
	res.AtWitness = sr.Stop == explore.Stopped && t.witness >= 0
	res.Bound = searchBound(sr, res.AtWitness, opt)
	t.finish()
	if opt.Witness {
		if err := t.rebuildRuns(search, sem); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// ComputeMachines answers p's query on both machines with Compute, RDMA
// then SC, as ComputeModel does with the declarative model: the results
// are indexed as the pairs of results elsewhere (prog.RDMA, prog.SC), and
// errs[i] is the error of machine i, whose result is then nil.
func ComputeMachines(ctx context.Context, p *prog.Program, opt Options) (res [2]*Result, errs [2]error) {
	return ComputeMachinesWith(ctx, p, opt, Compute)
}

// A ComputeFunc answers p's query under one semantics, as Compute does.
type ComputeFunc func(ctx context.Context, p *prog.Program, sem machine.Semantics, opt Options) (*Result, error)

// ComputeMachinesWith is ComputeMachines with compute in Compute's place
// (check raises max-inflight step by step with one).
func ComputeMachinesWith(ctx context.Context, p *prog.Program, opt Options, compute ComputeFunc) (res [2]*Result, errs [2]error) {
	for i, sem := range [2]machine.Semantics{machine.RDMA, machine.SC} {
		res[i], errs[i] = compute(ctx, p, sem, opt)
		if errs[i] != nil {
			res[i] = nil
		}
	}
	return res, errs
}

// searchBound names what cut search sr short, "" when nothing did: the
// first witness (with FirstWitness) or the limit that stopped it, and the
// transitions the machine's bounds pruned.
func searchBound(sr explore.Result, atWitness bool, opt Options) string {
	var bound string
	switch {
	case atWitness:
		bound = "the first witness"
	case sr.Stop != explore.Complete:
		bound = stopBound(sr.Stop, opt)
	case sr.Pruned != 0:
		return machine.PrunedString(sr.Pruned, opt.Machine)
	}
	if sr.Pruned != 0 {
		bound += ", " + machine.PrunedString(sr.Pruned, opt.Machine)
	}
	return bound
}

// OutcomeSymmetry makes m, a machine OutcomeMachine built for p, reduce by
// the part of p's verified group under which its query is invariant, and
// returns it; nil when there is none (job.OutcomeSymmetry).
func OutcomeSymmetry(p *prog.Program, m *machine.Machine) *prog.Symmetry {
	return job.OutcomeSymmetry(p, m)
}

// explain turns an explorer path into described transitions.
func explain(m *machine.Machine, path []explore.Step) *Run {
	labels := make([]explore.Label, 0, len(path)-1)
	for _, st := range path[1:] {
		labels = append(labels, st.Label)
	}
	return Explain(m, path[0].State, labels)
}

// Explain describes the run of m from initial by the transitions labels,
// every step of the machine included (ExplainChain: under the reduction, a
// label stands for a step and the invisible steps that settle it).
func Explain(m *machine.Machine, initial []byte, labels []explore.Label) *Run {
	run := &Run{Initial: append([]byte(nil), initial...), InitialText: m.Format(initial), Configs: []machine.Config{m.Snapshot(initial)}}
	prev := initial
	for _, l := range labels {
		ts := m.ExplainChain(prev, l)
		run.Steps = append(run.Steps, ts...)
		for _, t := range ts {
			run.Configs = append(run.Configs, m.Snapshot(t.Post))
		}
		prev = ts[len(ts)-1].Post
	}
	return run
}

// Last returns the configuration the run ends in.
func (r *Run) Last() []byte {
	if len(r.Steps) == 0 {
		return r.Initial
	}
	return r.Steps[len(r.Steps)-1].Post
}

// StatesBound names a limit of n distinct states as the bound that cut a
// search: "max-states=100000".
func StatesBound(n uint64) string { return fmt.Sprintf("max-states=%d", n) }

// TimeoutBound names a time limit d as the bound that cut a search:
// "timeout=30s".
func TimeoutBound(d time.Duration) string { return fmt.Sprintf("timeout=%s", d) }

// stopBound names the bound that stopped a search, from its settings.
func stopBound(s explore.Stop, opt Options) string {
	switch s {
	case explore.StateLimit:
		return StatesBound(opt.MaxStates)
	case explore.TimeLimit:
		return TimeoutBound(opt.Timeout)
	case explore.Canceled:
		return "interrupted"
	}
	return s.String()
}

// HasErrorPoints reports whether a run of p may stop at an error point: a
// thread's prog.OpFail (an assertion, a value that can leave its range) or
// a location's checked range (prog.Range).
func HasErrorPoints(p *prog.Program) bool {
	if prog.HasRangeChecks(p) {
		return true
	}
	for t := range p.Threads {
		for _, in := range p.Threads[t].Code {
			if in.Op == prog.OpFail {
				return true
			}
		}
	}
	return false
}

// ErrorAt describes the error point cfg is stopped at, "T at line L: what
// failed" (a location out of its range first, then the first thread at
// one), or returns "".
func ErrorAt(p *prog.Program, cfg prog.Config) string {
	if es := ErrorPoints(p, cfg); len(es) > 0 {
		return es[0]
	}
	return ""
}

// ErrorPoints describes every error point of cfg, as ErrorAt does: the
// location out of its range first, then each thread at an OpFail.
func ErrorPoints(p *prog.Program, cfg prog.Config) []string {
	var out []string
	if l := p.OutOfRange(cfg); l >= 0 {
		out = append(out, p.RangeError(l, cfg.Mem(l)))
	}
	for t := range p.Threads {
		pc, _ := cfg.PC(t)
		if in := &p.Threads[t].Code[pc]; in.Op == prog.OpFail {
			out = append(out, fmt.Sprintf("%s at line %d: %s", p.Threads[t].Name, in.Stmt.Pos.Line, in.Stmt.Src.Text))
		}
	}
	return out
}
