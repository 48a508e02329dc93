//go:build !js

package store

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// staleAge is how long ago a temporary directory must have last changed
// before removeStale considers it: a set creates its directory a moment
// before Pebble locks the database in it.
const staleAge = time.Minute

// removeStale removes the directories of temporary sets in parent that no
// open set holds: those left by a process that could not remove its own
// (kill -9, a crash, a power cut). A directory is stale when it last changed
// more than staleAge before now and its Pebble LOCK file can be locked, which
// Pebble does not allow while a database is open on it (it locks the file
// with fcntl, and within a process keeps a table of the files it holds). It
// returns how many it removed; it ignores errors, as the directories are
// only litter and a directory it cannot remove harms nothing.
func removeStale(parent string, now time.Time) int {
	if parent == "" {
		parent = os.TempDir()
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < staleAge {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		lock, err := vfs.Default.Lock(filepath.Join(dir, "LOCK"))
		if err != nil {
			continue // held: a set is open on it
		}
		lock.Close()
		if os.RemoveAll(dir) == nil {
			removed++
		}
	}
	return removed
}
