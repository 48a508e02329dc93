//go:build !rdmasim_broken

package main

// brokenBuild: this test binary has the rdmasim_broken tag (see
// broken_on_test.go); here it has not.
const brokenBuild = false
