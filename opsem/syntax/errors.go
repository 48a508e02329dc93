package syntax

import (
	"fmt"
	"sort"
	"strings"

	"rdmasim/opsem/prog"
)

// Error is a problem at a position of an input file.
type Error struct {
	File string
	Pos  prog.Pos
	Msg  string
}

// Error formats the error as file:line:col: message.
func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// ErrorList is a list of errors, sorted by position. It is the error type
// Parse returns.
type ErrorList []*Error

// Error prints the first error, and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	if len(l) == 2 {
		return fmt.Sprintf("%s (and 1 more error)", l[0])
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Detail prints every error, one a line.
func (l ErrorList) Detail() string {
	var b strings.Builder
	for _, e := range l {
		b.WriteString(e.Error())
		b.WriteByte('\n')
	}
	return b.String()
}

// Sort sorts l by position, keeping the order of errors at one position.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
}
