//go:build race

package axiom

// RaceEnabled reports whether the tests run under the race detector (slower).
const RaceEnabled = true
