//go:build race

package surface

// raceEnabled: the race detector slows the searches down about tenfold, so
// TestAgreement draws fewer programs by default (CI runs the suite under
// -race; make agree-surface runs many more without it).
const raceEnabled = true
