package repair

// Learning from a violation: the po edges of its sc cycle that the trace's
// ob lacks, and for each the candidate insertions that would order it,
// placed in the original text.

import (
	"fmt"
	"regexp"
	"strings"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
)

// learn turns a violation into clauses, one per po edge of its sc cycle that
// the trace's ob lacks, each the candidates that would order it (minus those
// applied already: the violation exists with them). why is set when the
// violation gives nothing to learn from.
func (s *search) learn(r *robust.Result, ed *edited, applied []int) (clauses [][]int, why string) {
	t := r.Trace
	cycle := oneLine(r.Cycle, ed)
	if t == nil && r.Run != nil {
		// Enumeration on the machine (remote atomics): its run to the
		// violation, read as the query goal reads a witness.
		m, err := robustMachine(r.Program, s.opt.Robust.Verdict)
		if err != nil {
			return nil, "the RDMA machine could not be rebuilt to read the violation: " + err.Error()
		}
		return s.learnFromRun(r.Program, m, r.Run, nil, nil, ed, applied, "the run to the violation")
	}
	if t == nil {
		return nil, "the decision gave no trace to learn from: " + cycle
	}
	p := r.Program
	rel := t.Relations()
	cyc := t.SCCycle()
	isApplied := map[int]bool{}
	for _, i := range applied {
		isApplied[i] = true
	}
	for k, a := range cyc {
		b := cyc[(k+1)%len(cyc)]
		ea, eb := &t.Events[a], &t.Events[b]
		if ea.Thread < 0 || ea.Thread != eb.Thread || !rel.PO.Has(a, b) || rel.OB.Has(a, b) {
			continue
		}
		var clause []int
		all := s.candidates(p, t, ea, eb, ed, cycle)
		for _, c := range all {
			if !isApplied[c] {
				clause = append(clause, c)
			}
		}
		if len(clause) == 0 && len(all) > 0 {
			return nil, fmt.Sprintf("the insertions that order %s %s before %s are in place and the cycle remains (the counts of pending operations differ on this run, e.g. in a loop): %s",
				p.Threads[ea.Thread].Name, p.EventString(ea.Event), p.EventString(eb.Event), cycle)
		}
		if len(clause) == 0 {
			return nil, fmt.Sprintf("no insertion of the kinds allowed orders %s %s before %s in the cycle %s",
				p.Threads[ea.Thread].Name, p.EventString(ea.Event), p.EventString(eb.Event), cycle)
		}
		clauses = append(clauses, clause)
	}
	if len(clauses) == 0 {
		for _, a := range cyc {
			if t.Events[a].Kind.IsAtomic() {
				return nil, "the cycle goes through a remote atomic and the trace's ob orders every po edge of it: the atomics' own axioms (SEMANTICS-ATOMICS.md: an atomic's read and write are one, the lock order) make it a violation, which repair does not learn from: " + cycle
			}
		}
		return nil, "every po edge of the cycle is ordered already, yet the trace is consistent: " + cycle
	}
	return clauses, ""
}

