// Package repair makes a program right by inserting RDMA synchronisation:
// it finds a set of insertions (polls, rfences, read-backs) that makes the
// program robust (GoalRobust, proven by the decider) or makes its query and
// assertions hold under RDMA (GoalQuery, proven by check's complete search
// of the RDMA machine), and places them in the program's own text.
//
// The search is counterexample-guided, the same loop for both goals
// (search.loop). Decide the program; from the counterexample — a
// violation's sc cycle, or a witness run of the RDMA machine read as events
// and a cycle of po ∪ com over them (run.go) — take every po edge a → b of
// one thread that is not ordered (not in the trace's observed-before
// relation; performed backwards by the run); for each, the candidates are
// the insertions that order a before b in the model (Orders, derived from
// axiom.PPO), placed just before b's statement or after each operation
// still pending. Each edge is a clause; a minimum-cost set of candidates
// meeting every clause seen so far (minHitting) is applied to the original
// text, the text is parsed again and decided again, until the goal holds.
// Finally each insertion is dropped in turn and the rest decided, so that
// the answer is irredundant. docs/REPAIR.md explains it at length.
package repair

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"rdmasim/opsem/check"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// Options configure Repair.
type Options struct {
	// Parse parses a text of the program (the original or a repaired one):
	// the caller's parser, with its params.
	Parse func(ctx context.Context, text []byte) (*prog.Program, error)
	// Costs of the kinds; Kinds are the kinds allowed (all when zero).
	Costs Costs
	Kinds [numKinds]bool
	// Robust are the options of each decision (the method is chosen here:
	// the decider, or enum-axiom on remote atomics).
	Robust robust.Options
	// MaxRounds bounds the rounds of the counterexample loop (default 50).
	MaxRounds int
	// MaxProof bounds the decisions of the proof of cost-minimality
	// (default 100); past it the answer is claimed irredundant only.
	// Negative: no proof (irredundant only).
	MaxProof int
	// Goal is what the repair must achieve: robustness (the default), or
	// the file's query and assertions under RDMA (GoalQuery; its checks
	// use Robust.Verdict's bounds).
	Goal Goal
}

// Goal is what a repair must achieve.
type Goal uint8

// Goals.
const (
	// GoalRobust: the program is robust (every RDMA-consistent trace is
	// SC-consistent), proven by the decider.
	GoalRobust Goal = iota
	// GoalQuery: under RDMA the file's exists (or reach) condition is
	// forbidden, its ~exists or forall holds, no assertion fails, and
	// every "expect rdma forbidden" holds, proven by check's complete
	// search of the RDMA machine.
	GoalQuery
)

var goalNames = [...]string{GoalRobust: "robust", GoalQuery: "query"}

func (g Goal) String() string {
	if int(g) < len(goalNames) {
		return goalNames[g]
	}
	return fmt.Sprintf("Goal(%d)", g)
}

// ParseGoal reads "robust" or "query".
func ParseGoal(s string) (Goal, error) {
	for g, n := range goalNames {
		if n == s {
			return Goal(g), nil
		}
	}
	return 0, fmt.Errorf("--goal %q: want robust or query", s)
}

// Insertion is one statement (or a few: a read-back and its polls) placed in
// the original text.
type Insertion struct {
	Thread string `json:"thread"`
	// Line and Col are where the text goes in the original: before the
	// statement at Line:Col (on a line of its own above it when it starts
	// its line). After is the statement it comes after, AfterLine its line.
	Line      int    `json:"line"`
	Col       int    `json:"col"`
	AfterLine int    `json:"after_line"`
	After     string `json:"after"`
	Stmt      string `json:"stmt"`
	Kind      string `json:"kind"`
	Cost      int    `json:"cost"`
	// Breaks is the first violation's cycle it was chosen against.
	Breaks string `json:"breaks"`

	key       string
	afterLine bool   // placed on a line of its own below AfterLine
	inline    bool   // placed at Line:Col as "; Stmt" (before a block's closing brace)
	decl      string // the scratch location a read-back declares ("rb_x = 0")
	node      prog.Pos
}

