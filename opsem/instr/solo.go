package instr

import (
	"math/bits"

	"rdmasim/opsem/prog"
)

// The last writers of τ1 interpreted. valuesLeft over-approximates the
// values the threads may still write in τ1 flow-insensitively: every
// constant of every instruction from a thread's pc on, and every copy
// closed over all threads at once. On a program specialised by its
// values (a protocol's v := d + 1 becomes a switch on d with one constant
// write per value) that is every value of the domain, so a boundary guess
// of a shared counter stays alive, whatever its value, until the last τ1
// writer has passed its increment: on the spin locks of corpus/bench and
// corpus/protocols nearly every state held such a guess.
//
// Let W be the threads that can still put events in τ1 (every other is
// ended, frozen, or has a CPU event in τ2, after which none of its events
// joins τ1: allowed). M1 changes only by τ1 writes of W's threads, and a
// τ1 read returns M1's value at its place in the generation order. (A
// value read in τ2 reaches a τ1 write only through M1 or not at all: a CPU
// read in τ2 sets cpu2, and the second event of a get or remote atomic
// whose first joined τ2 is kept out of τ1 by the queue pair's oppo, which
// valuesLeft's copies assume already.) So soloValues runs W's remaining
// code abstractly over the product of their positions (soloRun): per node
// a set of values per location, from M1 now; each node steps each thread
// of W; every write a weak update (the event may join τ2 and leave M1 as it
// is); an assume or a switch alternative followed only where the location
// may hold its value (if M1 holds another, the read joins τ2 and the thread
// writes nothing more in τ1: it stays at its position, the others go on).
// Every τ1 run from the state is a path of the product (up to the
// commuting private steps of soloPrivate) whose sets hold M1's values
// along it, so the writes met are every value W may still write in τ1: a
// guess outside them is dead, as one outside valuesLeft's is
// (guessesAlive). Unlike valuesLeft, a thread's own later writes never
// feed its earlier reads, which is what stops the counter's values from
// climbing through the domain.
//
// Programs with registers kept at run time (a load in τ2 stores its value
// in M1) keep valuesLeft, and so does every program under
// Options.NoReduction (solo is false) and, so that the pinned reports of
// programs without atomics keep their counts, every program without
// remote atomics. TestSoloValuesCover checks soloValues against the τ1
// writes of the runs of the NoReduction machine.

// soloLimit bounds the product soloValues explores (its nodes: one per
// tuple of the writers' positions), and 4*soloLimit the expansions of its
// nodes (a node is expanded again when its sets grow); past either, or
// with more than three writers, valuesLeft answers instead. The bounds
// keep its cost near the states it saves: with 4,096 and four writers, a
// generated program of four threads around an rfaa loop (fuzz program
// seed 0x215e38b864239e0) took 18 s of CPU for 100,000 states against
// 0.8 s without soloValues; the spin lock of corpus/bench at N = 3 needs
// three writers and stores 185,698 states (as many with 4,096).
const soloLimit = 1024

// soloDenseMax bounds the dense table soloRun numbers its nodes by: one
// int32 per tuple of the writers' positions, 4 MB per machine clone.
const soloDenseMax = 1 << 20

// soloValues fills vals (zeroed, m.nl entries) with the values the threads
// of s that may still put events in τ1, ws (bit t), may still write in τ1
// (see above); false when it cannot tell (an instruction it does not
// interpret, more than three writers, or past soloLimit), and then vals
// is garbage. Its answers are cached per writers' positions and M1 where
// they may still read.
func (m *Machine) soloValues(s *State, ws uint64, vals []valset) bool {
	ts := m.soloTs[:0]
	key := m.soloKey[:0]
	rd := m.soloRd
	clear(rd)
	for t := range s.th {
		if ws&(1<<t) != 0 {
			th := &s.th[t]
			ts = append(ts, t)
			key = append(key, uint8(t), uint8(th.pc>>8), uint8(th.pc), th.val, b2u(th.mid))
			r, _ := m.future(s, t)
			for i := range rd {
				rd[i] |= r[i]
			}
		}
	}
	m.soloTs = ts
	// M1 matters where the writers may still read (soloRun sets the
	// others' sets to their M1 value too, which no step consults).
	for l := 0; l < m.nl; l++ {
		if bit(rd, l) {
			key = append(key, s.m1[l])
		} else {
			key = append(key, 0)
		}
	}
	m.soloKey = key
	if c, ok := m.soloCache[string(key)]; ok {
		copy(vals, c)
		return c != nil
	}
	ok := m.soloRun(s, ts, vals)
	if len(m.soloCache) > 1<<16 {
		clear(m.soloCache)
	}
	if ok {
		m.soloCache[string(key)] = append([]valset(nil), vals...)
	} else {
		m.soloCache[string(key)] = nil
	}
	return ok
}

