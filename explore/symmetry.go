package explore

import (
	"bytes"
	"errors"
	"fmt"
)

// Symmetric is an optional interface of a Machine whose states come in
// orbits of a group of symmetries: permutations of identical components (the
// instances of a family of threads, say) under which the machine is
// invariant, so that a state and its images have the same future up to the
// permutation. A search with Options.Symmetry stores one representative per
// orbit (symmetry reduction, as Murphi's scalarsets): it replaces the
// initial state and every successor by Canonical's image before the
// visited-set lookup, so the states it visits, counts and passes to Visit
// are representatives. Path still returns runs of the machine (see Path).
//
// The explorer knows nothing of the group: the machine keeps it.
type Symmetric interface {
	// Canonical appends to dst a state of the orbit of s and returns the
	// extended slice. It must map every state of one orbit to a state of
	// that orbit; the fewer distinct images an orbit has, the smaller the
	// search (one, for an exact canonical form). It may be called during
	// Successors, on the successor being emitted, so it uses scratch
	// space of its own.
	Canonical(dst, s []byte) []byte

	// Transfer appends to dst the image g(s) of s under a symmetry g with
	// g(from) = to, and returns the extended slice; from and to are in
	// one orbit.
	Transfer(dst, from, to, s []byte) []byte

	// Symmetric reports whether the machine has a group to reduce by (a
	// machine whose program has none implements the interface all the
	// same).
	Symmetric() bool
}

// Unreduced is implemented by a machine whose Successors are a reduced
// set (a partial-order reduction's ample set) chosen in a way its symmetry
// does not preserve, say the first thread by index with an invisible step:
// the image of a reduced step is then a step of the machine, but not always
// one of the reduced steps of the image state. AllSuccessors emits every
// successor, as Successors would without the reduction, with the same
// labels; that relation is invariant under the symmetry. A run rebuilt
// through the symmetry (Search.Path) checks each step against it.
type Unreduced interface {
	AllSuccessors(s []byte, emit func(l Label, next []byte)) Pruned
}

// symmetryOf returns m's symmetry, if it has a nontrivial one, looking
// through Cloning's adapter.
func symmetryOf(m Machine) Symmetric {
	if c, ok := m.(interface{ unwrap() Machine }); ok {
		m = c.unwrap()
	}
	if s, ok := m.(Symmetric); ok && s.Symmetric() {
		return s
	}
	return nil
}

func (c cloning[M]) unwrap() Machine { return c.m }

// reduced is the machine a search with symmetry runs: m with the initial
// state and every successor replaced by its canonical image.
type reduced struct {
	m   Machine
	sym Symmetric
	buf []byte
}

// Reduced returns the machine that a search with Options.Symmetry explores
// in place of m: m with the initial state and every successor replaced by
// its canonical image (Symmetric.Canonical), labels and ordinals unchanged;
// m itself when it has no group. The processes that expand a remote
// search's levels (Options.Remote) expand it, so that a search reduced by
// symmetry on a cluster is the one a single process runs.
func Reduced(m Machine) Machine { return newReduced(m) }

func newReduced(m Machine) Machine {
	sym := symmetryOf(m)
	if sym == nil {
		return m
	}
	if _, ok := m.(Cloner); ok {
		return &reducedCloner{reduced{m: m, sym: sym}}
	}
	return &reduced{m: m, sym: sym}
}

// reducedCloner is reduced over a Cloner.
type reducedCloner struct{ reduced }

func (r *reduced) Initial(dst []byte) []byte {
	r.buf = r.m.Initial(r.buf[:0])
	return r.sym.Canonical(dst, r.buf)
}

func (r *reduced) Successors(s []byte, emit func(Label, []byte)) Pruned {
	return r.m.Successors(s, func(l Label, next []byte) {
		r.buf = r.sym.Canonical(r.buf[:0], next)
		emit(l, r.buf)
	})
}

// Clone clones m and, when it is a Symmetric of its own (the same object),
// its symmetry with it.
func (r *reducedCloner) Clone() Machine {
	m := r.m.(Cloner).Clone()
	sym := symmetryOf(m)
	if sym == nil {
		return m
	}
	return &reducedCloner{reduced{m: m, sym: sym}}
}

// realPath turns a path of a reduced search (canonical states, each
// successor ord of the previous one's canonical state) into a run of the
// machine: it follows the same steps from the real initial state, each
// step the image of the recorded one under the symmetry that maps the
// recorded (canonical) state to the real one, and finds the label of that
// real transition among the real state's successors.
func realPath(m Machine, sym Symmetric, ords []uint32) ([]Step, error) {
	real := m.Initial(nil)
	canon := sym.Canonical(nil, real)
	path := []Step{{State: real}}
	var (
		want   uint32
		seen   uint32
		found  []byte
		target []byte
		label  Label
		ok     bool
	)
	for i := len(ords) - 1; i >= 0; i-- {
		want, seen, found = ords[i], 0, nil
		m.Successors(canon, func(_ Label, next []byte) {
			if seen == want {
				found = bytes.Clone(next)
			}
			seen++
		})
		if found == nil {
			return nil, fmt.Errorf("explore: replayed step %d emitted %d successors, want more than %d; is the machine deterministic?",
				len(path), seen, want)
		}
		target = sym.Transfer(target[:0], canon, real, found)
		ok = false
		all := m.Successors
		if u, isU := sym.(Unreduced); isU { // sym is the machine itself, unwrapped
			all = u.AllSuccessors
		}
		all(real, func(l Label, next []byte) {
			if !ok && bytes.Equal(next, target) {
				label, ok = l, true
			}
		})
		if !ok {
			return nil, errors.New("explore: symmetry: the image of a recorded step is not a step of the machine (the machine is not invariant under its symmetry)")
		}
		real = bytes.Clone(target)
		canon = sym.Canonical(nil, found)
		path = append(path, Step{Label: label, State: real})
	}
	return path, nil
}
