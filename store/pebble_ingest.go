//go:build !js

package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cockroachdb/pebble/v2/sstable"
)

// sstKeys is the number of fingerprints a spill writes per sstable, at most
// about: 4 Mi keys, 64 MiB of key bytes. A spill is cut into this many
// disjoint key ranges, each gathered, sorted and written on its own, so the
// sort buffer stays small whatever the size of the spilled table.
const sstKeys = 4 << 20

type spillResult struct {
	err error
	dur time.Duration
}

// pollSpill finishes the running spill if it is done.
func (p *Pebble) pollSpill() {
	select {
	case r := <-p.done:
		p.finishSpill(r)
	default:
	}
}

// finishSpill records the result of a spill, drops the frozen table and has
// it cleared in the background for reuse.
func (p *Pebble) finishSpill(r spillResult) {
	if r.err != nil && p.err == nil {
		p.err = r.err
	}
	p.stats.Spills++
	p.stored = true
	p.stats.Total += r.dur
	p.stats.Max = max(p.stats.Max, r.dur)
	m := p.frozen
	p.frozen = nil
	go func() {
		clear(m.slots)
		m.used, m.zero = 0, false
		p.spare <- m
	}()
}

// startSpill freezes the active table, hands it to a background spill and
// installs an empty table in its place.
func (p *Pebble) startSpill() error {
	start := time.Now()
	for p.old != nil {
		p.moveOld()
	}
	if p.frozen != nil {
		p.finishSpill(<-p.done)
		if p.err != nil {
			return p.err
		}
	}
	if p.db == nil {
		if err := p.open(); err != nil {
			return err
		}
	}
	if p.filter == nil && p.opt.FilterBitsPerKey > 0 {
		exp := p.opt.ExpectedEntries
		if exp == 0 {
			exp = 8 * p.active.Len()
		}
		p.filter = newFrontFilter(p.opt.FilterBitsPerKey, exp)
	}
	p.frozen = p.active
	if p.spares > 0 {
		p.active = <-p.spare // cleared long ago, as a rule
		p.spares--
	} else {
		p.active = NewMem(p.maxSlots / 4 * 3)
	}
	p.spares++ // the frozen table comes back
	if d := time.Since(start); d > time.Millisecond {
		p.stats.Stalled += d
		p.stats.MaxStall = max(p.stats.MaxStall, d)
	}
	p.seq++
	go p.spill(p.frozen, p.seq)
	return nil
}

// spill writes the contents of m to sstables and ingests them, then reports
// on p.done. It runs in its own goroutine, reading m (which the inserting
// goroutine only reads too) and p's immutable fields, and adding to the
// filter, of which it is then the only writer.
func (p *Pebble) spill(m *Mem, seq int) {
	start := time.Now()
	paths, err := p.writeRuns(m, seq)
	if err == nil && len(paths) > 0 {
		if err = p.db.Ingest(context.Background(), paths); err != nil {
			err = fmt.Errorf("store: pebble ingest: %w", err)
		}
	}
	for _, path := range paths { // Ingest removes them if it succeeds
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = fmt.Errorf("store: %w", rerr)
		}
	}
	p.done <- spillResult{err: err, dur: time.Since(start)}
}

// writeRuns writes the fingerprints of m, sorted, to sstables of at most about
// sstKeys keys each in the staging directory, adding them to the filter, and
// returns their paths.
func (p *Pebble) writeRuns(m *Mem, seq int) ([]string, error) {
	n := m.Len()
	if n == 0 {
		return nil, nil
	}
	stage := filepath.Join(p.dir, "ingest")
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	// Cut the key space into 2^bits ranges by the top bits of Hi.
	var rbits uint
	for n>>rbits > sstKeys {
		rbits++
	}
	var (
		buf   = p.runBuf
		paths []string
		key   [16]byte
	)
	defer func() { p.runBuf = buf[:0] }()
	for r := uint64(0); r < 1<<rbits; r++ {
		buf = buf[:0]
		if r == 0 && m.zero {
			buf = append(buf, Fingerprint{})
		}
		for _, fp := range m.slots {
			if fp != (Fingerprint{}) && (rbits == 0 || fp.Hi>>(64-rbits) == r) {
				buf = append(buf, fp)
			}
		}
		if len(buf) == 0 {
			continue
		}
		sorted := p.sorter.sort(buf, rbits)
		path := filepath.Join(stage, fmt.Sprintf("spill-%d-%d.sst", seq, r))
		if err := p.writeSST(path, sorted, &key); err != nil {
			return paths, err
		}
		paths = append(paths, path)
		if p.filter != nil {
			for _, fp := range sorted {
				p.filter.add(fp)
			}
		}
	}
	return paths, nil
}

// writeSST writes the sorted fingerprints fps to a new sstable at path.
func (p *Pebble) writeSST(path string, fps []Fingerprint, key *[16]byte) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	w := sstable.NewWriter(&sstFile{f: f, w: bufio.NewWriterSize(f, 1<<20)}, p.wopts)
	for _, fp := range fps {
		if err := w.Set(keyOf(key, fp), nil); err != nil {
			w.Close()
			return fmt.Errorf("store: writing %s: %w", path, err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("store: writing %s: %w", path, err)
	}
	return nil
}

// sstFile is an objstorage.Writable over a file that, unlike Pebble's own,
// does not sync: the set needs no durability, and Ingest links the file.
type sstFile struct {
	f *os.File
	w *bufio.Writer
}

func (s *sstFile) Write(b []byte) error {
	_, err := s.w.Write(b)
	return err
}

func (s *sstFile) Finish() error {
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *sstFile) Abort() { s.f.Close() }

// wait waits for a running spill to end.
func (p *Pebble) wait() error {
	if p.frozen != nil {
		p.finishSpill(<-p.done)
	}
	return p.err
}
