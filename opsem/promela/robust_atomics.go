package promela

import (
	"fmt"
	"slices"
	"strings"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
)

// Remote atomics (rcas, rfaa) in the robustness model, behind
// RobustOptions.AllowAtomics: EXPERIMENTAL, the decider's instrumentation
// of them (opsem/instr/atomic.go, SEMANTICS-ATOMICS.md section 5.4), whose
// normal form is not proved. For an atomic A = x := rcas/rfaa(y, ...) of
// thread T on queue pair q, as instr's machine does under NoReduction:
//
//   - Whole: its naR and (unless an rcas's comparison fails) its naW are
//     one option, in tau1 or in tau2, on that part's memory (in tau2 with
//     the boundary guess of any read), as a local CAS; the thread is then
//     in the middle of A (midT, valT the old value), and its nlW of x
//     follows as a get's second event. The queue-pair bookkeeping records
//     naR and naW as nrR (bookClass).
//   - Pending: a writing atomic's naR alone, its write never comes; the
//     thread stops (pendT, at A's pc). It holds y's lock to the end of tau.
//
// Per location y of an atomic: lk_Y, the part (1 or 2) of the pending
// atomic holding y's lock, 0 for none; a2_Y, an atomic on y is in tau2. An
// atomic may join part p only before the lock in tau (lk_Y == 0 or p <
// lk_Y); a pending one only when no lock is held, and in tau1 only if no
// atomic on y is in tau2 (instr's lockFree). In the SC cycle a pending
// atomic that is its thread's exit (pendInT) is also an entry linked from
// every other thread's exit on y, marked before it or after it (instr's
// linkPending).

// atomics records the remote atomics of g's program (atomPCs, atomLocs),
// none unless the model instruments them.
func (g *robustGen) atomics() {
	g.atomPCs = make([]map[int][]int, len(g.p.Threads))
	for t := range g.p.Threads {
		g.atomPCs[t] = map[int][]int{}
		for pc, in := range g.p.Threads[t].Code {
			if in.Op.IsAtomic() {
				g.atomPCs[t][in.Y] = append(g.atomPCs[t][in.Y], pc)
				if !slices.Contains(g.atomLocs, in.Y) {
					g.atomLocs = append(g.atomLocs, in.Y)
				}
			}
		}
	}
	slices.Sort(g.atomLocs)
}

// hasAtomics reports whether thread t has remote atomics (then the
// variable pendT).
func (g *robustGen) hasAtomics(t int) bool { return len(g.atomPCs[t]) > 0 }

// pendableOn reports whether thread t may have a pending atomic on y that
// is on an SC cycle: an atomic of t on y, y markable.
func (g *robustGen) pendableOn(t, y int) bool {
	return len(g.atomPCs[t][y]) > 0 && g.m.Markable(y)
}

// pendLinked reports whether thread t has a pending atomic on SC cycles
// (then the variable pendInT).
func (g *robustGen) pendLinked(t int) bool {
	for y := range g.atomPCs[t] {
		if g.pendableOn(t, y) {
			return true
		}
	}
	return false
}

// pendingOn is the condition that thread u's exit is a pending atomic on
// y: pendInU, and u stopped at one of its atomics on y.
func (g *robustGen) pendingOn(u, y int) string {
	c := fmt.Sprintf("pendIn%d", u)
	if len(g.atomPCs[u][y]) == len(atomicPCs(g.atomPCs[u])) {
		return c // all of u's atomics are on y
	}
	var at []string
	for _, pc := range g.atomPCs[u][y] {
		at = append(at, fmt.Sprintf("pc%d == %d", u, pc))
	}
	return fmt.Sprintf("%s && (%s)", c, strings.Join(at, " || "))
}

func atomicPCs(m map[int][]int) []int {
	var all []int
	for _, pcs := range m {
		all = append(all, pcs...)
	}
	return all
}

// bookClass is the ppo class under which the bookkeeping records an event
// of kind k: its own, but an atomic's naR and naW are recorded as nrR
// (instr's bookClass, checked there against axiom.PPO).
func bookClass(k prog.EventKind) axiom.Class {
	if k.IsAtomic() {
		return axiom.ClassNRR
	}
	return axiom.ClassOf(k)
}

// atomicDeclarations declares the lock state of the atomics' locations.
func (g *robustGen) atomicDeclarations() {
	if len(g.atomLocs) == 0 {
		return
	}
	g.f("/* Remote atomics (EXPERIMENTAL): the part of the pending atomic holding the lock (0: none); an atomic is in tau2. */\n")
	for _, y := range g.atomLocs {
		g.f("byte %s; bit %s;\t/* on %s */\n", g.v("lk", y), g.v("a2", y), g.p.Nodes[g.p.Locs[y].Node].Name)
	}
	g.f("\n")
}

// threadAtomicDeclarations declares thread t's pending flags.
func (g *robustGen) threadAtomicDeclarations(t int) {
	if !g.hasAtomics(t) {
		return
	}
	g.f("bit pend%d;\t/* the thread stopped at a pending remote atomic */\n", t)
	if g.pendLinked(t) {
		g.f("bit pendIn%d;\t/* that atomic is its SC-cycle exit, and an entry from every other exit on its location */\n", t)
	}
}

