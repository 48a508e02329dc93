package repair

// The query goal: insertions that make the file's query and assertions
// hold under RDMA. Each decision is check's (check.Answer: the RDMA
// machine searched to the first witness, raising max-inflight step by
// step, and the SC machine); a witness of the outcome to rule out is a run
// of the RDMA machine, from which the reorderings to forbid are learnt
// (run.go). docs/REPAIR.md, "The query goal".

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/check"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// claim is one thing the query goal makes hold: the program (the repaired
// one, with its query replaced when the claim is not its own query) whose
// query's witness under RDMA is the outcome to rule out.
type claim struct {
	what    string
	program *prog.Program
	own     bool // the program's own query (its expect rdma line is about it)
}

// claims lists what must hold of p under RDMA: its query (an exists or
// reach condition forbidden, a ~exists or forall true); that no error
// point is reached, unless the query already asks it (a file with
// assertions and no query); and, for a forall query, a line "expect rdma
// forbidden" (no final outcome satisfies the condition).
func claims(p *prog.Program) []claim {
	var out []claim
	q := p.Query
	if q.Kind != prog.QNone {
		cond := p.CondString(q.Cond)
		what := fmt.Sprintf("%s %s is forbidden", q.Kind, cond)
		switch {
		case q.Kind == prog.QReach && hasFail(q.Cond):
			what = "no assertion fails (" + cond + " is forbidden)"
		case q.Kind == prog.QNotExists, q.Kind == prog.QForall:
			what = fmt.Sprintf("%s %s holds", q.Kind, cond)
		}
		out = append(out, claim{what: what, program: p, own: true})
	}
	if verdict.HasErrorPoints(p) && !(q.Kind == prog.QReach && hasFail(q.Cond)) {
		if c := p.FailCond(); c != nil {
			v := *p
			v.Query = prog.Query{Kind: prog.QReach, Cond: c, Pos: q.Pos}
			out = append(out, claim{what: "no assertion fails (" + p.CondString(c) + " is forbidden)", program: &v})
		}
	}
	if x, ok := p.Expectation(prog.RDMA); ok && !x.Yes && q.Kind == prog.QForall {
		v := *p
		v.Query = prog.Query{Kind: prog.QExists, Cond: q.Cond, Pos: q.Pos}
		out = append(out, claim{what: "expect rdma forbidden: no final outcome satisfies " + p.CondString(q.Cond), program: &v})
	}
	return out
}

// hasFail reports whether c names an error point (T@fail).
func hasFail(c *prog.Cond) bool {
	return c != nil && (c.Op == prog.CFail || hasFail(c.L) || hasFail(c.R))
}

