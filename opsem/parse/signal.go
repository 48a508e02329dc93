package parse

import (
	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
)

// unsignaledMisuse is the message for the mark `unsignaled` on a statement
// that posts no work request (SEMANTICS-VERBS.md 2); %s is the statement.
const unsignaledMisuse = "unsignaled marks a put, a get or a remote atomic (a work request posted without a completion entry), not %s"

// unsignaled resolves the mark `unsignaled` of core statement rs into s: it
// is kept on a put, a get or a remote atomic, and an error at the mark's
// position on anything else.
func (r *resolver) unsignaled(rs *syntax.Stmt, s *prog.Stmt) {
	switch s.Kind {
	case prog.SGet, prog.SPut, prog.SRCAS, prog.SRFAA:
		s.Unsignaled = true
	default:
		r.errorf(rs.UnsignaledPos, unsignaledMisuse, r.p.StmtString(s))
	}
}

// markedText is stmtText with the statement's unsignaled mark, as the user
// wrote it (after fenced, which stmtText leaves out): the text a lowered
// instruction's steps print (prog.Source.Text), so that a run or the
// playground shows which work requests produce no completion.
func markedText(s *syntax.Stmt) string {
	if s.Unsignaled {
		return stmtText(s) + " unsignaled"
	}
	return stmtText(s)
}
