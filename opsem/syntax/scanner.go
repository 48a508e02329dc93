package syntax

import (
	"fmt"

	"rdmasim/opsem/prog"
)

// Tok is a token kind.
type Tok uint8

const (
	TokEOF Tok = iota
	TokNewline
	TokIdent
	TokKeyword
	TokInt
	TokString
	TokWord // the free-form name after `litmus`
	TokLBrace
	TokRBrace
	TokLParen
	TokRParen
	TokSemi
	TokColon
	TokAssign // :=
	TokEq     // =
	TokEqEq   // ==
	TokNe     // !=
	TokAnd    // /\
	TokOr     // \/
	TokTilde  // ~
	TokComma
	TokAt
	TokLBrack  // [
	TokRBrack  // ]
	TokPlus    // +
	TokMinus   // -
	TokStar    // *
	TokSlash   // /
	TokPercent // %
	TokLt      // <
	TokLe      // <=
	TokGt      // >
	TokGe      // >=
	TokAndAnd  // &&
	TokOrOr    // ||
	TokBang    // !
	TokDotDot  // ..
	TokIllegal
)

var tokNames = [...]string{
	TokEOF: "end of file", TokNewline: "newline", TokIdent: "name", TokKeyword: "keyword", TokInt: "number",
	TokString: "string", TokWord: "name", TokLBrace: "'{'", TokRBrace: "'}'", TokLParen: "'('", TokRParen: "')'",
	TokSemi: "';'", TokColon: "':'", TokAssign: "':='", TokEq: "'='", TokEqEq: "'=='", TokNe: "'!='",
	TokAnd: `'/\'`, TokOr: `'\/'`, TokTilde: "'~'", TokComma: "','", TokAt: "'@'", TokLBrack: "'['", TokRBrack: "']'",
	TokPlus: "'+'", TokMinus: "'-'", TokStar: "'*'", TokSlash: "'/'", TokPercent: "'%'", TokLt: "'<'", TokLe: "'<='",
	TokGt: "'>'", TokGe: "'>='", TokAndAnd: "'&&'", TokOrOr: "'||'", TokBang: "'!'", TokDotDot: "'..'",
	TokIllegal: "illegal character",
}

var keywords = map[string]bool{
	"litmus": true, "node": true, "thread": true, "on": true, "skip": true, "assume": true, "cas": true,
	"rcas": true, "rfaa": true,
	"rfence": true, "poll": true, "quiet": true, "fenced": true, "unsignaled": true, "inline": true, "choose": true, "or": true, "loop": true, "exists": true, "forall": true,
	"reach": true, "expect": true, "rdma": true, "sc": true, "robust": true, "allowed": true,
	"forbidden": true, "yes": true, "no": true, "true": true,
	// The protocol language's.
	"param": true, "reg": true, "if": true, "else": true, "while": true, "for": true, "in": true,
	"break": true, "assert": true, "false": true, "proc": true,
}

// Token is one lexical token.
type Token struct {
	Kind Tok
	Pos  prog.Pos
	Text string // identifier, keyword, number, word or (unquoted) string
}

// describe names the token for error messages.
func (t Token) describe() string {
	switch t.Kind {
	case TokIdent:
		return fmt.Sprintf("name %q", t.Text)
	case TokKeyword:
		return fmt.Sprintf("keyword %q", t.Text)
	case TokInt:
		return fmt.Sprintf("number %s", t.Text)
	case TokString:
		return "string"
	case TokWord:
		return fmt.Sprintf("%q", t.Text)
	case TokIllegal:
		return fmt.Sprintf("unexpected character %q", t.Text)
	}
	return tokNames[t.Kind]
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

// next returns the next token. Lexical errors come back as TokIllegal tokens
// with s.err set.
func (s *scanner) next() Token {
	s.skipBlanks()
	pos := prog.Pos{Line: s.line, Col: s.col}
	if s.off >= len(s.src) {
		return Token{Kind: TokEOF, Pos: pos}
	}
	if s.rawWord {
		s.rawWord = false
		if t, ok := s.word(pos); ok {
			return t
		}
	}
	c := s.src[s.off]
	start := s.off
	switch {
	case c == '\n':
		s.advance()
		return Token{Kind: TokNewline, Pos: pos}
	case isLetter(c):
		for s.off < len(s.src) && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
			s.advance()
		}
		text := string(s.src[start:s.off])
		if keywords[text] {
			return Token{Kind: TokKeyword, Pos: pos, Text: text}
		}
		return Token{Kind: TokIdent, Pos: pos, Text: text}
	case isDigit(c):
		for s.off < len(s.src) && isDigit(s.src[s.off]) {
			s.advance()
		}
		return Token{Kind: TokInt, Pos: pos, Text: string(s.src[start:s.off])}
	case c == '"':
		return s.quoted(pos)
	}
	return s.operator(pos)
}