// candidates are the ways of ordering a before b (Orders): a poll after each
// operation of a's queue pair still pending at a; or, just before b's
// statement, as many polls, an rfence, or (after a put's nrW) a read-back.
// Each is identified by its place in the original text and its text, so
// that a candidate met again in a later round is the same.
func (s *search) candidates(p *prog.Program, t *axiom.Trace, a, b *axiom.Event, ed *edited, cycle string) []int {
	th := &p.Threads[a.Thread]
	if a.Remote < 0 {
		return nil // a is no NIC event
	}
	st := th.Code[b.PC].Stmt
	var pos prog.Pos
	if st != nil {
		var ok bool
		if pos, ok = ed.Orig(st.Pos); !ok {
			return nil // b is inserted text
		}
		pos = labelStart(s.orig, pos)
	}
	node := p.Nodes[a.Remote].Name
	same := a.Remote == b.Remote
	var out []int
	add := func(parts ...Insertion) {
		c := candidate{}
		var keys []string
		for _, x := range parts {
			c.cost += x.Cost
			keys = append(keys, x.key)
		}
		c.parts, c.key = parts, strings.Join(keys, " + ")
		i, seen := s.byKey[c.key]
		if !seen {
			i = len(s.cands)
			s.cands = append(s.cands, c)
			s.byKey[c.key] = i
		}
		out = append(out, i)
	}
	// before places stmt just before b's statement; when b has none (it
	// stands for the thread's end, which a reach condition looks at),
	// just after the thread's last statement.
	before := func(k Kind, stmt string, cost int) (Insertion, bool) {
		if st == nil {
			last := -1
			for i := range t.Events {
				if e := &t.Events[i]; e.Thread == a.Thread && e.PC >= 0 && (last < 0 || e.Index > t.Events[last].Index) {
					last = i
				}
			}
			if last < 0 {
				return Insertion{}, false
			}
			return s.afterStmt(p, ed, th, t.Events[last].PC, k, stmt, cost, cycle)
		}
		c := Insertion{Thread: th.Name, Line: pos.Line, Col: pos.Col, Kind: k.String(), Breaks: cycle, Stmt: stmt, Cost: cost}
		c.AfterLine, c.After = s.after(pos)
		c.key = fmt.Sprintf("%d:%d %s", c.Line, c.Col, c.Stmt)
		return c, true
	}
	for k := Kind(0); k < numKinds; k++ {
		if !s.opt.Kinds[k] || !Orders(k, a.Kind, b.Kind, same) {
			continue
		}
		switch k {
		case Poll:
			// A poll after each operation still pending at a (so that
			// every poll waits for the operation it follows, in every
			// iteration of a loop), or as many polls before b.
			var each []Insertion
			ops := pendingOps(t, a, a.Index, b)
			for _, o := range ops {
				if c, ok := s.afterStmt(p, ed, th, o, Poll, "poll("+node+")", s.opt.Costs[Poll], cycle); ok {
					each = append(each, c)
				}
			}
			if len(each) > 0 {
				add(each...)
			}
			n := max(len(ops), 1)
			if c, ok := before(k, polls(node, n), n*s.opt.Costs[Poll]); ok {
				add(c)
			}
		case RFence:
			if c, ok := before(k, fmt.Sprintf("rfence(%s)", node), s.opt.Costs[RFence]); ok {
				add(c)
			}
		case ReadBack:
			if a.Kind != prog.EvNRW || strings.Contains(p.Nodes[th.Node].Name, "[") {
				// A read-back needs a scratch location on the thread's
				// node; in a family of nodes (m[i]) its name would take
				// the family's index, which is not built.
				continue
			}
			loc := target(p, th, a)
			scratch := s.scratch(loc)
			n := len(pendingOps(t, a, b.Index-1, b)) + 1 // the read-back's get is the last to wait for
			c, ok := before(k, scratch+" := "+loc+"; "+polls(node, n), s.opt.Costs[ReadBack]+(n-1)*s.opt.Costs[Poll])
			if !ok {
				continue
			}
			c.decl, c.node = scratch+" = 0", p.Nodes[th.Node].Pos
			add(c)
		}
	}
	return out
}

// pendingOps are the PCs of the operations of a's queue pair started at or
// before po index upTo and not polled before b, oldest first: polls take
// completions in order, so each needs a poll of its own.
func pendingOps(t *axiom.Trace, a *axiom.Event, upTo int, b *axiom.Event) []int {
	var ops []int
	polled := 0
	for i := range t.Events {
		e := &t.Events[i]
		if e.Thread != a.Thread || e.Remote != a.Remote {
			continue
		}
		switch {
		case (e.Kind == prog.EvNLR || e.Kind == prog.EvNRR || e.Kind == prog.EvNAR) && e.Index <= upTo:
			ops = append(ops, e.PC)
		case e.Kind == prog.EvPoll && e.Index < b.Index:
			polled++
		}
	}
	if polled >= len(ops) {
		return nil
	}
	return ops[polled:]
}

// afterStmt is an insertion of stmt just after the statement of instruction
// pc: inline before the next statement on its line, else on a line of its
// own below it.
func (s *search) afterStmt(p *prog.Program, ed *edited, th *prog.Thread, pc int, k Kind, stmt string, cost int, cycle string) (Insertion, bool) {
	st := th.Code[pc].Stmt
	if st == nil {
		return Insertion{}, false
	}
	pos, ok := ed.Orig(st.Pos)
	if !ok {
		return Insertion{}, false
	}
	c := Insertion{Thread: th.Name, Kind: k.String(), Breaks: cycle, Stmt: stmt, Cost: cost}
	// The next statement on the same line, if any.
	next := prog.Pos{}
	for i := range th.Code {
		if o := th.Code[i].Stmt; o != nil {
			if q, ok := ed.Orig(o.Pos); ok && q.Line == pos.Line && q.Col > pos.Col && (next.Col == 0 || q.Col < next.Col) {
				next = q
			}
		}
	}
	if next.Col != 0 {
		c.Line, c.Col = next.Line, next.Col
		c.AfterLine, c.After = s.after(next)
	} else if col, ok := closingBrace(s.orig, pos); ok {
		// The last statement of a block on one line ("{ z := one }"):
		// inline, before the brace.
		c.inline = true
		c.Line, c.Col = pos.Line, col
		c.AfterLine, c.After = pos.Line, strings.TrimSpace(strings.Split(s.orig, "\n")[pos.Line-1][pos.Col-1:col-1])
	} else {
		c.afterLine = true
		c.Line, c.Col = pos.Line+1, 1
		c.AfterLine, c.After = pos.Line, lineText(s.orig, pos.Line)
	}
	c.key = fmt.Sprintf("%d:%d/%v %s", c.Line, c.Col, c.afterLine, c.Stmt)
	return c, true
}