// judgeQuery checks every claim of the repaired text with check's search
// (check.Answer): a witness under RDMA is learnt from; under SC, on the
// original, it ends the search at once (no synchronisation forbids what SC
// allows). A text whose checks all pass, complete, is no repair when some
// run now deadlocks (or no run ends) where the original's did not.
func (s *search) judgeQuery() judge {
	origDeadlocks := false
	return func(ctx context.Context, res *Result, applied []int, learn bool) (judgement, error) {
		ed := s.build(applied)
		p, err := s.opt.Parse(ctx, ed.Text)
		if err != nil {
			return judgement{}, fmt.Errorf("the repaired text does not parse (an insertion was misplaced): %w", err)
		}
		res.Decisions++
		first := res.Decisions == 1
		cs := claims(p)
		if len(cs) == 0 {
			return judgement{why: "the file has no query, no assertion and no range to check: nothing for --goal query to make hold (--goal robust makes a program robust)"}, nil
		}
		vopt := s.opt.Robust.Verdict
		vopt.FirstWitness, vopt.Witness = true, true
		var checked []*check.Result
		var whats []string
		var own *check.Result
		for _, c := range cs {
			r, err := check.Answer(ctx, c.program, check.Options{Verdict: vopt, Deepen: true})
			if err != nil {
				return judgement{}, err
			}
			rdma, sc := r.Results[0], r.Results[1]
			if first {
				if sc.Witness != nil {
					return judgement{why: fmt.Sprintf("\"%s\" fails under SC as well: an SC run of %d steps reaches %s, and polls, rfences and read-backs only take away RDMA's reorderings, so no insertion can make it hold",
						c.what, len(sc.Witness.Steps), outcomeWords(c.program, sc))}, nil
				}
				origDeadlocks = origDeadlocks || sc.Deadlocks > 0 || !sc.Complete
			}
			switch {
			case rdma.Witness != nil && learn:
				cl, why := s.learnRun(c.program, rdma, vopt.Machine, ed, applied, c.what)
				return judgement{clauses: cl, why: why}, nil
			case rdma.Witness != nil:
				return judgement{}, nil
			case !rdma.Complete && rdma.Search.Stop == explore.Complete && len(applied) > 0:
				// Only max-inflight (or the unrolling) cut it: the
				// insertions leave operations piling up (a poll
				// count right on one run, wrong on another). No
				// proof is to be had with this set.
				return judgement{nogood: true}, nil
			case !rdma.Complete && learn:
				return judgement{cut: fmt.Sprintf("the check of \"%s\" was cut by %s", c.what, rdma.Bound)}, nil
			case !rdma.Complete:
				return judgement{}, nil
			case rdma.Vacuous() || rdma.Deadlocks > 0 && !origDeadlocks:
				return judgement{nogood: true}, nil
			}
			if rdma.Deadlocks > 0 && len(applied) > 0 {
				// Both deadlock: not earlier than the original, within the
				// loop bounds compared (earlierDeadlock), as judgeRobust.
				earlier, err := s.earlierDeadlock(ctx, ed.Text)
				if err != nil {
					return judgement{}, err
				}
				if earlier {
					return judgement{nogood: true}, nil
				}
			}
			checked = append(checked, r)
			whats = append(whats, c.what)
			if c.own {
				own = r
			}
		}
		res.Checked, res.Claims, res.own = checked, whats, own
		return judgement{ok: true}, nil
	}
}

// outcomeWords says what a witness reached: the error point, or the
// outcome's values.
func outcomeWords(p *prog.Program, r *verdict.Result) string {
	if r.ErrorAt != "" && p.Query.Kind == prog.QReach {
		return r.ErrorAt
	}
	for _, o := range r.Outcomes {
		want := o.Satisfies
		if p.Query.Kind == prog.QForall {
			want = !want
		}
		if want {
			vals := o.Values
			return strings.TrimRight(p.Outcome(r.Locs, func(l int) uint8 {
				for i, x := range r.Locs {
					if x == l {
						return vals[i]
					}
				}
				return 0
			}), "; ")
		}
	}
	return "a configuration where " + p.CondString(p.Query.Cond) + " holds"
}

// learnRun learns from a witness of the RDMA machine (rdma.Witness, found
// with machine options mopt at rdma.Inflight): the run's events, a
// shortest cycle of po ∪ com over them, and, for each program-order edge
// a → b of the cycle that the run performed backwards, the clause of the
// candidates that order a before b (the same Orders and candidates as the
// robust goal's), minus those already applied.
func (s *search) learnRun(p *prog.Program, rdma *verdict.Result, mopt machine.Options, ed *edited, applied []int, what string) ([][]int, string) {
	if rdma.Inflight > 0 {
		mopt.MaxInflight = rdma.Inflight
	}
	m, err := verdict.OutcomeMachine(p, machine.RDMA, mopt)
	if err != nil {
		return nil, "the RDMA machine could not be rebuilt to read the witness: " + err.Error()
	}
	var reach *prog.Cond
	if p.Query.Kind == prog.QReach {
		reach = p.Query.Cond
	}
	return s.learnFromRun(p, m, rdma.Witness, machine.DeadLocations(p, verdict.ShownLocations(p)), reach, ed, applied, "the RDMA run that breaks \""+what+"\"")
}

