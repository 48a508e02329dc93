package explore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// spillMachines are machines whose frontiers hold many chunks of 512 bytes
// (and many blocks), or states larger than a chunk.
func spillMachines() []struct {
	name string
	m    func() Machine
} {
	return []struct {
		name string
		m    func() Machine
	}{
		{"grid 4x9", func() Machine { return &grid{k: 4, n: 9} }},
		{"grid 2x30 padded", func() Machine { return &grid{k: 2, n: 30, pad: 100} }},
		{"tree 12", func() Machine { return &tree{depth: 12} }},
		{"pruning 3x20", func() Machine { return &pruning{grid{k: 3, n: 20}} }},
		{"wide 3x8", func() Machine { return &wide{k: 3, depth: 8} }},
		{"grid 2x20 padded 5000", func() Machine { return &grid{k: 2, n: 20, pad: 5000} }},
	}
}

// TestSpillSameSearch runs each search with its frontier and parent records
// on disk, under tiny budgets, and checks that it finds what the search in
// memory finds: the same result, the same visits in the same order (for a
// parallel search, the same states at each depth), and paths of the right
// length; that the frontier did spill; and that nothing is left in the spill
// directory.
func TestSpillSameSearch(t *testing.T) {
	type variant struct {
		order   Order
		workers int
		trace   bool
		budget  int64
	}
	variants := []variant{
		{BFS, 1, true, 1},
		{BFS, 1, false, 16 << 10},
		{BFS, 2, true, 1},
		{BFS, 3, false, 200 << 10},
		{DFS, 1, true, 1}, // the stack stays in memory; the trace goes to disk
	}
	for _, mc := range spillMachines() {
		for _, vr := range variants {
			name := fmt.Sprintf("%s/%s/w%d/trace=%v/budget=%d", mc.name, vr.order, vr.workers, vr.trace, vr.budget)
			t.Run(name, func(t *testing.T) {
				var ref visitLog
				refSearch := New(mc.m(), Options{Order: vr.order, Workers: vr.workers, Trace: vr.trace, Visit: serialVisit(t, ref.visit)})
				want, err := refSearch.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				var got visitLog
				s := New(mc.m(), Options{Order: vr.order, Workers: vr.workers, Trace: vr.trace, Visit: serialVisit(t, got.visit),
					SpillDir: dir, FrontierBudget: vr.budget, frontierChunk: 512})
				res, err := s.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if res.States != want.States || res.Transitions != want.Transitions || res.MaxDepth != want.MaxDepth ||
					res.Pruned != want.Pruned || res.Stop != want.Stop || res.Frontier != 0 {
					t.Fatalf("spilling: %+v\nin memory: %+v", res, want)
				}
				if spilled := res.FrontierDiskPeak > 0; vr.order == DFS && spilled || vr.order == BFS && vr.budget == 1 && !spilled {
					t.Errorf("FrontierDiskPeak = %d with a budget of %d bytes", res.FrontierDiskPeak, vr.budget)
				}
				if wantDisk := map[bool]uint64{true: 8 * res.States}[vr.trace]; res.DiskBytes != wantDisk {
					t.Errorf("DiskBytes = %d at the end, want %d (the parent records)", res.DiskBytes, wantDisk)
				}
				if vr.workers == 1 {
					for i := range ref.ids {
						if got.ids[i] != ref.ids[i] || !bytes.Equal(got.states[i], ref.states[i]) || got.depths[i] != ref.depths[i] {
							t.Fatalf("visit %d: state %d %x at depth %d, in memory state %d %x at depth %d",
								i, got.ids[i], got.states[i], got.depths[i], ref.ids[i], ref.states[i], ref.depths[i])
						}
					}
				} else if !slices.Equal(byDepth(&got), byDepth(&ref)) {
					t.Fatal("the states at some depth differ from those of the search in memory")
				}
				if vr.trace {
					checkPaths(t, refSearch, s, res.States)
				}
				if ents, _ := os.ReadDir(dir); len(ents) > 0 {
					t.Errorf("%d files left in the spill directory, such as %s", len(ents), ents[0].Name())
				}
			})
		}
	}
}

