package explore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChoicesSettings checks what Choices.Settings makes of a user's
// choices, and the errors it gives.
func TestChoicesSettings(t *testing.T) {
	tmp := t.TempDir()
	base := Choices{Order: "bfs", Store: "mem"}
	with := func(f func(c *Choices)) Choices {
		c := base
		f(&c)
		return c
	}
	for _, c := range []struct {
		name     string
		c        Choices
		order    Order
		workers  int    // 0: one per core
		spillDir string // "-": none
		frontier int64
		err      string
	}{
		{name: "default", c: base, order: BFS, spillDir: "-"},
		{name: "dfs", c: with(func(c *Choices) { c.Order, c.Workers = "dfs", 3 }), order: DFS, workers: 3, spillDir: "-"},
		{name: "budget", c: with(func(c *Choices) { c.MemBudget = "64MiB" }), order: BFS, spillDir: os.TempDir(), frontier: 16 << 20},
		{name: "small budget", c: with(func(c *Choices) { c.MemBudget = "1MiB" }), order: BFS, spillDir: os.TempDir(), frontier: minFrontierBudget},
		{name: "frontier", c: with(func(c *Choices) { c.FrontierBudget, c.Checkpoint = "8MiB", filepath.Join(tmp, "ck") }),
			order: BFS, spillDir: filepath.Join(tmp, "ck"), frontier: 8 << 20},
		{name: "store dir", c: with(func(c *Choices) { c.Store, c.StoreDir, c.MemBudget = "pebble", filepath.Join(tmp, "st"), "32MiB" }),
			order: BFS, spillDir: filepath.Join(tmp, "st"), frontier: 8 << 20},
		{name: "bad order", c: with(func(c *Choices) { c.Order = "up" }), err: `--order "up": want bfs or dfs`},
		{name: "bad store", c: with(func(c *Choices) { c.Store = "tape" }), err: `--store "tape": want mem or pebble`},
		{name: "bad budget", c: with(func(c *Choices) { c.MemBudget = "lots" }), err: `--mem-budget "lots"`},
		{name: "bad frontier", c: with(func(c *Choices) { c.FrontierBudget = "lots" }), err: `--frontier-budget "lots"`},
		{name: "workers", c: with(func(c *Choices) { c.Workers = MaxWorkers + 1 }), err: "--workers 257: want 0..256"},
		{name: "negative workers", c: with(func(c *Choices) { c.Workers = -1 }), err: "--workers -1: want 0..256"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := c.c.Settings()
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("got %v, want an error with %q", err, c.err)
			case c.err != "":
				return
			case err != nil:
				t.Fatal(err)
			}
			if st.Order != c.order || st.NewSet == nil || (c.workers != 0 && st.Workers != c.workers) || st.Workers < 1 {
				t.Errorf("got order %v, workers %d, NewSet %v", st.Order, st.Workers, st.NewSet != nil)
			}
			if c.spillDir == "-" {
				if st.SpillDir != "" || st.FrontierBudget != 0 {
					t.Errorf("spills to %q with %d bytes of frontier, want no spilling", st.SpillDir, st.FrontierBudget)
				}
			} else if st.SpillDir != c.spillDir || st.FrontierBudget != c.frontier {
				t.Errorf("spills to %q with %d bytes of frontier, want %q with %d", st.SpillDir, st.FrontierBudget, c.spillDir, c.frontier)
			}
		})
	}
}

// TestChoicesCheckpoints checks that each search gets the directory of its
// key, whatever the order in which the searches ask.
func TestChoicesCheckpoints(t *testing.T) {
	c := Choices{Checkpoint: "ck", CheckpointEvery: time.Second, Resume: true}
	dirs := c.Checkpoints()
	for _, key := range []string{"0123abcd", "ffff0000", "0123abcd"} {
		cp := dirs(key)
		if cp.Dir != filepath.Join("ck", "search-"+key) || cp.Every != time.Second || !cp.Resume {
			t.Errorf("search %s: got %+v", key, cp)
		}
	}
}

// TestChoicesStoreDirs: the Pebble database of each search is store-KEY
// under --store-dir, so that a store directory equal to the checkpoint
// directory puts no database in a checkpoint's search-KEY; what an earlier
// search left there is cleared; a search without a key gets a temporary
// database there, removed when it closes.
func TestChoicesStoreDirs(t *testing.T) {
	dir := t.TempDir()
	c := Choices{Order: "bfs", Store: "pebble", StoreDir: dir, Checkpoint: dir}
	st, err := c.Settings()
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "store-b", "stale")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a", "b"} {
		set, err := st.NewSet(key)
		if err != nil {
			t.Fatal(err)
		}
		set.Close()
		if _, err := os.Stat(filepath.Join(dir, "store-"+key)); err != nil {
			t.Errorf("search %s: %v", key, err)
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("store-b still holds what an earlier search left")
	}
	if _, err := os.Stat(filepath.Join(dir, "search-a")); err == nil {
		t.Error("a database in search-a, a checkpoint's directory")
	}
	before, _ := os.ReadDir(dir)
	set, err := st.NewSet("")
	if err != nil {
		t.Fatal(err)
	}
	during, _ := os.ReadDir(dir)
	set.Close()
	after, _ := os.ReadDir(dir)
	if len(during) != len(before)+1 || len(after) != len(before) {
		t.Errorf("a search without a key: %d entries before, %d during, %d after; want a temporary database", len(before), len(during), len(after))
	}
}
