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

// VersionLine says which rdmasim bi describes: the module's version (v1.2.3
// when built as a versioned module, go install ...@v1.2.3, else "devel"),
// the VCS revision it was built from (12 hex digits) and ", modified" when
// the tree had uncommitted changes, "rdmasim devel, revision 0868fc29ec09,
// modified (go1.26.8)"; without a VCS stamp (a test, a build with
// -buildvcs=false and no WithRevision) only the version; then the Go
// version that built it, which decides much of the performance.
func VersionLine(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "rdmasim devel"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
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
		v += ", revision " + rev[:min(12, len(rev))]
		if dirty {
			v += ", modified"
		}
	}
	return fmt.Sprintf("rdmasim %s (%s)", v, bi.GoVersion)
}

// WithRevision returns bi with the VCS revision rev and its modified flag
// (modified is "true" or "false") when bi has no VCS stamp of its own: a
// build with -buildvcs=false (the GOFLAGS of some environments) whose
// Makefile passed them by -ldflags -X. bi itself is not changed.
func WithRevision(bi *debug.BuildInfo, rev, modified string) *debug.BuildInfo {
	if bi == nil || rev == "" {
		return bi
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return bi
		}
	}
	c := *bi
	c.Settings = append(append([]debug.BuildSetting(nil), bi.Settings...),
		debug.BuildSetting{Key: "vcs.revision", Value: rev}, debug.BuildSetting{Key: "vcs.modified", Value: modified})
	return &c
}
