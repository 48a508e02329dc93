package repair

import (
	"sort"
	"strings"

	"rdmasim/opsem/prog"
)

// An edit inserts Text into the original source before (Line, Col), 1-based.
// When only blanks precede Col on its line, the text goes on a line of its
// own above, with the line's indentation, so that layout and comments are
// kept; otherwise (several statements on one line, "a; b") it goes inline,
// followed by "; ".
type edit struct {
	Line, Col int
	Text      string
	Inline    bool // a declaration inside a node's braces: Text is placed as is
	// AfterLine: the text goes on a line of its own below Line, with its
	// indentation (Col is ignored).
	AfterLine bool
}

// edited is the original text with edits applied, and the map from its
// positions back to the original's.
type edited struct {
	Text []byte
	// orig[newLine] is the original line of a repaired line (0 for a line
	// of inserted text); shift[newLine] lists, left to right, the columns
	// where inline text starts and its length.
	orig  map[int]int
	shift map[int][][2]int
}

// apply applies edits to src.
func apply(src string, edits []edit) *edited {
	lines := strings.SplitAfter(src, "\n")
	byLine := map[int][]edit{}
	for _, e := range edits {
		byLine[e.Line] = append(byLine[e.Line], e)
	}
	out := &edited{orig: map[int]int{}, shift: map[int][][2]int{}}
	var b strings.Builder
	nl := 1
	for i, line := range lines {
		l := i + 1
		es := byLine[l]
		sort.SliceStable(es, func(x, y int) bool { return es[x].Col < es[y].Col })
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		var rest []edit
		for _, e := range es {
			if e.AfterLine {
				continue
			}
			if !e.Inline && e.Col-1 <= len(indent) {
				b.WriteString(indent + e.Text + "\n")
				nl++
				continue
			}
			rest = append(rest, e)
		}
		prev := 0
		added := 0
		for _, e := range rest {
			at := min(max(e.Col-1, 0), len(line))
			b.WriteString(line[prev:at])
			ins := e.Text
			if !e.Inline {
				ins += "; "
			}
			b.WriteString(ins)
			out.shift[nl] = append(out.shift[nl], [2]int{at + 1 + added, len(ins)})
			added += len(ins)
			prev = at
		}
		b.WriteString(line[prev:])
		out.orig[nl] = l
		nl++
		for _, e := range es {
			if e.AfterLine {
				if !strings.HasSuffix(line, "\n") {
					b.WriteString("\n")
				}
				b.WriteString(indent + e.Text + "\n")
				nl++
			}
		}
	}
	out.Text = []byte(b.String())
	return out
}

// Orig maps a position of the repaired text to the original's; ok is false
// for a position inside inserted text.
func (e *edited) Orig(p prog.Pos) (prog.Pos, bool) {
	l, ok := e.orig[p.Line]
	if !ok {
		return p, false
	}
	col := p.Col
	for _, s := range e.shift[p.Line] {
		switch {
		case p.Col >= s[0]+s[1]:
			col -= s[1]
		case p.Col >= s[0]:
			return p, false
		}
	}
	return prog.Pos{Line: l, Col: col}, true
}

// lineText is line l of src (1-based), trimmed of blanks and its comment.
func lineText(src string, l int) string {
	lines := strings.Split(src, "\n")
	if l < 1 || l > len(lines) {
		return ""
	}
	s, _, _ := strings.Cut(lines[l-1], "#")
	return strings.TrimSpace(s)
}

// prevStmtLine is the last line before l with a statement on it (not blank,
// not only a comment): what an insertion before line l comes after.
func prevStmtLine(src string, l int) int {
	for k := l - 1; k >= 1; k-- {
		if lineText(src, k) != "" {
			return k
		}
	}
	return 0
}

// nodeDecl finds where a declaration goes in the block of the node declared
// at pos: after the block's last declaration, as "; name = 0" (" name = 0"
// after a ; or an empty block's {). ok is false when the block's last line
// ends in a comment.
func nodeDecl(src string, pos prog.Pos, decl string) (edit, bool) {
	lines := strings.Split(src, "\n")
	if pos.Line < 1 || pos.Line > len(lines) {
		return edit{}, false
	}
	off := 0
	for i := 0; i < pos.Line-1; i++ {
		off += len(lines[i]) + 1
	}
	off += max(pos.Col-1, 0)
	open := strings.IndexByte(src[off:], '{')
	if open < 0 {
		return edit{}, false
	}
	end := strings.IndexByte(src[off+open:], '}')
	if end < 0 {
		return edit{}, false
	}
	end += off + open
	// Back over the blanks (and a line break) before the brace, to the end
	// of the block's last declaration: "x = 1 }" becomes "x = 1; d }".
	at := end
	for at > 0 && strings.ContainsRune(" \t\r\n", rune(src[at-1])) {
		at--
	}
	if strings.Contains(src[strings.LastIndexByte(src[:at], '\n')+1:at], "#") {
		return edit{}, false // the last line ends in a comment
	}
	text := "; " + decl
	if c := src[at-1]; c == ';' || c == '{' {
		text = " " + decl
	}
	line := strings.Count(src[:at], "\n") + 1
	col := at - strings.LastIndexByte(src[:at], '\n')
	return edit{Line: line, Col: col, Text: text, Inline: true}, true
}
