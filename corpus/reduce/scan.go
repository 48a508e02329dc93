package reduce

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Error is a problem at a position of an instance file. Its text is
// file:line:col: message, with 1-based line and byte column.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

// Error formats the error as file:line:col: message.
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// tokKind classifies the tokens of the instance formats.
type tokKind uint8

const (
	tWord  tokKind = iota // a maximal run of other characters
	tArrow                // ->
	tColon                // :
	tSlash                // /
)

// tok is one token of a line, with its 1-based byte column.
type tok struct {
	kind tokKind
	text string
	col  int
}

// describe names a token for error messages.
func (t tok) describe() string {
	return fmt.Sprintf("%q", t.text)
}

// srcLine is one non-blank line of an instance file, split into tokens.
type srcLine struct {
	num  int
	toks []tok
	end  int // column just past the last token
}

// lines splits src into lines of tokens, dropping comments (from # or // to
// the end of the line) and blank lines. Blanks are spaces, tabs and carriage
// returns; any other control character is an error.
func lines(file string, src []byte) ([]srcLine, error) {
	var out []srcLine
	for num, text := range strings.Split(string(src), "\n") {
		l := srcLine{num: num + 1}
		i := 0
		for i < len(text) {
			c := text[i]
			switch {
			case c == ' ' || c == '\t' || c == '\r':
				i++
				continue
			case c == '#' || c == '/' && i+1 < len(text) && text[i+1] == '/':
				i = len(text)
				continue
			case c < ' ' || c == 0x7f:
				return nil, &Error{file, num + 1, i + 1, fmt.Sprintf("unexpected control character %#02x", c)}
			case c == '-' && i+1 < len(text) && text[i+1] == '>':
				l.toks = append(l.toks, tok{tArrow, "->", i + 1})
				i += 2
			case c == ':':
				l.toks = append(l.toks, tok{tColon, ":", i + 1})
				i++
			case c == '/':
				l.toks = append(l.toks, tok{tSlash, "/", i + 1})
				i++
			default:
				start := i
				for i < len(text) && !isStop(text, i) {
					i++
				}
				l.toks = append(l.toks, tok{tWord, text[start:i], start + 1})
			}
			l.end = i + 1
		}
		if len(l.toks) > 0 {
			out = append(out, l)
		}
	}
	return out, nil
}

// isStop reports whether text[i] ends a word.
func isStop(text string, i int) bool {
	switch c := text[i]; {
	case c <= ' ' || c == 0x7f || c == '#' || c == ':' || c == '/':
		return true
	case c == '-':
		return i+1 < len(text) && text[i+1] == '>'
	}
	return false
}

// isIdent reports whether s is an identifier: [A-Za-z_][A-Za-z0-9_]*.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// isName reports whether s is a valid instance name: [A-Za-z0-9_.+-]+, at
// most 64 bytes, so that it can be used in the generated litmus name.
func isName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '.' || c == '+' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// defaultName is the instance name derived from a file name: its base name
// without extension, with characters not allowed in names replaced by '_'.
func defaultName(file string) string {
	base := filepath.Base(file)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	b := []byte(base)
	for i, c := range b {
		if !isName(string(c)) {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 || base == "." || base == string(filepath.Separator) {
		return "instance"
	}
	return string(b)
}

// errorf makes an Error at line l, column col.
func errorf(file string, l srcLine, col int, format string, args ...any) error {
	return &Error{File: file, Line: l.num, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// readFile reads an instance file, wrapping errors with what it is.
func readFile(what, path string) ([]byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s instance: %w", what, err)
	}
	return src, nil
}
