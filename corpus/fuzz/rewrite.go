package fuzz

import (
	"slices"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

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
	if !wordsIntact(c) {
		return nil, false
	}
	q, err := parse.Parse(c.Name+".rdma", []byte(c.String()))
	if err != nil {
		return nil, false
	}
	return q, true
}

// wordsIntact reports whether every multi-word put or get of c still names
// consecutive locations of one node on each side: dropping or merging a
// location (the minimiser's locations pass) can split a word range, and such
// a candidate cannot even be printed (prog.Program.WordsString).
func wordsIntact(c *prog.Program) bool {
	ok := true
	walkSimple(c, func(s *prog.Stmt) {
		for _, first := range []int{s.X, s.Y} {
			if s.Words < 2 {
				return
			}
			if first < 0 || first+s.Words > len(c.Locs) {
				ok = false
				return
			}
			for i := 1; i < s.Words; i++ {
				if c.Locs[first+i].Node != c.Locs[first].Node {
					ok = false
				}
			}
		}
	})
	return ok
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
		case prog.SGet, prog.SPut, prog.SRCAS, prog.SRFAA:
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
