package explore

import (
	"bytes"
	"context"
	"testing"
)

// pair is two identical counters 0..3, each of which may step up or, when
// at 3, reset: swapping them is a symmetry.
type pair struct{}

func (pair) Initial(dst []byte) []byte { return append(dst, 0, 0) }

func (pair) Successors(s []byte, emit func(Label, []byte)) Pruned {
	for i := 0; i < 2; i++ {
		n := []byte{s[0], s[1]}
		n[i] = (n[i] + 1) % 4
		emit(Label(i+1), n)
	}
	return 0
}

func (pair) Symmetric() bool { return true }

func (pair) Canonical(dst, s []byte) []byte {
	if s[0] > s[1] {
		return append(dst, s[1], s[0])
	}
	return append(dst, s...)
}

func (pair) Transfer(dst, from, to, s []byte) []byte {
	if bytes.Equal(from, to) {
		return append(dst, s...)
	}
	return append(dst, s[1], s[0])
}

// TestSymmetryReduces searches pair with and without symmetry: 16 states
// against the 10 orbits, and every path of the reduced search is a run of
// the machine ending in the orbit of its state.
func TestSymmetryReduces(t *testing.T) {
	for _, sym := range []bool{false, true} {
		var states [][]byte
		s := New(pair{}, Options{Trace: true, Symmetry: sym, Visit: func(_ uint64, st []byte, _ int) bool {
			states = append(states, bytes.Clone(st))
			return true
		}})
		res, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := uint64(16)
		if sym {
			want = 10
		}
		if res.States != want || s.Reduced() != sym {
			t.Fatalf("symmetry %v: %d states (reduced %v), want %d", sym, res.States, s.Reduced(), want)
		}
		for id, st := range states {
			path, err := s.Path(uint64(id))
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(path); i++ {
				ok := false
				pair{}.Successors(path[i-1].State, func(l Label, n []byte) {
					ok = ok || l == path[i].Label && bytes.Equal(n, path[i].State)
				})
				if !ok {
					t.Fatalf("state %d: step %d (%v -> %v) is not a step of the machine", id, i, path[i-1].State, path[i].State)
				}
			}
			last := path[len(path)-1].State
			if !bytes.Equal(pair{}.Canonical(nil, last), pair{}.Canonical(nil, st)) {
				t.Fatalf("state %d: path ends at %v, not in the orbit of %v", id, last, st)
			}
		}
	}
}
