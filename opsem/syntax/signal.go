package syntax

import "strings"

// parseUnsignaled reads the mark `unsignaled` after an assignment's right
// side, if it is there (SEMANTICS-VERBS.md 2: the put, get or remote atomic
// the assignment is produces no completion entry; the resolution rejects
// it on others). The marks are independent flags of one work request, so
// the others may follow it (parseFenced): `y := x unsignaled fenced` is
// read as `y := x fenced unsignaled`, the order the printer writes. Spellings that are not the
// mark (British `unsignalled`, `signaled`, the verbs flag's names) are
// reported at their position with the mark they meant.
func (p *parser) parseUnsignaled(s *Stmt) {
	if p.failed() {
		return
	}
	if p.isKeyword("unsignaled") {
		if s.Unsignaled {
			p.errorf(p.tok.Pos, "unsignaled is written once")
			return
		}
		s.Unsignaled, s.UnsignaledPos = true, p.tok.Pos
		p.next()
		p.parseFenced(s) // the other marks may follow it
		return
	}
	if p.tok.Kind != TokIdent {
		return
	}
	switch strings.ToLower(p.tok.Text) {
	case "unsignalled", "unsignaled", "unsignal", "nosignal", "no_signal", "nonsignaled", "nonsignalled":
		p.errorf(p.tok.Pos, "%s is not a mark: did you mean unsignaled?", p.tok.Text)
	case "signaled", "signalled", "ibv_send_signaled", "send_signaled":
		p.errorf(p.tok.Pos, "%s is not a mark: operations are signalled unless marked, so drop it (or did you mean unsignaled?)", p.tok.Text)
	}
}
