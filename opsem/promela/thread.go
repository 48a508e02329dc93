package promela

import (
	"fmt"
	"strings"

	"rdmasim/opsem/prog"
)

// threadVars reports whether thread t needs mid/reg (a two-step
// instruction) and the type of its pc.
func (g *gen) threadVars(t int) (mid bool, pcType string) {
	th := &g.p.Threads[t]
	for _, in := range th.Code {
		if in.Op == prog.OpCAS || g.sc && (in.Op == prog.OpPut || in.Op == prog.OpGet || in.Op.IsAtomic()) {
			mid = true
		}
	}
	pcType = "byte"
	if th.End() > 255 {
		pcType = "short"
	}
	return mid, pcType
}

// thread writes the variables and the proctype of thread t.
func (g *gen) thread(t int) {
	th := &g.p.Threads[t]
	mid, pcType := g.threadVars(t)
	g.f("/* Thread %s on %s. */\n", th.Name, g.p.Nodes[th.Node].Name)
	g.f("%s pc%d = %d;\t/* next instruction; %d = end */\n", pcType, t, g.initPC[t], th.End())
	if mid {
		g.f("bit mid%d;\t/* between the two steps of an instruction */\n", t)
		g.f("byte reg%d;\t/* the value carried between them */\n", t)
	}
	if g.opt.Unroll > 0 {
		for l := 0; l < th.Loops; l++ {
			g.f("byte ctr%d_%d;\t/* iterations of loop %d in this entry */\n", t, l, l)
		}
	}
	g.registers(t)
	g.f("\nactive proctype thread_%s() {\n\tdo\n", ident(th.Name))
	for pc := range th.Code {
		g.instr(t, pc)
	}
	steps := false // an instruction with a step (not the end, not an error point)
	for _, in := range th.Code {
		steps = steps || in.Op != prog.OpEnd && in.Op != prog.OpFail && in.Op != prog.OpIf && !(in.Op == prog.OpEval && g.p.Locs[in.X].Reg)
	}
	if !steps {
		g.f("\t:: false\t/* no instructions */\n")
	}
	g.f("\tod\n}\n\n")
}

// step writes one d_step option: guard, comment, effects.
func (g *gen) step(guard, comment string, effects []string) {
	if len(effects) == 0 {
		effects = []string{"skip"} // the iteration of an empty loop body
	}
	g.f("\t:: d_step { %s ->\t/* %s */\n", guard, comment)
	g.f("\t\t%s }\n", strings.Join(effects, "; "))
}

// cut writes the option that reports a bound blocking a step.
func (g *gen) cut(guard, bound string) {
	g.f("\t:: d_step { %s -> printf(\"%s %s\\n\") }\n", guard, CutPrefix, bound)
}

// settle returns the effects of moving thread t from instruction pc to
// next, where it stops (moveTo runs the register-only instructions before):
// the assignment and machine.canonPolls where it can change anything.
// After each step, on each queue pair of t, the unpolled operations number
// at most the polls left and ranks are below it; a step breaks that only
// where the polls left drop (other than by the poll the step did on queue
// pair polled) or where it counts a new operation on queue pair added
// (-1: none), and only when more operations than the polls left may have
// been submitted.
func (g *gen) settle(t, pc, next, added, polled int) []string {
	th := &g.p.Threads[t]
	var out []string
	if next != pc {
		out = append(out, fmt.Sprintf("pc%d = %d", t, next))
	}
	for qi, qp := range g.p.QPs {
		if qp.Thread != t {
			continue
		}
		k := qp.Local
		left, prev := th.Code[next].PollsLeft[k], th.Code[pc].PollsLeft[k]
		if qi == polled && prev != prog.Unbounded {
			prev--
		}
		if left == prog.Unbounded || left >= prev && qi != added || left >= g.qps[qi].issued[next] {
			continue
		}
		q := &g.qps[qi]
		out = append(out, fmt.Sprintf("if :: %s_npend > %d -> %s_npend = %d :: else fi", q.name, left, q.name, left))
		if !g.sc {
			for _, b := range []int{0, 1, 2, 4} {
				if q.caps()[b] > 0 {
					out = append(out, fmt.Sprintf("forget(%s_%s, %s_n%s, %d)", q.name, bufNames[b], q.name, bufNames[b], left))
				}
			}
		}
	}
	return out
}

