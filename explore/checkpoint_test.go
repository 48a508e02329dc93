package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rdmasim/explore/ckpt"
	"rdmasim/store"
)

// tally is a caller's state built by Visit: how many states it saw, and a sum
// of their hashes, which does not depend on the order of the visits.
type tally struct {
	N   uint64 `json:"n"`
	Sum uint64 `json:"sum"`
}

func (t *tally) add(s []byte) {
	h := fnv.New64a()
	h.Write(s)
	t.N++
	t.Sum += h.Sum64()
}

// visitLog records the visits of a search: its tally, and the ids, states and
// depths in call order.
type visitLog struct {
	tally
	ids    []uint64
	states [][]byte
	depths []int
}

func (v *visitLog) visit(id uint64, s []byte, depth int) bool {
	v.add(s)
	v.ids = append(v.ids, id)
	v.states = append(v.states, bytes.Clone(s))
	v.depths = append(v.depths, depth)
	return true
}

// checkpointing returns o with a checkpoint configuration, and a Save and
// Restore that save and restore v's tally.
func checkpointing(o Options, dir string, every time.Duration, resume bool, v *visitLog) Options {
	var everyStates uint64
	if every < 0 {
		everyStates, every = uint64(-every), 0
	}
	o.Checkpoint = &Checkpoint{
		everyStates: everyStates,
		noSync:      true, // kills are simulated by copying the files
		Dir:         dir,
		Every:       every,
		Resume:      resume,
	}
	o.Meta = json.RawMessage(`{"test": "checkpoint"}`)
	o.Save = func() (json.RawMessage, error) { return json.Marshal(v.tally) }
	o.Restore = func(st json.RawMessage) error { return json.Unmarshal(st, &v.tally) }
	return o
}

// copyDir copies the regular files of the directory src to a new directory
// dst, as a kill -9 would leave them.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type ckCase struct {
	name  string
	m     func() Machine
	order Order
	// workers of the interrupted search and of the resumed one
	workers, resumeWorkers int
	trace                  bool
	spill                  bool // frontier (beyond a budget of one byte) and parent records on disk
	// everyState checkpoints after every state, that is after each
	// expansion of a sequential search and each commit of a parallel one,
	// at the end of every level too
	everyState bool
}

// options returns o with the spill settings of the case.
func (c ckCase) options(t *testing.T, o Options) Options {
	if c.spill {
		o.SpillDir, o.FrontierBudget, o.frontierChunk = t.TempDir(), 1, 512
	}
	return o
}

func checkpointCases() []ckCase {
	machines := []struct {
		name string
		m    func() Machine
	}{
		{"grid 4x9", func() Machine { return &grid{k: 4, n: 9} }},
		{"tree 12", func() Machine { return &tree{depth: 12} }},
		{"pruning 3x9", func() Machine { return &pruning{grid{k: 3, n: 9}} }},
		{"wide 3x8", func() Machine { return &wide{k: 3, depth: 8} }},
		{"blobs", func() Machine { return &blobs{n: 5, size: defaultChunk + 10} }},
	}
	var cases []ckCase
	for _, mc := range machines {
		for _, c := range []ckCase{
			{order: BFS, workers: 1, resumeWorkers: 1, trace: true},
			{order: BFS, workers: 1, resumeWorkers: 1},
			{order: DFS, workers: 1, resumeWorkers: 1, trace: true},
			{order: BFS, workers: 2, resumeWorkers: 2, trace: true},
			{order: BFS, workers: 2, resumeWorkers: 1, trace: true},
			{order: BFS, workers: 1, resumeWorkers: 3},
			{order: BFS, workers: 1, resumeWorkers: 1, trace: true, spill: true},
			{order: BFS, workers: 1, resumeWorkers: 1, spill: true},
			{order: DFS, workers: 1, resumeWorkers: 1, trace: true, spill: true},
			{order: BFS, workers: 2, resumeWorkers: 2, trace: true, spill: true},
			{order: BFS, workers: 2, resumeWorkers: 1, spill: true},
			{order: BFS, workers: 2, resumeWorkers: 2, trace: true, everyState: true},
			{order: BFS, workers: 1, resumeWorkers: 2, everyState: true},
		} {
			if mc.name == "blobs" && (c.workers > 1 || !c.trace) {
				continue // slow (megabyte states), and covered by the others
			}
			c.name = fmt.Sprintf("%s/%s/w%d-w%d/trace=%v/spill=%v/every=%v", mc.name, c.order, c.workers, c.resumeWorkers, c.trace, c.spill, c.everyState)
			c.m = mc.m
			cases = append(cases, c)
		}
	}
	return cases
}

