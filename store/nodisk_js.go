package store

import (
	"errors"
	"fmt"
)

// ErrNoDisk is the error of the sets on disk under GOOS=js (WebAssembly in a
// browser), where Pebble does not build and there is no disk to spill to:
// OpenPebble returns it, and a Spill's Insert returns it, wrapped with the
// budget, when its table outgrows its budget. A search in the browser keeps
// its visited set in memory (--store mem) and stops with this error, as a
// failed search, when the set outgrows the memory budget.
var ErrNoDisk = errors.New("visited sets on disk (Pebble) are not available in WebAssembly (GOOS=js): keep the set in memory")

// Pebble stands for the disk-backed set of the other platforms; under
// GOOS=js OpenPebble never returns one.
type Pebble struct{ Spill }

// OpenPebble returns ErrNoDisk under GOOS=js.
func OpenPebble(dir string, opt PebbleOptions) (*Pebble, error) {
	return nil, fmt.Errorf("opening a visited set in %q: %w", dir, ErrNoDisk)
}

// Spill, under GOOS=js, is an in-memory set with a budget and nowhere to
// spill: when its table grows past the budget, Insert and InsertBatch
// return ErrNoDisk, so that the search fails saying why rather than
// exhausting the browser tab's memory.
type Spill struct {
	m      *Mem
	budget uint64
}

// NewSpill returns an empty in-memory Spill of at most about budgetBytes;
// dir and popt are ignored under GOOS=js.
func NewSpill(budgetBytes uint64, dir string, popt PebbleOptions) *Spill {
	return &Spill{m: NewMem(0), budget: budgetBytes}
}

// full returns the error of a set past its budget, or nil.
func (s *Spill) full() error {
	if b := s.m.Bytes(); b > s.budget {
		return fmt.Errorf("the visited set's %d bytes exceed its memory budget of %d bytes, and %w", b, s.budget, ErrNoDisk)
	}
	return nil
}

// Insert adds fp to the set and reports whether it was absent before.
func (s *Spill) Insert(fp Fingerprint) (added bool, err error) {
	if err := s.full(); err != nil {
		return false, err
	}
	return s.m.Insert(fp)
}

// InsertBatch inserts each fingerprint of fps in turn, setting added[i] to
// whether fps[i] was absent before.
func (s *Spill) InsertBatch(fps []Fingerprint, added []bool) error {
	if err := s.full(); err != nil {
		return err
	}
	return s.m.InsertBatch(fps, added)
}

// Len returns the number of fingerprints in the set.
func (s *Spill) Len() uint64 { return s.m.Len() }

// Bytes returns the memory of the set's table.
func (s *Spill) Bytes() uint64 { return s.m.Bytes() }

// Spilled is always false under GOOS=js.
func (s *Spill) Spilled() bool { return false }

// Stats returns no spills under GOOS=js.
func (s *Spill) Stats() SpillStats { return SpillStats{} }

// Close releases the table.
func (s *Spill) Close() error { return s.m.Close() }

var (
	_ Set           = (*Spill)(nil)
	_ BatchInserter = (*Spill)(nil)
)