// candidate is one way of ordering a po edge: one insertion, or a poll after
// each operation still pending (several insertions). Candidates may share
// insertions; a repair makes each once.
type candidate struct {
	parts []Insertion
	cost  int
	key   string
}

// Result is a repair.
type Result struct {
	Goal Goal
	// Already: the program was robust (or its query held) as given;
	// nothing was inserted.
	Already    bool
	Insertions []Insertion
	Cost       int
	// Text is the repaired text, its "expect robust" line set to yes.
	Text []byte
	// Verified is the final decision on the repaired text (GoalRobust).
	Verified *robust.Result
	// Checked (GoalQuery) are the final checks of the repaired text, one
	// per claim (Claims): each RDMA search complete, with no witness of
	// the outcome the claim rules out.
	Checked []*check.Result
	// Claims (GoalQuery) say what the repair makes hold, one per check:
	// "exists (x=1 /\ y=0) is forbidden", "no assertion fails".
	Claims []string
	// Minimal is "cost-minimal" (no set of the insertions met that costs
	// less reaches the goal, proven by decisions: minimal.go),
	// "irredundant" (no single insertion can be dropped; a bound or a
	// cut decision kept the proof of cost-minimality from finishing) or
	// "none" (the search stopped before it could say). MinimalWhy says
	// how it was established, or what kept it from cost-minimal.
	Minimal, MinimalWhy string
	// Exact: every hitting set chosen was minimum-cost over the clauses
	// learnt (the branch and bound was not cut).
	Exact bool
	// Rounds counts the decisions of the counterexample loop, Decisions
	// every decision made (with the irredundancy checks).
	Rounds, Decisions int
	// Bounded: the decisions were enumerations of the model (remote
	// atomics) whose "robust" holds within the unrolling bound.
	Bounded bool
	// Cut names the bound that stopped the search (a round limit, an
	// incomplete decision); empty when it finished.
	Cut string
	// Why, when no repair was found: the violation that no insertion of
	// the allowed kinds breaks.
	Why     string
	Seconds float64

	orig string
	own  *check.Result // the final check of the program's own query
	// universe: every insertion met, each once (the proof's U, and more
	// when a decision of the proof met new ones)
	universe []Insertion
}

// Statements counts the statements inserted (a read-back with two polls is
// three), the measure a hand fix is compared by.
func (r *Result) Statements() int {
	n := 0
	for _, in := range r.Insertions {
		n += strings.Count(in.Stmt, ";") + 1
	}
	return n
}

// Without is the original text with every insertion of the repair but the
// i-th: the check that each one is needed.
func (r *Result) Without(i int) []byte {
	parts := append(append([]Insertion(nil), r.Insertions[:i]...), r.Insertions[i+1:]...)
	return build(r.orig, parts).Text
}

// Found reports whether a verified repair was found.
func (r *Result) Found() bool { return r.Why == "" && r.Cut == "" }

// Repair repairs src, a program text, for opt.Goal: robustness, or the
// file's query and assertions under RDMA (query.go).
func Repair(ctx context.Context, src []byte, opt Options) (*Result, error) {
	start := time.Now()
	if opt.MaxRounds <= 0 {
		opt.MaxRounds = 50
	}
	if opt.Robust.Verdict.Machine.MaxInflight == 0 {
		// The deadlock search runs the SC machine, which needs room for
		// the operations in flight.
		opt.Robust.Verdict.Machine.MaxInflight = machine.DefaultOptions().MaxInflight
	}
	if opt.Kinds == ([numKinds]bool{}) {
		opt.Kinds = [numKinds]bool{true, true, true}
	}
	orig := string(src)
	s := &search{opt: opt, orig: orig, byKey: map[string]int{}}
	res := &Result{Goal: opt.Goal, Exact: true, orig: orig}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	judge := s.judgeRobust()
	if opt.Goal == GoalQuery {
		judge, s.final = s.judgeQuery(), s.queryText
	}
	return res, s.loop(ctx, res, judge)
}

