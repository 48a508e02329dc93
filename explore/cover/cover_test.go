package cover

import (
	"bytes"
	"context"
	"testing"
	"unsafe"

	"rdmasim/explore"
)

// vass is a VASS with d counters: a control byte, then the counters.
type vass struct {
	d     int
	trans []tr
}

type tr struct {
	from, to uint8
	delta    []int
}

func (v *vass) Counters() int { return v.d }

func (v *vass) Initial(dst []byte) []byte {
	dst = append(dst, 0)
	for i := 0; i < v.d; i++ {
		dst = append(dst, 0, 0, 0, 0)
	}
	return dst
}

func (v *vass) Successors(s []byte, emit func(explore.Label, []byte)) explore.Pruned {
	for i, t := range v.trans {
		if s[0] != t.from {
			continue
		}
		next := append([]byte(nil), s...)
		next[0] = t.to
		ok := true
		for j, dl := range t.delta {
			c := Counter(s[1:], j)
			switch {
			case c == Omega:
			case dl < 0 && c < uint32(-dl):
				ok = false
			default:
				SetCounter(next[1:], j, uint32(int(c)+dl))
			}
		}
		if ok {
			emit(explore.Label(i), next)
		}
	}
	return 0
}

func TestCoverability(t *testing.T) {
	// q0 pumps c0; q0 -> q1 moves on; reaching q4 needs c0 >= 3.
	pump := []tr{{0, 0, []int{1}}, {0, 1, []int{0}}, {1, 2, []int{-1}}, {2, 3, []int{-1}}, {3, 4, []int{-1}}}
	tests := []struct {
		name   string
		v      *vass
		target uint8
		found  bool
	}{
		{"pumped counter covers q4", &vass{1, pump}, 4, true},
		{"q9 unreachable though c0 grows for ever", &vass{1, pump}, 9, false},
		{"decrement never enabled", &vass{1, []tr{{0, 0, []int{0}}, {0, 1, []int{-1}}}}, 1, false},
		{"two counters: c1 needs c0 pumped first", &vass{2, []tr{{0, 0, []int{1, 0}}, {0, 1, []int{0, 0}}, {1, 1, []int{-1, 2}},
			{1, 2, []int{0, -3}}}}, 2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.v, Options{MaxStates: 100000})
			r, err := s.Run(context.Background(), func(st []byte) bool { return st[0] == tc.target })
			if err != nil {
				t.Fatal(err)
			}
			if (r.Found >= 0) != tc.found {
				t.Fatalf("found=%v, want %v (%+v)", r.Found >= 0, tc.found, r)
			}
			if !tc.found && r.Stop != explore.Complete {
				t.Fatalf("search not complete: %v after %d states", r.Stop, r.States)
			}
			if r.Accelerations == 0 && tc.name != "decrement never enabled" {
				t.Errorf("no acceleration: the counter should have become ω")
			}
			if tc.found {
				path, err := s.Path(r.Found)
				if err != nil || path[len(path)-1].State[0] != tc.target {
					t.Fatalf("bad path: %v %v", path, err)
				}
			}
		})
	}
}

// TestNodeBytes: the memory bound counts nodes at their size.
func TestNodeBytes(t *testing.T) {
	if got := unsafe.Sizeof(node{}); got != nodeBytes {
		t.Errorf("a node takes %d bytes, nodeBytes says %d", got, nodeBytes)
	}
}

// TestChunksAndMemoryLimit: a search whose tree spans several chunks of
// nodes and encodings gives the answer of one that fits in a chunk, and
// MaxBytes stops it with MemoryLimit once the tree outgrows the bound.
func TestChunksAndMemoryLimit(t *testing.T) {
	m := grid{}
	r, err := New(m, Options{}).Run(context.Background(), func(st []byte) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != explore.Complete || r.States != 1<<17 {
		t.Fatalf("%v after %d states, want complete after %d", r.Stop, r.States, 1<<17)
	}
	if r.StoreBytes < 4*nodeChunk*nodeBytes {
		t.Errorf("%d bytes for %d nodes: fewer than the chunks hold", r.StoreBytes, r.States)
	}
	s := New(m, Options{MaxBytes: 2 * nodeChunk * nodeBytes})
	r, err = s.Run(context.Background(), func(st []byte) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != explore.MemoryLimit || r.Found >= 0 {
		t.Fatalf("%v after %d states (found %d), want a memory limit", r.Stop, r.States, r.Found)
	}
	// Every node of every chunk is where it was put.
	for i := 0; i < s.nnodes; i += 997 {
		path, err := s.Path(int64(i))
		if err != nil {
			t.Fatal(err)
		}
		if len(path) != int(s.node(i).depth)+1 || !bytes.Equal(path[len(path)-1].State, s.enc(i)) {
			t.Fatalf("node %d: path of %d steps to %x, depth %d", i, len(path), path[len(path)-1].State, s.node(i).depth)
		}
	}
}

// grid is a machine without counters whose states are the 17-bit numbers,
// each with the successors n+1 and 2n+1 (below 2^17), encoded in three
// bytes.
type grid struct{}

func (grid) Counters() int { return 0 }

func (grid) Initial(dst []byte) []byte { return append(dst, 0, 0, 0) }

func (grid) Successors(s []byte, emit func(explore.Label, []byte)) explore.Pruned {
	n := int(s[0])<<16 | int(s[1])<<8 | int(s[2])
	for i, next := range []int{n + 1, 2*n + 1} {
		if next < 1<<17 {
			emit(explore.Label(i), []byte{uint8(next >> 16), uint8(next >> 8), uint8(next)})
		}
	}
	return 0
}
