//go:build !rdmasim_broken

package axiom

// brokenDropOppo drops one entry of the ppo table from oppo (nrW → nrW on
// the same queue pair: a put's remote write is observed before a later put's
// on the same queue pair). Only the rdmasim_broken build tag sets it, for the
// test that shows the fuzzer (package corpus/fuzz) catches a broken rule;
// in normal builds it is false and the compiler removes its one use.
const brokenDropOppo = false
