package explore

import (
	"encoding/binary"
	"io"
)

// Frontiers hold the encodings of discovered but unexpanded states in chains of
// byte chunks, so that pushing a state copies its bytes but allocates only when
// a chunk fills, and memory is reused as states are expanded.

// defaultChunk is the size of a frontier chunk. An encoding larger than a
// chunk gets a chunk of its own.
const defaultChunk = 1 << 20

// maxSpare bounds the number of drained chunks a fifo keeps for reuse.
const maxSpare = 4

// A fifo is a first-in, first-out queue of byte strings, each stored after a
// 4-byte little-endian length. Chunks are drained at the head and appended at
// the tail; drained chunks are recycled.
//
// The slice returned by pop stays valid until the next call to pop, however
// many pushes intervene.
type fifo struct {
	chunk  int      // chunk size
	chunks [][]byte // chunks[head:] hold the queue; each is filled to its len
	head   int      // index of the chunk being drained
	off    int      // read offset in chunks[head]
	n      uint64   // number of queued strings
	spare  [][]byte // drained chunks of size chunk, for reuse
}

func (q *fifo) push(b []byte) {
	need := 4 + len(b)
	last := len(q.chunks) - 1
	if last < q.head || cap(q.chunks[last])-len(q.chunks[last]) < need {
		q.chunks = append(q.chunks, q.alloc(need))
		last++
	}
	c := binary.LittleEndian.AppendUint32(q.chunks[last], uint32(len(b)))
	q.chunks[last] = append(c, b...)
	q.n++
}

func (q *fifo) pop() ([]byte, bool) {
	if q.n == 0 {
		// Every chunk is drained, and the caller is done with the string
		// last popped: rewind to the start of the head chunk.
		if q.head < len(q.chunks) {
			c := q.chunks[q.head][:0]
			clear(q.chunks)
			q.chunks = append(q.chunks[:0], c)
			q.head, q.off = 0, 0
		}
		return nil, false
	}
	c := q.chunks[q.head]
	if q.off == len(c) {
		// The head chunk is drained; the string last popped from it is no
		// longer in use. Every later chunk holds at least one string.
		q.release(c)
		q.chunks[q.head] = nil
		q.head++
		q.off = 0
		if q.head >= 16 && 2*q.head >= len(q.chunks) {
			n := copy(q.chunks, q.chunks[q.head:])
			clear(q.chunks[n:])
			q.chunks = q.chunks[:n]
			q.head = 0
		}
		c = q.chunks[q.head]
	}
	l := int(binary.LittleEndian.Uint32(c[q.off:]))
	start := q.off + 4
	q.off = start + l
	q.n--
	return c[start:q.off:q.off], true
}

// len returns the number of queued strings.
func (q *fifo) len() uint64 { return q.n }

// writeTo writes the queued strings to w, in order, each after its 4-byte
// little-endian length: the chunks as they are.
func (q *fifo) writeTo(w io.Writer) error {
	if q.n == 0 {
		return nil
	}
	for i := q.head; i < len(q.chunks); i++ {
		c := q.chunks[i]
		if i == q.head {
			c = c[q.off:]
		}
		if _, err := w.Write(c); err != nil {
			return err
		}
	}
	return nil
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
// They sit in fixed-size chunks, so recording never copies earlier records.
const (
	ordBits        = 24
	maxOrd         = 1<<ordBits - 1
	maxTraced      = 1 << (64 - ordBits)
	traceChunkBits = 16
	traceChunkMask = 1<<traceChunkBits - 1
)

type trace struct {
	chunks [][]uint64
	n      uint64
}

func (t *trace) add(parent uint64, ord uint32) {
	if t.n&traceChunkMask == 0 {
		t.chunks = append(t.chunks, make([]uint64, 1<<traceChunkBits))
	}
	t.chunks[t.n>>traceChunkBits][t.n&traceChunkMask] = parent<<ordBits | uint64(ord)
	t.n++
}

func (t *trace) get(id uint64) (parent uint64, ord uint32) {
	r := t.chunks[id>>traceChunkBits][id&traceChunkMask]
	return r >> ordBits, uint32(r & maxOrd)
}
