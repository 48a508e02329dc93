package promela

import (
	"fmt"

	"rdmasim/opsem/prog"
)

// Inline puts (SEMANTICS-VERBS.md 5), as machine/inlineput.go has them for
// one-word puts (multi-word ones are refused, InlineWordsError): the submission
// reads the source into a PUTI(a=y, b=value) entry of B1 (PUTIF when the
// put is also fenced), and N1 moves it to B2 as a PUTV without reading
// memory and without waiting for LW.

// inlined reports whether some put of the program is marked inline.
func (g *gen) inlined() bool {
	for t := range g.p.Threads {
		for _, in := range g.p.Threads[t].Code {
			if in.Op == prog.OpPut && in.Inline {
				return true
			}
		}
	}
	return false
}

// inlineOn reports whether queue pair qi has a put marked inline.
func (g *gen) inlineOn(qi int) bool {
	for t := range g.p.Threads {
		for _, in := range g.p.Threads[t].Code {
			if in.Op == prog.OpPut && in.Inline && in.QP == qi {
				return true
			}
		}
	}
	return false
}

// inlineDecls declares the B1 kinds of inline puts.
func (g *gen) inlineDecls() {
	if g.fenced() {
		g.f("/* Inline puts in B1 (SEMANTICS-VERBS.md 5): PUTI(a=y, b=value read at submission), PUTIF fenced. */\nmtype = { PUTI, PUTIF };\n")
		return
	}
	g.f("/* Inline puts in B1 (SEMANTICS-VERBS.md 5): PUTI(a=y, b=value read at submission). */\nmtype = { PUTI };\n")
}

// inlineN1 writes N1 of queue pair q's inline puts: guard is B1's head
// test of kind PUTI (b1 of nic), take the head's removal into ta, tb, tr.
func (g *gen) inlineN1(q *qpInfo, guard, take string) {
	g.step(guard, "N1 inline put moves on (B1 -> B2; read at submission)", []string{take, fmt.Sprintf("push(%s_b2, %s_nb2, PUTV, ta, tb, tr)", q.name, q.name)})
}

// inlineSubmit returns the effects of submitting the inline put in on q
// (rank its rank expression, f "F" when it is fenced): its source is read
// now.
func (g *gen) inlineSubmit(q *qpInfo, in *prog.Instr, f, rank string) []string {
	return []string{fmt.Sprintf("tb = %s", g.locID(in.X)), "load(tb, tb)",
		fmt.Sprintf("push(%s_b1, %s_nb1, PUTI%s, %s, tb, %s)", q.name, q.name, f, g.locID(in.Y), rank)}
}

// InlineWordsError is the machines' export's refusal of a multi-word put
// marked inline: the models have one-word inline puts only (their
// submission would have to read several words into several PUTI entries).
type InlineWordsError struct {
	Pos  prog.Pos
	Stmt string
}

func (e *InlineWordsError) Error() string {
	return fmt.Sprintf("%d:%d: the Promela machines do not model a multi-word put marked inline (%s); one-word inline puts and multi-word puts without the mark they do", e.Pos.Line, e.Pos.Col, e.Stmt)
}

// FirstInlineWords returns the statement of p's first multi-word put
// marked inline, or nil.
func FirstInlineWords(p *prog.Program) *prog.Stmt {
	for t := range p.Threads {
		for _, in := range p.Threads[t].Code {
			if in.Op == prog.OpPut && in.Inline && in.Words > 1 {
				return in.Stmt
			}
		}
	}
	return nil
}
