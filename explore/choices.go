package explore

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"rdmasim/store"
)

// Choices are a user's choices for the searches of a run, as plain values,
// such as a command line's flags give them. Settings checks them and turns
// them into Settings; its errors name each choice by its command-line flag
// ("--order", "--store", ...).
type Choices struct {
	Order     string // "bfs" or "dfs"
	MaxStates uint64 // 0: no limit
	Timeout   time.Duration
	Workers   int // 0..MaxWorkers, 0: one per core (GOMAXPROCS)
	// Store is the kind of visited set: "mem" (in memory, spilling to a
	// Pebble database on disk beyond MemBudget) or "pebble" (on disk).
	Store string
	// StoreDir is the directory of the visited set on disk, "" for a
	// temporary one.
	StoreDir string
	// MemBudget is the memory of the visited set's in-memory tables, a size
	// for store.ParseSize, "" for the default (store.DefaultBudget).
	MemBudget string
	// FrontierBudget is the memory of a breadth-first frontier, beyond which
	// it spills to disk, a size, "" for the default (see Settings).
	FrontierBudget string
	// Checkpoint is the directory that the run checkpoints to, "" for none;
	// CheckpointEvery the period; Resume continues what it holds.
	Checkpoint      string
	CheckpointEvery time.Duration
	Resume          bool
	// NoSymmetry turns symmetry reduction off (Settings.Symmetry is on
	// otherwise: it acts only on machines that have a group).
	NoSymmetry bool
}

// MaxWorkers bounds Choices.Workers.
const MaxWorkers = 256

// minFrontierBudget is the least memory a breadth-first frontier that spills
// to disk is given.
const minFrontierBudget = 4 << 20

// Settings checks c and returns the settings it chooses, without Progress
// and Checkpoint (see Checkpoints), which are the caller's.
//
// With Store "mem" the visited set spills, beyond the budget, to a temporary
// directory made at the first spill in StoreDir, else in the checkpoint
// directory (where resuming clears what a killed run left), else in $TMPDIR.
// With Store "pebble" each search has its own database: in
// StoreDir/store-KEY (KEY the search's, Caller.Key; cleared first, as
// what is there is an earlier search's; a temporary one in StoreDir for a
// search without a key), else a temporary one. With a disk store, a memory budget, a
// store directory or a frontier budget, the parent records and the frontier
// beyond its budget go to disk too (see spill).
func (c Choices) Settings() (Settings, error) {
	st := Settings{MaxStates: c.MaxStates, Timeout: c.Timeout, Workers: c.Workers, Symmetry: !c.NoSymmetry}
	if st.Workers == 0 {
		st.Workers = min(runtime.GOMAXPROCS(0), MaxWorkers)
	}
	switch c.Order {
	case "bfs":
		st.Order = BFS
	case "dfs":
		st.Order = DFS
	default:
		return st, fmt.Errorf("--order %q: want bfs or dfs", c.Order)
	}
	budget, err := c.Budget()
	if err != nil {
		return st, err
	}
	switch c.Store {
	case "mem":
		dir := cmp.Or(c.StoreDir, c.Checkpoint)
		popt := store.PebbleOptions{Temp: true, CacheBytes: store.SpillCache(budget)}
		st.NewSet = func(string) (store.Set, error) {
			return store.NewSpill(budget, dir, popt), nil
		}
	case "pebble":
		popt := store.PebbleOptions{Temp: c.StoreDir == ""}
		if c.MemBudget != "" {
			popt.BufferBytes = int64(min(budget, math.MaxInt64))
		}
		st.NewSet = func(key string) (store.Set, error) {
			// One database per search: a command may run several.
			if c.StoreDir == "" {
				return store.OpenPebble(c.Checkpoint, popt)
			}
			if key == "" {
				// A search without a name (a worker's
				// partition): a database of its own, removed
				// when it closes.
				tmp := popt
				tmp.Temp = true
				return store.OpenPebble(c.StoreDir, tmp)
			}
			// store-KEY, not search-KEY: with --store-dir equal to
			// --checkpoint, a checkpoint's search-KEY must not be
			// a database.
			dir := filepath.Join(c.StoreDir, "store-"+key)
			// A database already there is another run's (or
			// another file's, as the key names the search and not
			// the program; when resuming, the interrupted run's,
			// which holds states past its checkpoint): start
			// afresh.
			if err := os.RemoveAll(dir); err != nil {
				return nil, fmt.Errorf("clearing the store of an earlier search: %w", err)
			}
			return store.OpenPebble(dir, popt)
		}
	default:
		return st, fmt.Errorf("--store %q: want mem or pebble", c.Store)
	}
	if c.Store == "pebble" || c.MemBudget != "" || c.StoreDir != "" || c.FrontierBudget != "" {
		if st.SpillDir, st.FrontierBudget, err = c.spill(budget); err != nil {
			return st, err
		}
	}
	if c.Workers < 0 || c.Workers > MaxWorkers {
		return st, fmt.Errorf("--workers %d: want 0..%d", c.Workers, MaxWorkers)
	}
	return st, nil
}

// Budget returns the memory budget of the visited set: MemBudget, or by
// default a quarter of the machine's memory (store.DefaultBudget).
func (c Choices) Budget() (uint64, error) {
	if c.MemBudget == "" {
		return store.DefaultBudget(), nil
	}
	n, err := store.ParseSize(c.MemBudget)
	if err != nil {
		return 0, fmt.Errorf("--mem-budget %q: %w", c.MemBudget, err)
	}
	return n, nil
}

// spill returns where the searches of a run with a disk store or a memory
// budget keep their parent records and the part of their frontiers beyond
// the returned budget (see Options.SpillDir): StoreDir, else the checkpoint
// directory, else $TMPDIR, created if missing. The frontier gets
// FrontierBudget, else a quarter of the visited set's budget (budget, or
// Pebble's default buffer for a pebble store without MemBudget), at least
// minFrontierBudget.
func (c Choices) spill(budget uint64) (string, int64, error) {
	if c.Store == "pebble" && c.MemBudget == "" {
		budget = store.DefaultPebbleBuffer
	}
	frontier := int64(max(budget/4, minFrontierBudget))
	if c.FrontierBudget != "" {
		n, err := store.ParseSize(c.FrontierBudget)
		if err != nil {
			return "", 0, fmt.Errorf("--frontier-budget %q: %w", c.FrontierBudget, err)
		}
		frontier = int64(n)
	}
	dir := cmp.Or(c.StoreDir, c.Checkpoint)
	if dir == "" {
		return os.TempDir(), frontier, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, fmt.Errorf("creating the directory for the frontier and parent records: %w", err)
	}
	return dir, frontier, nil
}

// Checkpoints returns the Settings.Checkpoint of a run that checkpoints to
// c.Checkpoint: the search of key KEY checkpoints to the directory
// search-KEY there, every c.CheckpointEvery, resuming if c.Resume.
func (c Choices) Checkpoints() func(key string) *Checkpoint {
	return func(key string) *Checkpoint {
		return &Checkpoint{Dir: filepath.Join(c.Checkpoint, "search-"+key), Every: c.CheckpointEvery, Resume: c.Resume}
	}
}