// TestCheckpointResume interrupts searches at several points, by a
// simulated kill (a copy of the checkpoint directory as it stands in the
// middle of the search) or by canceling them, resumes each, and checks that
// the resumed search ends as the uninterrupted one: the same result, the
// same visited states (by the tally of the caller's state), the same visits
// with the same ids after the checkpoint and the same paths, whatever the
// workers of either search (a parallel search checkpoints between the commits
// of two blocks, in the middle of a level).
func TestCheckpointResume(t *testing.T) {
	for _, c := range checkpointCases() {
		t.Run(c.name, func(t *testing.T) {
			var ref visitLog
			refSearch := New(c.m(), Options{Order: c.order, Trace: c.trace, Visit: ref.visit})
			want, err := refSearch.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()

			// The interrupted search: kills at a few visits, then a
			// cancel.
			kills := []uint64{1, want.States / 5, want.States / 2, want.States - 1}
			cancelAt := want.States * 3 / 4
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var first visitLog
			dir := filepath.Join(root, "search")
			var copies []string
			var visits atomic.Uint64
			visit := func(id uint64, s []byte, depth int) bool {
				n := visits.Add(1)
				if slices.Contains(kills, n) {
					cp := filepath.Join(root, fmt.Sprintf("kill-%d", n))
					copyDir(t, dir, cp)
					copies = append(copies, cp)
				}
				if n == cancelAt {
					cancel()
				}
				return first.visit(id, s, depth)
			}
			s := New(c.m(), c.options(t, checkpointing(Options{Order: c.order, Trace: c.trace, Workers: c.workers, Visit: visit}, dir, c.period(want.States), false, &first)))
			got, err := s.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.Stop != Canceled && got.Stop != Complete {
				t.Fatalf("Stop = %v, want canceled (or complete, if the search ended first)", got.Stop)
			}
			copies = append(copies, dir)

			var points []string // the states restored, per copy
			defer func() {
				t.Logf("%d states; resumed from checkpoints of %s states", want.States, strings.Join(points, ", "))
			}()
			var mid int
			for _, cp := range copies {
				var v visitLog
				if _, err := os.Stat(filepath.Join(cp, ckpt.ManifestName)); err != nil {
					continue // killed before the first checkpoint: a fresh start
				}
				rs := New(c.m(), c.options(t, checkpointing(Options{Order: c.order, Trace: c.trace, Workers: c.resumeWorkers, Visit: v.visit}, cp, 0, true, &v)))
				restoredN := uint64(0)
				if m, err := os.ReadFile(filepath.Join(cp, ckpt.ManifestName)); err == nil {
					var man ckpt.Manifest
					json.Unmarshal(m, &man)
					restoredN = man.States
				}
				points = append(points, fmt.Sprint(restoredN))
				if restoredN > 1 && restoredN < want.States {
					mid++
				}
				res, err := rs.Run(context.Background())
				if err != nil {
					t.Fatalf("%s: %v", filepath.Base(cp), err)
				}
				checkResumed(t, filepath.Base(cp), c, want, res, &ref, &v, restoredN)
				if c.trace {
					checkPaths(t, refSearch, rs, res.States)
				}
				// A finished checkpoint resumes to the same result.
				var v2 visitLog
				again, err := New(c.m(), c.options(t, checkpointing(Options{Order: c.order, Trace: c.trace, Workers: c.resumeWorkers, Visit: v2.visit}, cp, 0, true, &v2))).Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if again.States != want.States || again.Transitions != want.Transitions || again.Stop != Complete ||
					v2.tally != ref.tally || len(v2.ids) != 0 {
					t.Fatalf("%s: resuming the finished search: %+v, tally %+v (%d visits); want %+v, %+v",
						filepath.Base(cp), again, v2.tally, len(v2.ids), want, ref.tally)
				}
				ents, _ := os.ReadDir(cp)
				for _, e := range ents {
					if strings.HasPrefix(e.Name(), "frontier-") || strings.HasPrefix(e.Name(), "tmp-") {
						t.Errorf("%s: %s left behind", filepath.Base(cp), e.Name())
					}
				}
			}
			if mid < 1 || want.States > 5000 && mid < 2 {
				t.Errorf("only %d checkpoints taken in the middle of the search", mid)
			}
		})
	}
}

