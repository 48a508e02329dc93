package explore

import (
	"context"
	"fmt"
	"testing"

	"rdmasim/store"
)

// TestFailuresAlike: the sequential and the parallel search commit through
// the same core, so a visited set that inserts one fingerprint at a time and
// fails at its nth insert fails both at the same successor, with the same
// error. (A set that inserts in batches fails a whole chunk of successors,
// which spans other states in a parallel block: the error is then the same
// failure, reported for a range of states. The parallel search inserts a
// block's successors before it discovers any, so it may also have
// discovered fewer states by then.)
func TestFailuresAlike(t *testing.T) {
	for _, n := range []int{1, 2, 50, 3000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			run := func(workers int) (Result, string) {
				set := &failingSet{store.NewMem(0), n}
				defer set.Close()
				res, err := New(&grid{k: 4, n: 9}, Options{Workers: workers, Set: set}).Run(context.Background())
				if err == nil {
					t.Fatalf("%d workers: no error", workers)
				}
				return res, err.Error()
			}
			seq, seqErr := run(1)
			for _, workers := range []int{2, 3} {
				par, parErr := run(workers)
				if parErr != seqErr {
					t.Errorf("%d workers: error %q, sequential %q", workers, parErr, seqErr)
				}
				if par.States > seq.States || par.Transitions > seq.Transitions {
					t.Errorf("%d workers: %+v, sequential %+v", workers, par.Stats, seq.Stats)
				}
			}
		})
	}
}
