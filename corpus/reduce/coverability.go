package reduce

import (
	"encoding/binary"
)

// omega is the Karp–Miller ω in a counter vector: a value that can be made
// as large as wanted.
const omega = -1

// kmNode is a node of the Karp–Miller tree.
type kmNode struct {
	state  int
	vec    []int // counter values, omega for ω
	parent *kmNode
}

// leqOmega reports whether a ≤ b componentwise, ω being above every number.
func leqOmega(a, b []int) bool {
	for i := range a {
		if b[i] != omega && (a[i] == omega || a[i] > b[i]) {
			return false
		}
	}
	return true
}

// key encodes a (state, vector) label for the visited set.
func key(state int, vec []int) string {
	b := binary.AppendVarint(nil, int64(state))
	for _, x := range vec {
		b = binary.AppendVarint(b, int64(x))
	}
	return string(b)
}

// Coverable reports whether the accepting state of v is coverable: whether
// some run from Init, with every counter 0, reaches Accept (with any counter
// values). It builds the Karp–Miller tree depth first: a new node whose
// label (state, vector) is at least that of an ancestor with the same state
// gets ω in every component where it is strictly larger; a node whose label
// equals that of an ancestor, or of any node already expanded, is a leaf.
// The tree is finite (Dickson's lemma and König's lemma), and a control state
// appears in it if and only if it is coverable. The search stops at the
// first node in Accept.
//
// This checker shares nothing with the RDMA machines: tests use it to
// confirm the expect lines of instance files and of generated programs.
func (v *VASS) Coverable() bool {
	out := make([][]Transition, len(v.States))
	for _, t := range v.Trans {
		out[t.From] = append(out[t.From], t)
	}
	seen := map[string]bool{}
	stack := []*kmNode{{state: v.Init, vec: make([]int, v.Counters)}}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.state == v.Accept {
			return true
		}
		leaf := false
		for a := n.parent; a != nil; a = a.parent {
			if a.state != n.state || !leqOmega(a.vec, n.vec) {
				continue
			}
			same := true
			for i := range n.vec {
				if n.vec[i] != a.vec[i] {
					same = false
					if n.vec[i] != omega {
						n.vec[i] = omega // a.vec[i] < n.vec[i]: pumpable
					}
				}
			}
			if same {
				leaf = true
				break
			}
		}
		k := key(n.state, n.vec)
		if leaf || seen[k] {
			continue
		}
		seen[k] = true
		for _, t := range out[n.state] {
			x := n.vec[t.Counter]
			if t.Delta < 0 && x == 0 {
				continue
			}
			vec := append([]int(nil), n.vec...)
			if x != omega {
				vec[t.Counter] = x + t.Delta
			}
			stack = append(stack, &kmNode{state: t.To, vec: vec, parent: n})
		}
	}
	return false
}

// ShortestRun searches the concrete configurations of v breadth first, up to
// maxLen transitions, for a shortest run from Init (all counters 0) to
// Accept. It returns the run as indices into v.Trans, and whether one was
// found; an empty run when Init is Accept. Not finding one within maxLen
// proves nothing.
func (v *VASS) ShortestRun(maxLen int) ([]int, bool) {
	out := make([][]int, len(v.States))
	for i, t := range v.Trans {
		out[t.From] = append(out[t.From], i)
	}
	type conf struct {
		state  int
		vec    []int
		parent int // index in confs, -1 for the root
		trans  int // transition that led here
	}
	confs := []conf{{state: v.Init, vec: make([]int, v.Counters), parent: -1, trans: -1}}
	seen := map[string]bool{key(v.Init, confs[0].vec): true}
	level := []int{0}
	for depth := 0; ; depth++ {
		for _, ci := range level {
			if confs[ci].state == v.Accept {
				var run []int
				for c := ci; confs[c].parent >= 0; c = confs[c].parent {
					run = append(run, confs[c].trans)
				}
				for i, j := 0, len(run)-1; i < j; i, j = i+1, j-1 {
					run[i], run[j] = run[j], run[i]
				}
				return run, true
			}
		}
		if depth == maxLen || len(level) == 0 {
			return nil, false
		}
		var next []int
		for _, ci := range level {
			c := confs[ci]
			for _, ti := range out[c.state] {
				t := v.Trans[ti]
				if c.vec[t.Counter]+t.Delta < 0 {
					continue
				}
				vec := append([]int(nil), c.vec...)
				vec[t.Counter] += t.Delta
				k := key(t.To, vec)
				if seen[k] {
					continue
				}
				seen[k] = true
				confs = append(confs, conf{state: t.To, vec: vec, parent: ci, trans: ti})
				next = append(next, len(confs)-1)
			}
		}
		level = next
	}
}

// Peak returns the largest value any counter takes along run (indices into
// v.Trans, as ShortestRun returns), starting from all counters 0; and false
// when run is not a run of v from Init.
func (v *VASS) Peak(run []int) (int, bool) {
	vec := make([]int, v.Counters)
	state, peak := v.Init, 0
	for _, ti := range run {
		if ti < 0 || ti >= len(v.Trans) {
			return 0, false
		}
		t := v.Trans[ti]
		if t.From != state || vec[t.Counter]+t.Delta < 0 {
			return 0, false
		}
		vec[t.Counter] += t.Delta
		peak = max(peak, vec[t.Counter])
		state = t.To
	}
	return peak, true
}
