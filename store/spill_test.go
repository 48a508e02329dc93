//go:build !js

package store

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSpillExact(t *testing.T) {
	tests := []struct {
		name       string
		budget     uint64
		n          int
		dup        float64
		gen        func(uint64) Fingerprint
		opt        PebbleOptions
		wantSpills int
	}{
		{"within budget", 1 << 20, 5000, 0.2, uniformFP, PebbleOptions{}, 0},
		{"tiny budget", 1 << 10, 1000, 0.2, uniformFP, PebbleOptions{}, 10},
		{"small budget", 16 << 10, 5000, 0.2, uniformFP, PebbleOptions{}, 5},
		{"small budget, many duplicates", 16 << 10, 5000, 0.7, uniformFP, PebbleOptions{}, 2},
		{"small budget, skewed", 16 << 10, 3000, 0.3, skewedFP, PebbleOptions{}, 3},
		{"no filters", 16 << 10, 4000, 0.2, uniformFP, PebbleOptions{FilterBitsPerKey: -1, BloomBitsPerKey: -1}, 3},
		{"zero budget", 0, 500, 0.2, uniformFP, PebbleOptions{}, 3},
	}
	for _, tt := range tests {
		for _, batched := range []bool{false, true} {
			name := tt.name
			if batched {
				name += "/batched"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				opt := tt.opt
				opt.Temp = true
				s := NewSpill(tt.budget, dir, opt)
				checkExact(t, s, nil, newStream(uint64(tt.n), tt.dup, tt.gen).fill(nil, tt.n), batched, 3)
				ents, _ := os.ReadDir(dir)
				if spilled := len(ents) > 0; spilled != s.Spilled() || spilled != (tt.wantSpills > 0) {
					t.Errorf("%d entries in the directory, Spilled() = %v, want spills: %v", len(ents), s.Spilled(), tt.wantSpills > 0)
				}
				if err := s.p.wait(); err != nil {
					t.Fatal(err)
				}
				st := s.Stats()
				if st.Spills < tt.wantSpills {
					t.Errorf("%d spills, want at least %d", st.Spills, tt.wantSpills)
				}
				if s.Bytes() == 0 {
					t.Error("Bytes() = 0")
				}
				t.Logf("%d fingerprints, %d spills, longest %v, stalled %v", s.Len(), st.Spills, st.Max, st.Stalled)
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if ents, _ := os.ReadDir(dir); len(ents) != 0 {
					t.Errorf("%d entries left in the directory after Close", len(ents))
				}
			})
		}
	}
}

// TestSpillJump checks the incremental growth of a table from Pebble.jumpSlots to
// its full size, and a spill after it.
func TestSpillJump(t *testing.T) {
	s := NewSpill(64<<10, t.TempDir(), PebbleOptions{}) // tables of 2048 slots
	defer s.Close()
	s.p.jumpSlots = 64
	st := newStream(5, 0.3, uniformFP)
	ref := make(map[Fingerprint]bool)
	checkExact(t, s, ref, st.fill(nil, 1000), true, 4) // about 770 distinct
	if got := len(s.p.active.slots); got < 1024 || got > 2048 || s.Spilled() {
		t.Fatalf("table of %d slots, spilled %v; want 1024 or 2048 slots and no spill", got, s.Spilled())
	}
	checkExact(t, s, ref, st.fill(nil, 3000), false, 5)
	if !s.Spilled() {
		t.Fatal("no spill")
	}
}

// TestSpillJumpMoves checks the insertions while the fingerprints of a full
// table move to one twice its size, a few slots at a time: they stay members
// throughout, the zero fingerprint too, and the growth up to the full size
// and the spill after it are exact as well.
func TestSpillJumpMoves(t *testing.T) {
	for _, spillSoon := range []bool{false, true} {
		s := NewSpill(512<<10, t.TempDir(), PebbleOptions{Temp: true}) // tables of 16 Ki slots
		s.p.jumpSlots = 1024
		ref := map[Fingerprint]bool{}
		checkExact(t, s, ref, []Fingerprint{{}}, false, 5)
		st := newStream(6, 0.3, uniformFP)
		for i := 0; s.p.old == nil; i++ {
			if i > 2000 {
				t.Fatal("no jump")
			}
			fp := st.next()
			if added, err := s.Insert(fp); err != nil || added == ref[fp] {
				t.Fatalf("insertion %d: added = %v, err = %v; want %v", i, added, err, !ref[fp])
			}
			ref[fp] = true
		}
		if len(s.p.active.slots) != 2048 || s.p.oldNext != 0 {
			t.Fatalf("active table of %d slots, %d old slots moved; want 2 Ki, none", len(s.p.active.slots), s.p.oldNext)
		}
		// Every member is found while the move goes on.
		var members []Fingerprint
		for fp := range ref {
			members = append(members, fp)
		}
		checkExact(t, s, ref, members, true, 7)
		if s.p.old != nil {
			t.Fatal("the move never ended")
		}
		n := 1000
		if spillSoon {
			n = 20000
		}
		checkExact(t, s, ref, st.fill(nil, n), true, 8)
		if s.Spilled() != spillSoon {
			t.Fatalf("Spilled() = %v", s.Spilled())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSpillOpenError checks that a spill that cannot open its database makes
// Insert fail rather than lose fingerprints.
func TestSpillOpenError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSpill(1<<10, file, PebbleOptions{})
	defer s.Close()
	var err error
	for i := uint64(0); i < 1000 && err == nil; i++ {
		_, err = s.Insert(uniformFP(i))
	}
	if err == nil {
		t.Fatal("no error from a spill into a file")
	}
	if _, err2 := s.Insert(uniformFP(1 << 50)); err2 == nil {
		t.Error("Insert after a failed spill succeeded")
	}
}
