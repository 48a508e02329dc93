package explore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"rdmasim/explore/ckpt"
)

// Frontiers hold the encodings of discovered but unexpanded states in chains of
// byte chunks, so that pushing a state copies its bytes but allocates only when
// a chunk fills, and memory is reused as states are expanded.

// defaultChunk is the size of a frontier chunk. An encoding larger than a
// chunk gets a chunk of its own.
const defaultChunk = 1 << 20

// minSpillChunk is the least chunk size of a frontier that spills.
const minSpillChunk = 4 << 10

// maxSpare bounds the number of drained chunks a fifo keeps for reuse.
const maxSpare = 4

// A fifo is a first-in, first-out queue of byte strings, each stored after a
// 4-byte little-endian length. Chunks are drained at the head and appended at
// the tail; drained chunks are recycled.
//
// The slice returned by pop stays valid until the next call to pop, however
// many pushes intervene.
//
// With a budget (spill), a fifo keeps at most about that many bytes of chunks
// in memory: when a new chunk takes it over the budget, the chunks between the
// one being drained and the one being filled are written to a segment file in
// the spill directory, and read back one chunk at a time, in order, once the
// queue is drained up to them. The queue is then chunks[head:], the segments,
// and back, in that order; back is empty while there are no segments. A
// segment file is removed once it is read.
type fifo struct {
	chunk  int      // chunk size
	chunks [][]byte // chunks[head:] hold the front of the queue; each is filled to its len
	head   int      // index of the chunk being drained
	off    int      // read offset in chunks[head]
	n      uint64   // number of queued strings
	spare  [][]byte // drained chunks of size chunk, for reuse

	spill *fifoSpill // nil without a budget
}

// fifoSpill is the part of a fifo on disk, and its budget.
type fifoSpill struct {
	dir    string
	budget int64     // bytes of chunks in memory beyond which they spill
	mem    int64     // bytes (capacities) of the chunks in memory, spares aside
	segs   []segment // spilled chunks, in queue order
	back   [][]byte  // chunks queued after segs; empty if segs is
	disk   uint64    // bytes in segment files
	peak   uint64    // the most bytes in segment files at once
	nsegs  uint64    // segment files written
}

// A segment is a file of spilled chunks, one after another.
type segment struct {
	path string   // the file's name, for messages
	f    *os.File // open from its creation
	// linked says that the file could not be removed from its directory
	// at creation (where the system does not allow removing an open
	// file): remove removes it. Elsewhere a kill leaves nothing behind.
	linked bool
	lens   []int // the lengths of its chunks
	next   int   // the chunk to read next
	off    int64 // its offset
	size   int64 // the file's size
}

// setSpill gives the fifo a budget of memory, in bytes, beyond which it
// spills chunks to segment files in dir.
func (q *fifo) setSpill(dir string, budget int64) {
	q.spill = &fifoSpill{dir: dir, budget: budget}
}

// push queues b. It fails only if spilling to disk fails.
func (q *fifo) push(b []byte) error {
	need := 4 + len(b)
	tail := q.tail()
	last := len(*tail) - 1
	if last < 0 || tail == &q.chunks && last < q.head || cap((*tail)[last])-len((*tail)[last]) < need {
		c := q.alloc(need)
		*tail = append(*tail, c)
		if sp := q.spill; sp != nil {
			sp.mem += int64(cap(c))
			if sp.mem > sp.budget {
				if err := q.spillMiddle(); err != nil {
					return err
				}
				tail = q.tail()
			}
		}
		last = len(*tail) - 1
	}
	c := binary.LittleEndian.AppendUint32((*tail)[last], uint32(len(b)))
	(*tail)[last] = append(c, b...)
	q.n++
	return nil
}

// tail returns the list of chunks that ends the queue.
func (q *fifo) tail() *[][]byte {
	if q.spill != nil && len(q.spill.segs) > 0 {
		return &q.spill.back
	}
	return &q.chunks
}

// pop returns the string at the head of the queue, or false if it is empty.
// It fails only if reading spilled chunks back fails.
func (q *fifo) pop() ([]byte, bool, error) {
	if q.n == 0 {
		// Every chunk is drained, and the caller is done with the string
		// last popped: rewind to the start of the head chunk.
		if q.head < len(q.chunks) {
			c := q.chunks[q.head][:0]
			clear(q.chunks)
			q.chunks = append(q.chunks[:0], c)
			q.head, q.off = 0, 0
		}
		return nil, false, nil
	}
	c := q.chunks[q.head]
	if q.off == len(c) {
		// The head chunk is drained; the string last popped from it is no
		// longer in use. Every later chunk holds at least one string.
		q.release(c)
		if q.spill != nil {
			q.spill.mem -= int64(cap(c))
		}
		q.chunks[q.head] = nil
		q.head++
		q.off = 0
		if q.head >= 16 && 2*q.head >= len(q.chunks) {
			n := copy(q.chunks, q.chunks[q.head:])
			clear(q.chunks[n:])
			q.chunks = q.chunks[:n]
			q.head = 0
		}
		if q.head == len(q.chunks) {
			// The queue goes on in the segments.
			if err := q.load(); err != nil {
				return nil, false, err
			}
		}
		c = q.chunks[q.head]
	}
	l := int(binary.LittleEndian.Uint32(c[q.off:]))
	start := q.off + 4
	q.off = start + l
	q.n--
	return c[start:q.off:q.off], true, nil
}