// assume writes the option of the assume at instruction a of thread t,
// taken from instruction pc (a itself, or the switch whose alternative it
// is).
func (g *gen) assume(t, pc, a int, at, text string) {
	in := &g.p.Threads[t].Code[a]
	op := "=="
	if in.Op == prog.OpAssumeNe {
		op = "!="
	}
	g.step(fmt.Sprintf("%s && %s %s %d", at, g.loc(in.X), op, in.A), text, g.moveTo(t, pc, in.Next, -1, -1))
}

// instr writes the options of instruction pc of thread t.
func (g *gen) instr(t, pc int) {
	th := &g.p.Threads[t]
	in := &th.Code[pc]
	at := fmt.Sprintf("pc%d == %d", t, pc)
	var text string
	if in.Stmt != nil {
		text = fmt.Sprintf("%s (line %d)", g.p.StmtString(in.Stmt), in.Stmt.Pos.Line)
	}
	write := func(l int, v string) []string {
		if g.dead[l] {
			return nil
		}
		return []string{fmt.Sprintf("%s = %s", g.loc(l), v)}
	}
	switch in.Op {
	case prog.OpEnd:
		return
	case prog.OpSkip:
		g.step(at, text, g.moveTo(t, pc, in.Next, -1, -1))
	case prog.OpBranch:
		for i, alt := range in.Alts {
			guard := at
			var eff []string
			what := fmt.Sprintf("choose: branch %d", i+1)
			if in.Loop >= 0 {
				what = "loop: iterate"
				if i == 1 {
					what = "loop: exit"
				}
				if g.opt.Unroll > 0 {
					ctr := fmt.Sprintf("ctr%d_%d", t, in.Loop)
					if i == 0 {
						guard += fmt.Sprintf(" && %s < %d", ctr, g.opt.Unroll)
						eff = append(eff, ctr+"++")
						g.cut(fmt.Sprintf("%s && %s >= %d", at, ctr, g.opt.Unroll), "unroll")
					} else {
						eff = append(eff, ctr+" = 0")
					}
				}
			}
			g.step(guard, fmt.Sprintf("%s (line %d)", what, in.Stmt.Pos.Line), append(eff, g.moveTo(t, pc, alt, -1, -1)...))
		}
	case prog.OpWrite:
		g.step(at, text, append(write(in.X, fmt.Sprint(in.A)), g.moveTo(t, pc, in.Next, -1, -1)...))
	case prog.OpAssumeEq, prog.OpAssumeNe:
		g.assume(t, pc, pc, at, text)
	case prog.OpSwitch:
		// One read of X: the assume of each alternative, taken from here.
		for _, a := range in.Alts {
			alt := &th.Code[a]
			g.assume(t, pc, a, at, fmt.Sprintf("%s (line %d)", g.p.StmtString(alt.Stmt), alt.Stmt.Pos.Line))
		}
	case prog.OpCAS:
		reg := fmt.Sprintf("reg%d", t)
		eff := []string{fmt.Sprintf("%s = %s", reg, g.loc(in.Z)),
			fmt.Sprintf("if :: %s == %d -> %s = %d :: else fi", reg, in.A, g.loc(in.Z), in.B),
			fmt.Sprintf("mid%d = 1", t)}
		g.step(fmt.Sprintf("%s && !mid%d", at, t), text+": compare and swap", eff)
		eff = append(write(in.X, reg), fmt.Sprintf("mid%d = 0", t), reg+" = 0")
		g.step(fmt.Sprintf("%s && mid%d", at, t), text+": write result", append(eff, g.moveTo(t, pc, in.Next, -1, -1)...))
	case prog.OpRCAS, prog.OpRFAA:
		if g.sc {
			g.scAtomic(t, pc, text)
		} else {
			g.submit(t, pc, text)
		}
	case prog.OpGet, prog.OpPut, prog.OpRFence:
		if g.sc {
			g.scRemote(t, pc, text)
		} else {
			g.submit(t, pc, text)
		}
	case prog.OpLoad, prog.OpEval, prog.OpIf:
		g.registerStep(t, pc, at)
	case prog.OpPoll:
		q := &g.qps[in.QP]
		guard := fmt.Sprintf("%s && %s_npend > 0", at, q.name)
		eff := []string{q.name + "_npend--"}
		if !g.sc {
			guard += fmt.Sprintf(" && !%s_pending", q.name)
			for _, b := range []int{0, 1, 2, 4} {
				if q.caps()[b] > 0 {
					eff = append(eff, fmt.Sprintf("decr(%s_%s, %s_n%s)", q.name, bufNames[b], q.name, bufNames[b]))
				}
			}
		}
		g.step(guard, text, append(eff, g.moveTo(t, pc, in.Next, -1, in.QP)...))
	case prog.OpQuiet:
		// machine.quiet: under RDMA every buffer of every queue pair of
		// the thread is empty; under SC a step that does nothing.
		guard := at
		if !g.sc {
			for qi := range g.qps {
				if g.p.QPs[qi].Thread != t {
					continue
				}
				q := &g.qps[qi]
				for b, c := range q.caps() {
					if c > 0 {
						guard += fmt.Sprintf(" && %s_n%s == 0", q.name, bufNames[b])
					}
				}
			}
		}
		g.step(guard, text, g.moveTo(t, pc, in.Next, -1, -1))
	}
}

