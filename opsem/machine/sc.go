package machine

import "rdmasim/opsem/prog"

// scRemote performs one of the two SC steps of a get or put, or an rfence,
// and reports whether the instruction is finished.
//
// A multi-word put or get is one step: ev is its first read and words
// receives its other events (Step.Words).
func (m *Machine) scRemote(st *State, t int, in *prog.Instr, ev *prog.Event, words *[]prog.Event) bool {
	switch in.Op {
	case prog.OpRFence:
		ev.Kind = prog.EvNF
		return true
	case prog.OpPut, prog.OpGet:
		if in.Words > 1 {
			// A multi-word put or get is one step under SC
			// (SEMANTICS-VERBS.md 1): it reads its k sources and
			// writes its k targets at once. Step reports its first
			// word's write.
			from, to, rk, wk := in.X, in.Y, prog.EvNLR, prog.EvNRW
			if in.Op == prog.OpGet {
				from, to, rk, wk = in.Y, in.X, prog.EvNRR, prog.EvNLW
			}
			for i := 0; i < in.Words; i++ {
				r := *ev
				r.Kind, r.Loc, r.Val = rk, from+i, st.mem[from+i]
				*words = append(*words, r)
			}
			for i := 0; i < in.Words; i++ {
				m.write(st, to+i, st.mem[from+i])
				w := *ev
				w.Kind, w.Loc, w.Val = wk, to+i, st.mem[from+i]
				*words = append(*words, w)
			}
			*ev, *words = (*words)[0], (*words)[1:]
			break
		}
		if in.Op == prog.OpGet {
			if !st.mid[t] {
				st.mid[t], st.reg[t] = true, st.mem[in.Y]
				ev.Kind, ev.Loc, ev.Val = prog.EvNRR, in.Y, st.reg[t]
				return false
			}
			m.write(st, in.X, st.reg[t])
			ev.Kind, ev.Loc, ev.Val = prog.EvNLW, in.X, st.reg[t]
			break
		}
		if !st.mid[t] {
			st.mid[t], st.reg[t] = true, st.mem[in.X]
			ev.Kind, ev.Loc, ev.Val = prog.EvNLR, in.X, st.reg[t]
			return false
		}
		m.write(st, in.Y, st.reg[t])
		ev.Kind, ev.Loc, ev.Val = prog.EvNRW, in.Y, st.reg[t]
	case prog.OpRCAS, prog.OpRFAA:
		// One step reads and (unless a comparison fails) writes the
		// target; a second lands the old value in x, as a get's nlW.
		// Step reports the read (naR): Val is the value read, New the
		// value written when the atomic writes.
		if !st.mid[t] {
			old := st.mem[in.Y]
			st.mid[t], st.reg[t] = true, old
			ev.Kind, ev.Loc, ev.Val = prog.EvNAR, in.Y, old
			if v, ok := in.AtomicResult(old); ok {
				m.write(st, in.Y, v)
				ev.New = v
			}
			return false
		}
		m.write(st, in.X, st.reg[t])
		ev.Kind, ev.Loc, ev.Val = prog.EvNLW, in.X, st.reg[t]
	}
	st.mid[t], st.reg[t] = false, 0
	st.q[in.QP].npend += signalled(in)
	return true
}