// judgement is what one decision of a repaired text says: the goal holds
// (ok, the proof kept in the Result), or it holds but some run now
// deadlocks where none of the original did (nogood: the set is no repair,
// nor any set containing it), or it does not hold and these clauses were
// learnt, or the search must stop (cut: a bound; why: nothing to learn).
type judgement struct {
	ok, nogood bool
	clauses    [][]int
	cut, why   string
}

// judge decides the original text with the candidates of applied: with
// learn, it learns clauses from a violation (in the loop); without, only
// ok matters (the irredundancy checks).
type judge func(ctx context.Context, res *Result, applied []int, learn bool) (judgement, error)

// loop is the counterexample-guided search, the same for every goal:
// decide, learn, choose a cheapest hitting set, apply, until the goal
// holds; then drop each insertion in turn while the goal still holds.
func (s *search) loop(ctx context.Context, res *Result, decide judge) error {
	var applied []int
	var clauses, nogoods [][]int
	// refuted holds the sets decided not to reach the goal (a violation
	// or a witness, not a deadlock): the proof of cost-minimality starts
	// from them.
	var refuted [][]int
	// failed holds the sets judged not to reach the goal: the
	// irredundancy pass need not decide one again (most often the
	// original text, when the repair is one insertion).
	failed := map[string]bool{}
	for {
		if res.Rounds == s.opt.MaxRounds {
			res.Cut = fmt.Sprintf("the limit of %d rounds", s.opt.MaxRounds)
			return nil
		}
		res.Rounds++
		j, err := decide(ctx, res, applied, true)
		if err != nil {
			return err
		}
		switch {
		case j.cut != "":
			res.Cut = j.cut
			return nil
		case j.why != "":
			if len(nogoods) > 0 {
				j.why += "; the sets that order it were tried and make a poll of the program wait for ever" + nogoodMore[s.opt.Goal] + " (repair never moves or deletes a statement)"
			}
			res.Why = j.why
			return nil
		case j.nogood:
			// A poll with nothing left to wait for: this set is no
			// repair, nor is any set containing it.
			nogoods = append(nogoods, applied)
		case j.ok:
		default:
			clauses = append(clauses, j.clauses...)
			refuted = append(refuted, applied)
		}
		if j.ok {
			break
		}
		failed[setKey(applied)] = true
		costs := make([]int, len(s.cands))
		for i, c := range s.cands {
			costs[i] = c.cost
		}
		set, exact, ok := minHitting(clauses, nogoods, nil, costs, 1_000_000)
		if !ok {
			res.Why = "every set of insertions that orders the cycles seen makes the program deadlock (a poll with nothing to wait for)" + nogoodMore[s.opt.Goal]
			return nil
		}
		res.Exact = res.Exact && exact
		applied = set
	}
	res.Already = len(applied) == 0
	applied, err := s.irredundant(ctx, res, decide, applied, failed)
	if err != nil {
		return err
	}
	// Cost-minimality: no cheaper set of the insertions met reaches the
	// goal (minimal.go). A cheaper repair found on the way replaces the
	// answer; the claim stands only when the irredundancy pass, run again
	// on it, drops nothing (the proof's cores assume that a set that fails
	// has only failing subsets; a dropped insertion would contradict it).
	budget := s.opt.MaxProof
	if budget <= 0 {
		budget = 100
	}
	answer, pr := applied, proof{costMinimal: true} // nothing inserted costs nothing
	if len(applied) > 0 && s.opt.MaxProof < 0 {
		pr = proof{why: "the proof of cost-minimality was not asked for"}
	} else if len(applied) > 0 {
		if answer, pr, err = s.proveMinimal(ctx, res, decide, applied, refuted, budget); err != nil {
			return err
		}
	}
	res.Minimal, res.MinimalWhy = "irredundant", "not proven cost-minimal: "+pr.why
	if pr.costMinimal {
		res.Minimal, res.MinimalWhy = "cost-minimal", pr.why
	}
	for _, c := range s.cands {
		if len(c.parts) == 1 {
			res.universe = append(res.universe, c.parts[0])
		}
	}
	if setKey(answer) != setKey(applied) {
		kept, err := s.irredundant(ctx, res, decide, answer, failed)
		if err != nil {
			return err
		}
		if len(kept) != len(answer) {
			res.Minimal, res.MinimalWhy = "irredundant", "not proven cost-minimal: the irredundancy pass dropped an insertion of the cheaper repair the proof found"
		}
		applied = kept
	}
	ed := s.build(applied)
	res.Text = ed.Text
	if s.final != nil {
		res.Text = s.final(ctx, res, res.Text)
	}
	for _, c := range s.parts(applied) {
		res.Insertions = append(res.Insertions, c)
		res.Cost += c.Cost
	}
	sort.SliceStable(res.Insertions, func(i, j int) bool {
		a, b := res.Insertions[i], res.Insertions[j]
		if a.Thread != b.Thread {
			return a.Thread < b.Thread
		}
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return nil
}

// irredundant drops each insertion of applied in turn, and keeps it
// dropped when the goal still holds without it. failed are sets known not
// to reach the goal, not decided again.
func (s *search) irredundant(ctx context.Context, res *Result, decide judge, applied []int, failed map[string]bool) ([]int, error) {
	for i := 0; i < len(applied); {
		rest := append(append([]int(nil), applied[:i]...), applied[i+1:]...)
		if failed[setKey(rest)] {
			i++
			continue
		}
		j, err := decide(ctx, res, rest, false)
		if err != nil {
			return nil, err
		}
		if j.ok {
			applied = rest
			continue
		}
		failed[setKey(rest)] = true
		i++
	}
	return applied, nil
}

// nogoodMore says what else makes a set no repair under the query goal.
var nogoodMore = [...]string{GoalQuery: ", or leaves operations piling up beyond max-inflight, so that no complete check proves it"}

// setKey identifies a set of candidates (sorted indices).
func setKey(set []int) string {
	return fmt.Sprint(set)
}

// judgeRobust decides robustness: the decider (enumeration on remote
// atomics), learning from the violation's sc cycle (learn.go).
func (s *search) judgeRobust() judge {
	deadlocks := false // the original program can deadlock (under SC)
	ends := true       // some run of the original ends
	return func(ctx context.Context, res *Result, applied []int, learn bool) (judgement, error) {
		ed := s.build(applied)
		r, err := s.decide(ctx, ed.Text, res)
		if err != nil {
			return judgement{}, err
		}
		if res.Decisions == 1 {
			deadlocks = r.Deadlock != nil
			ends = r.Deadlock == nil || r.Deadlock.Finals > 0
		}
		// A text that deadlocks where the original did not, or whose
		// every run deadlocks where some of the original's ended
		// (polls inserted in a loop leave a poll after it nothing), is
		// robust only over the runs up to the deadlock: no repair.
		newDeadlock := r.Deadlock != nil && (!deadlocks || ends && r.Deadlock.Finals == 0)
		if r.Robust && r.Complete && r.Deadlock != nil && !newDeadlock {
			// Both deadlock: not earlier than the original, within the
			// loop bounds compared (earlierDeadlock).
			if newDeadlock, err = s.earlierDeadlock(ctx, ed.Text); err != nil {
				return judgement{}, err
			}
		}
		switch {
		case r.Robust && !r.Complete:
			if !learn {
				return judgement{}, nil
			}
			return judgement{cut: "the decision was cut by " + r.Bound}, nil
		case r.Robust && newDeadlock:
			return judgement{nogood: true}, nil
		case r.Robust:
			res.Verified = r
			return judgement{ok: true}, nil
		case !learn:
			return judgement{}, nil
		}
		cl, why := s.learn(r, ed, applied)
		return judgement{clauses: cl, why: why}, nil
	}
}

var expectRobust = regexp.MustCompile(`(?m)^(\s*expect\s+robust\s+)no\b`)

// search is the state of one repair: the original text and every candidate
// met so far (a candidate is identified by its key, its place and text).
type search struct {
	opt   Options
	orig  string
	cands []candidate
	byKey map[string]int
	// final rewrites the repaired text's expect lines to what the last
	// decision proved (the query goal); nil keeps build's.
	final func(context.Context, *Result, []byte) []byte
	// origBounded: whether the original's SC machine deadlocks within
	// each loop bound of unrolls (earlierDeadlock; nil until needed).
	origBounded map[int]bool
}

// build applies the candidates of set to the original text.
// For the robust goal, its expect robust line says yes: the decisions check it, so that the
// final one's expectation is what the repaired text claims.
func (s *search) build(set []int) *edited {
	ed := build(s.orig, s.parts(set))
	if s.opt.Goal == GoalRobust {
		ed.Text = expectRobust.ReplaceAll(ed.Text, []byte("${1}yes"))
	}
	return ed
}

// build applies insertions to the original text orig, declaring each
// read-back's scratch location once.
func build(orig string, parts []Insertion) *edited {
	var edits []edit
	decls := map[string]bool{}
	for _, c := range parts {
		if c.afterLine {
			edits = append(edits, edit{Line: c.AfterLine, Text: c.Stmt, AfterLine: true})
		} else if c.inline {
			edits = append(edits, edit{Line: c.Line, Col: c.Col, Text: "; " + c.Stmt, Inline: true})
		} else {
			edits = append(edits, edit{Line: c.Line, Col: c.Col, Text: c.Stmt})
		}
		if c.decl != "" && !decls[c.decl] {
			decls[c.decl] = true
			if e, ok := nodeDecl(orig, c.node, c.decl); ok {
				edits = append(edits, e)
			}
		}
	}
	return apply(orig, edits)
}

// parts are the insertions of the candidates of set, each once.
func (s *search) parts(set []int) []Insertion {
	var out []Insertion
	seen := map[string]bool{}
	for _, i := range set {
		for _, c := range s.cands[i].parts {
			if !seen[c.key] {
				seen[c.key] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// decide parses text and decides it: the decider, or on remote atomics the
// enumeration of the model's traces (bounded when the program loops).
func (s *search) decide(ctx context.Context, text []byte, res *Result) (*robust.Result, error) {
	p, err := s.opt.Parse(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("the repaired text does not parse (an insertion was misplaced): %w", err)
	}
	res.Decisions++
	o := s.opt.Robust
	o.Method, o.Deadlocks = robust.Decider, true
	r, err := robust.Decide(ctx, p, o)
	var ae *instr.AtomicsError
	if errors.As(err, &ae) {
		// The decider refuses remote atomics. Enumeration on the
		// machine is complete on a loop-free program within
		// max-inflight, and far faster than the model's (a second
		// against minutes on atomics-tas-lock-nopoll); when it cannot
		// prove robustness (loops, a bound), the model's enumeration
		// decides, bounded when the program loops.
		o.Method = robust.EnumMachine
		r, err = robust.Decide(ctx, p, o)
		if err == nil && r.Robust && !r.Complete {
			o.Method = robust.EnumAxiom
			r, err = robust.Decide(ctx, p, o)
		}
		if err == nil && r.Robust && r.Bound != "" {
			res.Bounded = true
		}
	}
	return r, err
}

// robustMachine is the machine robust's enumeration on the machine
// explores (verdict.RobustMachine builds it so: event graphs, no
// reduction, no dead locations, loops bounded as the model bounds them),
// rebuilt to read its witness run.
func robustMachine(p *prog.Program, opt verdict.Options) (*machine.Machine, error) {
	mopt := opt.Machine
	mopt.Unroll = verdict.LoopBound(p, mopt.Unroll)
	mopt.Graph, mopt.Dead, mopt.Reduce = true, nil, false
	return machine.NewRDMA(p, mopt)
}
