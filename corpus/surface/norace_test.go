//go:build !race

package surface

// raceEnabled: see race_test.go.
const raceEnabled = false
