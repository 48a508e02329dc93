// Package repair makes a program robust: it finds a set of insertions (polls,
// rfences, read-backs) whose repaired text the decider proves robust, and
// places them in the program's own text.
//
// The search is counterexample-guided. Decide the program; from the
// violation's sc cycle take every po edge a → b of one thread that the
// trace's observed-before relation lacks (all of them must be ordered to
// turn the cycle into an ob cycle, which no RDMA-consistent trace has); for
// each, the candidates are the insertions placed just before b's statement
// that order a before b in the model (Orders, derived from axiom.PPO). Each
// edge is a clause; a minimum-cost set of candidates meeting every clause
// seen so far (minHitting) is applied to the original text, the text is
// parsed again and decided again, until it is robust. Finally each insertion
// is dropped in turn and the rest decided, so that the answer is
// irredundant. docs/REPAIR.md explains it at length.
package repair

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"rdmasim/opsem/instr"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/robust"
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
	// Already: the program was robust as given; nothing was inserted.
	Already    bool
	Insertions []Insertion
	Cost       int
	// Text is the repaired text, its "expect robust" line set to yes.
	Text []byte
	// Verified is the final decision on the repaired text.
	Verified *robust.Result
	// Minimal is "irredundant" (no single insertion can be dropped) or
	// "none" (the search stopped before it could say).
	Minimal string
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

// Repair repairs src, a program text, for robustness.
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
	res := &Result{Exact: true, orig: orig}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	var applied []int
	var clauses, nogoods [][]int
	deadlocks := false // the original program can deadlock (under SC)
	for {
		if res.Rounds == opt.MaxRounds {
			res.Cut = fmt.Sprintf("the limit of %d rounds", opt.MaxRounds)
			return res, nil
		}
		res.Rounds++
		ed := s.build(applied)
		r, err := s.decide(ctx, ed.Text, res)
		if err != nil {
			return res, err
		}
		if res.Rounds == 1 {
			deadlocks = r.Deadlock != nil
		}
		switch {
		case r.Robust && !r.Complete:
			res.Cut = "the decision was cut by " + r.Bound
			return res, nil
		case r.Robust && r.Deadlock != nil && !deadlocks:
			// A poll with nothing left to wait for: this set is no
			// repair, nor is any set containing it.
			nogoods = append(nogoods, applied)
		case r.Robust:
			res.Verified = r
		default:
			cl, why := s.learn(r, ed, applied)
			if why != "" {
				if len(nogoods) > 0 {
					why += "; the sets that order it were tried and make a poll of the program wait for ever (repair never moves or deletes a statement)"
				}
				res.Why = why
				return res, nil
			}
			clauses = append(clauses, cl...)
		}
		if res.Verified != nil {
			break
		}
		costs := make([]int, len(s.cands))
		for i, c := range s.cands {
			costs[i] = c.cost
		}
		set, exact, ok := minHitting(clauses, nogoods, costs, 1_000_000)
		if !ok {
			res.Why = "every set of insertions that orders the cycles seen makes the program deadlock (a poll with nothing to wait for)"
			return res, nil
		}
		res.Exact = res.Exact && exact
		applied = set
	}
	res.Already = len(applied) == 0
	// Irredundancy: drop each insertion in turn; keep it dropped when the
	// rest is still robust.
	for i := 0; i < len(applied); {
		rest := append(append([]int(nil), applied[:i]...), applied[i+1:]...)
		r, err := s.decide(ctx, s.build(rest).Text, res)
		if err != nil {
			return res, err
		}
		if r.Robust && r.Complete && (r.Deadlock == nil || deadlocks) {
			applied, res.Verified = rest, r
			continue
		}
		i++
	}
	res.Minimal = "irredundant"
	ed := s.build(applied)
	res.Text = ed.Text
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
	return res, nil
}

var expectRobust = regexp.MustCompile(`(?m)^(\s*expect\s+robust\s+)no\b`)

// search is the state of one repair: the original text and every candidate
// met so far (a candidate is identified by its key, its place and text).
type search struct {
	opt   Options
	orig  string
	cands []candidate
	byKey map[string]int
}

// build applies the candidates of set to the original text.
// Its expect robust line says yes: the decisions check it, so that the
// final one's expectation is what the repaired text claims.
func (s *search) build(set []int) *edited {
	ed := build(s.orig, s.parts(set))
	ed.Text = expectRobust.ReplaceAll(ed.Text, []byte("${1}yes"))
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
		o.Method = robust.EnumAxiom
		r, err = robust.Decide(ctx, p, o)
		if err == nil && r.Robust && r.Bound != "" {
			res.Bounded = true
		}
	}
	return r, err
}
