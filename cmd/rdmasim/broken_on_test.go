//go:build rdmasim_broken

package main

// brokenBuild: this test binary has the rdmasim_broken tag, whose
// declarative model lacks an oppo entry (opsem/axiom/broken_on.go), so
// that the fuzzer finds disagreements.
const brokenBuild = true
