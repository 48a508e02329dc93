package machine

import (
	"bytes"

	"rdmasim/opsem/prog"
)

// Symmetry reduction of the RDMA and SC machines (issue 20; see
// docs/SYMMETRY.md). A verified group of the program (prog.FindSymmetry)
// permutes identical threads with their nodes, locations and queue pairs,
// and every rule of the machines is defined thread-wise, queue-pair-wise
// and location-wise, so the image of a configuration under a permutation
// is a configuration with the same future up to the permutation (the
// initial configuration is its own image). The permutation acts on every
// indexed part of the encoding: memory moves with its location, a
// thread's pc, carried value and loop counters with its thread, a queue
// pair's unpolled count and buffers with its queue pair, and the locations
// named inside buffer entries (a put's source and target, a get's, a
// pending remote or local write's) are renamed. Ranks are relative to
// their queue pair and move unchanged.
//
// Canonical sorts the instances of each group by their bytes (thread pc
// and carried value, its loop counters, its queue pairs' buffers with the
// locations of the instance written relative to it, its locations'
// values), ties kept in index order, and applies that one permutation to
// the whole configuration. The result is an image of the configuration
// (which is what soundness needs), not the orbit's least one.
//
// Event graphs (Options.Graph) number events by creation and relate them
// by index; permuting them would mean renumbering every edge, so a machine
// with graphs has no symmetry (robustness by enumeration is not reduced).
// Remote atomics never get a group (prog.FindSymmetry). A location set
// dead (Options.Dead) must be dead in every image: a group under which the
// dead set is not invariant is dropped.
//
// Soundness with Options.Reduce: the configurations the reduced machine
// expands are settled (no invisible step enabled), and the invisible steps
// commute and disable nothing, so the settled configuration a step leads
// to is unique whatever order settling takes them in; the successors of a
// settled configuration are thus the images of those of its image.
type symmetry struct {
	sym      *prog.Symmetry
	r, inv   prog.Renaming
	perms    [][]int
	invPerms [][]int
	keys     [][]byte
	order    []int
	src, out *State
	rel      [][]int16 // per group, per location: its position in its instance's Locs, or -1
	relInst  [][]int16 // per group, per location: its instance, or -1
	all      []prog.Renaming
}

// UseSymmetry makes the machine reduce by sym (nil: none): Canonical and
// Transfer then act by its permutations, and explore's searches with
// symmetry store one configuration per orbit. A machine with event graphs
// takes none; groups under which the dead locations are not invariant are
// left out.
func (m *Machine) UseSymmetry(sym *prog.Symmetry) {
	m.sym = nil
	if sym == nil || len(sym.Groups) == 0 || m.graph || len(m.atoms) > 0 {
		return
	}
	kept := &prog.Symmetry{}
	for gi := range sym.Groups {
		g := &sym.Groups[gi]
		one := &prog.Symmetry{Groups: []prog.Group{*g}}
		ok := true
		for j := 1; j < g.Instances() && ok; j++ {
			perm := make([]int, g.Instances())
			for i := range perm {
				perm[i] = i
			}
			perm[0], perm[j] = j, 0
			r := one.Renaming(m.p, [][]int{perm})
			for l := range m.dead {
				if m.dead[l] != m.dead[r.Loc[l]] {
					ok = false
					break
				}
			}
		}
		if ok {
			kept.Groups = append(kept.Groups, *g)
		}
	}
	if len(kept.Groups) == 0 {
		return
	}
	m.sym = &symmetry{sym: kept}
	m.sym.init(m)
}

func (y *symmetry) init(m *Machine) {
	y.r, y.inv = prog.Identity(m.p), prog.Identity(m.p)
	y.perms = make([][]int, len(y.sym.Groups))
	y.invPerms = make([][]int, len(y.sym.Groups))
	y.rel = make([][]int16, len(y.sym.Groups))
	y.relInst = make([][]int16, len(y.sym.Groups))
	for gi := range y.sym.Groups {
		g := &y.sym.Groups[gi]
		y.perms[gi] = make([]int, g.Instances())
		y.invPerms[gi] = make([]int, g.Instances())
		rel := make([]int16, len(m.p.Locs))
		inst := make([]int16, len(m.p.Locs))
		for l := range rel {
			rel[l], inst[l] = -1, -1
		}
		for i := range g.Locs {
			for k, l := range g.Locs[i] {
				rel[l], inst[l] = int16(k), int16(i)
			}
		}
		y.rel[gi], y.relInst[gi] = rel, inst
	}
	y.src, y.out = m.newState(), m.newState()
}

// Symmetric reports whether the machine reduces by a group (it implements
// explore.Symmetric).
func (m *Machine) Symmetric() bool { return m.sym != nil }

// Symmetry returns the group the machine reduces by, nil for none.
func (m *Machine) Symmetry() *prog.Symmetry {
	if m.sym == nil {
		return nil
	}
	return m.sym.sym
}

// Canonical appends to dst the image of s under the permutation that sorts
// each group's instances by their bytes.
func (m *Machine) Canonical(dst, s []byte) []byte {
	y := m.sym
	if y == nil {
		return append(dst, s...)
	}
	m.decode(s, y.src)
	if !m.sortPerms(y.src) {
		return append(dst, s...)
	}
	y.sym.RenamingInto(m.p, y.perms, &y.r)
	m.permuteState(y.out, y.src, &y.r)
	return m.encode(dst, y.out)
}

