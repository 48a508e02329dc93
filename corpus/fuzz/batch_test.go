package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/opsem/prog"
)

// localCampaign is a Campaign in this process: workers goroutines take the
// tasks in a shuffled order (as a cluster's workers finish them in any
// order) and run them with run; the results are handed over in task order.
func localCampaign(workers int, shuffle uint64, run func(context.Context, []byte) ([]byte, error)) Campaign {
	return func(ctx context.Context, tasks [][]byte, result func(int, []byte) error) error {
		order := rand.New(rand.NewPCG(shuffle, 1)).Perm(len(tasks))
		outs := make([][]byte, len(tasks))
		errs := make([]error, len(tasks))
		next := make(chan int)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := range next {
					outs[i], errs[i] = run(ctx, tasks[i])
				}
			})
		}
		for _, i := range order {
			next <- i
		}
		close(next)
		wg.Wait()
		for i := range tasks {
			if errs[i] != nil {
				return errs[i]
			}
			if err := result(i, outs[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// madeUp is a check that reports a made-up disagreement (robust-enum) on
// about one program in five (by a hash of its text), and differ.Check's
// report on the others.
func madeUp(ctx context.Context, p *prog.Program, o differ.Options) (*differ.Report, error) {
	rep, err := differ.Check(ctx, p, o)
	if err != nil {
		return rep, err
	}
	h := fnv.New64a()
	h.Write([]byte(p.String()))
	if h.Sum64()%5 == 0 {
		rep.Problems = append(rep.Problems, differ.Problem{Kind: differ.RobustEnum, Detail: "made up"})
	}
	return rep, nil
}

// summaryJSON is s's JSON without its timing, and with the regression
// files' names without their directory, as text.
func summaryJSON(t *testing.T, s *Summary, opt Options) string {
	t.Helper()
	j := s.JSON(opt, "")
	j.Seconds, j.Rate, j.Workers = 0, 0, 0
	for i := range j.Disagreements {
		j.Disagreements[i].File = filepath.Base(j.Disagreements[i].File)
	}
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dirFiles returns the files of dir by name, with their text.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestCampaignEqualsRun runs fuzz runs in one Run and as a campaign of
// batches checked out of order by two workers (localCampaign), and checks
// that the summaries (JSON, but for the timing) are equal: the same
// programs, disagreements (made up by madeUp on some programs: minimised,
// their regression files written by the coordinator alone, with the same
// names and text), SPIN off; over the modes of the fuzzer (atomics,
// protocols, repair, given program seeds) and a count that is not a
// multiple of the batch.
func TestCampaignEqualsRun(t *testing.T) {
	bounds := differ.Options{MaxStates: 20000, MaxInflight: 4, MaxModelCost: 20}
	tests := []struct {
		name string
		opt  Options
	}{
		{"plain", Options{Seed: 11, Count: 23}},
		{"atomics-repair", Options{Seed: 4242, Count: 12, Atomics: true, Repair: true}},
		{"surface", Options{Seed: 3, Count: 12, Surface: true}},
		{"program-seeds", Options{ProgramSeeds: []uint64{ProgramSeed(5, 3), 7 * 1234567, ProgramSeed(9, 0)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.Workers, opt.Differ = 1, bounds
			opt.Minimize = MinimizeOptions{MaxChecks: 30, Time: time.Hour}
			opt.check = madeUp
			var found []int
			opt.Found = func(d *Disagreement) { found = append(found, d.Index) }
			one, campaignDir := opt, t.TempDir()
			one.RegressDir = t.TempDir()
			want, err := Run(context.Background(), one)
			if err != nil {
				t.Fatal(err)
			}
			wantFound := found
			found = nil
			opt.RegressDir = campaignDir
			got, err := RunCampaign(context.Background(), opt, opt.ResolveSpin(), localCampaign(2, 1, func(ctx context.Context, p []byte) ([]byte, error) {
				return task(ctx, p, madeUp)
			}))
			if err != nil {
				t.Fatal(err)
			}
			if w, g := summaryJSON(t, want, one), summaryJSON(t, got, one); w != g {
				t.Errorf("as a campaign:\n%s\nin one Run:\n%s", g, w)
			}
			if len(want.Disagreements) == 0 && len(tc.opt.ProgramSeeds) == 0 {
				t.Errorf("no disagreement made up: the test compares none")
			}
			if !reflect.DeepEqual(found, wantFound) {
				t.Errorf("Found called for programs %v, want %v (in order)", found, wantFound)
			}
			wf, gf := dirFiles(t, one.RegressDir), dirFiles(t, campaignDir)
			if !reflect.DeepEqual(wf, gf) || len(wf) != len(want.Disagreements) {
				t.Errorf("regression files %d as a campaign, %d in one Run, %d disagreements", len(gf), len(wf), len(want.Disagreements))
			}
			for i, d := range got.Disagreements {
				if d.File != filepath.Join(campaignDir, filepath.Base(want.Disagreements[i].File)) {
					t.Errorf("disagreement %d: file %q, want it in %s", i, d.File, campaignDir)
				}
			}
		})
	}
}

// TestCampaignInterrupted: a campaign that fails because ctx ended gives
// the summary of the batches merged, interrupted; one that fails otherwise
// is an error; a worker that compares SPIN otherwise fails the run.
func TestCampaignInterrupted(t *testing.T) {
	opt := Options{Seed: 1, Count: 30, Workers: 1, Differ: differ.Options{MaxStates: 5000, MaxInflight: 4}}
	spin := opt.ResolveSpin()
	ctx, cancel := context.WithCancel(context.Background())
	sum, err := RunCampaign(ctx, opt, spin, func(ctx context.Context, tasks [][]byte, result func(int, []byte) error) error {
		out, err := Task(ctx, tasks[0])
		if err != nil {
			return err
		}
		if err := result(0, out); err != nil {
			return err
		}
		cancel()
		return ctx.Err()
	})
	if err != nil || !sum.Interrupted || sum.Programs != DefaultBatch {
		t.Errorf("interrupted after a batch: %+v, %v; want %d programs, interrupted", sum, err, DefaultBatch)
	}
	failed := errors.New("the cluster is gone")
	if _, err := RunCampaign(context.Background(), opt, spin, func(context.Context, [][]byte, func(int, []byte) error) error { return failed }); !errors.Is(err, failed) {
		t.Errorf("a failed campaign: %v, want %v", err, failed)
	}
	_, err = RunCampaign(context.Background(), opt, "on every 1000-th program", localCampaign(1, 1, Task))
	if err == nil || !strings.Contains(err.Error(), "SPIN") {
		t.Errorf("a worker without SPIN: %v, want an error that says SPIN", err)
	}
	for _, bad := range []Options{{Seed: 1, Count: 10}, {Seed: 1, Duration: time.Second, Workers: 1}} {
		if _, err := RunCampaign(context.Background(), bad, spin, localCampaign(1, 1, Task)); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// fill sets every settable field of v (a struct, recursively) to a value
// other than its zero, but func fields.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fill(f)
			}
		}
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint64, reflect.Uint32, reflect.Uint16, reflect.Uint8:
		v.SetUint(5)
	case reflect.Float64, reflect.Float32:
		v.SetFloat(1.5)
	case reflect.String:
		v.SetString("x")
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	}
}

// TestBatchCarriesOptions checks that a batch carries every field of
// Options (filled with values other than their zero, by reflection, so
// that a field added later is checked too) but what only the coordinator
// uses: the duration, the regression directory, the callbacks; and that
// a batch of another version, or with a field this build does not know,
// is refused.
func TestBatchCarriesOptions(t *testing.T) {
	var opt Options
	fill(reflect.ValueOf(&opt).Elem())
	opt.ProgramSeeds = nil
	opt.Count = 25
	payloads, err := batches(opt, 10, true)
	if err != nil || len(payloads) != 3 {
		t.Fatalf("%d batches, %v; want 3", len(payloads), err)
	}
	var b batch
	if err := decodeStrict(payloads[2], &b); err != nil {
		t.Fatal(err)
	}
	want := opt
	want.Duration, want.RegressDir, want.Count = 0, "", 5
	if !reflect.DeepEqual(b.Options, want) || b.First != 20 || !b.Regress || b.V != batchVersion {
		t.Errorf("batch 2 carries\n%+v (first %d)\nwant\n%+v (first 20)", b.Options, b.First, want)
	}
	var m map[string]any
	if err := json.Unmarshal(payloads[0], &m); err != nil {
		t.Fatal(err)
	}
	m["options"].(map[string]any)["Verbs2"] = true
	unknown, _ := json.Marshal(m)
	m["v"] = batchVersion + 1
	delete(m["options"].(map[string]any), "Verbs2")
	newer, _ := json.Marshal(m)
	for _, p := range [][]byte{unknown, newer, []byte("{")} {
		if _, err := Task(context.Background(), p); err == nil {
			t.Errorf("%s: accepted", p)
		}
	}
}