// atomic writes the options of the first step of remote atomic pc of
// thread t (guard at): whole or pending, in each part, from each source of
// the value read (instr's atomic); its second event, the nlW of x, is a
// get's.
func (g *robustGen) atomic(t, pc int, at, text string) {
	in := &g.p.Threads[t].Code[pc]
	y := in.Y
	m1, m2, gv, w2, gs := g.v("m1", y), g.v("m2", y), g.v("g", y), g.v("w2", y), g.v("gs", y)
	lk, a2 := g.v("lk", y), g.v("a2", y)
	base := append(g.notMid(t, at), fmt.Sprintf("!pend%d", t))
	for part := 1; part <= 2; part++ {
		srcs := []readSource{{val: m1, konst: -1, what: "reads tau1's memory"}}
		if part == 2 {
			srcs = g.tau2Sources(y, m2, gv, w2, gs)
		}
		// instr's lockFree, for a whole and a pending atomic
		whole, pending := lk+" != 1", lk+" == 0"
		if part == 2 {
			whole = lk + " == 0"
		} else {
			pending += " && !" + a2
		}
		for _, src := range srcs {
			var lock []string
			if part == 2 {
				lock = []string{a2 + " = 1"}
			}
			s := step{t: t, pc: pc, kind: prog.EvNAR, loc: y, qp: in.QP, part: part, next: in.Next}
			sbase := appendNonEmpty(base, src.guard)
			// whole: the test of the comparison, if any, and whether it
			// writes
			type outcome struct {
				cond   string
				ok     bool
				writes bool
			}
			outs := []outcome{{ok: true, writes: true}}
			if in.Op == prog.OpRCAS {
				outs = outs[:0]
				for _, op := range []string{"==", "!="} {
					c, ok := src.cond(op, in.A)
					outs = append(outs, outcome{c, ok, op == "=="})
				}
			}
			for _, o := range outs {
				if !o.ok {
					continue
				}
				ws := s
				ws.guard = appendNonEmpty(append(slices.Clone(sbase), whole), o.cond)
				ws.toMid, ws.aw = true, o.writes
				ws.pre = append(append(slices.Clone(src.pre), fmt.Sprintf("val%d = %s", t, src.val)), lock...)
				if o.writes {
					ws.wval = fmt.Sprint(in.B)
					if in.Op == prog.OpRFAA {
						ws.wval = fmt.Sprintf("(val%d + %d) %% 256", t, in.A)
					}
					ws.what = fmt.Sprintf("%s: naR(%s)+naW(%s) whole, %s", text, g.lname(y), g.lname(y), src.what)
				} else {
					ws.what = fmt.Sprintf("%s: naR(%s) whole (the rcas fails), %s", text, g.lname(y), src.what)
				}
				g.eventIn(&ws)
				if !o.writes {
					continue
				}
				ps := s
				ps.guard = appendNonEmpty(append(slices.Clone(sbase), pending), o.cond)
				ps.pending = true
				ps.pre = append(append(slices.Clone(src.pre), lock...), fmt.Sprintf("%s = %d", lk, part))
				ps.what = fmt.Sprintf("%s: naR(%s) pending (its naW never comes, the thread stops), %s", text, g.lname(y), src.what)
				g.eventIn(&ps)
			}
		}
	}
}

// stopPending returns the effects of thread t stopping at a pending
// atomic: pendT, and instr's canon of an ended thread (its queue pairs
// keep no bookkeeping, its counters none).
func (g *robustGen) stopPending(t int) []string {
	out := []string{fmt.Sprintf("pend%d = 1", t)}
	for _, q := range g.qpsOf[t] {
		n := qn(q)
		out = append(out, n+"_in2 = 0", n+"_fence = 0")
		if g.counted[q] {
			out = append(out, n+"_c1 = 0", n+"_c2 = 0", n+"_forced = 0")
		}
	}
	return out
}

// linkPending returns the effects of instr's linkPending when event s
// (access a) becomes its thread's exit: a pending atomic is also an entry,
// linked from every other thread's exit on its location; any other exit
// links to the pending atomics on its location that are their threads'
// exits.
func (g *robustGen) linkPending(s *step, a access) []string {
	t := s.t
	var out []string
	if s.pending {
		out = append(out, fmt.Sprintf("pendIn%d = 1", t))
		for u := range g.p.Threads {
			if u != t && g.edge[u][t] && g.accesses(u, a.loc) {
				out = append(out, fmt.Sprintf("if :: exit%d != 0 && XLOC(exit%d) == %d -> %s = 1 :: else fi", u, u, a.loc, edgeVar(u, t)))
			}
		}
		return out
	}
	for u := range g.p.Threads {
		if u != t && g.pendableOn(u, a.loc) {
			out = append(out, fmt.Sprintf("if :: %s -> %s = 1 :: else fi", g.pendingOn(u, a.loc), edgeVar(t, u)))
		}
	}
	return out
}

// accesses reports whether thread t has a markable event on l.
func (g *robustGen) accesses(t, l int) bool {
	return slices.ContainsFunc(g.acc[t], func(a access) bool { return a.loc == l })
}
