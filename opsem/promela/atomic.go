package promela

import (
	"fmt"
	"strings"

	"rdmasim/opsem/prog"
)

// Remote atomics (rcas, rfaa; SEMANTICS-ATOMICS.md) in the machines'
// models. Their entries are the machine's: ATOM(a=atomic, b=y) in B1,
// ATOMREQ in B2, ATOMR(a=atomic, b=y) in B3 before the read and
// ATOMRH(a=atomic, b=y, v=old) once it has read and holds y's lock; after
// the write (or a failing read) the entry is a get's GETRV(a=x, b=y, v=old).
// An atomic is named by its number among the program's atomics (gen.atoms),
// and the d_steps of A1 and A2 select its operands by that number.

// atomIndex returns the number of the atomic instruction in.
func (g *gen) atomIndex(in *prog.Instr) int {
	for k, a := range g.atoms {
		if a == in {
			return k
		}
	}
	panic("promela: not an atomic of the program")
}

// atomicDecls declares the atomics' entry kinds, the scratch value of A1
// and the lock test (machine.atomLocked): some B3 entry, on any queue pair,
// holds the lock of location y.
func (g *gen) atomicDecls() {
	g.f("/* Remote atomics: ATOM in B1, ATOMREQ in B2, ATOMR (not read) and ATOMRH (read v, holds b's lock) in B3. */\n")
	g.f("mtype = { ATOM, ATOMREQ, ATOMR, ATOMRH };\n")
	g.f("hidden byte tv;\t/* the value an atomic reads */\n")
	var held []string
	for qi := range g.qps {
		q := &g.qps[qi]
		if len(q.atoms) == 0 {
			continue
		}
		for s := 0; s < q.cap3; s++ {
			held = append(held, fmt.Sprintf("(%s_nb3 > %d && %s_b3[%d].kind == ATOMRH && %s_b3[%d].b == y)", q.name, s, q.name, s, q.name, s))
		}
	}
	if len(held) == 0 {
		held = append(held, "false")
	}
	g.f("#define locked(y) (%s)\n\n", strings.Join(held, " || "))
}

// atomicRules writes N5 for atomics and A1, A2 of queue pair qi (one d_step
// per B3 slot, as N6).
func (g *gen) atomicRules(qi int, take func(string) string) {
	q := &g.qps[qi]
	n := q.name
	g.step(fmt.Sprintf("%s_nb2 > 0 && %s_b2[0].kind == ATOMREQ", n, n), "N5 atomic request arrives (B2 -> B3)",
		[]string{take("b2"), fmt.Sprintf("push3(%s_b3, %s_nb3, ATOMR, ta, tb, tr)", n, n)})
	for s := 0; s < q.cap3; s++ {
		e := fmt.Sprintf("%s_b3[%d]", n, s)
		guard := fmt.Sprintf("%s_nb3 > %d && %s.kind == ATOMR && !locked(%s.b)", n, s, e, e)
		if q.capRW > 0 {
			guard += fmt.Sprintf(" && %s_nrw == 0", n)
		}
		var alts []string
		for _, k := range q.atoms {
			in := g.atoms[k]
			fail := fmt.Sprintf("%s.kind = GETRV; %s.a = %s; %s.v = tv", e, e, g.locID(in.X), e)
			lock := fmt.Sprintf("%s.kind = ATOMRH; %s.v = tv", e, e)
			if in.Op == prog.OpRCAS {
				alts = append(alts, fmt.Sprintf(":: %s.a == %d -> if :: tv == %d -> %s :: else -> %s fi", e, k, in.A, lock, fail))
			} else {
				alts = append(alts, fmt.Sprintf(":: %s.a == %d -> %s", e, k, lock))
			}
		}
		g.step(guard, fmt.Sprintf("A1 atomic reads remote memory (B3 slot %d)", s),
			[]string{fmt.Sprintf("load(%s.b, tv)", e), "if " + strings.Join(alts, " ") + " fi", "tv = 0"})
		alts = alts[:0]
		for _, k := range q.atoms {
			in := g.atoms[k]
			val := fmt.Sprint(in.B)
			if in.Op == prog.OpRFAA {
				val = fmt.Sprintf("(%s.v + %d) %% 256", e, in.A)
			}
			alts = append(alts, fmt.Sprintf(":: %s.a == %d -> store(%s.b, %s); %s.kind = GETRV; %s.a = %s", e, k, e, val, e, e, g.locID(in.X)))
		}
		g.step(fmt.Sprintf("%s_nb3 > %d && %s.kind == ATOMRH", n, s, e), fmt.Sprintf("A2 atomic writes remote memory (B3 slot %d)", s),
			[]string{"if " + strings.Join(alts, " ") + " fi"})
	}
}

// scAtomic writes the SC steps of a remote atomic, as machine.scRemote: one
// reads y and (unless a comparison fails) writes it, the second lands the
// old value in x.
func (g *gen) scAtomic(t, pc int, text string) {
	in := &g.p.Threads[t].Code[pc]
	q := &g.qps[in.QP]
	at := fmt.Sprintf("pc%d == %d", t, pc)
	reg := fmt.Sprintf("reg%d", t)
	guard := fmt.Sprintf("%s && !mid%d", at, t)
	if b := g.npendBound(in, pc); b != "" {
		guard += " && " + b
		g.cut(fmt.Sprintf("%s && !mid%d && !(%s)", at, t, b), "max-inflight")
	}
	eff := []string{fmt.Sprintf("%s = %s", reg, g.loc(in.Y))}
	if in.Op == prog.OpRCAS {
		eff = append(eff, fmt.Sprintf("if :: %s == %d -> %s = %d :: else fi", reg, in.A, g.loc(in.Y), in.B))
	} else {
		eff = append(eff, fmt.Sprintf("%s = (%s + %d) %% 256", g.loc(in.Y), reg, in.A))
	}
	g.step(guard, text+": read and write", append(eff, fmt.Sprintf("mid%d = 1", t)))
	eff = nil
	guard = fmt.Sprintf("%s && mid%d", at, t)
	if !g.dead[in.X] {
		eff = append(eff, fmt.Sprintf("%s = %s", g.loc(in.X), reg))
	} else {
		guard += fmt.Sprintf(" && %s <= 255", reg) // keeps reg visible to SPIN, as scRemote does
	}
	eff = append(eff, fmt.Sprintf("mid%d = 0", t), reg+" = 0")
	added := -1
	if in.PollsLeft[g.p.QPs[in.QP].Local] > 0 && !in.Unsignaled {
		eff = append(eff, q.name+"_npend++")
		added = in.QP
	}
	g.step(guard, text+": write result", append(eff, g.moveTo(t, pc, in.Next, added, -1)...))
}
