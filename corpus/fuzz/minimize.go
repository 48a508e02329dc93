package fuzz

import (
	"context"
	"slices"
	"time"

	"rdmasim/opsem/prog"
)

// defaultMinimizeTime is MinimizeOptions.Time's default.
const defaultMinimizeTime = 2 * time.Minute

// MinimizeOptions bound a minimisation. Zero values mean the defaults.
type MinimizeOptions struct {
	// MaxChecks bounds the candidates tested (default 5000).
	MaxChecks int
	// Time bounds the minimisation (default 2 minutes).
	Time time.Duration
}

// MinimizeStats says what a minimisation did.
type MinimizeStats struct {
	Checks       int  // candidates tested
	Kept         int  // of which kept
	Before       int  // simple statements before
	After        int  // and after
	Exhausted    bool // a bound (MaxChecks, Time) ended it before a fixpoint
	LoopsUnwound bool // loops were replaced by their bounded unrolling
}

// Minimize shrinks p by delta debugging while keep holds, and returns the
// smallest program found (p itself, re-parsed, when nothing smaller keeps).
//
// Candidates are derived from the current program by, in rounds until none
// is kept: dropping threads; ddmin over all simple statements (dropping
// sets of them, wherever they are nested); replacing a choose by one of its
// branches, or a loop by its body; dropping a branch of a choose with more
// than two; dropping nodes (with their locations and threads) and
// locations (with the statements that use them); merging a node into
// another, a location into another of its node; shrinking values (written,
// tested, compared and initial) towards 0. Empty loops and chooses are
// removed, labels dropped, and the query replaced by `exists true` (keep
// is expected to look at all locations, as package corpus/differ does).
// When loops remain at the end, replacing each by its unrolling to
// `unroll` iterations (choose { } or { A } or { A; A } ...) is tried, so
// that the program does not depend on a loop bound; a further round
// follows when it keeps.
//
// A candidate is tested only if its printed text parses back (package
// opsem/parse validates it), and keep gets the parsed program: so a
// candidate left without a thread (dropping a node drops its threads) is
// never tested, the parser rejecting it like an empty file. keep is
// assumed to hold for p.
func Minimize(ctx context.Context, p *prog.Program, keep func(context.Context, *prog.Program) bool, opt MinimizeOptions) (*prog.Program, MinimizeStats) {
	return MinimizeUnroll(ctx, p, keep, opt, 2)
}

// MinimizeUnroll is Minimize with the loop bound of the final unrolling.
func MinimizeUnroll(ctx context.Context, p *prog.Program, keep func(context.Context, *prog.Program) bool, opt MinimizeOptions, unroll int) (*prog.Program, MinimizeStats) {
	if opt.MaxChecks <= 0 {
		opt.MaxChecks = 5000
	}
	if opt.Time <= 0 {
		opt.Time = defaultMinimizeTime
	}
	m := &minimizer{ctx: ctx, keep: keep, opt: opt, deadline: time.Now().Add(opt.Time), tried: map[string]bool{}}
	m.st.Before = CountInstructions(p)
	cur := start(p)
	if q, ok := reparse(cur); ok {
		cur = q
	} else {
		cur = p
	}
	m.cur = cur
	for m.round() {
	}
	if hasLoops(m.cur) && !m.stop() {
		if q, ok := reparse(unwind(m.cur, unroll)); ok && m.test(q) {
			m.st.LoopsUnwound = true
			for m.round() {
			}
		}
	}
	m.st.After = CountInstructions(m.cur)
	return m.cur, m.st
}

type minimizer struct {
	ctx      context.Context
	keep     func(context.Context, *prog.Program) bool
	opt      MinimizeOptions
	deadline time.Time
	cur      *prog.Program
	st       MinimizeStats
	tried    map[string]bool // texts of the candidates tested
}

// stop reports whether a bound or ctx ends the minimisation.
func (m *minimizer) stop() bool {
	if m.ctx.Err() != nil || m.st.Checks >= m.opt.MaxChecks || time.Now().After(m.deadline) {
		m.st.Exhausted = m.ctx.Err() == nil
		return true
	}
	return false
}

// test checks a parsed candidate, and makes it current when it keeps.
func (m *minimizer) test(q *prog.Program) bool {
	if m.stop() {
		return false
	}
	m.st.Checks++
	if !m.keep(m.ctx, q) {
		return false
	}
	m.st.Kept++
	m.cur = q
	return true
}

// try tests a candidate built from the current program, if it parses.
func (m *minimizer) try(c *prog.Program) bool {
	if c == nil {
		return false
	}
	q, ok := reparse(c)
	if !ok {
		return false
	}
	text := q.String()
	if text == m.cur.String() || m.tried[text] {
		return false
	}
	m.tried[text] = true
	return m.test(q)
}

// round runs every pass once, and reports whether one of them kept a
// candidate (and the bounds allow another round).
func (m *minimizer) round() bool {
	changed := false
	for _, pass := range []func() bool{m.threads, m.statements, m.unwrap, m.nodes, m.locations, m.values} {
		if m.stop() {
			return false
		}
		if pass() {
			changed = true
		}
	}
	return changed && !m.stop()
}

