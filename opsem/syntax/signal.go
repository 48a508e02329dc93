package syntax

import "strings"

// parseUnsignaled reads the mark `unsignaled` after an assignment's right
// side (and after `fenced`, if that is there), if it is there
// (SEMANTICS-VERBS.md 2: the put, get or remote atomic the assignment is
// produces no completion entry; the resolution rejects it on others). The
// marks are independent flags of one work request, so `fenced` may also
// follow it: `y := x unsignaled fenced` is read as `y := x fenced
// unsignaled`, the order the printer writes. Spellings that are not the
// mark (British `unsignalled`, `signaled`, the verbs flag's names) are
// reported at their position with the mark they meant.
func (p *parser) parseUnsignaled(s *Stmt) {
	if p.failed() {
		return
	}
	if p.isKeyword("unsignaled") {
		s.Unsignaled, s.UnsignaledPos = true, p.tok.Pos
		p.next()
		if p.isKeyword("fenced") && !s.Fenced {
			s.Fenced, s.FencedPos = true, p.tok.Pos
			p.next()
		}
		if p.isKeyword("unsignaled") {
			p.errorf(p.tok.Pos, "unsignaled is written once")
		}
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
