package reduce

import (
	"context"
	"fmt"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
)

// The RDMA machine of a generated PCP program has far too many
// configurations for an exhaustive search in a test (millions for a
// one-pair instance: four threads and six queue pairs interleave freely).
// guided explores the same machine under a scheduling discipline that keeps
// the run the reduction's completeness argument describes (deliver every
// remote write just when its receiver waits for it) and drops most
// interleavings:
//
//   - an enabled NIC step other than a write reaching memory (N1..N8: a put
//     reading its constant source, arriving, being acknowledged) is taken
//     alone, at once; they commute with every other step here, as put
//     sources are read-only;
//   - a choose or loop alternative is taken only once the first instruction
//     it leads to can run (an assume that holds, a switch with an
//     alternative for the value, or any other statement):
//     threads wait at a choice until the message that decides it arrives;
//   - otherwise the lowest-numbered thread with a CPU step moves;
//   - when no thread can move, only the writes reaching memory (F1) after
//     which some thread can move are delivered (all of them if none).
//
// Every configuration it reaches is reachable on the unrestricted machine
// (it only ever emits a subset of the machine's successors), so a witness it
// finds is a genuine RDMA run; not finding one proves nothing.
type guided struct {
	m        *machine.Machine
	p        *prog.Program
	kinds    map[uint64]moveKind // by label: the kind and thread of a label never change
	threads  map[uint64]int
	names    map[string]int
	cur, nxt *machine.State
	moves    []move
	arena    []byte // the successors' encodings, back to back
}

type moveKind uint8

const (
	mCPU      moveKind = iota // a thread's step
	mInternal                 // a NIC step that changes no memory
	mDeliver                  // a NIC write reaching memory
	mDead                     // a choice alternative that cannot go on yet
)

type move struct {
	label  uint64
	end    int // of next in the arena
	next   []byte
	kind   moveKind
	thread int
}

func newGuided(p *prog.Program, opt machine.Options) (*guided, error) {
	m, err := machine.New(p, machine.RDMA, opt)
	if err != nil {
		return nil, err
	}
	g := &guided{m: m, p: p, kinds: map[uint64]moveKind{}, threads: map[uint64]int{}, names: map[string]int{},
		cur: m.NewState(), nxt: m.NewState()}
	for i, th := range p.Threads {
		g.names[th.Name] = i
	}
	return g, nil
}

// Initial is the machine's initial configuration.
func (g *guided) Initial(dst []byte) []byte { return g.m.Initial(dst) }

// live reports whether thread t, at instruction pc, could run its next
// non-branch instruction in st.
func (g *guided) live(t, pc int, st *machine.State, depth int) bool {
	in := &g.p.Threads[t].Code[pc]
	switch in.Op {
	case prog.OpEnd:
		return false
	case prog.OpBranch:
		if depth > 8 {
			return true
		}
		for _, a := range in.Alts {
			if g.live(t, a, st, depth+1) {
				return true
			}
		}
		return false
	case prog.OpAssumeEq:
		return st.Mem(in.X) == in.A
	case prog.OpAssumeNe:
		return st.Mem(in.X) != in.A
	case prog.OpSwitch:
		return in.SwitchAlt(st.Mem(in.X)) >= 0
	}
	return true
}

func (g *guided) liveAt(t int, st *machine.State) bool {
	pc, _ := st.PC(t)
	return g.live(t, pc, st, 0)
}

// Successors emits the successors the discipline allows.
func (g *guided) Successors(s []byte, emit func(uint64, []byte)) uint32 {
	g.moves, g.arena = g.moves[:0], g.arena[:0]
	pruned := g.m.Successors(s, func(l uint64, next []byte) {
		g.arena = append(g.arena, next...)
		g.moves = append(g.moves, move{label: l, end: len(g.arena)})
	})
	start := 0
	for i := range g.moves {
		g.moves[i].next = g.arena[start:g.moves[i].end:g.moves[i].end]
		start = g.moves[i].end
	}
	g.m.Decode(s, g.cur)
	best := -1
	for i := range g.moves {
		mv := &g.moves[i]
		k, ok := g.kinds[mv.label]
		if !ok {
			tr := g.m.Explain(s, mv.label)
			switch tr.Rule {
			case "step":
				k = mCPU
			case "F1", "F2":
				k = mDeliver
			default:
				k = mInternal
			}
			g.kinds[mv.label], g.threads[mv.label] = k, g.names[tr.Actor]
		}
		mv.kind, mv.thread = k, g.threads[mv.label]
		switch {
		case k == mInternal:
			emit(mv.label, mv.next)
			return pruned
		case k == mCPU:
			if pc, _ := g.cur.PC(mv.thread); g.p.Threads[mv.thread].Code[pc].Op == prog.OpBranch {
				g.m.Decode(mv.next, g.nxt)
				if !g.liveAt(mv.thread, g.nxt) {
					mv.kind = mDead
					continue
				}
			}
			if best < 0 || mv.thread < best {
				best = mv.thread
			}
		}
	}
	if best >= 0 {
		for _, mv := range g.moves {
			if mv.kind == mCPU && mv.thread == best {
				emit(mv.label, mv.next)
			}
		}
		return pruned
	}
	n := 0
	for _, mv := range g.moves {
		if mv.kind != mDeliver {
			continue
		}
		g.m.Decode(mv.next, g.nxt)
		for t := range g.p.Threads {
			if !g.liveAt(t, g.cur) && g.liveAt(t, g.nxt) {
				emit(mv.label, mv.next)
				n++
				break
			}
		}
	}
	if n == 0 {
		for _, mv := range g.moves {
			if mv.kind == mDeliver {
				emit(mv.label, mv.next)
			}
		}
	}
	return pruned
}

// guidedReach searches p's machine under the discipline, depth first, for
// a configuration satisfying p's reach condition. It returns whether one
// was found and the search result.
func guidedReach(ctx context.Context, p *prog.Program, opt machine.Options, maxStates uint64) (bool, explore.Result, error) {
	if p.Query.Kind != prog.QReach {
		return false, explore.Result{}, fmt.Errorf("%s: not a reach query", p.Name)
	}
	g, err := newGuided(p, opt)
	if err != nil {
		return false, explore.Result{}, err
	}
	st := g.m.NewState()
	found := false
	s := explore.New(g, explore.Options{Order: explore.DFS, MaxStates: maxStates, Visit: func(_ uint64, b []byte, _ int) bool {
		g.m.Decode(b, st)
		if p.Query.Cond.Eval(p, st) {
			found = true
			return false
		}
		return true
	}})
	r, err := s.Run(ctx)
	return found, r, err
}
