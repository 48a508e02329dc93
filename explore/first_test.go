package explore

import (
	"context"
	"encoding/binary"
	"testing"
)

// TestFirst: a First stops the search at the first state its predicate
// accepts, keeps its id, and the path to it ends there; with no such state
// the search runs to its bound and nothing is found.
func TestFirst(t *testing.T) {
	for _, tc := range []struct {
		at    uint64 // the line's value accepted
		found bool
	}{{7, true}, {0, true}, {500, false}} {
		f := FirstWhere(func(s []byte) bool { return binary.LittleEndian.Uint64(s) == tc.at })
		s := New(&line{}, Options{Trace: true, MaxStates: 100, Visit: f.Visit})
		r, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if f.Found() != tc.found {
			t.Fatalf("at %d: found %v, want %v (stop %v)", tc.at, f.Found(), tc.found, r.Stop)
		}
		if !tc.found {
			if f.ID != -1 || r.Stop == Stopped {
				t.Errorf("at %d: id %d, stop %v; want -1 and the bound", tc.at, f.ID, r.Stop)
			}
			continue
		}
		if r.Stop != Stopped || r.States != tc.at+1 {
			t.Errorf("at %d: stop %v after %d states, want stopped after %d", tc.at, r.Stop, r.States, tc.at+1)
		}
		path, err := s.Path(uint64(f.ID))
		if err != nil {
			t.Fatal(err)
		}
		if got := binary.LittleEndian.Uint64(path[len(path)-1].State); got != tc.at {
			t.Errorf("at %d: the path ends at %d", tc.at, got)
		}
	}
}
