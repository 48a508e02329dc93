package explore

import (
	"errors"
	"fmt"
	"os"
	"rdmasim/explore/ckpt"
)

// A levelQ is a level of a parallel search (see par): its blocks, in order,
// each in memory or, once spilled, in the level's segment file. The file is
// created at the first spill, removed from its directory at once where the
// system allows (so that a kill leaves nothing behind), and closed by reset.
type levelQ struct {
	blocks []levelBlock
	mem    int64    // bytes (capacities) of the blocks in memory
	nmem   int      // blocks in memory
	f      *os.File // the spilled blocks, one after another
	path   string   // the name of f, if it must be removed on reset
	size   int64    // bytes in f
}

// A levelBlock is a block of a level: in memory (b), or in the level's file.
type levelBlock struct {
	b   []byte
	off int64 // where it is in the file, if b is nil
	n   int   // its length there
}

// len returns the number of blocks.
func (l *levelQ) len() int { return len(l.blocks) }

// add appends a block held in memory.
func (l *levelQ) add(b []byte) {
	l.blocks = append(l.blocks, levelBlock{b: b})
	l.mem += int64(cap(b))
	l.nmem++
}

// block returns block i: the block itself if it is in memory, else its bytes
// read into *buf, which grows as needed. It is safe for concurrent use as
// long as the level does not change.
func (l *levelQ) block(i int, buf *[]byte) ([]byte, error) {
	bl := l.blocks[i]
	if bl.b != nil {
		return bl.b, nil
	}
	if cap(*buf) < bl.n {
		*buf = make([]byte, bl.n)
	}
	b := (*buf)[:bl.n]
	if _, err := l.f.ReadAt(b, bl.off); err != nil {
		return nil, fmt.Errorf("reading a frontier block back from %s: %w", l.f.Name(), err)
	}
	return b, nil
}

// spill writes every block in memory to the level's file, creating it in dir
// if need be, and hands each block's buffer to release.
func (l *levelQ) spill(dir string, release func([]byte)) error {
	if l.nmem == 0 {
		return nil
	}
	if l.f == nil {
		f, err := os.CreateTemp(dir, ckpt.FrontierPattern)
		if err != nil {
			return fmt.Errorf("spilling the frontier: %w", err)
		}
		l.f = f
		if os.Remove(f.Name()) != nil {
			l.path = f.Name()
		}
	}
	for i := range l.blocks {
		bl := &l.blocks[i]
		if bl.b == nil {
			continue
		}
		if _, err := l.f.WriteAt(bl.b, l.size); err != nil {
			return fmt.Errorf("spilling the frontier to %s: %w", l.f.Name(), err)
		}
		b := bl.b
		*bl = levelBlock{off: l.size, n: len(b)}
		l.size += int64(len(b))
		l.mem -= int64(cap(b))
		l.nmem--
		release(b)
	}
	return nil
}

// reset empties the level, handing the buffers of the blocks in memory to
// release, and closes its file.
func (l *levelQ) reset(release func([]byte)) error {
	for i, bl := range l.blocks {
		if bl.b != nil {
			release(bl.b)
		}
		l.blocks[i] = levelBlock{}
	}
	l.blocks = l.blocks[:0]
	l.mem, l.nmem, l.size = 0, 0, 0
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	if l.path != "" {
		err = errors.Join(err, os.Remove(l.path))
	}
	l.f, l.path = nil, ""
	if err != nil {
		return fmt.Errorf("removing a frontier segment: %w", err)
	}
	return nil
}
