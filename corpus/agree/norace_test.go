//go:build !race

package agree

const raceEnabled = false