// npendBound returns the guard of machine.enabledCPU's bound on unpolled
// operations (puts and gets where polls are unbounded), or "".
// (It can block only after max-inflight puts and gets.)
func (g *gen) npendBound(in *prog.Instr, pc int) string {
	if in.Op == prog.OpRFence || in.PollsLeft[g.p.QPs[in.QP].Local] != prog.Unbounded || g.qps[in.QP].issued[pc] < g.k {
		return ""
	}
	return fmt.Sprintf("%s_npend < %d", g.qps[in.QP].name, g.k)
}

// npendBounded reports whether npendBound can block a step on queue pair
// qi.
func (g *gen) npendBounded(qi int) bool {
	code := g.p.Threads[g.p.QPs[qi].Thread].Code
	for pc := range code {
		if in := &code[pc]; in.QP == qi && (in.Op == prog.OpPut || in.Op == prog.OpGet || in.Op.IsAtomic()) && g.npendBound(in, pc) != "" {
			return true
		}
	}
	return false
}

// submit writes the RDMA CPU step of a put, get or rfence: append the
// request to B1.
func (g *gen) submit(t, pc int, text string) {
	in := &g.p.Threads[t].Code[pc]
	q := &g.qps[in.QP]
	at := fmt.Sprintf("pc%d == %d", t, pc)
	var bound []string
	if q.before[pc] >= g.k {
		bound = append(bound, fmt.Sprintf("%s_inflight < %d", q.name, g.k))
	}
	if b := g.npendBound(in, pc); b != "" {
		bound = append(bound, b)
	}
	var eff []string
	added := -1
	// The operation's rank: the unpolled operations before it. Where no
	// poll is left (npend is then 0), machine.canonPolls would forget it
	// at once.
	rank, count := q.name+"_npend", []string{q.name + "_npend++"}
	if in.PollsLeft[g.p.QPs[in.QP].Local] == 0 {
		rank, count = "NORANK", nil
	}
	if in.Unsignaled && count != nil {
		// Counted by no poll, ranked by the polls before it (signal.go).
		count, added = nil, in.QP
	}
	// A fenced work request is its kind with an F (machine.fencedMark).
	f := ""
	if in.Fenced {
		f = "F"
	}
	switch in.Op {
	case prog.OpPut:
		if in.Inline {
			eff = append(eff, g.inlineSubmit(q, in, f, rank)...)
		} else {
			eff = append(eff, fmt.Sprintf("push(%s_b1, %s_nb1, PUT%s, %s, %s, %s)", q.name, q.name, f, g.locID(in.Y), g.locID(in.X), rank))
		}
		eff = append(eff, count...)
	case prog.OpGet:
		eff = append(eff, fmt.Sprintf("push(%s_b1, %s_nb1, GET%s, %s, %s, %s)", q.name, q.name, f, g.locID(in.X), g.locID(in.Y), rank))
		eff = append(eff, count...)
	case prog.OpRCAS, prog.OpRFAA:
		eff = append(eff, fmt.Sprintf("push(%s_b1, %s_nb1, ATOM%s, %d, %s, %s)", q.name, q.name, f, g.atomIndex(in), g.locID(in.Y), rank))
		eff = append(eff, count...)
	default:
		eff = append(eff, fmt.Sprintf("push(%s_b1, %s_nb1, FENCE, 0, 0, NORANK)", q.name, q.name))
	}
	eff = append(eff, g.wordsSubmit(in, q)...)
	if count != nil {
		added = in.QP
	}
	guard := at
	if len(bound) > 0 {
		guard += " && " + strings.Join(bound, " && ")
		g.cut(fmt.Sprintf("%s && !(%s)", at, strings.Join(bound, " && ")), "max-inflight")
	}
	g.step(guard, text+": submit", append(eff, g.moveTo(t, pc, in.Next, added, -1)...))
}