// period returns the checkpoint period of the case in a search of n states.
func (c ckCase) period(n uint64) time.Duration {
	if c.everyState {
		return -1
	}
	return -everyStates(n)
}

// everyStates returns a period, in states, that makes a few checkpoints
// in a search of n states, as a negative duration for checkpointing.
func everyStates(n uint64) time.Duration { return -time.Duration(max(n/6, 1)) }

// checkResumed compares a resumed search with the uninterrupted one.
func checkResumed(t *testing.T, name string, c ckCase, want, got Result, ref, v *visitLog, restoredN uint64) {
	t.Helper()
	if got.Stop != Complete || got.States != want.States || got.Transitions != want.Transitions ||
		got.MaxDepth != want.MaxDepth || got.Pruned != want.Pruned || got.Frontier != 0 {
		t.Fatalf("%s: resumed %+v, uninterrupted %+v", name, got, want)
	}
	if v.tally != ref.tally {
		t.Fatalf("%s: resumed tally %+v, uninterrupted %+v", name, v.tally, ref.tally)
	}
	if uint64(len(v.ids)) != want.States-restoredN {
		t.Fatalf("%s: %d visits after restoring %d of %d states", name, len(v.ids), restoredN, want.States)
	}
	for i, id := range v.ids {
		k := restoredN + uint64(i)
		if id != k || !bytes.Equal(v.states[i], ref.states[k]) || v.depths[i] != ref.depths[k] {
			t.Fatalf("%s: visit %d after resuming: state %d %x at depth %d, uninterrupted: %x at depth %d",
				name, i, id, v.states[i], v.depths[i], ref.states[k], ref.depths[k])
		}
	}
}

// checkPaths compares the paths of a resumed search with those of the
// uninterrupted one.
func checkPaths(t *testing.T, ref, got *Search, n uint64) {
	t.Helper()
	for _, id := range []uint64{0, 1, n / 3, n / 2, n - 1} {
		if id >= n {
			continue
		}
		p, err := got.Path(id)
		if err != nil {
			t.Fatalf("Path(%d) after resuming: %v", id, err)
		}
		q, err := ref.Path(id)
		if err != nil {
			t.Fatal(err)
		}
		if d := pathDiff(p, q); d != "" {
			t.Fatalf("Path(%d) after resuming, against the uninterrupted search's: %s", id, d)
		}
	}
}

