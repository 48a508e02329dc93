package dist

import (
	"encoding/binary"
	"errors"
	"fmt"

	"rdmasim/explore"
	"rdmasim/store"
)

// The records that flow between partitions and the coordinator, as the bodies
// of JetStream messages: little-endian, packed one after another.
//
//	state record      parent u64 | ord u32 | len u32 | encoding
//	expansion record  id u64 | successors u32 | pruned u32
//	ids               uvarint deltas of increasing ids (the first from 0)
//
// A state record is a successor on its way to its owner (succ subjects), or a
// new state of a partition's next level (new subjects), where the records are
// sorted by (parent, ord), the order in which a sequential breadth-first
// search discovers them.
const (
	stateHeader = 16
	expSize     = 16
)

// appendState appends the state record of the successor number ord of state
// parent, with encoding enc, to b.
func appendState(b []byte, parent uint64, ord uint32, enc []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, parent)
	b = binary.LittleEndian.AppendUint32(b, ord)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(enc)))
	return append(b, enc...)
}

// nextState decodes the state record at the start of b and returns the rest
// of b. The encoding aliases b.
func nextState(b []byte) (parent uint64, ord uint32, enc, rest []byte, err error) {
	if len(b) < stateHeader {
		return 0, 0, nil, nil, errors.New("dist: truncated state record")
	}
	parent = binary.LittleEndian.Uint64(b)
	ord = binary.LittleEndian.Uint32(b[8:])
	n := int(binary.LittleEndian.Uint32(b[12:]))
	if n > len(b)-stateHeader {
		return 0, 0, nil, nil, fmt.Errorf("dist: state record of %d bytes in %d", n, len(b)-stateHeader)
	}
	return parent, ord, b[stateHeader : stateHeader+n], b[stateHeader+n:], nil
}

// forStates calls f with every state record of b.
func forStates(b []byte, f func(parent uint64, ord uint32, enc []byte)) error {
	for len(b) > 0 {
		parent, ord, enc, rest, err := nextState(b)
		if err != nil {
			return err
		}
		f(parent, ord, enc)
		b = rest
	}
	return nil
}

// appendExp appends the expansion record of state id, which emitted succs
// successors, cut by the bounds pruned, to b.
func appendExp(b []byte, id uint64, succs uint32, pruned explore.Pruned) []byte {
	b = binary.LittleEndian.AppendUint64(b, id)
	b = binary.LittleEndian.AppendUint32(b, succs)
	return binary.LittleEndian.AppendUint32(b, pruned)
}

// exp is a decoded expansion record.
type exp struct {
	id     uint64
	succs  uint32
	pruned explore.Pruned
}

func decodeExp(b []byte) exp {
	return exp{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint32(b[12:])}
}

// appendIDs appends the increasing ids to b as uvarint deltas.
func appendIDs(b []byte, ids []uint64) []byte {
	var prev uint64
	for _, id := range ids {
		b = binary.AppendUvarint(b, id-prev)
		prev = id
	}
	return b
}

// decodeIDs appends the ids of b to ids.
func decodeIDs(ids []uint64, b []byte) ([]uint64, error) {
	var prev uint64
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("dist: corrupt id list")
		}
		prev += d
		ids = append(ids, prev)
		b = b[n:]
	}
	return ids, nil
}

// Owner returns the partition, of n, that owns the state with fingerprint
// fp: the one whose visited set holds it and that expands it.
func Owner(fp store.Fingerprint, n int) int {
	// Hi, not Lo: the in-memory set indexes its table by Lo, so the
	// partitions' tables stay evenly filled.
	return int(fp.Hi % uint64(n))
}
