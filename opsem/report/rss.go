//go:build !js

package report

import (
	"runtime"
	"syscall"
)

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