// soloRun is soloValues' product: a node per tuple of the positions of the
// threads ts (-1 once a thread has ended), with the sets of values M1 may
// hold there; each node steps each thread in turn.
func (m *Machine) soloRun(s *State, ts []int, vals []valset) bool {
	nl, k := m.nl, len(ts)
	if k > 3 {
		return false // too many interleavings (and positions are packed in a uint64 below)
	}
	if m.soloIndex == nil {
		m.soloIndex = map[uint64]int{}
	}
	index := m.soloIndex
	clear(index)
	// Nodes are numbered through a dense table of position tuples when
	// the product of the threads' code lengths is small (a spin lock's,
	// lowered, is), else through index; dense holds a node's number plus
	// one, and the entries a run set are zeroed at its end.
	stride := m.soloStride[:0]
	size := 1
	for _, t := range ts {
		stride = append(stride, size)
		if size *= len(m.p.Threads[t].Code) + 1; size > soloDenseMax {
			break
		}
	}
	m.soloStride = stride
	useDense := size <= soloDenseMax
	if useDense && len(m.soloDense) < size {
		m.soloDense = make([]int32, size)
	}
	dense := m.soloDense
	slot := func(at []int) uint64 {
		var key uint64
		if useDense {
			for i, pc := range at {
				key += uint64(pc+1) * uint64(stride[i])
			}
			return key
		}
		for _, pc := range at {
			key = key<<16 | uint64(uint16(pc))
		}
		return key
	}
	// work is a queue (breadth first: a node's store grows from all its
	// predecessors before it is expanded, fewer expansions); queued[n]
	// keeps n in it once.
	pcs, stores, work, queued := m.soloPCs[:0], m.soloIn[:0], m.soloWork[:0], m.soloQueued[:0]
	defer func() { m.soloPCs, m.soloIn, m.soloWork, m.soloQueued = pcs, stores, work, queued }()
	nodes := 0
	if useDense {
		defer func() {
			for n := 0; n < nodes; n++ {
				dense[slot(pcs[n*k:(n+1)*k])] = 0
			}
		}()
	}
	join := func(at []int, st []valset) bool {
		key := slot(at)
		var n int
		var seen bool
		if useDense {
			n, seen = int(dense[key])-1, dense[key] != 0
		} else {
			n, seen = index[key]
		}
		if !seen {
			if nodes >= soloLimit {
				return false
			}
			n = nodes
			nodes++
			if useDense {
				dense[key] = int32(n + 1)
			} else {
				index[key] = n
			}
			pcs = append(pcs, at...)
			for l := 0; l < nl; l++ {
				stores = append(stores, st[l])
			}
			work, queued = append(work, n), append(queued, true)
			return true
		}
		grew := false
		for l := 0; l < nl; l++ {
			if stores[n*nl+l].or(&st[l]) {
				grew = true
			}
		}
		if grew && !queued[n] {
			work, queued[n] = append(work, n), true
		}
		return true
	}
	write := func(st []valset, l int, v uint8) {
		st[l].add(v)
		vals[l].add(v)
	}
	st := make([]valset, nl)
	for l := 0; l < nl; l++ {
		st[l].add(s.m1[l])
	}
	at := make([]int, k)
	for i, t := range ts {
		th := &s.th[t]
		at[i] = int(th.pc)
		if !th.mid {
			continue
		}
		in := &m.p.Threads[t].Code[th.pc]
		switch in.Op { // its second event writes th.val
		case prog.OpGet, prog.OpCAS, prog.OpRCAS, prog.OpRFAA:
			write(st, in.X, th.val)
		case prog.OpPut:
			write(st, in.Y, th.val)
		}
		at[i] = in.Next
	}
	if !join(at, st) {
		return false
	}
	for head := 0; head < len(work); head++ {
		if head >= 4*soloLimit {
			return false
		}
		n := work[head]
		queued[n] = false
		// A private step (see soloPrivate) alone, when some thread has one.
		only := -1
		for i, t := range ts {
			if pc := pcs[n*k+i]; pc >= 0 && m.soloPriv[t][pc] {
				only = i
				break
			}
		}
		for i, t := range ts {
			pc := pcs[n*k+i]
			if pc < 0 || only >= 0 && i != only {
				continue
			}
			copy(at, pcs[n*k:(n+1)*k])
			copy(st, stores[n*nl:(n+1)*nl])
			ok := true
			joined := false
			next := func(pc int, st []valset) {
				at[i], joined = pc, true
				ok = ok && join(at, st)
			}
			if !m.soloStep(&m.p.Threads[t].Code[pc], m.onCycle[t][pc], st, vals, write, next) || !ok {
				return false
			}
			if i == only && !joined {
				// blocked for ever: the others go on
				at[i] = -1
				if !join(at, st) {
					return false
				}
			}
		}
	}
	return true
}

