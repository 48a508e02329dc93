//go:build rdmasim_broken

package axiom

// brokenDropOppo is true in builds with the rdmasim_broken tag: the model
// is deliberately wrong (see broken_off.go).
const brokenDropOppo = true
