package machine

import (
	"fmt"
	"strings"

	"rdmasim/opsem/prog"
)

// Transition is a readable account of one transition, for traces.
type Transition struct {
	Actor  string // the thread ("p") or the NIC of a queue pair ("NIC p->n2")
	Thread int    // the thread that steps, or whose queue pair's NIC steps
	// Line is the source line of the statement a CPU step executes; 0
	// for NIC steps.
	Line    int
	Rule    string   // "step" for CPU steps, else N1..N8, F1, F2
	What    string   // the instruction or the rule, in words
	Step    Step     // the event, if any
	Event   string   // the event in the paper's notation, "" for silent steps
	Changes []string // memory and buffer changes, e.g. "z: 0 -> 2"
	// Memory and Buffers are Changes, structured.
	Memory  []MemChange
	Buffers []BufChange
	Post    []byte // the configuration reached
	Label   uint64 // the transition label
	// Words is, for a CPU step of a multi-word put or get, its words
	// (SEMANTICS-VERBS.md 1; it takes 2*Words+1 program-order slots in
	// an event graph, see wordsSlot); 0 otherwise.
	Words int
}

// MemChange is a location whose value a transition changed.
type MemChange struct {
	Loc  string `json:"loc"`
	From uint8  `json:"from"`
	To   uint8  `json:"to"`
}

// BufChange is a buffer of a queue pair that a transition changed, with
// its entries after the transition.
type BufChange struct {
	Buf     string `json:"buffer"`     // B1, B2, B3, RW or LW
	QP      string `json:"queue_pair"` // "T0->B"
	Entries string `json:"entries"`    // as printed, e.g. "[PUT(z,x)]"
}

var ruleWhat = [...]string{
	RuleN1: "put reads its source (B1 -> B2)",
	RuleN2: "get request leaves (B1 -> B2)",
	RuleN3: "fence passes (B2, B3 empty)",
	RuleN4: "put arrives (B2 -> RW, ACK -> B3)",
	RuleN5: "get request arrives (B2 -> B3)",
	RuleN6: "get reads remote memory",
	RuleN7: "put acknowledged (complete)",
	RuleN8: "get response returns (B3 -> LW)",
	RuleF1: "remote write reaches memory",
	RuleF2: "get's local write reaches memory (complete)",
	RuleA1: "atomic reads remote memory (locks it against atomics if it will write)",
	RuleA2: "atomic writes remote memory (unlocks)",
}

// Explain describes transition l taken from configuration s. The label must
// be one that Successors emitted for s.
func (m *Machine) Explain(s []byte, l uint64) Transition {
	pre, post := m.newState(), m.newState()
	m.decode(s, pre)
	post.copyFrom(pre)
	t, rule, qi, arg := unlabel(l)
	tr := Transition{Label: l}
	if rule == RuleStep {
		tr.Actor, tr.Rule, tr.Thread = m.p.Threads[t].Name, "step", t
		tr.What = m.describeCPU(pre, t, arg)
		in := &m.p.Threads[t].Code[pre.pc[t]]
		tr.Line = in.Stmt.Pos.Line
		if in.Words > 1 {
			tr.Words = in.Words
		}
	} else {
		qp := m.p.QPs[qi]
		tr.Actor = fmt.Sprintf("NIC %s->%s", m.p.Threads[qp.Thread].Name, m.p.Nodes[qp.Remote].Name)
		tr.Rule, tr.What, tr.Thread = ruleNames[rule], ruleWhat[rule], qp.Thread
		if m.atomicMoves(pre, rule, qi) {
			tr.What = strings.Replace(tr.What, "get request", "atomic request", 1)
		}
		if b1 := pre.q[qi].buf[bufB1]; rule == RuleN1 && b1[0].kind == kPutI {
			tr.What = inlineN1What
		}
	}
	tr.Step = m.apply(post, l)
	if tr.Step.Event.Kind != prog.EvNone {
		tr.Event = m.p.EventString(tr.Step.Event)
		for _, w := range tr.Step.Words {
			tr.Event += " " + m.p.EventString(w)
		}
		if tr.Step.Event.IsNICWrite() && !m.sc {
			if tr.Step.Visible {
				tr.Event += " visible"
			} else {
				tr.Event += " issued"
			}
		}
	}
	tr.Memory, tr.Buffers = m.diff(pre, post)
	for _, c := range tr.Memory {
		tr.Changes = append(tr.Changes, fmt.Sprintf("%s: %d -> %d", c.Loc, c.From, c.To))
	}
	for _, c := range tr.Buffers {
		tr.Changes = append(tr.Changes, fmt.Sprintf("%s[%s] = %s", c.Buf, c.QP, c.Entries))
	}
	if rule == RuleStep {
		// A lowered thread's registers live in its control point.
		code := m.p.Threads[t].Code
		if a, b := code[pre.pc[t]].Stmt, code[post.pc[t]].Stmt; a != nil && b != nil && a.Src != nil && b.Src != nil {
			for _, c := range prog.RegChanges(a.Src.Regs, b.Src.Regs) {
				tr.Changes = append(tr.Changes, "register "+c)
			}
		}
	}
	tr.Post = m.encode(nil, post)
	return tr
}