// sortPerms sets y.perms to the permutations sorting each group's
// instances of st by their keys, and reports whether any moves one.
func (m *Machine) sortPerms(st *State) bool {
	y := m.sym
	moved := false
	for gi := range y.sym.Groups {
		g := &y.sym.Groups[gi]
		n := g.Instances()
		for len(y.keys) < n {
			y.keys = append(y.keys, nil)
		}
		for i := 0; i < n; i++ {
			y.keys[i] = m.instanceKey(y.keys[i][:0], st, gi, i)
		}
		var mv bool
		y.order, mv = prog.SortPerm(y.keys[:n], y.order, y.perms[gi])
		moved = moved || mv
	}
	return moved
}

// instanceKey appends the bytes of instance i of group gi in st: its
// thread's pc and carried value, its loop counters, its queue pairs (their
// entries' locations of the instance written by their position in it, the
// others absolute), and its locations' values.
func (m *Machine) instanceKey(dst []byte, st *State, gi, i int) []byte {
	y := m.sym
	g := &y.sym.Groups[gi]
	t := g.Threads[i]
	hi := uint8(st.pc[t] >> 8)
	if st.mid[t] {
		hi |= 0x80
	}
	dst = append(dst, hi, uint8(st.pc[t]), st.reg[t])
	if m.opt.Unroll > 0 {
		dst = append(dst, st.ctr[m.ctr0[t]:m.ctr0[t]+m.p.Threads[t].Loops]...)
	}
	loc := func(dst []byte, l uint8) []byte {
		if int(y.relInst[gi][l]) == i {
			return append(dst, 1, uint8(y.rel[gi][l]))
		}
		return append(dst, 0, l)
	}
	for _, qi := range g.QPs[i] {
		if qi < 0 {
			continue
		}
		q := &st.q[qi]
		dst = append(dst, q.npend)
		if m.sc {
			continue
		}
		for b := range q.buf {
			dst = append(dst, uint8(len(q.buf[b])))
			for _, e := range q.buf[b] {
				a, bb := entryLocs(b, e.kind)
				dst = append(dst, e.kind, e.v, e.rank)
				if a {
					dst = loc(dst, e.a)
				} else {
					dst = append(dst, 0, e.a)
				}
				if bb {
					dst = loc(dst, e.b)
				} else {
					dst = append(dst, 0, e.b)
				}
			}
		}
	}
	for _, l := range g.Locs[i] {
		dst = append(dst, st.mem[l])
	}
	return dst
}

// entryLocs reports which of an entry's fields a and b in buffer b name
// locations.
func entryLocs(b int, kind uint8) (a, bb bool) {
	switch b {
	case bufRW, bufLW:
		return true, false
	}
	switch kind {
	case kPut, kGet, kGetReq, kGetR, kGetRV:
		return true, true
	case kPutV, kPutI:
		return true, false
	case kFence, kAck:
		return false, false
	}
	// Remote atomics: a machine with them has no symmetry.
	panic("machine: symmetry: an atomic's entry")
}

// permuteState makes out the image of st under r.
func (m *Machine) permuteState(out, st *State, r *prog.Renaming) {
	for l := range st.mem {
		out.mem[r.Loc[l]] = st.mem[l]
	}
	for t := range st.pc {
		t2 := r.Thread[t]
		out.pc[t2], out.mid[t2], out.reg[t2] = st.pc[t], st.mid[t], st.reg[t]
		if m.opt.Unroll > 0 {
			n := m.p.Threads[t].Loops
			copy(out.ctr[m.ctr0[t2]:m.ctr0[t2]+n], st.ctr[m.ctr0[t]:m.ctr0[t]+n])
		}
	}
	for qi := range st.q {
		sq, dq := &st.q[qi], &out.q[r.QP[qi]]
		dq.npend = sq.npend
		for b := range sq.buf {
			dq.buf[b] = dq.buf[b][:0]
			for _, e := range sq.buf[b] {
				a, bb := entryLocs(b, e.kind)
				if a {
					e.a = uint8(r.Loc[e.a])
				}
				if bb {
					e.b = uint8(r.Loc[e.b])
				}
				dq.buf[b] = append(dq.buf[b], e)
			}
		}
	}
}

// Permute appends to dst the image of the configuration s under r (a
// renaming of the program, such as prog.Symmetry.Renaming returns).
func (m *Machine) Permute(dst, s []byte, r *prog.Renaming) []byte {
	src, out := m.newState(), m.newState()
	m.decode(s, src)
	m.permuteState(out, src, r)
	return m.encode(dst, out)
}

// Transfer appends to dst g(s) for an element g of the group with g(from)
// = to. When from is to's canonical image (as explore's paths have it), g
// is the inverse of the permutation that sorted to; otherwise it is found
// among the group's elements.
func (m *Machine) Transfer(dst, from, to, s []byte) []byte {
	y := m.sym
	if y == nil {
		return append(dst, s...)
	}
	m.decode(to, y.src)
	m.sortPerms(y.src)
	for gi := range y.perms {
		for i, j := range y.perms[gi] {
			y.invPerms[gi][j] = i
		}
	}
	y.sym.RenamingInto(m.p, y.invPerms, &y.inv)
	m.decode(from, y.src)
	m.permuteState(y.out, y.src, &y.inv)
	var img []byte
	if img = m.encode(nil, y.out); bytes.Equal(img, to) {
		m.decode(s, y.src)
		m.permuteState(y.out, y.src, &y.inv)
		return m.encode(dst, y.out)
	}
	if y.all == nil {
		y.sym.Permutations(m.p, func(r prog.Renaming) bool {
			y.all = append(y.all, r)
			return true
		})
	}
	for i := range y.all {
		m.decode(from, y.src)
		m.permuteState(y.out, y.src, &y.all[i])
		if img = m.encode(img[:0], y.out); bytes.Equal(img, to) {
			m.decode(s, y.src)
			m.permuteState(y.out, y.src, &y.all[i])
			return m.encode(dst, y.out)
		}
	}
	panic("machine: Transfer between configurations of different orbits")
}