// TestCheckpointSpill resumes a search whose visited set spills to disk.
func TestCheckpointSpill(t *testing.T) {
	m := func() Machine { return &grid{k: 4, n: 10} }
	want, err := New(m(), Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	set := store.NewSpill(16<<10, t.TempDir(), store.PebbleOptions{Temp: true})
	defer set.Close()
	var v visitLog
	_, err = New(m(), checkpointing(Options{Set: set, Visit: func(id uint64, s []byte, d int) bool {
		if id == want.States/2 {
			cancel()
		}
		return v.visit(id, s, d)
	}}, dir, 0, false, &v)).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set2 := store.NewSpill(16<<10, t.TempDir(), store.PebbleOptions{Temp: true})
	defer set2.Close()
	var v2 visitLog
	got, err := New(m(), checkpointing(Options{Set: set2, Visit: v2.visit}, dir, 0, true, &v2)).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.States != want.States || got.Transitions != want.Transitions || got.Stop != Complete || !set2.Spilled() {
		t.Fatalf("resumed %+v (spilled %v), want %+v", got, set2.Spilled(), want)
	}
}

// TestCheckpointErrors: a checkpoint is resumed only by the search that made
// it, and damage is detected.
func TestCheckpointErrors(t *testing.T) {
	m := func() Machine { return &grid{k: 3, n: 8} }
	mk := func(t *testing.T) string {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var v visitLog
		_, err := New(m(), checkpointing(Options{Trace: true, Visit: func(id uint64, s []byte, d int) bool {
			if id == 100 {
				cancel()
			}
			return v.visit(id, s, d)
		}}, dir, 0, false, &v)).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	resume := func(dir string, opt Options, meta string) error {
		var v visitLog
		opt = checkpointing(opt, dir, 0, true, &v)
		if meta != "" {
			opt.Meta = json.RawMessage(meta)
		}
		_, err := New(m(), opt).Run(context.Background())
		return err
	}
	tests := []struct {
		name   string
		damage func(dir string) error
		opt    Options
		meta   string
		want   string
	}{
		{name: "order", opt: Options{Order: DFS}, want: "made by a bfs search, resumed by a dfs one"},
		{name: "max states", opt: Options{MaxStates: 10}, want: "MaxStates"},
		{name: "meta", meta: `{"test": "other"}`, want: "made by another search"},
		{name: "trace", damage: func(dir string) error {
			return editManifest(dir, func(m *ckpt.Manifest) { m.Trace = false; m.Parents = ckpt.Log{} })
		}, opt: Options{Trace: true}, want: "without Trace"},
		{name: "format", damage: func(dir string) error {
			return editManifest(dir, func(m *ckpt.Manifest) { m.Format = 99 })
		}, want: "format 99"},
		{name: "seed", damage: func(dir string) error {
			return editManifest(dir, func(m *ckpt.Manifest) { m.FingerprintSeed[0]++ })
		}, want: "fingerprint seed"},
		{name: "frontier checksum", damage: func(dir string) error {
			return editManifest(dir, func(m *ckpt.Manifest) { m.Frontier.CRC32C++ })
		}, want: "checksum"},
		{name: "short visited file", damage: func(dir string) error {
			return os.Truncate(filepath.Join(dir, ckpt.VisitedName), 16)
		}, want: "the manifest counts"},
		{name: "not resuming", want: "already holds a checkpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := mk(t)
			if tt.damage != nil {
				if err := tt.damage(dir); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			if tt.name == "not resuming" {
				var v visitLog
				_, err = New(m(), checkpointing(Options{}, dir, 0, false, &v)).Run(context.Background())
			} else {
				err = resume(dir, tt.opt, tt.meta)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	// Without damage, it resumes.
	if err := resume(mk(t), Options{Trace: true}, ""); err != nil {
		t.Fatal(err)
	}
	// Two searches cannot share a directory.
	dir := mk(t)
	var v visitLog
	opt := checkpointing(Options{}, dir, 0, true, &v)
	c, _, err := openCheckpoint(&opt, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if err := resume(dir, Options{}, ""); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("error %v, want one saying the directory is in use", err)
	}
}

func editManifest(dir string, edit func(*ckpt.Manifest)) error {
	path := filepath.Join(dir, ckpt.ManifestName)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m ckpt.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	edit(&m)
	data, err = json.Marshal(&m)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// TestResumeSpillError: a resumed search whose frontier cannot spill while
// the checkpoint's frontier is read back fails with that error, sequential or
// parallel, before it visits any state. (The sequential search used to
// ignore it, and go on with a damaged frontier.)
func TestResumeSpillError(t *testing.T) {
	m := func() Machine { return &grid{k: 4, n: 9} }
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("w%d", workers), func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var v visitLog
			_, err := New(m(), checkpointing(Options{Visit: func(id uint64, s []byte, d int) bool {
				if id == 3000 {
					cancel()
				}
				return v.visit(id, s, d)
			}}, dir, 0, false, &v)).Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var v2 visitLog
			missing := filepath.Join(t.TempDir(), "missing")
			_, err = New(m(), checkpointing(Options{Workers: workers, Visit: v2.visit,
				SpillDir: missing, FrontierBudget: 1, frontierChunk: 512}, dir, 0, true, &v2)).Run(context.Background())
			if err == nil || !strings.Contains(err.Error(), "spilling the frontier") {
				t.Fatalf("error %v, want one about spilling the frontier", err)
			}
			if len(v2.ids) != 0 {
				t.Fatalf("%d visits after a failed restore", len(v2.ids))
			}
		})
	}
}
