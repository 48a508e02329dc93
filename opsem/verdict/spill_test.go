package verdict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
)

// TestSpill: with the frontier (beyond a budget of one byte) and the parent
// records on disk, Compute and RobustMachine give the results of searches in
// memory, witnesses included, and leave nothing in the spill directory.
func TestSpill(t *testing.T) {
	for _, f := range []string{"ppo-37-IRIW-GET-RFENCE.rdma", "paper-5.1.rdma", "ppo-33-LOOP-PUT-POLL.rdma"} {
		p, err := parse.File(filepath.Join("../../corpus/litmus", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/w%d", f, workers), func(t *testing.T) {
				opt := Options{Machine: machine.DefaultOptions(), Witness: true, Settings: explore.Settings{Workers: workers}}
				dir := t.TempDir()
				spill := opt
				spill.SpillDir, spill.FrontierBudget = dir, 1
				for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
					want, err := Compute(context.Background(), p, sem, opt)
					if err != nil {
						t.Fatal(err)
					}
					got, err := Compute(context.Background(), p, sem, spill)
					if err != nil {
						t.Fatal(err)
					}
					if got.Search.DiskBytes != 8*got.Search.States {
						t.Errorf("%s: %d bytes on disk for %d states", sem, got.Search.DiskBytes, got.Search.States)
					}
					if workers > 1 && got.Search.States > 1000 && got.Search.FrontierDiskPeak == 0 {
						t.Errorf("%s: the frontier of %d states never spilled", sem, got.Search.States)
					}
					for _, r := range []*Result{got, want} {
						r.Search.Elapsed, r.Search.StoreBytes, r.Search.DiskBytes, r.Search.FrontierDiskPeak = 0, 0, 0, 0
						if workers > 1 {
							r.Witness = nil // it may be another shortest one
						}
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: spilling %+v\nin memory %+v", sem, got, want)
					}
				}
				want, err := RobustMachine(context.Background(), p, opt)
				if err != nil {
					t.Fatal(err)
				}
				got, err := RobustMachine(context.Background(), p, spill)
				if err != nil {
					t.Fatal(err)
				}
				if got.Robust != want.Robust || got.Complete != want.Complete || got.Search.States != want.Search.States ||
					workers == 1 && !reflect.DeepEqual(got.Witness, want.Witness) {
					t.Fatalf("robust: spilling %+v\nin memory %+v", got, want)
				}
				if ents, _ := os.ReadDir(dir); len(ents) > 0 {
					t.Errorf("%d files left in the spill directory", len(ents))
				}
			})
		}
	}
}
