package report

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Wrap breaks s at spaces into lines of at most width bytes (a word longer
// than width gets a line of its own), joined by newlines followed by indent
// spaces. A width under 20 leaves s whole: wrapping into so narrow a column
// would be harder to read than a long line.
func Wrap(s string, width, indent int) string {
	words := strings.Fields(s)
	if width < 20 || len(words) == 0 {
		return s
	}
	var b strings.Builder
	n := 0 // bytes on the current line
	for _, word := range words {
		switch {
		case n == 0:
		case n+1+len(word) > width:
			b.WriteString("\n" + strings.Repeat(" ", indent))
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// VersionLine says which rdmasim bi describes: the module's version when
// it was built as a versioned module (go install ...@v1.2.3), else the
// revision of the repository it was built from (12 hex digits, "-dirty"
// with uncommitted changes), else "devel" (a build with -buildvcs=false, as
// the Makefile's GOFLAGS may give, or a test); then the Go version that
// built it, which decides much of the performance.
func VersionLine(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "rdmasim devel"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			v = rev[:min(12, len(rev))]
			if dirty {
				v += "-dirty"
			}
		}
	}
	return fmt.Sprintf("rdmasim %s (%s)", v, bi.GoVersion)
}
