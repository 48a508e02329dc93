package gen

import "rdmasim/opsem/prog"

// unsignaled marks the put, get or remote atomic s unsignaled
// (SEMANTICS-VERBS.md 2: posted without a completion entry) with chance
// unsigChance under Config.Verbs; without Verbs it draws nothing, so the
// programs of a seed stay as they were. A marked operation produces no
// completion, so it no longer counts among the operations a sensible poll
// can match (pending): generated polls keep matching a signalled
// operation, which then covers the unsignaled ones before it, and an
// unsignaled operation after the last signalled one is left uncovered, as
// a designer's batch with its signalled operation in the wrong place.
// Half of the unsignaled gets and atomics are followed by a put and a poll
// (g.script), the shape in which the poll's wait for them matters.
func (g *generator) unsignaled(s *prog.Stmt) {
	if !g.cfg.Verbs || !g.chance(unsigChance) {
		return
	}
	s.Unsignaled = true
	g.pending[s.Remote] = max(0, g.pending[s.Remote]-1)
	if s.Kind != prog.SPut && g.chance(batchChance) {
		// The batch's shape (HERD's UNSIG_BATCH): a signalled put and
		// a poll next, mostly on the same queue pair, whose match waits
		// for the unsignaled get or atomic; what the thread does after
		// the poll then tells whether its write was waited for.
		g.script = append([]int{KPut, KPoll, KWrite}, g.script...)
	}
}

// batchChance is the percent of unsignaled gets and atomics followed by a
// put and a poll (generator.unsignaled).
const batchChance = 50