// ExplainChain describes transition l taken from configuration s and, under
// Options.Reduce, the invisible steps (and, under Options.ControlHidden, the
// submissions) taken after it to settle the configuration it reaches (see
// reducer.emit): the last Transition's Post is the configuration Successors
// emitted under l. Without the reduction it is Explain's one Transition.
func (m *Machine) ExplainChain(s []byte, l uint64) []Transition {
	tr := m.Explain(s, l)
	run := []Transition{tr}
	if m.red == nil {
		return run
	}
	for cur := tr.Post; m.red.invisible(cur); cur = tr.Post {
		tr = m.Explain(cur, m.red.stepLabel)
		run = append(run, tr)
	}
	return run
}

func (m *Machine) describeCPU(st *State, t, arg int) string {
	in := &m.p.Threads[t].Code[st.pc[t]]
	switch in.Op {
	case prog.OpSwitch:
		// The read: the statement of the alternative it takes.
		return m.p.SourceString(m.p.Threads[t].Code[in.Alts[arg]].Stmt)
	case prog.OpBranch:
		what := "loop"
		if in.Stmt.Src != nil {
			what = in.Stmt.Src.Text
		}
		if in.Loop >= 0 {
			if arg == 0 {
				return what + ": iterate"
			}
			return what + ": exit"
		}
		if in.Stmt.Src != nil {
			return fmt.Sprintf("%s: branch %d", what, arg+1)
		}
		return fmt.Sprintf("choose: branch %d", arg+1)
	case prog.OpCAS:
		if st.mid[t] {
			return m.p.SourceString(in.Stmt) + " (write result)"
		}
		return m.p.SourceString(in.Stmt) + " (compare and swap)"
	case prog.OpRCAS, prog.OpRFAA:
		if !m.sc {
			return m.p.SourceString(in.Stmt) + " (submit)"
		}
		if st.mid[t] {
			return m.p.SourceString(in.Stmt) + " (write result)"
		}
		return m.p.SourceString(in.Stmt) + " (atomic read-modify-write)"
	case prog.OpGet, prog.OpPut, prog.OpRFence:
		if m.sc {
			if in.Op == prog.OpRFence {
				return m.p.SourceString(in.Stmt)
			}
			if st.mid[t] {
				return m.p.SourceString(in.Stmt) + " (write)"
			}
			return m.p.SourceString(in.Stmt) + " (read)"
		}
		return m.p.SourceString(in.Stmt) + " (submit)"
	}
	return m.p.SourceString(in.Stmt)
}

// diff lists the memory cells and buffers that differ between two
// configurations. Buffers are compared as printed: a poll re-ranks the
// unpolled operations, which changes their entries but nothing a reader
// sees, so it is no change.
func (m *Machine) diff(a, b *State) ([]MemChange, []BufChange) {
	var mem []MemChange
	for l := range a.mem {
		if a.mem[l] != b.mem[l] {
			mem = append(mem, MemChange{Loc: m.p.Locs[l].Name, From: a.mem[l], To: b.mem[l]})
		}
	}
	if m.sc {
		return mem, nil
	}
	var bufs []BufChange
	for qi := range a.q {
		for bi := 0; bi < nBuf; bi++ {
			if after := m.bufString(bi, b.q[qi].buf[bi]); after != m.bufString(bi, a.q[qi].buf[bi]) {
				qp := m.p.QPs[qi]
				bufs = append(bufs, BufChange{Buf: bufNames[bi], QP: m.p.Threads[qp.Thread].Name + "->" + m.p.Nodes[qp.Remote].Name, Entries: after})
			}
		}
	}
	return mem, bufs
}

// bufString prints buffer bi as a list: "[PUT(z,x) FENCE]".
func (m *Machine) bufString(bi int, es []entry) string {
	return "[" + strings.Join(m.entryStrings(bi, es), " ") + "]"
}

