package promela

import (
	"fmt"

	"rdmasim/opsem/axiom"
)

// The verbs features the robustness model instruments, as the decider does
// (opsem/instr/fenced.go, SEMANTICS-VERBS.md 9): quiet, a CPU event that
// may join tau1 only when no event of its thread is in tau2, and the
// fenced mark, which holds its queue pair in tau2 (qN_held) once a fenced
// operation starts while a get's or an atomic's event of the queue pair is
// in tau2.

// anyFenced reports whether some instruction of the program is fenced:
// only then do the queue pairs get a held bit, so that the models of other
// programs are written as before.
func (g *robustGen) anyFenced() bool {
	for t := range g.p.Threads {
		for _, in := range g.p.Threads[t].Code {
			if in.Fenced {
				return true
			}
		}
	}
	return false
}

// startsFenced reports whether event s is the first event of a fenced
// operation.
func (g *robustGen) startsFenced(s *step) bool {
	return s.qp >= 0 && !s.fromMid && g.p.Threads[s.t].Code[s.pc].Fenced
}

// verbsGuard appends the guard of event s (class cls, queue pair q) joining
// tau1 that quiet and the fence flag add.
func (g *robustGen) verbsGuard(s *step, cls axiom.Class, q string, guard []string) []string {
	switch {
	case cls == axiom.ClassQuiet:
		for _, qp := range g.qpsOf[s.t] {
			guard = append(guard, qn(qp)+"_in2 == 0") // oppo: every NIC event of the thread before quiet
		}
	case cls != axiom.ClassCPU && g.fenced:
		guard = append(guard, "!"+q+"_held") // oppo: a fence holds the queue pair in tau2
		if g.startsFenced(s) {
			guard = append(guard, fmt.Sprintf("(%s_in2 & (NRR|NLW)) == 0", q)) // oppo: a get or atomic before it in tau2
		}
	}
	return guard
}

// verbsEffects appends the effect of event s on its queue pair q's held
// bit; it comes before the event's own class joins q's in2.
func (g *robustGen) verbsEffects(s *step, q string, eff []string) []string {
	if g.fenced && g.startsFenced(s) {
		eff = append(eff, fmt.Sprintf("if :: (%s_in2 & (NRR|NLW)) != 0 -> %s_held = 1 :: else fi", q, q))
	}
	return eff
}

// cpuLike reports whether events of class cls hold their thread in tau2
// once one is there (cpu2): the CPU events and quiet.
func cpuLike(cls axiom.Class) bool { return cls == axiom.ClassCPU || cls == axiom.ClassQuiet }

// heldReset returns the reset of queue pair n's held bit, when the model has
// one, for canon.
func (g *robustGen) heldReset(n string) []string {
	if !g.fenced {
		return nil
	}
	return []string{n + "_held = 0"}
}

// heldDeclaration returns queue pair n's held bit's declaration, when the
// model has one.
func (g *robustGen) heldDeclaration(n string) string {
	if !g.fenced {
		return ""
	}
	return "bit " + n + "_held;"
}