// soloPrivate computes soloPriv: per thread and instruction, whether the
// instruction is a private step for soloRun's product: every location it
// accesses is accessed by no other thread, and it lies on no cycle of the
// thread's control flow made of such instructions only. Such a step
// commutes with every step of the others (it reads and writes what they
// neither read nor write, and they cannot enable or disable it), so
// soloRun takes it alone where some thread has one, as the partial-order
// reduction takes a local step (local): the values written on the
// interleavings it skips are written on those it keeps. As every cycle
// through it has a step that is not private (a loop's poll is private
// when the loop also reads a shared lock), a thread takes finitely many
// private steps in a row, so every other thread moves eventually; one
// that blocks (an assume no value passes, for ever since no other thread
// writes its location) counts as ended.
func (m *Machine) soloPrivate() {
	by := make([]uint64, m.nl) // threads whose code accesses l
	for t := range m.p.Threads {
		th := &m.p.Threads[t]
		for l := 0; l < m.nl; l++ {
			if bit(m.futR[t][th.Entry], l) || bit(m.futW[t][th.Entry], l) {
				by[l] |= 1 << t
			}
		}
	}
	m.soloPriv = make([][]bool, m.nt)
	for t := range m.p.Threads {
		code := m.p.Threads[t].Code
		m.soloPriv[t] = make([]bool, len(code))
		for pc := range code {
			in := &code[pc]
			var locs []int
			switch in.Op {
			case prog.OpWrite, prog.OpAssumeEq, prog.OpAssumeNe, prog.OpSwitch:
				locs = []int{in.X}
			case prog.OpCAS:
				locs = []int{in.X, in.Z}
			case prog.OpGet, prog.OpPut, prog.OpRCAS, prog.OpRFAA:
				locs = []int{in.X, in.Y}
			case prog.OpSkip, prog.OpPoll, prog.OpRFence, prog.OpBranch:
			default:
				continue
			}
			priv := true
			for _, l := range locs {
				priv = priv && by[l]&^(1<<t) == 0
			}
			m.soloPriv[t][pc] = priv
		}
		privateCycles(code, m.soloPriv[t])
	}
}

// privateCycles clears priv[pc] for every instruction of code that lies on
// a cycle of the control-flow graph restricted to the instructions priv
// marks (a loop a thread could go round for ever by private steps alone).
func privateCycles(code []prog.Instr, priv []bool) {
	on := make([]bool, len(code))
	seen := make([]bool, len(code))
	var stack []int
	for pc := range code {
		if !priv[pc] {
			continue
		}
		clear(seen)
		stack = append(stack[:0], code[pc].Succ()...)
		for len(stack) > 0 && !seen[pc] {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[j] || !priv[j] {
				continue
			}
			seen[j] = true
			stack = append(stack, code[j].Succ()...)
		}
		on[pc] = seen[pc]
	}
	for pc := range code {
		if on[pc] {
			priv[pc] = false
		}
	}
}

// soloStep interprets instruction i from the sets st (its own copy) for
// soloValues; false for an instruction it does not interpret. An rfaa on
// a cycle of its thread's control flow (cyc) writes every value its
// location can hold at once (as valuesLeft has it): adding one value per
// round of the loop would take the product round it up to 256 times.
func (m *Machine) soloStep(i *prog.Instr, cyc bool, st, vals []valset, write func([]valset, int, uint8), join func(int, []valset)) bool {
	copyTo := func(dst, src int) {
		from := st[src]
		st[dst].or(&from)
		vals[dst].or(&from)
	}
	switch i.Op {
	case prog.OpEnd, prog.OpFail:
		join(-1, st) // the thread has ended; the others go on
		return true
	case prog.OpSkip, prog.OpPoll, prog.OpRFence:
	case prog.OpWrite:
		write(st, i.X, i.A)
	case prog.OpAssumeEq:
		if !st[i.X].has(i.A) {
			return true
		}
	case prog.OpAssumeNe:
		if st[i.X] == (valset{}) || only(&st[i.X], i.A) {
			return true
		}
	case prog.OpBranch:
		for _, a := range i.Alts {
			join(a, st)
		}
		return true
	case prog.OpSwitch:
		// The values the location may hold, in increasing order (as a
		// loop over i.Case would meet them, at a cost per value held).
		x := st[i.X]
		for w := range x {
			for b := x[w]; b != 0; b &= b - 1 {
				v := 64*w + bits.TrailingZeros64(b)
				if v < len(i.Case) && i.Case[v] >= 0 {
					join(i.Alts[i.Case[v]], st)
				}
			}
		}
		return true
	case prog.OpGet:
		copyTo(i.X, i.Y)
	case prog.OpPut:
		copyTo(i.Y, i.X)
	case prog.OpCAS, prog.OpRCAS, prog.OpRFAA:
		y := i.Y
		if i.Op == prog.OpCAS {
			y = i.Z
		}
		old := st[y]
		switch {
		case i.Op == prog.OpRFAA && cyc:
			for _, v := range m.domain[y] {
				write(st, y, v)
			}
		case i.Op == prog.OpRFAA:
			for w := range old {
				for b := old[w]; b != 0; b &= b - 1 {
					write(st, y, uint8(64*w+bits.TrailingZeros64(b))+i.A)
				}
			}
		case old.has(i.A):
			write(st, y, i.B)
		}
		st[i.X].or(&old)
		vals[i.X].or(&old)
	default:
		return false
	}
	join(i.Next, st)
	return true
}

// only reports whether v holds x and nothing else.
func only(v *valset, x uint8) bool {
	var o valset
	o.add(x)
	return *v == o
}
