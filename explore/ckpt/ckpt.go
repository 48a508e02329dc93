// Package ckpt is the on-disk format of explore's checkpoints: what a
// checkpoint directory holds, how each file is encoded, how a checkpoint is
// written so that a kill at any moment leaves the last complete one intact,
// and how one is read back and validated. It knows nothing of how a search
// runs; package explore decides when to checkpoint and what to save. It
// also holds the run manifest (Run, run.json) that a command run with
// checkpoints writes above those of its searches.
//
// # What a checkpoint holds
//
// A checkpoint directory belongs to one search. It holds:
//
//   - manifest.json: the format version (Format), the fingerprint seed
//     (store.FingerprintSeed), the search's parameters (order, workers,
//     MaxStates, Timeout, Trace), the caller's Meta, the counters (states,
//     transitions, depth, pruned bounds, elapsed time), whether the search
//     has finished and why, the caller's State, and the names, lengths and
//     CRC-32C of the files below. It is the only file that makes a checkpoint
//     valid: it is written to a temporary tmp-*.json, synced, renamed over
//     manifest.json, and the directory synced.
//   - visited.fp: the visited set, as the 16-byte fingerprints (Lo then Hi,
//     little-endian) of the states in discovery (id) order. It only grows:
//     each checkpoint syncs the fingerprints discovered since the last one,
//     and the manifest counts the valid prefix, so a checkpoint costs time in
//     proportion to the new states, not to all of them. A resumed search
//     truncates the file to that prefix and reads it back.
//   - parents.bin: with Trace, the parent records (8 bytes each, little-
//     endian, in id order), likewise append-only. It is the search's only
//     copy of them: the search appends to it as it goes, a checkpoint syncs
//     it, and a resumed search truncates it to the manifest's count and goes
//     on appending, without reading it.
//   - frontier-SEQ.bin: the discovered but unexpanded states, in expansion
//     order, as records (see WriteRecord and WriteDFSRecord). Breadth-first,
//     each is a 4-byte little-endian length and the encoding; the states have
//     consecutive ids from the manifest's first_id, the first first_level of
//     them at depth first_depth and the others one deeper. Depth-first, each
//     is an 8-byte id, a 4-byte depth, a 4-byte length and the encoding, from
//     the bottom of the stack to its top. A new checkpoint writes a new file,
//     and removes the previous one once its manifest is in place. A finished
//     search has none.
//   - lock: a file whose flock keeps two processes from using the directory
//     at once.
//
// A kill at any moment leaves the last checkpoint whose manifest was renamed
// into place intact: the files it names are synced before it, the append-only
// files are only appended to past the prefix it counts, and its frontier file
// is removed only after a later manifest replaced it.
package ckpt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rdmasim/store"
)

// Format is the version of the format. A checkpoint of another version is
// refused.
const Format = 1

// The files of a checkpoint directory.
const (
	ManifestName = "manifest.json"
	VisitedName  = "visited.fp"
	ParentsName  = "parents.bin"
	LockName     = "lock"
)

// The orders of a search, as a manifest names them. A depth-first frontier
// has records of its own (WriteDFSRecord).
const (
	BreadthFirst = "bfs"
	DepthFirst   = "dfs"
)

// MaxEncoding bounds the length of a state's encoding in a frontier record.
const MaxEncoding = 1<<31 - 1

