package ckpt

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"rdmasim/store"
)

// visitedBatch is the number of fingerprints ReadVisited passes at once.
const visitedBatch = 4096

// ReadVisited reads the m.Visited.Count fingerprints of the checkpoint m, in
// id order, and passes them to f in batches; the slice is valid only during
// the call. It stops at the first error f returns.
func (d *Dir) ReadVisited(m *Manifest, f func(fps []store.Fingerprint) error) error {
	file, err := os.Open(d.path(VisitedName))
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer file.Close()
	r := bufio.NewReaderSize(file, 1<<20)
	var (
		buf [16 * visitedBatch]byte
		fps = make([]store.Fingerprint, visitedBatch)
	)
	for left := m.Visited.Count; left > 0; {
		k := min(left, visitedBatch)
		if _, err := io.ReadFull(r, buf[:16*k]); err != nil {
			return fmt.Errorf("checkpoint: reading %s: %w", VisitedName, err)
		}
		for i := range k {
			fps[i] = store.Fingerprint{Lo: binary.LittleEndian.Uint64(buf[16*i:]), Hi: binary.LittleEndian.Uint64(buf[16*i+8:])}
		}
		if err := f(fps[:k]); err != nil {
			return err
		}
		left -= k
	}
	return nil
}

// ReadFrontier calls f for each state of the frontier of the checkpoint m,
// in order, with its id and depth if the search is depth-first (else zero);
// the encoding is valid only during the call. It checks the file's length,
// count and checksum, and stops at the first error f returns.
func (d *Dir) ReadFrontier(m *Manifest, f func(enc []byte, id uint64, depth int) error) error {
	fi := m.Frontier
	if fi.Count == 0 {
		return nil
	}
	file, err := os.Open(d.path(fi.File))
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer file.Close()
	crc := crc32.New(castagnoli)
	r := bufio.NewReaderSize(io.TeeReader(file, crc), 1<<20)
	if err := readRecords(r, m.Order == DepthFirst, fi.Count, fi.File, f); err != nil {
		return err
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return fmt.Errorf("checkpoint: %s is longer than its %d states", fi.File, fi.Count)
	}
	if got := crc.Sum32(); got != fi.CRC32C {
		return fmt.Errorf("checkpoint: %s has checksum %#x, the manifest says %#x", fi.File, got, fi.CRC32C)
	}
	return nil
}

// readRecords reads count frontier records of the file name from r and
// passes them to f. It returns f's errors as they are.
func readRecords(r *bufio.Reader, dfs bool, count uint64, name string, f func(enc []byte, id uint64, depth int) error) error {
	var (
		hdr [16]byte
		buf []byte
	)
	bad := func(err error) error { return fmt.Errorf("checkpoint: reading %s: %w", name, err) }
	for range count {
		var id uint64
		var depth int
		var l uint32
		if dfs {
			if _, err := io.ReadFull(r, hdr[:16]); err != nil {
				return bad(err)
			}
			id = binary.LittleEndian.Uint64(hdr[:])
			depth = int(binary.LittleEndian.Uint32(hdr[8:]))
			l = binary.LittleEndian.Uint32(hdr[12:])
		} else {
			if _, err := io.ReadFull(r, hdr[:4]); err != nil {
				return bad(err)
			}
			l = binary.LittleEndian.Uint32(hdr[:])
		}
		if l > MaxEncoding {
			return bad(fmt.Errorf("a %d-byte encoding", l))
		}
		if cap(buf) < int(l) {
			buf = make([]byte, l)
		}
		buf = buf[:l]
		if _, err := io.ReadFull(r, buf); err != nil {
			return bad(err)
		}
		if err := f(buf, id, depth); err != nil {
			return err
		}
	}
	return nil
}