// scRemote writes the SC steps of a put or get (read, then write) or an
// rfence (one silent step), as machine.scRemote.
func (g *gen) scRemote(t, pc int, text string) {
	in := &g.p.Threads[t].Code[pc]
	at := fmt.Sprintf("pc%d == %d", t, pc)
	if in.Op == prog.OpRFence {
		g.step(at, text, g.moveTo(t, pc, in.Next, -1, -1))
		return
	}
	if in.Words > 1 {
		g.scWords(t, pc, text) // one step
		return
	}
	q := &g.qps[in.QP]
	src, dst := in.X, in.Y // put: nlR(x), nrW(y)
	if in.Op == prog.OpGet {
		src, dst = in.Y, in.X // get: nrR(y), nlW(x)
	}
	reg := fmt.Sprintf("reg%d", t)
	guard := fmt.Sprintf("%s && !mid%d", at, t)
	if b := g.npendBound(in, pc); b != "" {
		guard += " && " + b
		g.cut(fmt.Sprintf("%s && !mid%d && !(%s)", at, t, b), "max-inflight")
	}
	g.step(guard, text+": read", []string{fmt.Sprintf("%s = %s", reg, g.loc(src)), fmt.Sprintf("mid%d = 1", t)})
	var eff []string
	guard = fmt.Sprintf("%s && mid%d", at, t)
	if !g.dead[dst] {
		eff = append(eff, fmt.Sprintf("%s = %s", g.loc(dst), reg))
	} else {
		// Nothing else reads reg, but rdmasim's configurations hold it:
		// the comparison, always true, keeps SPIN from hiding it.
		guard += fmt.Sprintf(" && %s <= 255", reg)
	}
	eff = append(eff, fmt.Sprintf("mid%d = 0", t), reg+" = 0")
	added := -1
	if in.PollsLeft[g.p.QPs[in.QP].Local] > 0 && !in.Unsignaled { // else canonPolls would undo the count at once (signal.go: an unsignaled operation counts for no poll)
		eff = append(eff, q.name+"_npend++")
		added = in.QP
	}
	g.step(guard, text+": write", append(eff, g.moveTo(t, pc, in.Next, added, -1)...))
}
