package machine

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// symSrc is a family of n identical clients running body.
func symSrc(n int, body string) string {
	return fmt.Sprintf(`param N = %d
node S { x : 0..1 = 0; slot[N] : 0..1 = 0 }
node m[i] for i in 0..N-1 { v : 0..1 = 1; d : 0..1 = 0 }
thread client[i] on m[i] for i in 0..N-1 {
%s
}
`, n, body)
}

// TestSymmetryEquivariant checks on the reachable configurations of
// family programs that the machines commute with the group: the
// successors of an image are the images of the successors (as sets, up to
// labels), the initial configuration is its own image, and Canonical
// returns an image of its argument, which Transfer maps back.
func TestSymmetryEquivariant(t *testing.T) {
	bodies := map[string]string{
		"put-get":  "slot[i] := v[i]\npoll(S)\nd[i] := x\npoll(S)\nx := v[i]\npoll(S)",
		"unpolled": "slot[i] := v[i]\nd[i] := x\nx := v[i]",
		"loop":     "slot[i] := v[i]\nwhile (d[i] == 0) { d[i] := x; poll(S) }\nx := d[i]\npoll(S)\npoll(S)",
		"fence":    "slot[i] := v[i]\nrfence(S)\nd[i] := slot[i]\npoll(S)\npoll(S)",
		"deadlock": "x := v[i]\npoll(S)\npoll(S)",
	}
	for name, body := range bodies {
		p, err := parse.Parse(name+".rdma", []byte(symSrc(3, body)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sym, why := prog.FindSymmetry(p)
		if sym == nil {
			t.Fatalf("%s: no symmetry: %v", name, why)
		}
		var group []prog.Renaming
		sym.Permutations(p, func(r prog.Renaming) bool {
			group = append(group, r)
			return true
		})
		for _, c := range []struct {
			sc, reduce bool
		}{{false, false}, {false, true}, {true, false}} {
			t.Run(fmt.Sprintf("%s/sc=%v/reduce=%v", name, c.sc, c.reduce), func(t *testing.T) {
				opt := Options{MaxInflight: 3, Unroll: 2, Reduce: c.reduce, ControlHidden: c.reduce}
				m, err := newMachine(p, opt, c.sc)
				if err != nil {
					t.Fatal(err)
				}
				m.UseSymmetry(sym)
				if !m.Symmetric() {
					t.Fatal("the machine takes no symmetry")
				}
				chk := m.Clone()
				if !chk.Symmetric() {
					t.Fatal("a clone lost the symmetry")
				}
				init := m.Initial(nil)
				for _, r := range group {
					if !bytes.Equal(m.Permute(nil, init, &r), init) {
						t.Fatal("the initial configuration is not its own image")
					}
				}
				succs := func(s []byte) []string {
					var out []string
					chk.Successors(s, func(_ uint64, next []byte) { out = append(out, string(next)) })
					slices.Sort(out)
					return slices.Compact(out)
				}
				seen := map[string]bool{string(init): true}
				queue := [][]byte{init}
				for len(queue) > 0 && len(seen) < 4000 {
					s := queue[0]
					queue = queue[1:]
					base := succs(s)
					for gi, r := range group {
						img := m.Permute(nil, s, &r)
						var want []string
						for _, n := range base {
							want = append(want, string(m.Permute(nil, []byte(n), &r)))
						}
						slices.Sort(want)
						if got := succs(img); !slices.Equal(got, want) {
							t.Fatalf("permutation %d: the successors of the image of\n%s\nare not the images of its successors (%d, want %d)",
								gi, m.Format(s), len(got), len(want))
						}
					}
					c := m.Canonical(nil, s)
					isImage := false
					for _, r := range group {
						if bytes.Equal(m.Permute(nil, s, &r), c) {
							isImage = true
						}
					}
					if !isImage {
						t.Fatalf("Canonical of\n%s\nis no image of it", m.Format(s))
					}
					if back := m.Transfer(nil, c, s, c); !bytes.Equal(back, s) {
						t.Fatal("Transfer does not map the canonical image back")
					}
					for _, n := range base {
						if !seen[n] {
							seen[n] = true
							queue = append(queue, []byte(n))
						}
					}
				}
				t.Logf("%d configurations", len(seen))
			})
		}
	}
}
