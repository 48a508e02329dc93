//go:build !unix

package main

import "os"

// maxRSSKiB is unknown (0) where the child's rusage has no peak resident set.
func maxRSSKiB(*os.ProcessState) int64 { return 0 }