// entryStrings prints the entries of buffer bi, oldest first.
func (m *Machine) entryStrings(bi int, es []entry) []string {
	loc := func(l uint8) string { return m.p.Locs[l].Name }
	parts := make([]string, len(es))
	for i, e := range es {
		switch {
		case (bi == bufRW || bi == bufLW) && e.a == groupLoc:
			// A multi-word group's header: its next e.v entries
			// are one work request's words (SEMANTICS-VERBS.md 1).
			parts[i] = fmt.Sprintf("GROUP(%d)", e.v)
		case e.kind == kGroup && bi == bufB3:
			parts[i] = fmt.Sprintf("GROUP(%d)", e.a)
		case bi == bufRW:
			parts[i] = fmt.Sprintf("%s=%d", loc(e.a), e.v)
		case bi == bufLW:
			parts[i] = fmt.Sprintf("%s=%d", loc(e.a), e.v)
		case e.kind == kPut:
			parts[i] = fmt.Sprintf("PUT(%s,%s)", m.words(e.a, wordsOf(e.v)), m.words(e.b, wordsOf(e.v)))
		case e.kind == kGet:
			parts[i] = fmt.Sprintf("GET(%s,%s)", m.words(e.a, wordsOf(e.v)), m.words(e.b, wordsOf(e.v)))
		case e.kind == kFence:
			parts[i] = "FENCE"
		case e.kind == kPutI:
			parts[i] = fmt.Sprintf("PUTI(%s,%d)", loc(e.a), e.v)
			if e.b&inlineFenced != 0 {
				parts[i] = fmt.Sprintf("PUTI(%s,%d,fenced)", loc(e.a), e.v)
			}
		case e.kind == kPutV:
			parts[i] = fmt.Sprintf("PUTV(%s,%d)", loc(e.a), e.v)
		case e.kind == kPutP:
			// A word read by a put still reading others (tear.go).
			parts[i] = fmt.Sprintf("PUTV(%s,%d,reading)", loc(e.a), e.v)
		case e.kind == kGetReq:
			parts[i] = fmt.Sprintf("GETREQ(%s,%s)", m.words(e.a, int(e.v)+1), m.words(e.b, int(e.v)+1))
		case e.kind == kAck:
			parts[i] = "ACK"
		case e.kind == kGetR:
			parts[i] = fmt.Sprintf("GETR(%s,%s,_)", m.words(e.a, int(e.v)+1), m.words(e.b, int(e.v)+1))
		case e.kind == kGetRV:
			parts[i] = fmt.Sprintf("GETR(%s,%s,%d)", loc(e.a), loc(e.b), e.v)
		case e.kind == kAtom, e.kind == kAtomReq, e.kind == kAtomR, e.kind == kAtomRH:
			parts[i] = m.atomString(e)
		}
		if bi == bufB1 && e.kind != kFence && e.kind != kPutI && e.v&fencedMark != 0 && strings.HasSuffix(parts[i], ")") {
			// PUT(y,x,fenced): it waits for the earlier reads (SEMANTICS-VERBS.md 4).
			parts[i] = strings.TrimSuffix(parts[i], ")") + ",fenced)"
		}
	}
	return parts
}

// words names the k consecutive locations from l, as prog prints a
// multi-word operation's words (y[0..1]); one location by its name.
func (m *Machine) words(l uint8, k int) string {
	if k <= 1 {
		return m.p.Locs[l].Name
	}
	return m.p.WordsString(int(l), k)
}

// atomString prints a remote atomic's buffer entry: ATOM(x,rcas(y,a,b)) in
// B1, ATOMREQ(...) in B2, ATOMR(...,_) in B3 before it reads and
// ATOMR(...,v locked) once it has read v and holds y's lock.
func (m *Machine) atomString(e entry) string {
	in := m.atoms[e.a]
	x, y := m.p.Locs[in.X].Name, m.p.Locs[in.Y].Name
	op := fmt.Sprintf("rfaa(%s,%d)", y, in.A)
	if in.Op == prog.OpRCAS {
		op = fmt.Sprintf("rcas(%s,%d,%d)", y, in.A, in.B)
	}
	switch e.kind {
	case kAtom:
		return fmt.Sprintf("ATOM(%s,%s)", x, op)
	case kAtomReq:
		return fmt.Sprintf("ATOMREQ(%s,%s)", x, op)
	case kAtomR:
		return fmt.Sprintf("ATOMR(%s,%s,_)", x, op)
	}
	return fmt.Sprintf("ATOMR(%s,%s,%d locked)", x, op, e.v)
}

// atomicMoves reports whether rule N2 or N5 on queue pair qi of st moves a
// remote atomic's request (which they move as a get's).
func (m *Machine) atomicMoves(st *State, rule uint8, qi int) bool {
	q := &st.q[qi]
	switch {
	case rule == RuleN2 && len(q.buf[bufB1]) > 0:
		return q.buf[bufB1][0].kind == kAtom
	case rule == RuleN5 && len(q.buf[bufB2]) > 0:
		return q.buf[bufB2][0].kind == kAtomReq
	}
	return false
}
