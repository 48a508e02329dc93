package repair

import (
	"context"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// unrolls are the loop bounds at which earlierDeadlock compares a repaired
// text's deadlocks with the original's.
var unrolls = []int{1, 2}

// earlierDeadlock reports whether the SC machine of text, a repaired text
// with loops, deadlocks within a loop bound (unrolls) at which the
// original's does not. Both goals' first criterion (judgeRobust's and
// judgeQuery's) — a deadlock where the original has none — misses an inserted poll that takes a completion one
// of the user's polls in a later loop was meant to take: the original
// deadlocks too, but only some iterations later (`x := y; x := y; loop {
// assume(x == 0); poll(n2) }` repaired with a poll after each get blocks in
// the loop's first iteration, the original in its third; rdmasim fuzz
// --repair found it). Comparing at each bound catches a deadlock that comes
// earlier; one that the bounds do not reach is not compared.
func (s *search) earlierDeadlock(ctx context.Context, text []byte) (bool, error) {
	p, err := s.opt.Parse(ctx, text)
	if err != nil || !verdict.HasLoops(p) {
		return false, err
	}
	if s.origBounded == nil {
		o, err := s.opt.Parse(ctx, []byte(s.orig))
		if err != nil {
			return false, err
		}
		s.origBounded = map[int]bool{}
		for _, u := range unrolls {
			dl, err := boundedDeadlock(ctx, o, s.opt.Robust.Verdict, u)
			if err != nil {
				s.origBounded = nil
				return false, err
			}
			s.origBounded[u] = dl
		}
	}
	for _, u := range unrolls {
		if s.origBounded[u] {
			continue
		}
		dl, err := boundedDeadlock(ctx, p, s.opt.Robust.Verdict, u)
		if err != nil || dl {
			return dl, err
		}
	}
	return false, nil
}

// boundedDeadlock reports whether p's SC machine, its loops bounded by
// unroll iterations, reaches a deadlock (as robust's deadlock search, with
// the bound).
func boundedDeadlock(ctx context.Context, p *prog.Program, opt verdict.Options, unroll int) (bool, error) {
	opt.Witness = false
	opt.Checkpoint, opt.NewSet, opt.SpillDir, opt.FrontierBudget = nil, nil, "", 0
	opt.Machine.Unroll = unroll
	r, err := verdict.Compute(ctx, p, machine.SC, opt)
	if err != nil {
		return false, err
	}
	return r.Deadlocks > 0, nil
}
