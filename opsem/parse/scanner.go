package parse

import (
	"fmt"

	"rdmasim/opsem/prog"
)

// tok is a token kind.
type tok uint8

const (
	tEOF tok = iota
	tNewline
	tIdent
	tKeyword
	tInt
	tString
	tWord // the free-form name after `litmus`
	tLBrace
	tRBrace
	tLParen
	tRParen
	tSemi
	tColon
	tAssign // :=
	tEq     // =
	tEqEq   // ==
	tNe     // !=
	tAnd    // /\
	tOr     // \/
	tTilde  // ~
	tComma
	tAt
	tLBrack  // [
	tRBrack  // ]
	tPlus    // +
	tMinus   // -
	tStar    // *
	tSlash   // /
	tPercent // %
	tLt      // <
	tLe      // <=
	tGt      // >
	tGe      // >=
	tAndAnd  // &&
	tOrOr    // ||
	tBang    // !
	tDotDot  // ..
	tIllegal
)

var tokNames = [...]string{
	tEOF: "end of file", tNewline: "newline", tIdent: "name", tKeyword: "keyword", tInt: "number",
	tString: "string", tWord: "name", tLBrace: "'{'", tRBrace: "'}'", tLParen: "'('", tRParen: "')'",
	tSemi: "';'", tColon: "':'", tAssign: "':='", tEq: "'='", tEqEq: "'=='", tNe: "'!='",
	tAnd: `'/\'`, tOr: `'\/'`, tTilde: "'~'", tComma: "','", tAt: "'@'", tLBrack: "'['", tRBrack: "']'",
	tPlus: "'+'", tMinus: "'-'", tStar: "'*'", tSlash: "'/'", tPercent: "'%'", tLt: "'<'", tLe: "'<='",
	tGt: "'>'", tGe: "'>='", tAndAnd: "'&&'", tOrOr: "'||'", tBang: "'!'", tDotDot: "'..'",
	tIllegal: "illegal character",
}

var keywords = map[string]bool{
	"litmus": true, "node": true, "thread": true, "on": true, "skip": true, "assume": true, "cas": true,
	"rcas": true, "rfaa": true,
	"rfence": true, "poll": true, "choose": true, "or": true, "loop": true, "exists": true, "forall": true,
	"reach": true, "expect": true, "rdma": true, "sc": true, "robust": true, "allowed": true,
	"forbidden": true, "yes": true, "no": true, "true": true,
	// The protocol language's.
	"param": true, "reg": true, "if": true, "else": true, "while": true, "for": true, "in": true,
	"break": true, "assert": true, "false": true, "proc": true,
}

// token is one lexical token.
type token struct {
	kind tok
	pos  prog.Pos
	text string // identifier, keyword, number, word or (unquoted) string
}

// describe names the token for error messages.
func (t token) describe() string {
	switch t.kind {
	case tIdent:
		return fmt.Sprintf("name %q", t.text)
	case tKeyword:
		return fmt.Sprintf("keyword %q", t.text)
	case tInt:
		return fmt.Sprintf("number %s", t.text)
	case tString:
		return "string"
	case tWord:
		return fmt.Sprintf("%q", t.text)
	case tIllegal:
		return fmt.Sprintf("unexpected character %q", t.text)
	}
	return tokNames[t.kind]
}

// scanner splits .rdma source into tokens. Its state is a small value, so
// that the parser can look ahead by copying it.
type scanner struct {
	src       []byte
	off       int
	line, col int
	rawWord   bool // the next token is a free-form word (after `litmus`)
	err       *Error
}

func newScanner(src []byte) scanner {
	return scanner{src: src, line: 1, col: 1}
}

