package instr

import (
	"bytes"
	"slices"

	"rdmasim/explore/cover"
	"rdmasim/opsem/prog"
)

// Symmetry reduction of the instrumented machine (issue 20). A verified
// group of the program (prog.FindSymmetry) permutes identical threads with
// their locations and queue pairs; the instrumentation is defined
// thread-wise and location-wise, so the image of a state under a
// permutation is a state with the same future up to the permutation, and a
// target (a cycle in the thread graph, guesses equal to M1) is mapped to a
// target. The permutation acts on every thread-indexed and
// location-indexed component of the encoding: thread records move (their
// exit location renamed, their succ bits permuted), each thread's entry
// classes move with it and are renamed bit by bit, queue-pair flags and
// poll counters move with their queue pair, M1, M2, G and their flags move
// with their location.
//
// Remote atomics (atomic.go) add per-location state, lk and a2, kept in
// the location's fourth byte with w2 and gset, so it moves with its
// location; and a pending atomic's location, kept in its thread's val
// (pend), renamed as the exit's location is. prog.FindSymmetry gives
// programs with atomics no group (the queue-pair machine keeps the lock in
// its B3 entries, which its symmetry does not permute): AtomicsSymmetry
// is the instrumented machine's group for them.
//
// Canonical sorts the instances of each group by their bytes (thread
// record, entry classes, queue pairs, locations), ties kept in index order:
// a cheap form, not the orbit's least image (locations named inside the
// bytes are absolute), but an image of the state, which is what soundness
// needs. Eager guessing (Options.EagerGuess) numbers guesses by location,
// which a permutation breaks: UseSymmetry is then a no-op.

// symmetry is the instrumented machine's group and scratch space; each
// clone of the machine has its own.
type symmetry struct {
	sym   *prog.Symmetry
	r     prog.Renaming
	perms [][]int
	keys  [][]byte
	order []int
	all   []prog.Renaming // the group's elements, for Transfer (made when first needed)
}

// UseSymmetry makes the machine reduce by sym (nil: none). Explore's
// searches use it when their settings ask for symmetry.
func (m *Machine) UseSymmetry(sym *prog.Symmetry) {
	if sym == nil || len(sym.Groups) == 0 || m.opt.EagerGuess {
		m.sym = nil
		return
	}
	m.sym = &symmetry{sym: sym}
	m.sym.init(m.p)
}

func (s *symmetry) init(p *prog.Program) {
	s.r = prog.Identity(p)
	s.perms = make([][]int, len(s.sym.Groups))
	for gi := range s.sym.Groups {
		s.perms[gi] = make([]int, s.sym.Groups[gi].Instances())
	}
}

// clone returns a copy with its own scratch space.
func (s *symmetry) clone(p *prog.Program) *symmetry {
	if s == nil {
		return nil
	}
	c := &symmetry{sym: s.sym, all: s.all}
	c.init(p)
	return c
}

// Symmetric reports whether the machine reduces by a group.
func (m *Machine) Symmetric() bool { return m.sym != nil }

// Canonical appends to dst the image of s under the permutation that sorts
// each group's instances by their bytes.
func (m *Machine) Canonical(dst, s []byte) []byte {
	y := m.sym
	if y == nil {
		return append(dst, s...)
	}
	moved := false
	for gi := range y.sym.Groups {
		g := &y.sym.Groups[gi]
		n := g.Instances()
		for len(y.keys) < n {
			y.keys = append(y.keys, nil)
		}
		for i := 0; i < n; i++ {
			y.keys[i] = m.instanceKey(y.keys[i][:0], s, g, i)
		}
		var mv bool
		y.order, mv = prog.SortPerm(y.keys[:n], y.order, y.perms[gi])
		moved = moved || mv
	}
	if !moved {
		return append(dst, s...)
	}
	y.sym.RenamingInto(m.p, y.perms, &y.r)
	return m.permute(dst, s, &y.r)
}

// instanceKey appends the bytes of instance i of g in s.
func (m *Machine) instanceKey(dst, s []byte, g *prog.Group, i int) []byte {
	t := g.Threads[i]
	dst = append(dst, s[t*m.thLen:(t+1)*m.thLen]...)
	ent := m.nt * m.thLen
	dst = append(dst, s[ent+t*m.entBytes:ent+(t+1)*m.entBytes]...)
	qs := ent + m.nt*m.entBytes
	for _, q := range g.QPs[i] {
		if q >= 0 {
			dst = append(dst, s[qs+q])
		}
	}
	ls := qs + m.nq
	for _, l := range g.Locs[i] {
		dst = append(dst, s[ls+4*l:ls+4*l+4]...)
	}
	return dst
}

