package gen

import "rdmasim/opsem/prog"

// inlineChance is the percent of puts marked inline (SEMANTICS-VERBS.md 5),
// with Config.Verbs.
const inlineChance = 30

// inline marks the put s inline (IBV_SEND_INLINE: its source read when it
// is submitted) with Config.Verbs, one time in inlineChance percent, after
// its other marks and its width are drawn. Without Verbs no draw: the
// programs of a seed stay as they were.
func (g *generator) inline(s *prog.Stmt) {
	if s.Kind == prog.SPut && g.cfg.Verbs {
		s.Inline = g.chance(inlineChance)
	}
}
