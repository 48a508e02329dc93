//go:build race

package agree

// raceEnabled: the race detector slows the semantics down about tenfold, so
// the default run compares fewer programs (CI runs the suite under -race;
// make agree runs many more without it).
const raceEnabled = true
