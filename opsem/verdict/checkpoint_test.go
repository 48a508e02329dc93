package verdict

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
)

// TestCheckpointResume interrupts Compute and RobustMachine at a few moments
// and resumes them from their checkpoints: the results (outcomes, counts,
// witnesses) must be those of an uninterrupted run.
func TestCheckpointResume(t *testing.T) {
	for _, f := range []string{"ppo-37-IRIW-GET-RFENCE.rdma", "paper-5.1.rdma", "ppo-33-LOOP-PUT-POLL.rdma"} {
		p, err := parse.File(filepath.Join("../../corpus/litmus", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			for _, delay := range []time.Duration{0, 3 * time.Millisecond} {
				if workers > 1 && delay == 0 {
					continue
				}
				t.Run(fmt.Sprintf("%s/w%d/%v", f, workers, delay), func(t *testing.T) {
					opt := Options{Machine: machine.DefaultOptions(), Witness: true, Settings: explore.Settings{Workers: workers}}
					dir := t.TempDir()
					withCheckpoints := func(resume bool) Options {
						o := opt
						o.Checkpoint = func(key string) *explore.Checkpoint {
							return &explore.Checkpoint{Dir: filepath.Join(dir, key), Resume: resume}
						}
						return o
					}
					interrupted := func() context.Context {
						ctx, cancel := context.WithCancel(context.Background())
						if delay == 0 {
							cancel()
						} else {
							time.AfterFunc(delay, cancel)
						}
						return ctx
					}
					for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
						want, err := Compute(context.Background(), p, sem, opt)
						if err != nil {
							t.Fatal(err)
						}
						if _, err := Compute(interrupted(), p, sem, withCheckpoints(false)); err != nil {
							t.Fatal(err)
						}
						for range 2 { // resume, then resume the finished search
							got, err := Compute(context.Background(), p, sem, withCheckpoints(true))
							if err != nil {
								t.Fatal(err)
							}
							got.Search.Elapsed, want.Search.Elapsed = 0, 0
							got.Search.StoreBytes, want.Search.StoreBytes = 0, 0
							got.Search.DiskBytes, want.Search.DiskBytes = 0, 0
							got.Search.Workers, want.Search.Workers = 0, 0
							if workers > 1 {
								// Parallel ids vary, and so may the
								// witness among the shortest ones.
								got.Witness, want.Witness = nil, nil
							}
							if !reflect.DeepEqual(got, want) {
								t.Fatalf("%s: resumed %+v\nuninterrupted %+v", sem, got, want)
							}
						}
						dir = t.TempDir()
					}
					want, err := RobustMachine(context.Background(), p, opt)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := RobustMachine(interrupted(), p, withCheckpoints(false)); err != nil {
						t.Fatal(err)
					}
					got, err := RobustMachine(context.Background(), p, withCheckpoints(true))
					if err != nil {
						t.Fatal(err)
					}
					if got.Robust != want.Robust || got.Complete != want.Complete || got.Bound != want.Bound ||
						(got.Witness == nil) != (want.Witness == nil) || got.Search.Stop != want.Search.Stop {
						t.Fatalf("robust: resumed %+v\nuninterrupted %+v", got, want)
					}
					if workers == 1 && !reflect.DeepEqual(got.Witness, want.Witness) {
						t.Fatalf("robust: resumed witness %+v\nuninterrupted %+v", got.Witness, want.Witness)
					}
				})
			}
		}
	}
}