// threads drops threads, one at a time, last first.
func (m *minimizer) threads() bool {
	changed := false
	for t := len(m.cur.Threads) - 1; t >= 0 && len(m.cur.Threads) > 1; t-- {
		if t >= len(m.cur.Threads) {
			continue
		}
		c := clone(m.cur)
		c.Threads = slices.Delete(c.Threads, t, t+1)
		if m.try(c) {
			changed = true
		}
	}
	return changed
}

// statements runs ddmin over the simple statements of the program.
func (m *minimizer) statements() bool {
	n := CountStatements(m.cur)
	if n == 0 {
		return false
	}
	base := m.cur
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	test := func(subset []int) bool {
		keepSet := make([]bool, n)
		for _, i := range subset {
			keepSet[i] = true
		}
		return m.try(rewrite(base, func(i int, _ *prog.Stmt) bool { return keepSet[i] }))
	}
	kept := ddmin(all, test, m.stop)
	return len(kept) < n
}

// ddmin returns a 1-minimal subset of items for which test holds (assumed
// to hold for items), by Zeller and Hildebrandt's delta debugging. stop
// ends it early.
func ddmin(items []int, test func([]int) bool, stop func() bool) []int {
	if len(items) > 0 && test(nil) {
		return nil
	}
	n := 2
	for len(items) >= 2 && !stop() {
		chunks := split(items, n)
		reduced := false
		for _, c := range chunks {
			if test(c) {
				items, n, reduced = c, 2, true
				break
			}
		}
		if !reduced && len(chunks) > 2 {
			// (With two chunks the complements are the chunks.)
			for i := range chunks {
				if comp := complement(chunks, i); test(comp) {
					items, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(items) {
				break
			}
			n = min(2*n, len(items))
		}
	}
	return items
}

// split cuts items into n nearly equal consecutive chunks.
func split(items []int, n int) [][]int {
	var out [][]int
	start := 0
	for i := range n {
		end := start + (len(items)-start)/(n-i)
		if end > start {
			out = append(out, items[start:end])
		}
		start = end
	}
	return out
}

// complement concatenates every chunk but the i-th.
func complement(chunks [][]int, i int) []int {
	var out []int
	for j, c := range chunks {
		if j != i {
			out = append(out, c...)
		}
	}
	return out
}

// unwrap replaces compound statements by their parts: a choose by one of
// its branches, a loop by its body; and drops branches of chooses with
// more than two.
func (m *minimizer) unwrap() bool {
	changed := false
	for i := 0; i < countCompound(m.cur); i++ {
		for b := 0; ; b++ {
			c, ok := replaceCompound(m.cur, i, b)
			if !ok {
				break
			}
			if m.try(c) {
				changed = true
				break
			}
		}
	}
	return changed
}

// nodes drops nodes and merges them into others.
func (m *minimizer) nodes() bool {
	changed := false
	for n := len(m.cur.Nodes) - 1; n >= 0; n-- {
		if n >= len(m.cur.Nodes) || len(m.cur.Nodes) == 1 {
			continue
		}
		if m.try(dropNode(m.cur, n)) {
			changed = true
			continue
		}
		for into := 0; into < n; into++ {
			if m.try(mergeNode(m.cur, n, into)) {
				changed = true
				break
			}
		}
	}
	return changed
}

// locations drops locations and merges them into others of their node.
func (m *minimizer) locations() bool {
	changed := false
	for l := len(m.cur.Locs) - 1; l >= 0; l-- {
		if l >= len(m.cur.Locs) {
			continue
		}
		if m.try(dropLoc(m.cur, l)) {
			changed = true
			continue
		}
		for into := 0; into < l; into++ {
			if m.cur.Locs[into].Node == m.cur.Locs[l].Node && m.try(mergeLoc(m.cur, l, into)) {
				changed = true
				break
			}
		}
	}
	return changed
}

// values shrinks every value towards 0: the smallest that keeps.
func (m *minimizer) values() bool {
	changed := false
	for l := range m.cur.Locs {
		for v := uint8(0); l < len(m.cur.Locs) && v < m.cur.Locs[l].Init; v++ {
			c := clone(m.cur)
			c.Locs[l].Init = v
			if m.try(c) {
				changed = true
				break
			}
		}
	}
	for i := 0; i < CountStatements(m.cur); i++ {
		for _, field := range []int{0, 1} {
			for v := uint8(0); v < valueField(stmtAt(m.cur, i), field); v++ {
				c := rewrite(m.cur, func(j int, s *prog.Stmt) bool {
					if j == i {
						setValueField(s, field, v)
					}
					return true
				})
				if m.try(c) {
					changed = true
					break
				}
			}
		}
	}
	return changed
}

// valueField returns value field 0 (A) or 1 (B) of s where s has it, else
// 0.
func valueField(s *prog.Stmt, field int) uint8 {
	switch {
	case field == 0 && (s.Kind == prog.SWrite || s.Kind == prog.SAssume || s.Kind == prog.SCAS || s.Kind == prog.SRCAS || s.Kind == prog.SRFAA):
		return s.A
	case field == 1 && (s.Kind == prog.SCAS || s.Kind == prog.SRCAS):
		return s.B
	}
	return 0
}

func setValueField(s *prog.Stmt, field int, v uint8) {
	if field == 0 {
		s.A = v
	} else {
		s.B = v
	}
}
