package instr

import "rdmasim/opsem/prog"

// rec is an SC-cycle exit point of a thread, or an event considered as one.
type rec struct {
	set   bool
	loc   uint8
	r, w  bool // the event reads / writes loc
	part2 bool // the event is in τ2
}

// linked reports whether an exit x and an entry y can be joined by rf, mo
// or rb (given x <τ y): same location, and one of them writes. An exit
// whose class was forgotten (neither r nor w, see canonCycle) links to
// nothing.
func linked(x, y rec) bool { return x.loc == y.loc && (x.w || y.w) && (x.r || x.w) }

// linkedSet reports whether exit x is linked to some class of the entry
// candidate set ent: bit 2l stands for a read of location l, bit 2l+1 for
// a write.
func linkedSet(x rec, ent []byte) bool {
	rb, wb := 2*int(x.loc), 2*int(x.loc)+1
	r := ent[rb/8]&(1<<(rb%8)) != 0
	w := ent[wb/8]&(1<<(wb%8)) != 0
	return w || x.w && r
}

// addClass adds the classes of event r to the candidate set ent.
func addClass(ent []byte, r rec) {
	if r.r {
		b := 2 * int(r.loc)
		ent[b/8] |= 1 << (b % 8)
	}
	if r.w {
		b := 2*int(r.loc) + 1
		ent[b/8] |= 1 << (b % 8)
	}
}

// Target reports whether s is a target state: every fixed boundary guess
// equals τ1's memory, and the recorded SC-cycle edges form a cycle.
func (m *Machine) Target(s []byte) bool {
	// Without SC-cycle edges there is no cycle: look at the threads'
	// edge bytes (see encode) before decoding anything.
	edges := false
	for t := 0; t < m.nt && !edges; t++ {
		for _, b := range s[t*m.thLen+5 : t*m.thLen+5+m.succN] {
			edges = edges || b != 0
		}
	}
	if !edges {
		return false
	}
	st := m.st
	m.Decode(s, st)
	return m.target(st)
}

func (m *Machine) target(st *State) bool {
	edges := false
	for t := range st.th {
		if st.th[t].succ != 0 {
			edges = true
			break
		}
	}
	if !edges {
		return false
	}
	for l := range st.gset {
		if st.gset[l] && st.g[l] != st.m1[l] {
			return false
		}
	}
	return m.cycle(st) != nil
}

// cycle returns the threads of a shortest cycle of SC-cycle edges, in
// order, or nil (prog.ShortestCycle picks which).
func (m *Machine) cycle(st *State) []int {
	return prog.ShortestCycle(m.nt, func(x, y int) bool { return st.th[x].succ&(1<<y) != 0 })
}
