package report

import "runtime"

// PeakRSS returns the memory the Go runtime obtained, in bytes: under GOOS=js
// (WebAssembly in a browser) there is no resident set to ask about, and the
// runtime's memory is the WebAssembly instance's.
func PeakRSS() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Sys
}
