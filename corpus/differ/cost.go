package differ

import (
	"math"

	"rdmasim/opsem/prog"
)

// ModelCost estimates the size of the declarative model's search for
// reads-from on p with loops unrolled unroll times: the largest, over
// locations, of R·log2(W), where R counts the statements that read the
// location (assume, cas, the source of a put or of a get) and W those that
// write it, plus its initial value; statements in a loop count unroll
// times (once when unroll is 0), those in the branches of a choose all
// count.
func ModelCost(p *prog.Program, unroll int) float64 {
	reads := make([]float64, len(p.Locs))
	writes := make([]float64, len(p.Locs))
	for i := range writes {
		writes[i] = 1
	}
	var walk func([]*prog.Stmt, float64)
	walk = func(stmts []*prog.Stmt, times float64) {
		for _, s := range stmts {
			switch s.Kind {
			case prog.SWrite:
				writes[s.X] += times
			case prog.SAssume:
				reads[s.X] += times
			case prog.SCAS:
				reads[s.Z] += times
				writes[s.Z] += times
				writes[s.X] += times
			case prog.SGet:
				for i := range max(s.Words, 1) { // every word (SEMANTICS-VERBS.md 1)
					reads[s.Y+i] += times
					writes[s.X+i] += times
				}
			case prog.SRCAS, prog.SRFAA:
				reads[s.Y] += times
				writes[s.Y] += times
				writes[s.X] += times
			case prog.SPut:
				for i := range max(s.Words, 1) {
					reads[s.X+i] += times
					writes[s.Y+i] += times
				}
			case prog.SLoop:
				walk(s.Branches[0], times*float64(max(unroll, 1)))
			case prog.SChoose:
				for _, b := range s.Branches {
					walk(b, times)
				}
			}
		}
	}
	for t := range p.Threads {
		if th := &p.Threads[t]; th.Lowered {
			costCode(th.Code, float64(max(unroll, 1)), reads, writes)
			continue
		}
		walk(p.Threads[t].Body, 1)
	}
	cost := 0.0
	for l := range reads {
		cost = max(cost, reads[l]*math.Log2(writes[l]))
	}
	return cost
}

// costCode counts the reads and writes of a lowered thread's instructions
// for ModelCost: those on a cycle of its graph times loop, the others once.
func costCode(code []prog.Instr, loop float64, reads, writes []float64) {
	onCycle := prog.OnCycle(code)
	for pc, in := range code {
		times := 1.0
		if onCycle[pc] {
			times = loop
		}
		switch in.Op {
		case prog.OpWrite:
			writes[in.X] += times
		case prog.OpAssumeEq, prog.OpAssumeNe:
			reads[in.X] += times
		case prog.OpCAS:
			reads[in.Z] += times
			writes[in.Z] += times
			writes[in.X] += times
		case prog.OpGet, prog.OpPut:
			// Every word of a multi-word one (SEMANTICS-VERBS.md 1).
			from, to := in.Y, in.X
			if in.Op == prog.OpPut {
				from, to = in.X, in.Y
			}
			for i := range max(in.Words, 1) {
				reads[from+i] += times
				writes[to+i] += times
			}
		case prog.OpLoad:
			reads[in.Y] += times
		case prog.OpEval:
			writes[in.X] += times // a register's are never read by an event
		}
	}
}
