package report

import (
	"runtime"
	"strings"
	"syscall"
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

// PeakRSS returns the peak resident memory of the process, in bytes, or the
// Go runtime's view of it where the OS does not say: the memory figure of
// statistics and progress lines.
func PeakRSS() uint64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil && ru.Maxrss > 0 {
		return uint64(ru.Maxrss) * 1024 // Linux reports KiB
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Sys
}