// len returns the number of queued strings.
func (q *fifo) len() uint64 { return q.n }

// diskBytes returns the bytes of the queue on disk.
func (q *fifo) diskBytes() uint64 {
	if q.spill == nil {
		return 0
	}
	return q.spill.disk
}

// diskPeak returns the most bytes of the queue on disk at once.
func (q *fifo) diskPeak() uint64 {
	if q.spill == nil {
		return 0
	}
	return q.spill.peak
}

// writeTo writes the queued strings to w, in order, each after its 4-byte
// little-endian length: the chunks as they are, spilled ones included.
func (q *fifo) writeTo(w io.Writer) error {
	if q.n == 0 {
		return nil
	}
	write := func(chunks [][]byte) error {
		for _, c := range chunks {
			if _, err := w.Write(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := write([][]byte{q.chunks[q.head][q.off:]}); err != nil {
		return err
	}
	if err := write(q.chunks[q.head+1:]); err != nil {
		return err
	}
	if q.spill == nil {
		return nil
	}
	for i := range q.spill.segs {
		sg := &q.spill.segs[i]
		if _, err := io.Copy(w, io.NewSectionReader(sg.f, sg.off, sg.size-sg.off)); err != nil {
			return fmt.Errorf("reading the frontier segment %s: %w", sg.path, err)
		}
	}
	return write(q.spill.back)
}

// spillMiddle writes the chunks between the head chunk and the last chunk to
// a new segment file.
func (q *fifo) spillMiddle() error {
	sp := q.spill
	var mid [][]byte
	if len(sp.segs) == 0 {
		if len(q.chunks)-q.head < 3 {
			return nil
		}
		mid = q.chunks[q.head+1 : len(q.chunks)-1]
	} else {
		if len(sp.back) < 2 {
			return nil
		}
		mid = sp.back[:len(sp.back)-1]
	}
	sg, err := writeSegment(sp.dir, mid)
	if err != nil {
		return err
	}
	sp.segs = append(sp.segs, sg)
	sp.disk += uint64(sg.size)
	sp.peak = max(sp.peak, sp.disk)
	sp.nsegs++
	for i, c := range mid {
		sp.mem -= int64(cap(c))
		q.release(c)
		mid[i] = nil
	}
	if len(sp.segs) == 1 {
		// The last chunk starts back; the front ends with the head chunk.
		sp.back = append(sp.back[:0], q.chunks[len(q.chunks)-1])
		clear(q.chunks[q.head+1:])
		q.chunks = q.chunks[:q.head+1]
	} else {
		sp.back[0] = sp.back[len(sp.back)-1]
		clear(sp.back[1:])
		sp.back = sp.back[:1]
	}
	return nil
}

// writeSegment writes chunks to a new segment file in dir, removed from the
// directory at once where the system allows, and kept open.
func writeSegment(dir string, chunks [][]byte) (segment, error) {
	f, err := os.CreateTemp(dir, ckpt.FrontierPattern)
	if err != nil {
		return segment{}, fmt.Errorf("spilling the frontier: %w", err)
	}
	sg := segment{path: f.Name(), f: f, linked: os.Remove(f.Name()) != nil}
	for _, c := range chunks {
		if _, err = f.Write(c); err != nil {
			break
		}
		sg.lens = append(sg.lens, len(c))
		sg.size += int64(len(c))
	}
	if err != nil {
		sg.remove()
		return segment{}, fmt.Errorf("spilling the frontier to %s: %w", sg.path, err)
	}
	return sg, nil
}

// remove closes the segment's file and removes it if it is still linked.
func (sg *segment) remove() error {
	err := sg.f.Close()
	if sg.linked {
		err = errors.Join(err, os.Remove(sg.path))
	}
	sg.f = nil
	if err != nil {
		return fmt.Errorf("removing a frontier segment: %w", err)
	}
	return nil
}

// load reads the next spilled chunk into the front of the queue, which is
// drained; once the last segment is read, back joins the front.
func (q *fifo) load() error {
	sp := q.spill
	sg := &sp.segs[0]
	l := sg.lens[sg.next]
	c := q.alloc(l)[:l]
	if _, err := sg.f.ReadAt(c, sg.off); err != nil {
		return fmt.Errorf("reading the frontier segment %s: %w", sg.path, err)
	}
	sg.next++
	sg.off += int64(l)
	q.chunks = append(q.chunks, c)
	sp.mem += int64(cap(c))
	if sg.next == len(sg.lens) {
		sp.disk -= uint64(sg.size)
		if err := sg.remove(); err != nil {
			return err
		}
		sp.segs[0] = segment{}
		sp.segs = sp.segs[1:]
		if len(sp.segs) == 0 {
			q.chunks = append(q.chunks, sp.back...)
			clear(sp.back)
			sp.back = sp.back[:0]
		}
	}
	return nil
}

// close removes the segment files left, if any.
func (q *fifo) close() error {
	if q.spill == nil {
		return nil
	}
	var err error
	for i := range q.spill.segs {
		err = errors.Join(err, q.spill.segs[i].remove())
	}
	q.spill.segs = nil
	return err
}

func (q *fifo) alloc(need int) []byte {
	if need <= q.chunk && len(q.spare) > 0 {
		c := q.spare[len(q.spare)-1]
		q.spare[len(q.spare)-1] = nil
		q.spare = q.spare[:len(q.spare)-1]
		return c
	}
	return make([]byte, 0, max(q.chunk, need))
}

func (q *fifo) release(c []byte) {
	if cap(c) == q.chunk && len(q.spare) < maxSpare {
		q.spare = append(q.spare, c[:0])
	}
}

// A lifo is a last-in, first-out stack of byte strings, each stored before a
// 16-byte trailer: a state id (8 bytes), a depth (4 bytes) and the string's
// length (4 bytes), all little-endian. The high bit of the length marks an
// entry that has been popped but whose bytes may still be in use.
//
// Popping does not free an entry: it marks it, and the next pop discards it
// once it is on top again. So the slice returned by pop stays valid until the
// next call to pop, however many pushes intervene.
type lifo struct {
	chunk  int      // chunk size
	chunks [][]byte // chunks[:top+1] hold the stack; chunks above top are empty spares
	top    int
	n      uint64 // number of live (unpopped) entries
}

const (
	lifoTrailer = 16
	lifoPopped  = 1 << 31
)

func (st *lifo) push(b []byte, id uint64, depth int) {
	need := len(b) + lifoTrailer
	if len(st.chunks) == 0 {
		st.chunks = append(st.chunks, make([]byte, 0, max(st.chunk, need)))
	}
	c := st.chunks[st.top]
	if cap(c)-len(c) < need {
		st.top++
		if st.top == len(st.chunks) {
			st.chunks = append(st.chunks, nil)
		}
		if cap(st.chunks[st.top]) < need {
			st.chunks[st.top] = make([]byte, 0, max(st.chunk, need))
		}
		c = st.chunks[st.top]
	}
	c = append(c, b...)
	c = binary.LittleEndian.AppendUint64(c, id)
	c = binary.LittleEndian.AppendUint32(c, uint32(depth))
	c = binary.LittleEndian.AppendUint32(c, uint32(len(b)))
	st.chunks[st.top] = c
	st.n++
}

func (st *lifo) pop() (b []byte, id uint64, depth int, ok bool) {
	for st.n > 0 {
		c := st.chunks[st.top]
		if len(c) == 0 {
			// Entries remain, so a chunk below holds them. Keep one
			// spare chunk above the new top.
			st.top--
			if len(st.chunks) > st.top+2 {
				clear(st.chunks[st.top+2:])
				st.chunks = st.chunks[:st.top+2]
			}
			continue
		}
		t := len(c) - lifoTrailer
		l := binary.LittleEndian.Uint32(c[t+12:])
		if l&lifoPopped != 0 {
			st.chunks[st.top] = c[:t-int(l&^lifoPopped)]
			continue
		}
		binary.LittleEndian.PutUint32(c[t+12:], l|lifoPopped)
		st.n--
		start := t - int(l)
		id = binary.LittleEndian.Uint64(c[t:])
		depth = int(binary.LittleEndian.Uint32(c[t+8:]))
		return c[start:t:t], id, depth, true
	}
	return nil, 0, 0, false
}

// len returns the number of live entries.
func (st *lifo) len() uint64 { return st.n }

// each calls f for every live entry, from the bottom of the stack to its top,
// and stops at the first error.
func (st *lifo) each(f func(b []byte, id uint64, depth int) error) error {
	if st.n == 0 {
		return nil
	}
	var starts []int // entry trailers of a chunk, top first
	for i := 0; i <= st.top && i < len(st.chunks); i++ {
		c := st.chunks[i]
		starts = starts[:0]
		for t := len(c) - lifoTrailer; t >= 0; {
			starts = append(starts, t)
			t -= int(binary.LittleEndian.Uint32(c[t+12:])&^lifoPopped) + lifoTrailer
		}
		for k := len(starts) - 1; k >= 0; k-- {
			t := starts[k]
			l := binary.LittleEndian.Uint32(c[t+12:])
			if l&lifoPopped != 0 {
				continue
			}
			id := binary.LittleEndian.Uint64(c[t:])
			depth := int(binary.LittleEndian.Uint32(c[t+8:]))
			if err := f(c[t-int(l):t:t], id, depth); err != nil {
				return err
			}
		}
	}
	return nil
}

// Parent records, kept when Options.Trace is set, are one uint64 per state id:
// the id of the state that discovered it in the high bits and the ordinal of
// the state among its parent's emitted successors in the low ordBits bits.
// They sit in fixed-size chunks in memory, so recording never copies earlier
// records, or, when the search has a directory to use, in a file of 8-byte
// little-endian records in id order (the format of a checkpoint's
// parents.bin), written through a buffer.
const (
	ordBits        = 24
	maxOrd         = 1<<ordBits - 1
	maxTraced      = 1 << (64 - ordBits)
	traceChunkBits = 16
	traceChunkMask = 1<<traceChunkBits - 1
	traceBuffer    = 1 << 20 // bytes of records a file-backed trace writes at once
)

type trace struct {
	chunks [][]uint64 // the records, unless f is set
	n      uint64

	f       *os.File // the records, if set: flushed of them, then buf
	path    string   // the name of f, if it must be removed on close
	flushed uint64
	buf     []byte // records not yet written, flushed when full (traceBuffer bytes)
}

// useFile makes the trace keep its records in f, whose first n records are
// those of states 0 to n-1; f is positioned nowhere in particular. The trace
// must be empty; close closes f.
func (t *trace) useFile(f *os.File, n uint64) {
	t.f, t.n, t.flushed = f, n, n
	t.buf = make([]byte, 0, traceBuffer)
}

// createFile makes the trace keep its records in a new file in dir, removed
// by close (or unlinked at once where the system allows).
func (t *trace) createFile(dir string) error {
	f, err := os.CreateTemp(dir, "rdmasim-parents-*.bin")
	if err != nil {
		return fmt.Errorf("explore: creating the file of parent records: %w", err)
	}
	if os.Remove(f.Name()) != nil {
		t.path = f.Name()
	}
	t.useFile(f, 0)
	return nil
}

// add records the parent of the next state. It fails only if writing the
// records to their file fails.
func (t *trace) add(parent uint64, ord uint32) error {
	r := parent<<ordBits | uint64(ord)
	if t.f != nil {
		t.buf = binary.LittleEndian.AppendUint64(t.buf, r)
		t.n++
		if len(t.buf) == cap(t.buf) {
			return t.flush()
		}
		return nil
	}
	if t.n&traceChunkMask == 0 {
		t.chunks = append(t.chunks, make([]uint64, 1<<traceChunkBits))
	}
	t.chunks[t.n>>traceChunkBits][t.n&traceChunkMask] = r
	t.n++
	return nil
}

// flush writes the buffered records to the file, if there is one.
func (t *trace) flush() error {
	if t.f == nil || len(t.buf) == 0 {
		return nil
	}
	if _, err := t.f.WriteAt(t.buf, int64(8*t.flushed)); err != nil {
		return fmt.Errorf("explore: writing parent records to %s: %w", t.f.Name(), err)
	}
	t.flushed += uint64(len(t.buf) / 8)
	t.buf = t.buf[:0]
	return nil
}

// get returns the parent record of state id, which must be below t.n.
func (t *trace) get(id uint64) (parent uint64, ord uint32, err error) {
	var r uint64
	switch {
	case t.f == nil:
		r = t.chunks[id>>traceChunkBits][id&traceChunkMask]
	case id >= t.flushed:
		r = binary.LittleEndian.Uint64(t.buf[8*(id-t.flushed):])
	default:
		var rec [8]byte
		if _, err := t.f.ReadAt(rec[:], int64(8*id)); err != nil {
			return 0, 0, fmt.Errorf("explore: reading the parent record of state %d from %s: %w", id, t.f.Name(), err)
		}
		r = binary.LittleEndian.Uint64(rec[:])
	}
	return r >> ordBits, uint32(r & maxOrd), nil
}

// diskBytes returns the bytes of the records in a file, those still
// buffered included.
func (t *trace) diskBytes() uint64 {
	if t.f == nil {
		return 0
	}
	return 8 * t.n
}

// close releases the records' file, if any.
func (t *trace) close() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	if t.path != "" {
		err = errors.Join(err, os.Remove(t.path))
	}
	t.f, t.path, t.buf = nil, "", nil
	if err != nil {
		return fmt.Errorf("explore: closing the file of parent records: %w", err)
	}
	return nil
}
