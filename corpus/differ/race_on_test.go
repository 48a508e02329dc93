//go:build race

package differ

// raceOn: the tests run under the race detector, about ten times slower.
const raceOn = true