func (s *scanner) advance() {
	if s.src[s.off] == '\n' {
		s.line++
		s.col = 1
	} else {
		s.col++
	}
	s.off++
}

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// next returns the next token. Lexical errors come back as tIllegal tokens
// with s.err set.
func (s *scanner) next() token {
	// Skip blanks and comments (a comment ends before the newline).
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == ' ' || c == '\t' || c == '\r' {
			s.advance()
			continue
		}
		if c == '#' || c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '/' {
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.advance()
			}
			continue
		}
		break
	}
	pos := prog.Pos{Line: s.line, Col: s.col}
	if s.off >= len(s.src) {
		return token{kind: tEOF, pos: pos}
	}
	if s.rawWord {
		s.rawWord = false
		c := s.src[s.off]
		if c != '\n' && c != ';' && c != '"' {
			start := s.off
			for s.off < len(s.src) {
				c := s.src[s.off]
				if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '#' ||
					c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '/' {
					break
				}
				s.advance()
			}
			return token{kind: tWord, pos: pos, text: string(s.src[start:s.off])}
		}
	}
	c := s.src[s.off]
	start := s.off
	switch {
	case c == '\n':
		s.advance()
		return token{kind: tNewline, pos: pos}
	case isLetter(c):
		for s.off < len(s.src) && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
			s.advance()
		}
		text := string(s.src[start:s.off])
		if keywords[text] {
			return token{kind: tKeyword, pos: pos, text: text}
		}
		return token{kind: tIdent, pos: pos, text: text}
	case isDigit(c):
		for s.off < len(s.src) && isDigit(s.src[s.off]) {
			s.advance()
		}
		return token{kind: tInt, pos: pos, text: string(s.src[start:s.off])}
	case c == '"':
		s.advance()
		var text []byte
		for s.off < len(s.src) && s.src[s.off] != '"' && s.src[s.off] != '\n' {
			if s.src[s.off] == '\\' && s.off+1 < len(s.src) && (s.src[s.off+1] == '"' || s.src[s.off+1] == '\\') {
				s.advance()
			}
			text = append(text, s.src[s.off])
			s.advance()
		}
		if s.off >= len(s.src) || s.src[s.off] != '"' {
			s.err = &Error{Pos: pos, Msg: "string not terminated (a doc string ends with \" on the same line)"}
			return token{kind: tIllegal, pos: pos, text: `"`}
		}
		s.advance()
		return token{kind: tString, pos: pos, text: string(text)}
	}
	two := ""
	if s.off+1 < len(s.src) {
		two = string(s.src[s.off : s.off+2])
	}
	kind := tIllegal
	switch two {
	case ":=":
		kind = tAssign
	case "==":
		kind = tEqEq
	case "!=":
		kind = tNe
	case `/\`:
		kind = tAnd
	case `\/`:
		kind = tOr
	case "<=":
		kind = tLe
	case ">=":
		kind = tGe
	case "&&":
		kind = tAndAnd
	case "||":
		kind = tOrOr
	case "..":
		kind = tDotDot
	}
	if kind != tIllegal {
		s.advance()
		s.advance()
		return token{kind: kind, pos: pos, text: two}
	}
	switch c {
	case '{':
		kind = tLBrace
	case '}':
		kind = tRBrace
	case '(':
		kind = tLParen
	case ')':
		kind = tRParen
	case ';':
		kind = tSemi
	case ':':
		kind = tColon
	case '=':
		kind = tEq
	case '~':
		kind = tTilde
	case ',':
		kind = tComma
	case '@':
		kind = tAt
	case '[':
		kind = tLBrack
	case ']':
		kind = tRBrack
	case '+':
		kind = tPlus
	case '-':
		kind = tMinus
	case '*':
		kind = tStar
	case '/':
		kind = tSlash
	case '%':
		kind = tPercent
	case '<':
		kind = tLt
	case '>':
		kind = tGt
	case '!':
		kind = tBang
	}
	if kind == tIllegal {
		// Report the whole UTF-8 sequence, not a broken byte.
		n := 1
		for n < 4 && s.off+n < len(s.src) && s.src[s.off+n]&0xC0 == 0x80 {
			n++
		}
		text := string(s.src[s.off : s.off+n])
		for i := 0; i < n; i++ {
			s.advance()
		}
		s.err = &Error{Pos: pos, Msg: fmt.Sprintf("unexpected character %q", text)}
		return token{kind: tIllegal, pos: pos, text: text}
	}
	s.advance()
	return token{kind: kind, pos: pos, text: string(c)}
}
