package instr

import (
	"slices"

	"rdmasim/opsem/prog"
)

// Registers kept at run time (docs/DESIGN-PROTOCOLS.md, "Registers at run
// time"): locations marked prog.Loc.Reg, each of one thread, which make no
// events. The instrumented machine keeps a register's value in M1, the
// thread's own slot of it whichever part of τ the thread's events join:
//
//   - A register is the thread's local state, as its pc is (the static
//     lowering folds it into the pc): it follows the thread's program
//     order across the τ1/τ2 boundary, since τ1 and τ2 are restrictions of
//     one run in program order, and no τ2 copy, boundary guess or target
//     check touches it (none reads or writes it: only locations of events
//     are guessed, M2 holds τ2's writes, and no event writes a register).
//   - OpLoad R := Y is the local read lR of Y, in τ1 or τ2 with the value
//     that part gives it (M1, M2, the boundary guess, or a fresh guess),
//     exactly as an assume's read; the value goes into R (M1[R]), or the
//     thread goes to the error point when it leaves R's range.
//   - OpEval X := E into an ordinary location is the local write lW of
//     the value E takes on the thread's registers, as an OpWrite of that
//     value; a division by zero or a value outside X's range goes to the
//     error point, a silent step as on the machines.
//   - OpEval into a register, OpIf and a switch on a register make no
//     event: settle runs them within the step that reached them (SPIN's
//     d_step, as machine.runLocal does), so they make no state of their
//     own.
//
// Registers are thread-indexed locations: the encoding carries their
// values with the other locations', the symmetry reduction renames them
// with their thread's instance (prog.FindSymmetry moves thread.register
// with the thread), and canonMemory forgets a register's value once its
// thread can no longer read it. No other thread names a register, so a
// register is never markable (its accesses make no events) and conflicts
// with nothing.

// settle runs thread t of s from its pc through the instructions that
// touch its registers only (OpEval into a register, OpIf, a switch on a
// register), and through skips and one-way branches unless
// Options.NoReduction (spin.go), and
// leaves it at the first that another thread could see, or at an error
// point, or at a switch on a register no alternative of which its value
// satisfies (the thread is blocked there, as at an assume that fails).
// Every cycle of a lowered thread passes a loop head, an OpBranch, so
// settle ends; a hand-written cycle of skips is run round once.
func (m *Machine) settle(s *State, t int) {
	th := &s.th[t]
	if th.mid || th.pend {
		return
	}
	code := m.p.Threads[t].Code
	pc := int(th.pc)
	for n := 0; ; n++ {
		in := &code[pc]
		switch {
		case in.Op == prog.OpSkip && m.skips && n < len(code):
			pc = in.Next // spin.go; a cycle of skips stops after one round
		case in.Op == prog.OpBranch && len(in.Alts) == 1 && m.skips && n < len(code):
			pc = in.Alts[0] // a loop's head whose exit the lowering decided
		case in.Op == prog.OpIf || in.Op == prog.OpEval && m.p.Locs[in.X].Reg:
			next, v, write := in.Local(s.m1)
			if write {
				s.m1[in.X] = v
			}
			pc = next
		case in.Op == prog.OpSwitch && m.p.Locs[in.X].Reg:
			i := in.SwitchAlt(s.m1[in.X])
			if i < 0 {
				th.pc = uint16(pc)
				return
			}
			pc = code[in.Alts[i]].Next
		default:
			th.pc = uint16(pc)
			return
		}
	}
}

// evalEnumLimit bounds the valuations of its registers at which
// evalValues evaluates an expression; past it, it takes the expression's
// interval.
const evalEnumLimit = 1 << 12

// evalValues returns the values the OpEval in may store, when each
// location l its expression reads holds one of vals(l) (ascending, not
// empty): the expression evaluated at every valuation, when there are at
// most evalEnumLimit, else every value of its interval (prog.Expr.Interval),
// within in.Lo..in.Hi either way. An over-approximation, which is what
// the domains and the guesses need.
func evalValues(in *prog.Instr, nl int, vals func(l int) []uint8) valset {
	var out valset
	add := func(x int64) {
		if x >= int64(in.Lo) && x <= int64(in.Hi) {
			out.add(uint8(x))
		}
	}
	regs := in.E.Locs()
	lists := make([][]uint8, len(regs))
	n := 1
	for i, l := range regs {
		lists[i] = vals(l)
		n = min(n*len(lists[i]), evalEnumLimit+1)
	}
	if n == 0 {
		return out
	}
	if n > evalEnumLimit {
		lo, hi, _, _ := in.E.Interval(func(l int) (int64, int64) {
			v := lists[slices.Index(regs, l)]
			return int64(v[0]), int64(v[len(v)-1])
		})
		for x := max(lo, int64(in.Lo)); x <= min(hi, int64(in.Hi)); x++ {
			add(x)
		}
		return out
	}
	mem := make([]byte, nl)
	idx := make([]int, len(regs))
	for {
		for i, l := range regs {
			mem[l] = lists[i][idx[i]]
		}
		if x, ok := in.E.Eval(mem); ok {
			add(x)
		}
		i := 0
		for ; i < len(regs); i++ {
			if idx[i]++; idx[i] < len(lists[i]) {
				break
			}
			idx[i] = 0
		}
		if i == len(regs) {
			return out
		}
	}
}

// isRegister reports whether l is a register kept at run time.
func (m *Machine) isRegister(l int) bool { return m.p.Locs[l].Reg }
