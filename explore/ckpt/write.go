package ckpt

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"

	"rdmasim/store"
)

// Write writes a checkpoint. m, a new manifest, holds the search's part: its
// Workers, the counters, Finished and Stop, the caller's State, and for an
// unfinished breadth-first search the position of the frontier (FirstID,
// FirstDepth, FirstLevel) or for a finished one its Count. Write fills in the
// rest: the format, the sequence number, the time, the fingerprint seed, the
// parameters given to Open, and the files.
//
// The fingerprints of the first m.States states must have been added
// (AddFingerprint), and parents, if not nil (the file from Parents), must hold
// their parent records, written. frontier, called unless m.Finished, writes
// the frontier's records (WriteRecord, WriteDFSRecord) and returns their
// number.
//
// Write syncs visited.fp and parents.bin, writes and syncs the frontier file,
// then the manifest, renamed into place, and the directory; then it removes
// the frontier file of the checkpoint it replaced.
func (d *Dir) Write(m *Manifest, parents *os.File, frontier func(w io.Writer) (uint64, error)) error {
	seq := d.seq + 1
	if err := d.write(seq, m, parents, frontier); err != nil {
		return fmt.Errorf("writing checkpoint %d to %s: %w", seq, d.dir, err)
	}
	return nil
}

func (d *Dir) write(seq uint64, m *Manifest, parents *os.File, frontier func(w io.Writer) (uint64, error)) error {
	n := m.States
	d.flushFingerprints()
	if d.fpErr != nil {
		return d.fpErr
	}
	if d.fpFile < n {
		return fmt.Errorf("%d fingerprints logged for %d states", d.fpFile, n)
	}
	if err := d.sync(d.visited); err != nil {
		return err
	}
	if parents != nil {
		if err := d.sync(parents); err != nil {
			return err
		}
	}

	m.Format, m.Seq, m.Written, m.FingerprintSeed = Format, seq, time.Now().UTC(), store.FingerprintSeed()
	m.Order, m.MaxStates, m.Timeout, m.Meta = d.params.Order, d.params.MaxStates, d.params.Timeout, d.params.Meta
	m.Trace = parents != nil
	m.Visited = Log{File: VisitedName, Count: n}
	m.Parents = Log{}
	if m.Trace {
		m.Parents = Log{File: ParentsName, Count: n}
	}
	if !m.Finished {
		if err := d.writeFrontier(seq, &m.Frontier, frontier); err != nil {
			return err
		}
	}
	if err := writeJSONAtomic(d.dir, ManifestName, m, d.sync); err != nil {
		return err
	}
	if d.frontier != "" && d.frontier != m.Frontier.File {
		os.Remove(d.path(d.frontier))
	}
	d.seq, d.frontier = seq, m.Frontier.File
	return nil
}

// writeFrontier writes the frontier file of checkpoint seq, and describes it
// in fi.
func (d *Dir) writeFrontier(seq uint64, fi *Frontier, frontier func(w io.Writer) (uint64, error)) error {
	fi.File = fmt.Sprintf("frontier-%d.bin", seq)
	crc := crc32.New(castagnoli)
	err := d.writeSynced(d.path(fi.File), func(w io.Writer) error {
		cw := &countWriter{w: io.MultiWriter(w, crc)}
		n, err := frontier(cw)
		fi.Count, fi.Bytes = n, cw.n
		return err
	})
	fi.CRC32C = crc.Sum32()
	return err
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n uint64
}

func (w *countWriter) Write(b []byte) (int, error) {
	n, err := w.w.Write(b)
	w.n += uint64(n)
	return n, err
}

// writeSynced creates the file path, writes it through a buffer with write,
// and syncs and closes it.
func (d *Dir) writeSynced(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = d.sync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeJSONAtomic writes v as indented JSON to the file name in dir, so
// that a crash leaves the old file or the new one, never a mix: to a
// temporary file, synced with sync, renamed over name, and the directory
// synced.
func writeJSONAtomic(dir, name string, v any, sync func(*os.File) error) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "tmp-*.json")
	if err != nil {
		return err
	}
	err = tmp.Chmod(0o644)
	if err == nil {
		_, err = tmp.Write(append(data, '\n'))
	}
	if err == nil {
		err = sync(tmp)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return syncDir(dir, sync)
}

// syncDir syncs the directory dir with sync, making the renames and
// creations in it durable.
func syncDir(dir string, sync func(*os.File) error) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = sync(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// appendFingerprint appends the 16-byte record of fp to b.
func appendFingerprint(b []byte, fp store.Fingerprint) []byte {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(b, fp.Lo), fp.Hi)
}

// WriteRecord writes a breadth-first frontier record: the encoding's 4-byte
// little-endian length, then the encoding.
func WriteRecord(w io.Writer, enc []byte) error {
	var hdr [4]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(len(enc)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(enc)
	return err
}

// WriteDFSRecord writes a depth-first frontier record: the state's 8-byte
// id, its 4-byte depth and the encoding's 4-byte length, all little-endian,
// then the encoding.
func WriteDFSRecord(w io.Writer, enc []byte, id uint64, depth int) error {
	var hdr [16]byte
	binary.LittleEndian.PutUint64(hdr[:], id)
	binary.LittleEndian.PutUint32(hdr[8:], uint32(depth))
	binary.LittleEndian.PutUint32(hdr[12:], uint32(len(enc)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(enc)
	return err
}
