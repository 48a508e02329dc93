package prog

import (
	"fmt"
	"strconv"
	"strings"
)

// String prints p in the .rdma format. The output parses back to an equal
// program (same nodes, locations, threads, statements, query and expect
// lines; positions and comments aside).
func (p *Program) String() string {
	var b strings.Builder
	if isWord(p.Name) {
		// A name that is no word can only come from the file name (the
		// default): leaving it out gives the same name back from that file.
		fmt.Fprintf(&b, "litmus %s\n", p.Name)
	}
	if p.Doc != "" {
		fmt.Fprintf(&b, "%s\n", quote(p.Doc))
	}
	if p.InOrder {
		b.WriteString("placement in-order\n")
	}
	p.writeNodes(&b)
	for i := range p.Threads {
		t := &p.Threads[i]
		fmt.Fprintf(&b, "thread %s on %s {\n", t.Name, p.Nodes[t.Node].Name)
		p.block(&b, t.Body, 1)
		b.WriteString("}\n")
	}
	if p.Query.Kind != QNone {
		fmt.Fprintf(&b, "%s %s\n", p.Query.Kind, p.CondString(p.Query.Cond))
	}
	for _, e := range p.Expects {
		fmt.Fprintf(&b, "expect %s %s\n", e.Sem, e.Word())
	}
	return b.String()
}

// isWord reports whether s can be written as the free-form name after
// `litmus`: not empty, without blanks, ';' or comments, not starting with '"'.
func isWord(s string) bool {
	if s == "" || s[0] == '"' {
		return false
	}
	return !strings.ContainsAny(s, " \t\r\n;#") && !strings.Contains(s, "//")
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

func (p *Program) block(b *strings.Builder, stmts []*Stmt, depth int) {
	ind := strings.Repeat("  ", depth)
	for _, s := range stmts {
		b.WriteString(ind)
		if s.Label != "" {
			b.WriteString(s.Label + ": ")
		}
		switch s.Kind {
		case SChoose:
			for i, br := range s.Branches {
				if i == 0 {
					b.WriteString("choose {\n")
				} else {
					b.WriteString(" or {\n")
				}
				p.block(b, br, depth+1)
				b.WriteString(ind + "}")
			}
			b.WriteString("\n")
		case SLoop:
			b.WriteString("loop {\n")
			p.block(b, s.Branches[0], depth+1)
			b.WriteString(ind + "}\n")
		default:
			b.WriteString(p.StmtString(s) + "\n")
		}
	}
}

// StmtString prints a simple (non-compound) statement on one line; for choose
// and loop it prints only the keyword.
func (p *Program) StmtString(s *Stmt) string {
	if s.Unsignaled {
		t := *s
		t.Unsignaled = false
		return p.StmtString(&t) + " unsignaled"
	}
	if s.Fenced {
		t := *s
		t.Fenced = false
		return p.StmtString(&t) + " fenced"
	}
	if s.Inline {
		t := *s
		t.Inline = false
		return p.StmtString(&t) + " inline"
	}
	loc := func(i int) string { return p.Locs[i].Name }
	switch s.Kind {
	case SSkip:
		return "skip"
	case SWrite:
		return fmt.Sprintf("%s := %d", loc(s.X), s.A)
	case SAssume:
		op := "=="
		if s.Ne {
			op = "!="
		}
		return fmt.Sprintf("assume(%s %s %d)", loc(s.X), op, s.A)
	case SCAS:
		return fmt.Sprintf("%s := cas(%s, %d, %d)", loc(s.X), loc(s.Z), s.A, s.B)
	case SGet:
		if s.Words > 1 {
			return fmt.Sprintf("%s := %s", p.WordsString(s.X, s.Words), p.WordsString(s.Y, s.Words))
		}
		return fmt.Sprintf("%s := %s", loc(s.X), loc(s.Y))
	case SPut:
		if s.Words > 1 {
			return fmt.Sprintf("%s := %s", p.WordsString(s.Y, s.Words), p.WordsString(s.X, s.Words))
		}
		return fmt.Sprintf("%s := %s", loc(s.Y), loc(s.X))
	case SRCAS:
		return fmt.Sprintf("%s := rcas(%s, %d, %d)", loc(s.X), loc(s.Y), s.A, s.B)
	case SRFAA:
		return fmt.Sprintf("%s := rfaa(%s, %d)", loc(s.X), loc(s.Y), s.A)
	case SRFence:
		return fmt.Sprintf("rfence(%s)", p.Nodes[s.Remote].Name)
	case SPoll:
		return fmt.Sprintf("poll(%s)", p.Nodes[s.Remote].Name)
	case SQuiet:
		return "quiet"
	case SChoose:
		return "choose"
	case SLoop:
		return "loop"
	case SFail:
		if s.Src != nil {
			return "fail: " + s.Src.Text
		}
		return "fail"
	}
	return "?"
}

// SourceString prints a statement in the user's terms: in a lowered program
// the protocol statement it was compiled from (an error point: what
// failed), else the core statement (StmtString).
func (p *Program) SourceString(s *Stmt) string {
	if s.Src != nil {
		if s.Kind == SFail {
			return p.StmtString(s)
		}
		return s.Src.Text
	}
	return p.StmtString(s)
}

// RegChanges lists the registers whose values differ between two
// valuations of one thread as a lowered program prints them ("r=1 s=0"):
// "s: 0 -> 2". A register that becomes dead ("s=_", see opsem/parse's
// liveness) is no change: nothing reads it any more.
func RegChanges(before, after string) []string {
	b, a := strings.Fields(before), strings.Fields(after)
	if len(a) != len(b) {
		return nil
	}
	var out []string
	for i := range a {
		if a[i] != b[i] {
			name, from, _ := strings.Cut(b[i], "=")
			_, to, _ := strings.Cut(a[i], "=")
			if to == "_" {
				continue // the register died: nothing reads its value any more
			}
			out = append(out, fmt.Sprintf("%s: %s -> %s", name, from, to))
		}
	}
	return out
}

// CondString prints a condition, fully parenthesised where it matters.
func (p *Program) CondString(c *Cond) string {
	if c == nil {
		return "true"
	}
	switch c.Op {
	case CTrue:
		return "true"
	case CEq:
		return fmt.Sprintf("%s = %d", p.Locs[c.Loc].Name, c.Val)
	case CNe:
		return fmt.Sprintf("%s != %d", p.Locs[c.Loc].Name, c.Val)
	case CAt:
		return p.Threads[c.Thread].Name + "@" + c.Label
	case CEnd:
		return p.Threads[c.Thread].Name + "@end"
	case CFail:
		return p.Threads[c.Thread].Name + "@fail"
	case CNot:
		return "~" + p.condOperand(c.L)
	case CAnd:
		return "(" + p.CondString(c.L) + ` /\ ` + p.CondString(c.R) + ")"
	case COr:
		return "(" + p.CondString(c.L) + ` \/ ` + p.CondString(c.R) + ")"
	}
	return "?"
}

func (p *Program) condOperand(c *Cond) string {
	switch c.Op {
	case CAnd, COr, CNot:
		return p.CondString(c)
	}
	return "(" + p.CondString(c) + ")"
}

// Outcome formats the values of locs in a memory, herd7 style: "x=1; y=0;".
func (p *Program) Outcome(locs []int, mem func(int) uint8) string {
	var b strings.Builder
	for i, l := range locs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Locs[l].Name)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(int(mem(l))))
		b.WriteByte(';')
	}
	return b.String()
}

