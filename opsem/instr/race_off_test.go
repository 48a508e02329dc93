//go:build !race

package instr

// raceOn: the tests run under the race detector, about ten times slower.
const raceOn = false
