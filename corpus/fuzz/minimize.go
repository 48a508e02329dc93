package fuzz

import (
	"context"
	"slices"
	"time"

	"rdmasim/opsem/parse"
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
	case field == 0 && (s.Kind == prog.SWrite || s.Kind == prog.SAssume || s.Kind == prog.SCAS):
		return s.A
	case field == 1 && s.Kind == prog.SCAS:
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

// start returns the copy of p the minimiser starts from: no labels, no
// doc, no expect lines, query exists true.
func start(p *prog.Program) *prog.Program {
	c := clone(p)
	c.Doc = ""
	c.Expects = nil
	c.Query = prog.Query{Kind: prog.QExists, Cond: &prog.Cond{Op: prog.CTrue}}
	var strip func([]*prog.Stmt)
	strip = func(stmts []*prog.Stmt) {
		for _, s := range stmts {
			s.Label = ""
			for _, b := range s.Branches {
				strip(b)
			}
		}
	}
	for t := range c.Threads {
		strip(c.Threads[t].Body)
	}
	return c
}

// reparse prints c and parses it back: the candidate as the parser
// validates and compiles it.
func reparse(c *prog.Program) (*prog.Program, bool) {
	q, err := parse.Parse(c.Name+".rdma", []byte(c.String()))
	if err != nil {
		return nil, false
	}
	return q, true
}

// clone deep-copies the syntax of p (nodes, locations, threads and their
// statements, query, expects); compiled code is not copied.
func clone(p *prog.Program) *prog.Program {
	c := &prog.Program{Name: p.Name, Doc: p.Doc, Nodes: slices.Clone(p.Nodes), Locs: slices.Clone(p.Locs),
		Query: p.Query, Expects: slices.Clone(p.Expects)}
	for _, t := range p.Threads {
		c.Threads = append(c.Threads, prog.Thread{Name: t.Name, Node: t.Node, Body: cloneBlock(t.Body)})
	}
	return c
}

func cloneBlock(stmts []*prog.Stmt) []*prog.Stmt {
	out := make([]*prog.Stmt, 0, len(stmts))
	for _, s := range stmts {
		c := *s
		c.Branches = nil
		for _, b := range s.Branches {
			c.Branches = append(c.Branches, cloneBlock(b))
		}
		out = append(out, &c)
	}
	return out
}

// isSimple reports whether s is a simple (non-compound) statement.
func isSimple(s *prog.Stmt) bool { return s.Kind != prog.SChoose && s.Kind != prog.SLoop }

// CountStatements returns the number of simple statements of p, skip
// included, wherever they are nested.
func CountStatements(p *prog.Program) int {
	n := 0
	walkSimple(p, func(*prog.Stmt) { n++ })
	return n
}

// CountInstructions returns the number of instructions of p: its simple
// statements other than skip (which has no event), wherever nested.
func CountInstructions(p *prog.Program) int {
	n := 0
	walkSimple(p, func(s *prog.Stmt) {
		if s.Kind != prog.SSkip {
			n++
		}
	})
	return n
}

// stmtAt returns the i-th simple statement of p in text order.
func stmtAt(p *prog.Program, i int) *prog.Stmt {
	var out *prog.Stmt
	k := 0
	walkSimple(p, func(s *prog.Stmt) {
		if k == i {
			out = s
		}
		k++
	})
	return out
}

func walkSimple(p *prog.Program, f func(*prog.Stmt)) {
	var walk func([]*prog.Stmt)
	walk = func(stmts []*prog.Stmt) {
		for _, s := range stmts {
			if isSimple(s) {
				f(s)
			}
			for _, b := range s.Branches {
				walk(b)
			}
		}
	}
	for t := range p.Threads {
		walk(p.Threads[t].Body)
	}
}

func hasLoops(p *prog.Program) bool {
	found := false
	var walk func([]*prog.Stmt)
	walk = func(stmts []*prog.Stmt) {
		for _, s := range stmts {
			found = found || s.Kind == prog.SLoop
			for _, b := range s.Branches {
				walk(b)
			}
		}
	}
	for t := range p.Threads {
		walk(p.Threads[t].Body)
	}
	return found
}

// rewrite returns a copy of p keeping the simple statements for which f
// returns true (numbered in program text order across threads; f may change
// its copy of the statement), without the loops and chooses left empty.
func rewrite(p *prog.Program, f func(i int, s *prog.Stmt) bool) *prog.Program {
	c := clone(p)
	i := 0
	var block func([]*prog.Stmt) []*prog.Stmt
	block = func(stmts []*prog.Stmt) []*prog.Stmt {
		var out []*prog.Stmt
		for _, s := range stmts {
			if isSimple(s) {
				if f(i, s) {
					out = append(out, s)
				}
				i++
				continue
			}
			empty := true
			for b := range s.Branches {
				s.Branches[b] = block(s.Branches[b])
				empty = empty && len(s.Branches[b]) == 0
			}
			if !empty {
				out = append(out, s)
			}
		}
		return out
	}
	for t := range c.Threads {
		c.Threads[t].Body = block(c.Threads[t].Body)
	}
	return c
}

// countCompound returns the number of choose and loop statements of p.
func countCompound(p *prog.Program) int {
	n := 0
	var walk func([]*prog.Stmt)
	walk = func(stmts []*prog.Stmt) {
		for _, s := range stmts {
			if !isSimple(s) {
				n++
			}
			for _, b := range s.Branches {
				walk(b)
			}
		}
	}
	for t := range p.Threads {
		walk(p.Threads[t].Body)
	}
	return n
}

// replaceCompound returns a copy of p whose i-th compound statement (in
// text order) is replaced by the statements of its branch b (a loop's body
// is branch 0), or, for b = branches + k of a choose with more than two
// branches, loses its branch k. ok is false when b is out of range.
func replaceCompound(p *prog.Program, i, b int) (*prog.Program, bool) {
	c := clone(p)
	k, ok := 0, false
	var block func([]*prog.Stmt) []*prog.Stmt
	block = func(stmts []*prog.Stmt) []*prog.Stmt {
		var out []*prog.Stmt
		for _, s := range stmts {
			if isSimple(s) {
				out = append(out, s)
				continue
			}
			if k == i {
				k++
				nb := len(s.Branches)
				switch {
				case b < nb:
					ok = true
					out = append(out, s.Branches[b]...)
					continue
				case s.Kind == prog.SChoose && nb > 2 && b < 2*nb:
					ok = true
					s.Branches = slices.Delete(s.Branches, b-nb, b-nb+1)
				}
				out = append(out, s)
				continue
			}
			k++
			for j := range s.Branches {
				s.Branches[j] = block(s.Branches[j])
			}
			out = append(out, s)
		}
		return out
	}
	for t := range c.Threads {
		c.Threads[t].Body = block(c.Threads[t].Body)
	}
	return c, ok
}

// unwind replaces every loop of p by its unrolling to n iterations:
// choose { } or { A } or { A; A } ..., inner loops unwound first.
func unwind(p *prog.Program, n int) *prog.Program {
	c := clone(p)
	var block func([]*prog.Stmt) []*prog.Stmt
	block = func(stmts []*prog.Stmt) []*prog.Stmt {
		out := make([]*prog.Stmt, 0, len(stmts))
		for _, s := range stmts {
			for j := range s.Branches {
				s.Branches[j] = block(s.Branches[j])
			}
			if s.Kind != prog.SLoop {
				out = append(out, s)
				continue
			}
			ch := &prog.Stmt{Kind: prog.SChoose}
			for k := 0; k <= n; k++ {
				var br []*prog.Stmt
				for range k {
					br = append(br, cloneBlock(s.Branches[0])...)
				}
				ch.Branches = append(ch.Branches, br)
			}
			out = append(out, ch)
		}
		return out
	}
	for t := range c.Threads {
		c.Threads[t].Body = block(c.Threads[t].Body)
	}
	return c
}

// relabel returns a copy of p with locations and nodes renumbered: locTo[l]
// and nodeTo[n] are the new indices, -1 to drop (several old indices may
// share a new one: a merge, the lowest old one giving the new one's name
// and initial value). Threads on dropped nodes and statements that use a
// dropped location or node are dropped.
func relabel(p *prog.Program, locTo, nodeTo []int) *prog.Program {
	c := clone(p)
	c.Nodes = nil
	nn := 0
	for _, t := range nodeTo {
		nn = max(nn, t+1)
	}
	seen := make([]bool, nn)
	for n, t := range nodeTo {
		if t >= 0 && !seen[t] {
			seen[t] = true
			c.Nodes = append(c.Nodes, p.Nodes[n])
		}
	}
	c.Locs = nil
	nl := 0
	for l, t := range locTo {
		if nodeTo[p.Locs[l].Node] < 0 {
			locTo[l] = -1
			continue
		}
		nl = max(nl, t+1)
	}
	seenLoc := make([]bool, nl)
	for l, t := range locTo {
		if t >= 0 && !seenLoc[t] {
			seenLoc[t] = true
			loc := p.Locs[l]
			loc.Node = nodeTo[loc.Node]
			c.Locs = append(c.Locs, loc)
		}
	}
	if len(c.Nodes) != nn || len(c.Locs) != nl {
		return nil // indices not dense: a bad map
	}
	var threads []prog.Thread
	for _, t := range c.Threads {
		if nodeTo[t.Node] < 0 {
			continue
		}
		t.Node = nodeTo[t.Node]
		threads = append(threads, t)
	}
	c.Threads = threads
	ok := func(l int) (int, bool) { return locTo[l], locTo[l] >= 0 }
	return rewrite(c, func(_ int, s *prog.Stmt) bool {
		var good = true
		use := func(f *int) {
			if v, k := ok(*f); k {
				*f = v
			} else {
				good = false
			}
		}
		node := func() {
			if nodeTo[s.Remote] < 0 {
				good = false
			} else {
				s.Remote = nodeTo[s.Remote]
			}
		}
		switch s.Kind {
		case prog.SWrite, prog.SAssume:
			use(&s.X)
		case prog.SCAS:
			use(&s.X)
			use(&s.Z)
		case prog.SGet, prog.SPut:
			use(&s.X)
			use(&s.Y)
			node()
		case prog.SRFence, prog.SPoll:
			node()
		}
		return good
	})
}

// identity returns 0..n-1.
func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// dropIndex maps i to -1 and shifts the indices above it down.
func dropIndex(m []int, i int) []int {
	for j := range m {
		switch {
		case m[j] == i:
			m[j] = -1
		case m[j] > i:
			m[j]--
		}
	}
	return m
}

// dropNode removes node n, its locations and threads, and the statements
// that use them.
func dropNode(p *prog.Program, n int) *prog.Program {
	nodeTo := dropIndex(identity(len(p.Nodes)), n)
	locTo := identity(len(p.Locs))
	for l := len(p.Locs) - 1; l >= 0; l-- {
		if p.Locs[l].Node == n {
			locTo = dropIndex(locTo, l)
		}
	}
	return relabel(p, locTo, nodeTo)
}

// mergeNode moves the locations and threads of node n to node into (< n)
// and removes n; statements towards n go towards into.
func mergeNode(p *prog.Program, n, into int) *prog.Program {
	nodeTo := identity(len(p.Nodes))
	nodeTo[n] = into
	for j := range nodeTo {
		if j > n {
			nodeTo[j]--
		}
	}
	return relabel(p, identity(len(p.Locs)), nodeTo)
}

// dropLoc removes location l and the statements that use it.
func dropLoc(p *prog.Program, l int) *prog.Program {
	return relabel(p, dropIndex(identity(len(p.Locs)), l), identity(len(p.Nodes)))
}

// mergeLoc replaces location l by into (< l) everywhere and removes l.
func mergeLoc(p *prog.Program, l, into int) *prog.Program {
	locTo := identity(len(p.Locs))
	locTo[l] = into
	for j := range locTo {
		if j > l {
			locTo[j]--
		}
	}
	return relabel(p, locTo, identity(len(p.Nodes)))
}