// permute appends to dst the image of the encoding s under r.
func (m *Machine) permute(dst, s []byte, r *prog.Renaming) []byte {
	n := len(dst)
	dst = append(dst, s...)
	e := dst[n:]
	for t := 0; t < m.nt; t++ {
		src := s[t*m.thLen : (t+1)*m.thLen]
		out := e[r.Thread[t]*m.thLen : (r.Thread[t]+1)*m.thLen]
		copy(out[:5], src[:5])
		if src[2]&(8|16) != 0 { // exit.r or exit.w: the exit's location matters
			out[4] = uint8(r.Loc[src[4]])
		}
		if src[2]&64 != 0 { // pend: val is the pending atomic's location
			out[3] = uint8(r.Loc[src[3]])
		}
		var succ, img uint64
		for k := 0; k < m.succN; k++ {
			succ |= uint64(src[5+k]) << (8 * k)
		}
		for u := 0; succ != 0; u++ {
			if succ&1 != 0 {
				img |= 1 << r.Thread[u]
			}
			succ >>= 1
		}
		for k := 0; k < m.succN; k++ {
			out[5+k] = uint8(img >> (8 * k))
		}
	}
	ent := m.nt * m.thLen
	for t := 0; t < m.nt; t++ {
		src := s[ent+t*m.entBytes : ent+(t+1)*m.entBytes]
		out := e[ent+r.Thread[t]*m.entBytes : ent+(r.Thread[t]+1)*m.entBytes]
		for i := range out {
			out[i] = 0
		}
		for b := 0; b < 2*m.nl; b++ {
			if src[b/8]&(1<<(b%8)) != 0 {
				c := 2*r.Loc[b/2] + b%2
				out[c/8] |= 1 << (c % 8)
			}
		}
	}
	qs := ent + m.nt*m.entBytes
	for q := 0; q < m.nq; q++ {
		e[qs+r.QP[q]] = s[qs+q]
	}
	ls := qs + m.nq
	for l := 0; l < m.nl; l++ {
		copy(e[ls+4*r.Loc[l]:ls+4*r.Loc[l]+4], s[ls+4*l:ls+4*l+4])
	}
	cs := ls + 4*m.nl
	for q := 0; q < m.nq; q++ {
		c, c2 := m.ctr[q], m.ctr[r.QP[q]]
		if c < 0 {
			continue
		}
		copy(e[cs+cover.CounterBytes*c2:cs+cover.CounterBytes*(c2+2)], s[cs+cover.CounterBytes*c:cs+cover.CounterBytes*(c+2)])
	}
	return dst
}

// Transfer appends to dst g(s) for an element g of the group with
// g(from) = to, found among the group's elements.
func (m *Machine) Transfer(dst, from, to, s []byte) []byte {
	y := m.sym
	if y == nil {
		return append(dst, s...)
	}
	if y.all == nil {
		y.sym.Permutations(m.p, func(r prog.Renaming) bool {
			y.all = append(y.all, r)
			return true
		})
	}
	var img []byte
	for i := range y.all {
		img = m.permute(img[:0], from, &y.all[i])
		if bytes.Equal(img, to) {
			return m.permute(dst, s, &y.all[i])
		}
	}
	panic("instr: Transfer between states of different orbits")
}

// AtomicsSymmetry returns the verified symmetry group of a program with
// remote atomics for the instrumented machine (nil when there is none),
// which prog.FindSymmetry refuses for every program with atomics. The
// candidate groups are prog.FindSymmetry's on a copy of p whose atomics are
// written as gets (rcas) and puts (rfaa) with the same operands; each is
// then verified on p itself, as prog verifies a group: p is invariant
// (prog.Renaming.Invariant, which compares an atomic with an atomic of the
// same kind, its values and its renamed locations, node and queue pair)
// under the transpositions of the group's instance 0 with each other
// instance, which generate the group. A group that fails is dropped.
func AtomicsSymmetry(p *prog.Program) *prog.Symmetry {
	if !prog.HasAtomics(p) {
		return nil
	}
	shadow := *p
	shadow.Threads = slices.Clone(p.Threads)
	for t := range shadow.Threads {
		code := slices.Clone(shadow.Threads[t].Code)
		for pc := range code {
			switch code[pc].Op {
			case prog.OpRCAS:
				code[pc].Op = prog.OpGet
			case prog.OpRFAA:
				code[pc].Op = prog.OpPut
			}
		}
		shadow.Threads[t].Code = code
	}
	sym, _ := prog.FindSymmetry(&shadow)
	if sym == nil {
		return nil
	}
	out := &prog.Symmetry{}
	for gi := range sym.Groups {
		one := &prog.Symmetry{Groups: sym.Groups[gi : gi+1]}
		n := sym.Groups[gi].Instances()
		ok := true
		for j := 1; j < n && ok; j++ {
			perm := make([]int, n)
			for i := range perm {
				perm[i] = i
			}
			perm[0], perm[j] = j, 0
			r := one.Renaming(p, [][]int{perm})
			ok = r.Invariant(p) == nil
		}
		if ok {
			out.Groups = append(out.Groups, sym.Groups[gi])
		}
	}
	if len(out.Groups) == 0 {
		return nil
	}
	return out
}