// learnFromRun learns from run, a run of m whose po ∪ com has a cycle (a
// witness of the query goal, or a robustness violation found by
// enumeration on the machine): clauses as learnRun says. dead are the
// locations nothing observes, reach the reach condition the run's end is
// looked at by (nil for none); what names the run in reasons.
func (s *search) learnFromRun(p *prog.Program, m *machine.Machine, run *verdict.Run, dead []bool, reach *prog.Cond, ed *edited, applied []int, what string) ([][]int, string) {
	rt, err := newRunTrace(p, m, run)
	if err != nil {
		return nil, "reading the witness run: " + err.Error()
	}
	cyc := rt.cycle(dead, reach)
	if cyc == nil {
		return nil, fmt.Sprintf("%s (%d steps) performs no pair of one thread's events out of order that another access observes: nothing to order", what, len(run.Steps))
	}
	text := rt.describe(p, cyc, ed)
	isApplied := map[int]bool{}
	for _, i := range applied {
		isApplied[i] = true
	}
	var clauses [][]int
	for _, pr := range cyc {
		a, b := pr[0], pr[1]
		if !rt.inverted(a, b) {
			continue
		}
		ea := &rt.tr.Events[a]
		var eb *axiom.Event
		if b == observer {
			// The condition looks at the thread where it is: as a
			// CPU read of its next statement (none at its end).
			eb = &axiom.Event{Event: prog.Event{Kind: prog.EvLR, Thread: ea.Thread, Loc: -1, Remote: -1}, ID: -1, Index: 1 << 30, QP: -1, PC: rt.finalPC[ea.Thread]}
		} else {
			eb = &rt.tr.Events[b]
		}
		all := s.candidates(p, rt.tr, ea, eb, ed, text)
		var clause []int
		for _, c := range all {
			if !isApplied[c] {
				clause = append(clause, c)
			}
		}
		// In source terms: an event in flight has no value yet.
		aWords, bWords := rt.eventWords(p, a, ed), rt.eventWords(p, b, ed)
		switch {
		case len(clause) == 0 && len(all) > 0:
			return nil, fmt.Sprintf("the insertions that order %s before %s are in place and the run remains (the counts of pending operations differ on this run, e.g. in a loop): %s",
				aWords, bWords, text)
		case len(clause) == 0:
			return nil, fmt.Sprintf("no insertion of the kinds allowed orders %s before %s, which %s performs out of order: %s",
				aWords, bWords, what, text)
		}
		clauses = append(clauses, clause)
	}
	if len(clauses) == 0 {
		for _, pr := range cyc {
			if e := pr[0]; e != observer && rt.tr.Events[e].Kind.IsAtomic() {
				return nil, "the run's cycle goes through a remote atomic, whose read and write another thread's access came between (an atomic excludes other atomics only): no insertion orders that: " + text
			}
		}
		return nil, "the run's cycle has no program-order edge performed out of order: " + text
	}
	return clauses, ""
}

var expectRDMA = regexp.MustCompile(`(?m)^(\s*expect\s+rdma\s+)(allowed|forbidden)\b`)

// queryText sets the repaired text's expect lines to what was proven: the
// rdma line to the final check's answer on the program's own query, the
// robust line to the answer of robust's default method (the one check
// uses for that line) on the repaired text, when it is certain (the line
// is left as it was when the decision is cut).
func (s *search) queryText(ctx context.Context, res *Result, text []byte) []byte {
	if r := res.own; r != nil {
		word := "forbidden"
		if r.Results[0].Allowed {
			word = "allowed"
		}
		text = expectRDMA.ReplaceAll(text, []byte("${1}"+word))
	}
	if !expectRobustAny.Match(text) {
		return text
	}
	p, err := s.opt.Parse(ctx, text)
	if err != nil {
		return text
	}
	o := s.opt.Robust
	o.Method = robust.Auto // as check decides the line
	r, err := robust.Decide(ctx, p, o)
	if err != nil || !r.Complete && r.Robust {
		return text
	}
	word := "no"
	if r.Robust {
		word = "yes"
	}
	return expectRobustAny.ReplaceAll(text, []byte("${1}"+word))
}

var expectRobustAny = regexp.MustCompile(`(?m)^(\s*expect\s+robust\s+)(yes|no)\b`)