// Manifest is the JSON form of manifest.json.
type Manifest struct {
	Format          int             `json:"format"`
	Seq             uint64          `json:"seq"`
	Written         time.Time       `json:"written"`
	FingerprintSeed [2]uint64       `json:"fingerprint_seed"`
	Order           string          `json:"order"`
	Workers         int             `json:"workers"`
	MaxStates       uint64          `json:"max_states"`
	Timeout         time.Duration   `json:"timeout_ns"`
	Trace           bool            `json:"trace"`
	Meta            json.RawMessage `json:"meta,omitempty"`

	Finished    bool          `json:"finished"`
	Stop        string        `json:"stop,omitempty"` // why a finished search ended
	States      uint64        `json:"states"`
	Transitions uint64        `json:"transitions"`
	MaxDepth    int           `json:"max_depth"`
	Pruned      uint32        `json:"pruned"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	StoreBytes  uint64        `json:"store_bytes"`

	Frontier Frontier `json:"frontier"`
	Visited  Log      `json:"visited"`
	Parents  Log      `json:"parents"`

	State json.RawMessage `json:"state,omitempty"`
}

// Frontier describes a frontier file. The writer of a checkpoint gives the
// first three fields of the breadth-first position (FirstID, FirstDepth,
// FirstLevel); Dir.Write fills in the others.
type Frontier struct {
	File       string `json:"file,omitempty"`
	Count      uint64 `json:"count"`
	Bytes      uint64 `json:"bytes"`
	CRC32C     uint32 `json:"crc32c"`
	FirstID    uint64 `json:"first_id"`
	FirstDepth int    `json:"first_depth"`
	FirstLevel uint64 `json:"first_level"`
}

// Log describes an append-only file: its valid prefix holds Count records.
type Log struct {
	File  string `json:"file,omitempty"`
	Count uint64 `json:"count"`
}

// Params are what a search must share with the one that made a checkpoint
// to resume it: the same Order (BreadthFirst or DepthFirst), MaxStates,
// Timeout and Meta; and Trace only if the checkpoint has parent records.
type Params struct {
	Order     string
	MaxStates uint64
	Timeout   time.Duration
	Trace     bool
	Meta      json.RawMessage
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Dir is a checkpoint directory opened, and locked, by one search.
type Dir struct {
	// NoSync skips the fsyncs, for tests that simulate kills by copying
	// the directory (fsyncs take tens of milliseconds on a busy disk).
	NoSync bool

	dir      string
	params   Params
	lock     *os.File
	seq      uint64 // of the last checkpoint written or read
	frontier string // the frontier file of that checkpoint, if any

	visited *os.File
	fpBuf   []byte // fingerprints not yet written to visited
	fpFile  uint64 // fingerprints written to visited
	fpErr   error  // a failed write of fpBuf

	parents *os.File // parents.bin, until Parents hands it over
	parN    uint64   // the records it holds
}

// fpFlush is the size of the buffer of fingerprints written at once between
// checkpoints.
const fpFlush = 1 << 20

// Open opens the checkpoint directory dir, creating it if need be, for a
// search with the parameters p, and locks it. With resume, it returns the
// checkpoint the directory holds, if any, checked against p; without, a
// directory that holds a checkpoint is an error, so that a new search never
// silently continues an old one. It removes what unfinished or replaced
// checkpoints left, and opens visited.fp, and with p.Trace parents.bin,
// truncated to the checkpoint's records.
func Open(dir string, p Params, resume bool) (d *Dir, m *Manifest, err error) {
	if dir == "" {
		return nil, nil, errors.New("no checkpoint directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("checkpoint: %w", err)
	}
	d = &Dir{dir: dir, params: p}
	defer func() {
		if err != nil {
			d.Close()
			d, m = nil, nil
		}
	}()
	if d.lock, err = os.OpenFile(d.path(LockName), os.O_CREATE|os.O_RDWR, 0o644); err != nil {
		return d, nil, fmt.Errorf("checkpoint: %w", err)
	}
	if err := lockFile(d.lock); err != nil {
		return d, nil, fmt.Errorf("checkpoint directory %s is in use by another process: %w", dir, err)
	}
	data, err := os.ReadFile(d.path(ManifestName))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return d, nil, fmt.Errorf("checkpoint: %w", err)
	case !resume:
		return d, nil, fmt.Errorf("%s already holds a checkpoint", dir)
	default:
		m = new(Manifest)
		if err := json.Unmarshal(data, m); err != nil {
			return d, nil, fmt.Errorf("checkpoint %s: reading the manifest: %w", dir, err)
		}
		if err := m.check(p); err != nil {
			return d, nil, fmt.Errorf("checkpoint %s: %w", dir, err)
		}
		d.seq, d.frontier = m.Seq, m.Frontier.File
	}
	d.removeStale()
	var visited, parents uint64
	if m != nil {
		visited = m.Visited.Count
		if m.Trace {
			parents = m.Parents.Count
		}
	}
	if d.visited, err = openLog(d.path(VisitedName), 16*visited); err != nil {
		return d, nil, err
	}
	d.fpFile = visited
	if p.Trace {
		if d.parents, err = openLog(d.path(ParentsName), 8*parents); err != nil {
			return d, nil, err
		}
		d.parN = parents
	}
	return d, m, nil
}

// openLog opens an append-only file, keeping its first size bytes (which
// must be there) and dropping the rest, and positions it at its end.
func openLog(path string, size uint64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	fail := func(err error) (*os.File, error) {
		f.Close()
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if uint64(fi.Size()) < size {
		return fail(fmt.Errorf("%s holds %d bytes, the manifest counts %d", path, fi.Size(), size))
	}
	if err := f.Truncate(int64(size)); err != nil {
		return fail(err)
	}
	if _, err := f.Seek(int64(size), 0); err != nil {
		return fail(err)
	}
	return f, nil
}

// check validates a manifest, by itself and against the parameters of the
// search that resumes it.
func (m *Manifest) check(p Params) error {
	switch {
	case m.Format != Format:
		return fmt.Errorf("format %d, this version reads format %d", m.Format, Format)
	case m.FingerprintSeed != store.FingerprintSeed():
		return fmt.Errorf("fingerprint seed %#x, this version uses %#x", m.FingerprintSeed, store.FingerprintSeed())
	case m.Order != p.Order:
		return fmt.Errorf("made by a %s search, resumed by a %s one", m.Order, p.Order)
	case m.MaxStates != p.MaxStates:
		return fmt.Errorf("made with MaxStates %d, resumed with %d", m.MaxStates, p.MaxStates)
	case m.Timeout != p.Timeout:
		return fmt.Errorf("made with Timeout %v, resumed with %v", m.Timeout, p.Timeout)
	case p.Trace && !m.Trace:
		return errors.New("made without Trace, resumed with it")
	case !sameJSON(m.Meta, p.Meta):
		return fmt.Errorf("made by another search (%s), resumed by %s", m.Meta, p.Meta)
	case m.Visited.Count != m.States || m.Trace && m.Parents.Count != m.States:
		return fmt.Errorf("the manifest counts %d states, %d fingerprints and %d parent records", m.States, m.Visited.Count, m.Parents.Count)
	case !m.Finished && m.Frontier.File == "" && m.Frontier.Count > 0:
		return errors.New("the manifest names no frontier file")
	case !m.Finished && m.Order == BreadthFirst && m.Frontier.Count > 0 &&
		(m.Frontier.FirstLevel == 0 || m.Frontier.FirstLevel > m.Frontier.Count):
		return fmt.Errorf("a frontier of %d states whose first level has %d", m.Frontier.Count, m.Frontier.FirstLevel)
	}
	return nil
}

// sameJSON reports whether two JSON values are equal up to insignificant
// white space (nil and empty are equal).
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if len(a) > 0 {
		if err := json.Compact(&ca, a); err != nil {
			return false
		}
	}
	if len(b) > 0 {
		if err := json.Compact(&cb, b); err != nil {
			return false
		}
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// removeStale removes the temporary manifests and the frontier files of
// checkpoints that were never completed or have been replaced.
func (d *Dir) removeStale() {
	ents, err := os.ReadDir(d.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "tmp-") || strings.HasPrefix(n, "frontier-") && n != d.frontier {
			os.Remove(d.path(n))
		}
	}
}

func (d *Dir) path(name string) string { return filepath.Join(d.dir, name) }

// Path returns the name of the directory.
func (d *Dir) Path() string { return d.dir }

// Parents hands over parents.bin, opened if the search traces (else nil),
// and the number of records it holds, positioned nowhere in particular: the
// caller appends the search's records to it, passes it to Write, and closes
// it. Later calls return nil.
func (d *Dir) Parents() (*os.File, uint64) {
	f := d.parents
	d.parents = nil
	return f, d.parN
}

// Close releases the files and the lock (and parents.bin, if Parents did not
// hand it over).
func (d *Dir) Close() {
	for _, f := range []*os.File{d.visited, d.parents, d.lock} {
		if f != nil {
			f.Close()
		}
	}
	d.visited, d.parents, d.lock = nil, nil, nil
}

// AddFingerprint appends the fingerprint of the next state discovered to
// visited.fp, through a buffer. A failed write is reported by the next Write.
func (d *Dir) AddFingerprint(fp store.Fingerprint) {
	d.fpBuf = appendFingerprint(d.fpBuf, fp)
	if len(d.fpBuf) >= fpFlush {
		d.flushFingerprints()
	}
}

// flushFingerprints writes the buffered fingerprints to visited.fp,
// unsynced.
func (d *Dir) flushFingerprints() {
	if d.fpErr != nil || len(d.fpBuf) == 0 {
		return
	}
	if _, err := d.visited.Write(d.fpBuf); err != nil {
		d.fpErr = fmt.Errorf("checkpoint: %w", err)
		return
	}
	d.fpFile += uint64(len(d.fpBuf) / 16)
	d.fpBuf = d.fpBuf[:0]
}

// sync syncs a file, unless NoSync is set.
func (d *Dir) sync(f *os.File) error {
	if d.NoSync {
		return nil
	}
	return f.Sync()
}