// skipBlanks skips blanks and comments (a comment ends before the
// newline).
func (s *scanner) skipBlanks() {
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
}

// word scans a free-form word at pos (the name after `litmus`), up to a
// blank, a semicolon or a comment; ok is false, and nothing scanned, at
// the end of the line, a semicolon or a string.
func (s *scanner) word(pos prog.Pos) (t Token, ok bool) {
	c := s.src[s.off]
	if c == '\n' || c == ';' || c == '"' {
		return Token{}, false
	}
	start := s.off
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '#' ||
			c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '/' {
			break
		}
		s.advance()
	}
	return Token{Kind: TokWord, Pos: pos, Text: string(s.src[start:s.off])}, true
}

// quoted scans a string "..." at pos, on one line, with \" and \\ as
// escapes; an unterminated one is a TokIllegal.
func (s *scanner) quoted(pos prog.Pos) Token {
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
		return Token{Kind: TokIllegal, Pos: pos, Text: `"`}
	}
	s.advance()
	return Token{Kind: TokString, Pos: pos, Text: string(text)}
}

// operator scans an operator or punctuation at pos, two characters when
// they make one (:=, ==, ..), or else a TokIllegal of the whole UTF-8
// character there.
func (s *scanner) operator(pos prog.Pos) Token {
	if s.off+1 < len(s.src) {
		two := string(s.src[s.off : s.off+2])
		if kind := twoCharOp(two); kind != TokIllegal {
			s.advance()
			s.advance()
			return Token{Kind: kind, Pos: pos, Text: two}
		}
	}
	c := s.src[s.off]
	kind := oneCharOp(c)
	if kind == TokIllegal {
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
		return Token{Kind: TokIllegal, Pos: pos, Text: text}
	}
	s.advance()
	return Token{Kind: kind, Pos: pos, Text: string(c)}
}

// twoCharOp returns the operator two spells, TokIllegal when none.
func twoCharOp(two string) Tok {
	switch two {
	case ":=":
		return TokAssign
	case "==":
		return TokEqEq
	case "!=":
		return TokNe
	case `/\`:
		return TokAnd
	case `\/`:
		return TokOr
	case "<=":
		return TokLe
	case ">=":
		return TokGe
	case "&&":
		return TokAndAnd
	case "||":
		return TokOrOr
	case "..":
		return TokDotDot
	}
	return TokIllegal
}

// oneCharOp returns the operator or punctuation c is, TokIllegal when
// none.
func oneCharOp(c byte) Tok {
	switch c {
	case '{':
		return TokLBrace
	case '}':
		return TokRBrace
	case '(':
		return TokLParen
	case ')':
		return TokRParen
	case ';':
		return TokSemi
	case ':':
		return TokColon
	case '=':
		return TokEq
	case '~':
		return TokTilde
	case ',':
		return TokComma
	case '@':
		return TokAt
	case '[':
		return TokLBrack
	case ']':
		return TokRBrack
	case '+':
		return TokPlus
	case '-':
		return TokMinus
	case '*':
		return TokStar
	case '/':
		return TokSlash
	case '%':
		return TokPercent
	case '<':
		return TokLt
	case '>':
		return TokGt
	case '!':
		return TokBang
	}
	return TokIllegal
}
