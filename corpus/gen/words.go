package gen

import "rdmasim/opsem/prog"

// words makes the put or get s a two-word one (SEMANTICS-VERBS.md 1) when
// both its nodes have two locations: its words are a location and the next
// one of each node, drawn anew.
func (g *generator) words(s *prog.Stmt) {
	pair := func(n int) (int, bool) {
		ls := g.nodeLocs[n]
		if len(ls) < 2 {
			return 0, false
		}
		i := g.rng.IntN(len(ls) - 1)
		return ls[i], ls[i+1] == ls[i]+1
	}
	x, okx := pair(g.node)
	y, oky := pair(s.Remote)
	if !okx || !oky {
		return
	}
	if s.Kind == prog.SGet {
		g.own[s.X].known = false
		s.X, s.Y = x, y
		g.own[x].known, g.own[x+1].known = false, false
	} else {
		s.X, s.Y = x, y
	}
	s.Words = 2
}
