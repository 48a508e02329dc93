package instr

import "testing"

// TestCanonLocks: canon forgets the lock state of the remote atomics where
// no step can consult it (atomcanon.go), and the machine under
// Options.NoReduction keeps it.
func TestCanonLocks(t *testing.T) {
	p := mustParse(t, `node A { x = 0; y = 0 }
node B { a = 0; b = 0; c = 0 }
thread T on B { a := rcas(x, 0, 1); b := rcas(y, 0, 1); c := y }
`)
	x, y := locIndex(t, p, "x"), locIndex(t, p, "y")
	for _, tc := range []struct {
		name   string
		pc     int // thread T's instruction
		cpu2   bool
		noRed  bool
		lk, a2 [2]uint8 // wanted after canon, for x and y: lk, and a2 as 0/1
		initLk uint8
		initA2 bool
	}{
		{name: "x has no atomic left", pc: 1, lk: [2]uint8{0, 2}, a2: [2]uint8{0, 0}, initLk: 2, initA2: true},
		{name: "no atomic left", pc: 2, lk: [2]uint8{0, 0}, a2: [2]uint8{0, 0}, initLk: 2, initA2: true},
		{name: "a2 under a lock", pc: 0, lk: [2]uint8{2, 2}, a2: [2]uint8{0, 0}, initLk: 2, initA2: true},
		{name: "a2 kept", pc: 0, lk: [2]uint8{0, 0}, a2: [2]uint8{1, 1}, initA2: true},
		{name: "a2 of a cpu2 thread", pc: 0, cpu2: true, lk: [2]uint8{0, 0}, a2: [2]uint8{0, 0}, initA2: true},
		{name: "no reduction", pc: 2, noRed: true, lk: [2]uint8{2, 2}, a2: [2]uint8{1, 1}, initLk: 2, initA2: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(p, Options{AllowAtomics: true, NoReduction: tc.noRed})
			if err != nil {
				t.Fatal(err)
			}
			s := m.NewState()
			s.th[0].pc, s.th[0].cpu2 = uint16(tc.pc), tc.cpu2
			for _, l := range []int{x, y} {
				s.lk[l], s.a2[l] = tc.initLk, tc.initA2
			}
			m.canonLocks(s)
			for i, l := range []int{x, y} {
				if s.lk[l] != tc.lk[i] || b2u(s.a2[l]) != tc.a2[i] {
					t.Errorf("%s: lk %d a2 %v, want lk %d a2 %d", p.Locs[l].Name, s.lk[l], s.a2[l], tc.lk[i], tc.a2[i])
				}
			}
		})
	}
}
