//go:build race

package decide_test

// underRace: the tests run under the race detector, about ten times slower.
const underRace = true