// ThreadName returns the name of thread t.
func (p *Program) ThreadName(t int) string { return p.Threads[t].Name }

// CodeString prints the control-flow graph of every thread, one instruction
// a line: its number, the core statement, where control goes next, and, in
// a lowered program, the line, statement and registers it was compiled
// from. It is what `rdmasim lower` shows of a protocol: exactly what is
// checked.
func (p *Program) CodeString() string {
	var b strings.Builder
	p.writeNodes(&b)
	for i := range p.Threads {
		t := &p.Threads[i]
		fmt.Fprintf(&b, "thread %s on %s: %d instructions, entry %d\n", t.Name, p.Nodes[t.Node].Name, len(t.Code), t.Entry)
		for pc := range t.Code {
			in := &t.Code[pc]
			var text, next string
			switch in.Op {
			case OpEnd:
				text = "end"
			case OpBranch:
				kind := "choose"
				if in.Loop >= 0 {
					kind = fmt.Sprintf("loop %d", in.Loop)
				}
				text = kind
				next = fmt.Sprint(in.Alts)
			case OpSwitch:
				text = "switch " + p.Locs[in.X].Name
				next = fmt.Sprint(in.Alts)
			case OpIf:
				text = p.RegisterOpString(in)
				next = fmt.Sprint(in.Alts)
			case OpLoad, OpEval:
				text = p.RegisterOpString(in)
				next = fmt.Sprint(in.Next)
			default:
				text = p.StmtString(in.Stmt)
				if in.Op != OpFail {
					next = fmt.Sprint(in.Next)
				}
			}
			for _, l := range t.Labels {
				if l.PC == pc {
					text = l.Name + ": " + text
				}
			}
			fmt.Fprintf(&b, "  %3d  %-28s", pc, text)
			if next != "" {
				fmt.Fprintf(&b, " -> %s", next)
			}
			if in.Stmt != nil && in.Stmt.Src != nil && in.Op != OpFail {
				fmt.Fprintf(&b, "\t# line %d: %s", in.Stmt.Pos.Line, in.Stmt.Src.Text)
				if in.Stmt.Src.Regs != "" {
					fmt.Fprintf(&b, " [%s]", in.Stmt.Src.Regs)
				}
			} else if in.Op == OpFail {
				fmt.Fprintf(&b, "\t# line %d", in.Stmt.Pos.Line)
			}
			b.WriteString("\n")
		}
	}
	if p.Query.Kind != QNone {
		fmt.Fprintf(&b, "%s %s\n", p.Query.Kind, p.CondString(p.Query.Cond))
	}
	return b.String()
}

// writeNodes prints the node declarations with their locations' initial
// values.
func (p *Program) writeNodes(b *strings.Builder) {
	for n, node := range p.Nodes {
		fmt.Fprintf(b, "node %s {", node.Name)
		sep := " "
		for _, l := range p.Locs {
			if l.Node == n {
				fmt.Fprintf(b, "%s%s = %d", sep, l.Name, l.Init)
				sep = "; "
			}
		}
		b.WriteString(" }\n")
	}
}

// WordsString names the k consecutive locations from first, the words of a
// multi-word put or get: an array's elements buf[2], buf[3] as buf[2..3]
// (the protocol language's word range), other locations as the core
// format's list (x0, x1).
func (p *Program) WordsString(first, k int) string {
	a, b := p.Locs[first].Name, p.Locs[first+k-1].Name
	if i := strings.LastIndexByte(a, '['); i > 0 && strings.HasSuffix(a, "]") {
		if j := strings.LastIndexByte(b, '['); j == i && a[:i] == b[:j] && strings.HasSuffix(b, "]") {
			return a[:len(a)-1] + ".." + b[j+1:]
		}
	}
	names := make([]string, k)
	for i := range names {
		names[i] = p.Locs[first+i].Name
	}
	return "(" + strings.Join(names, ", ") + ")"
}