// labelStart moves pos, a statement's position, to the start of the labels
// before it on its line ("L: skip"), so that text inserted before the
// statement runs before a thread is at its label (T@L).
func labelStart(src string, pos prog.Pos) prog.Pos {
	line := strings.Split(src, "\n")[pos.Line-1]
	for {
		before := strings.TrimRight(line[:min(pos.Col-1, len(line))], " \t")
		m := labelBefore.FindStringIndex(before)
		if m == nil {
			return pos
		}
		pos.Col = m[0] + 1
	}
}

var labelBefore = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*\s*:$`)

// closingBrace finds, on the line of the statement at pos, the brace that
// closes the block the statement ends ("thread T on A { z := one }"): the
// column just after the statement's last character. ok is false when the
// statement ends its line, or opens a block of its own on it.
func closingBrace(src string, pos prog.Pos) (int, bool) {
	line := strings.Split(src, "\n")[pos.Line-1]
	if c := strings.IndexByte(line, '#'); c >= 0 {
		line = line[:c]
	}
	if pos.Col-1 > len(line) {
		return 0, false
	}
	rest := line[pos.Col-1:]
	i := strings.IndexByte(rest, '}')
	if i < 0 || strings.Contains(rest[:i], "{") {
		return 0, false
	}
	end := pos.Col - 1 + len(strings.TrimRight(rest[:i], " \t"))
	return end + 1, true
}

// target is the put's target as the source names it: the left side of the
// protocol statement (buf[k % 2]), or the core location's name.
func target(p *prog.Program, th *prog.Thread, a *axiom.Event) string {
	if st := th.Code[a.PC].Stmt; st != nil && st.Src != nil {
		if lhs, _, ok := strings.Cut(st.Src.Text, ":="); ok {
			return strings.TrimSpace(lhs)
		}
	}
	return p.Locs[a.Loc].Name
}

func polls(node string, n int) string {
	return strings.TrimSuffix(strings.Repeat("poll("+node+"); ", n), "; ")
}

// scratch is the name of the read-back's scratch location for loc: rb_loc,
// made fresh.
func (s *search) scratch(loc string) string {
	base, _, _ := strings.Cut(loc, "[")
	base = "rb_" + strings.TrimSpace(base)
	name := base
	for i := 2; ; i++ {
		if !strings.Contains(s.orig, name) {
			return name
		}
		name = fmt.Sprintf("%s%d", base, i)
	}
}

// after says what an insertion at pos comes after: the text before it on
// its line, or the previous line with a statement.
func (s *search) after(pos prog.Pos) (int, string) {
	line := strings.Split(s.orig, "\n")[pos.Line-1]
	if before := strings.TrimSpace(line[:min(pos.Col-1, len(line))]); before != "" {
		// The statement before it on the line: after the last ; or {.
		before = strings.TrimSpace(strings.TrimSuffix(before, ";"))
		if i := strings.LastIndexAny(before, ";{"); i >= 0 {
			before = strings.TrimSpace(before[i+1:])
		}
		return pos.Line, before
	}
	l := prevStmtLine(s.orig, pos.Line)
	return l, lineText(s.orig, l)
}

// oneLine prints a cycle on one line, its statements' lines those of the
// original text ("line 12+" for text inserted below line 12), ending on its
// first event again.
func oneLine(cyc []report.CycleEvent, ed *edited) string {
	cyc = append([]report.CycleEvent(nil), cyc...)
	for i, e := range cyc {
		var n int
		if _, err := fmt.Sscanf(e.Source, "line %d:", &n); err != nil {
			continue
		}
		text := strings.SplitN(e.Source, ":", 2)[1]
		if l, exact := ed.orig[n]; exact {
			cyc[i].Source = fmt.Sprintf("line %d:%s", l, text)
			continue
		}
		for k := n - 1; k > 0; k-- {
			if l, found := ed.orig[k]; found {
				cyc[i].Source = fmt.Sprintf("line %d+ (inserted):%s", l, text)
				break
			}
		}
	}
	if len(cyc) == 0 {
		return ""
	}
	// The last edge leads back to the first event: name it again, so that
	// the line does not end on an arrow.
	return strings.Join(report.CycleLines(cyc), " ") + " " + cyc[0].Thread + " " + cyc[0].Event
}
