package syntax

// parseInline reads the mark `inline` after an assignment's right side, if
// it is there and not read yet (SEMANTICS-VERBS.md 5: IBV_SEND_INLINE, the
// put's source copied when it is posted; the resolution rejects it on
// anything but a put). It may stand before or after `fenced`.
func (p *parser) parseInline(s *Stmt) {
	if !p.failed() && !s.Inline && p.isKeyword("inline") {
		s.Inline, s.InlinePos = true, p.tok.Pos
		p.next()
	}
}