// byDepth returns the states of a visit log, sorted within each depth, as
// strings prefixed by their depth.
func byDepth(v *visitLog) []string {
	var out []string
	for i, s := range v.states {
		out = append(out, fmt.Sprintf("%08d %x", v.depths[i], s))
	}
	slices.Sort(out)
	return out
}

// TestTraceFile checks that the parent records kept in a file give the paths
// the records in memory give, for every state, and that Close releases the
// file.
func TestTraceFile(t *testing.T) {
	for _, order := range []Order{BFS, DFS} {
		t.Run(order.String(), func(t *testing.T) {
			m := func() Machine { return &grid{k: 3, n: 60} } // 216,000 states: 1.7 MB of records, one flush
			mem := New(m(), Options{Order: order, Trace: true})
			want, err := mem.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			file := New(m(), Options{Order: order, Trace: true, SpillDir: dir})
			got, err := file.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got.States != want.States || got.DiskBytes != 8*got.States {
				t.Fatalf("%d states, %d bytes of parent records; want %d states", got.States, got.DiskBytes, want.States)
			}
			if file.trace.f == nil || file.trace.flushed == 0 || file.trace.flushed == file.trace.n {
				t.Fatalf("the records are not in a file, partly flushed: %d of %d flushed", file.trace.flushed, file.trace.n)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Errorf("the file of parent records is visible in the spill directory: %s", ents[0].Name())
			}
			for id := uint64(0); id < got.States; id += min(97, max(got.States-id-1, 1)) {
				p, err := file.Path(id)
				if err != nil {
					t.Fatal(err)
				}
				q, err := mem.Path(id)
				if err != nil {
					t.Fatal(err)
				}
				if d := pathDiff(p, q); d != "" {
					t.Fatalf("Path(%d) against the in-memory trace's: %s", id, d)
				}
			}
			if err := file.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := file.Path(1); err == nil || !strings.Contains(err.Error(), "after Close") {
				t.Fatalf("Path after Close: %v", err)
			}
			if err := file.Close(); err != nil {
				t.Fatalf("a second Close: %v", err)
			}
		})
	}
}

// TestSpillErrors: a spill directory that cannot be written fails the search
// with an error that says what failed.
func TestSpillErrors(t *testing.T) {
	missing := t.TempDir() + "/missing"
	for _, tt := range []struct {
		name string
		opt  Options
		want string
	}{
		{"trace", Options{Trace: true, SpillDir: missing}, "creating the file of parent records"},
		{"frontier", Options{SpillDir: missing, FrontierBudget: 1, frontierChunk: 512}, "spilling the frontier"},
		{"parallel frontier", Options{Workers: 2, SpillDir: missing, FrontierBudget: 1}, "spilling the frontier"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(&grid{k: 4, n: 9}, tt.opt).Run(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestTraceWriteError: when the parent record of the initial state cannot be
// written, every search fails at once with that error, before any visit, as
// it does for any later record. (The parallel search used to ignore this
// error and visit the initial state.)
func TestTraceWriteError(t *testing.T) {
	for _, tt := range []struct {
		name    string
		order   Order
		workers int
	}{
		{"bfs", BFS, 1},
		{"dfs", DFS, 1},
		{"parallel", BFS, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "parents.bin")
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path) // read-only: writes fail
			if err != nil {
				t.Fatal(err)
			}
			var visits int
			s := New(&grid{k: 3, n: 5}, Options{Order: tt.order, Workers: tt.workers, Trace: true,
				Visit: func(uint64, []byte, int) bool { visits++; return true }})
			s.trace.useFile(f, 0)
			s.trace.buf = make([]byte, 0, 8) // a write per record
			defer s.Close()
			res, err := s.Run(context.Background())
			if err == nil || !strings.Contains(err.Error(), "writing parent records") {
				t.Fatalf("error %v, want one about writing parent records", err)
			}
			if visits != 0 || res.States != 0 {
				t.Fatalf("%d visits, %d states; want none", visits, res.States)
			}
		})
	}
}
