package instr

import (
	"bytes"
	"fmt"
	"sort"
	"sync"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

func mustParse(t *testing.T, src string) *prog.Program {
	t.Helper()
	p, err := parse.Parse("t.rdma", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// locIndex returns the index of the location named name.
func locIndex(t *testing.T, p *prog.Program, name string) int {
	t.Helper()
	for l := range p.Locs {
		if p.Locs[l].Name == name {
			return l
		}
	}
	t.Fatalf("no location %s", name)
	return -1
}

// TestAnalysis checks New's analyses on small programs: which locations
// can carry SC-cycle marks (two accesses, one a write; an instruction on a
// loop counts twice), which are read, and the domains a guess draws from.
func TestAnalysis(t *testing.T) {
	tests := []struct {
		name, src      string
		markable, read []string // locations expected to be markable / read
		notMarkable    []string
		domainLoc      string
		domain         []uint8
		finite         bool
	}{
		{
			name: "message passing",
			src: `node A { x = 0; y = 0 }
node B { a = 0; b = 0 }
thread T on A { x := 1; y := 1 }
thread U on B { a := y; b := x }
`,
			markable: []string{"x", "y"}, read: []string{"x", "y"}, notMarkable: []string{"a", "b"},
			domainLoc: "x", domain: []uint8{0, 1}, finite: true,
		},
		{
			name: "a write alone is on no cycle",
			src: `node A { x = 0; z = 0 }
thread T on A { x := 1; z := 2 }
thread U on A { assume(x == 1) }
`,
			markable: []string{"x"}, read: []string{"x"}, notMarkable: []string{"z"},
			domainLoc: "x", domain: []uint8{0, 1}, finite: true,
		},
		{
			name: "a write on a loop counts twice",
			src: `node A { x = 0 }
thread T on A { loop { x := 1 } }
`,
			markable: []string{"x"}, notMarkable: nil,
			domainLoc: "x", domain: []uint8{0, 1}, finite: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, tc.src)
			m, err := New(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tc.markable {
				if !m.Markable(locIndex(t, p, n)) {
					t.Errorf("%s is not markable", n)
				}
			}
			for _, n := range tc.notMarkable {
				if m.Markable(locIndex(t, p, n)) {
					t.Errorf("%s is markable", n)
				}
			}
			for _, n := range tc.read {
				if !m.IsRead(locIndex(t, p, n)) {
					t.Errorf("%s is not read", n)
				}
			}
			if got := m.Domain(locIndex(t, p, tc.domainLoc)); !bytes.Equal(got, tc.domain) {
				t.Errorf("domain of %s = %v, want %v", tc.domainLoc, got, tc.domain)
			}
			if m.Finite() != tc.finite {
				t.Errorf("Finite() = %v, want %v", m.Finite(), tc.finite)
			}
		})
	}
}

// successors lists the successors of s as "label:encoding", sorted.
func successors(m *Machine, s []byte) []string {
	var out []string
	m.Successors(s, func(l uint64, next []byte) {
		out = append(out, fmt.Sprintf("%x:%x", l, next))
	})
	sort.Strings(out)
	return out
}

// TestCloneSharesNothingMutable expands the same states on a machine and
// its clones at once (run under -race in CI): each must give the
// successors the machine gives alone, so no scratch is shared.
func TestCloneSharesNothingMutable(t *testing.T) {
	p := mustParse(t, `node A { x = 0; y = 0 }
node B { a = 0; b = 0 }
thread T on A { x := 1; y := 1; a := x; poll(B) }
thread U on B { a := y; b := x; poll(A) }
`)
	m, err := New(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The states of a breadth-first walk, and their successors on m alone.
	var states [][]byte
	seen := map[string]bool{}
	frontier := [][]byte{m.Initial(nil)}
	for len(frontier) > 0 && len(states) < 400 {
		s := frontier[0]
		frontier = frontier[1:]
		if seen[string(s)] {
			continue
		}
		seen[string(s)] = true
		states = append(states, s)
		m.Successors(s, func(_ uint64, next []byte) {
			frontier = append(frontier, append([]byte(nil), next...))
		})
	}
	want := make([][]string, len(states))
	for i, s := range states {
		want[i] = successors(m, s)
	}
	var wg sync.WaitGroup
	clones := []*Machine{m, m.Clone(), m.Clone(), m.Clone()}
	errs := make([]string, len(clones))
	for ci, c := range clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 3; round++ {
				for i, s := range states {
					if got := successors(c, s); fmt.Sprint(got) != fmt.Sprint(want[i]) {
						errs[ci] = fmt.Sprintf("machine %d, state %d: %d successors, want %d", ci, i, len(got), len(want[i]))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
	if len(states) < 20 {
		t.Fatalf("only %d states: the test exercises too little", len(states))
	}
}
