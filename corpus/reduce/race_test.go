//go:build race

package reduce

// raceEnabled reports whether the tests run under the race detector, which
// makes the machine searches about 25 times slower.
const raceEnabled = true
