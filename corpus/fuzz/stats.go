package fuzz

import (
	"rdmasim/corpus/gen"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
)

// NumClasses is the number of rows (and columns) of the ppo table.
const NumClasses = int(axiom.ClassNF) + 1

// ClassNames names the rows and columns of the ppo table, in axiom.Class
// order: CPU events (lR, lW, CAS, poll), then each NIC event kind. They are
// the classes' String names.
var ClassNames = func() (names [NumClasses]string) {
	for c := range names {
		names[c] = axiom.Class(c).String()
	}
	return names
}()

// KindNames names the instruction kinds of Stats.Instr, in gen's order
// (gen.KWrite ... gen.KPoll).
var KindNames = [gen.NumKinds]string{"write", "assume==", "assume!=", "cas", "get", "put", "rfence", "poll", "rcas", "rfaa", "quiet"}

// Stats counts what the generated programs contained.
//
// Instr counts simple statements of each kind over all programs; Choose and
// Loop count compound statements.
//
// PPO measures how well the programs exercise the ppo table of the model
// (axiom.PPO; the paper's ippo/oppo figure): PPO[a][b] counts the programs
// in which some thread has an event of class a before an event of class b
// in program order, along some path of the thread's control-flow graph
// (both events of one instruction included: a get's nrR before its nlW, a
// put's nlR before its nrW). The entries that depend on the queue pair
// (sqp, ippo:sqp) apply only to pairs on the same queue pair, so such pairs
// are counted apart: SameQP for pairs of NIC events on one queue pair (and
// for every pair with a CPU event, which no entry makes depend on the
// queue pair), OtherQP for pairs on different queue pairs of the thread.
// A program is counted once per cell and queue-pair case, however many
// pairs it has there.
type Stats struct {
	Programs   int
	Instr      [gen.NumKinds]int
	Choose     int
	Loop       int
	WithLoops  int // programs with a loop
	WithChoose int // programs with a choose
	// WithAtomics counts the programs with a remote atomic (rcas, rfaa),
	// CheckedAtomics those of them whose outcomes were compared (no bound
	// cut the machines' or the model's search).
	WithAtomics, CheckedAtomics int
	// DecidedAtomics counts the programs with a remote atomic on which the
	// decider (fuzz --atomics-experimental) gave a certain answer that was
	// compared with a certain answer of an enumeration, DecidedAtomicsRobust those of them
	// it found robust, DecidedAtomicsLoops those with a loop.
	DecidedAtomics, DecidedAtomicsRobust, DecidedAtomicsLoops int
	// DecidedAtomicsBounded counts the programs with a remote atomic and a
	// loop that the decider found robust (for every iteration) while the
	// enumerations found no violation within the loop bound: the one-way
	// comparison with loops, not counted in DecidedAtomics (an
	// enumeration's violation there would be a disagreement).
	DecidedAtomicsBounded int
	PPO                   [NumClasses][NumClasses]PPOCount
	// QuietAfter measures quiet's column of the ppo table (SEMANTICS-VERBS.md
	// 6: ✓ from every class, on any queue pair): QuietAfter[a] counts the
	// programs in which some thread has an event of class a before a quiet
	// in program order, along some path.
	QuietAfter [NumClasses]int
	// Inline counts the pairs around inline reads (inline_stats.go).
	Inline InlineCounts
}

// PPOCount is the number of programs with a pair in one cell of the ppo
// table, on the same queue pair and on different ones.
type PPOCount struct {
	SameQP, OtherQP int
}

// Add counts the program p (compiled).
func (s *Stats) Add(p *prog.Program) {
	s.Programs++
	var loops, choose bool
	var walk func([]*prog.Stmt)
	walk = func(stmts []*prog.Stmt) {
		for _, st := range stmts {
			switch st.Kind {
			case prog.SChoose:
				s.Choose++
				choose = true
			case prog.SLoop:
				s.Loop++
				loops = true
			}
			if k := instrKind(st); k >= 0 {
				s.Instr[k]++
			}
			for _, b := range st.Branches {
				walk(b)
			}
		}
	}
	var same, other [NumClasses][NumClasses]bool
	var quiet [NumClasses]bool
	for t := range p.Threads {
		th := &p.Threads[t]
		if th.Lowered {
			// A protocol's thread has code, not a statement tree:
			// each instruction is counted by its statement's kind.
			for pc := range th.Code {
				in := &th.Code[pc]
				switch {
				case in.Op == prog.OpBranch && in.Loop >= 0:
					s.Loop++
					loops = true
				case in.Op == prog.OpBranch && in.Stmt != nil && in.Stmt.Kind == prog.SChoose:
					s.Choose++
					choose = true
				case in.Stmt != nil && in.Op != prog.OpFail:
					if k := instrKind(in.Stmt); k >= 0 {
						s.Instr[k]++
					}
				}
			}
		}
		walk(th.Body)
		ppoPairs(th, &same, &other)
		quietPairs(th, &quiet)
	}
	for a, ok := range quiet {
		if ok {
			s.QuietAfter[a]++
		}
	}
	s.Inline.add(p)
	if loops {
		s.WithLoops++
	}
	if choose {
		s.WithChoose++
	}
	if prog.HasAtomics(p) {
		s.WithAtomics++
	}
	for a := range NumClasses {
		for b := range NumClasses {
			if same[a][b] {
				s.PPO[a][b].SameQP++
			}
			if other[a][b] {
				s.PPO[a][b].OtherQP++
			}
		}
	}
}

// Merge adds the counts of o to s.
func (s *Stats) Merge(o *Stats) {
	s.Programs += o.Programs
	for k := range s.Instr {
		s.Instr[k] += o.Instr[k]
	}
	s.Choose += o.Choose
	s.Loop += o.Loop
	s.WithLoops += o.WithLoops
	s.WithChoose += o.WithChoose
	s.WithAtomics += o.WithAtomics
	s.CheckedAtomics += o.CheckedAtomics
	s.DecidedAtomics += o.DecidedAtomics
	s.DecidedAtomicsRobust += o.DecidedAtomicsRobust
	s.DecidedAtomicsLoops += o.DecidedAtomicsLoops
	s.DecidedAtomicsBounded += o.DecidedAtomicsBounded
	for a := range NumClasses {
		for b := range NumClasses {
			s.PPO[a][b].SameQP += o.PPO[a][b].SameQP
			s.PPO[a][b].OtherQP += o.PPO[a][b].OtherQP
		}
		s.QuietAfter[a] += o.QuietAfter[a]
	}
	s.Inline.merge(&o.Inline)
}

// instrKind returns the gen kind (gen.KWrite...) of a simple statement, or
// -1 for skip and compound statements.
func instrKind(s *prog.Stmt) int {
	switch s.Kind {
	case prog.SWrite:
		return gen.KWrite
	case prog.SAssume:
		if s.Ne {
			return gen.KAssumeNe
		}
		return gen.KAssumeEq
	case prog.SCAS:
		return gen.KCAS
	case prog.SGet:
		return gen.KGet
	case prog.SPut:
		return gen.KPut
	case prog.SRFence:
		return gen.KRFence
	case prog.SPoll:
		return gen.KPoll
	case prog.SRCAS:
		return gen.KRCAS
	case prog.SRFAA:
		return gen.KRFAA
	case prog.SQuiet:
		return gen.KQuiet
	}
	return -1
}

// classes returns the ppo classes of the events of an instruction, in
// program order.
func classes(op prog.Op) []axiom.Class {
	switch op {
	case prog.OpWrite, prog.OpAssumeEq, prog.OpAssumeNe, prog.OpPoll:
		return []axiom.Class{axiom.ClassCPU}
	case prog.OpCAS:
		return []axiom.Class{axiom.ClassCPU, axiom.ClassCPU}
	case prog.OpGet:
		return []axiom.Class{axiom.ClassNRR, axiom.ClassNLW}
	case prog.OpPut:
		return []axiom.Class{axiom.ClassNLR, axiom.ClassNRW}
	case prog.OpRFence:
		return []axiom.Class{axiom.ClassNF}
	}
	return nil
}

// ppoPairs marks the cells of the ppo table that thread t's program-order
// pairs fall in: same[a][b] for pairs on one queue pair or with a CPU
// event, other[a][b] for NIC events on different queue pairs.
func ppoPairs(t *prog.Thread, same, other *[NumClasses][NumClasses]bool) {
	code := t.Code
	mark := func(a, b axiom.Class, qa, qb int) {
		if a == axiom.ClassCPU || b == axiom.ClassCPU || qa == qb {
			same[a][b] = true
		} else {
			other[a][b] = true
		}
	}
	reach := prog.NewReach(code)
	for i := range code {
		ci := classes(code[i].Op)
		if ci == nil {
			continue
		}
		for k := 1; k < len(ci); k++ {
			mark(ci[k-1], ci[k], code[i].QP, code[i].QP)
		}
		// Instructions reachable from i in one or more steps.
		for j, r := range reach.From(i) {
			if !r {
				continue
			}
			for _, a := range ci {
				for _, b := range classes(code[j].Op) {
					mark(a, b, code[i].QP, code[j].QP)
				}
			}
		}
	}
}

// quietPairs marks the classes of the events that come before a quiet of
// thread t in program order.
func quietPairs(t *prog.Thread, before *[NumClasses]bool) {
	code := t.Code
	reach := prog.NewReach(code)
	for i := range code {
		ci := classes(code[i].Op)
		if ci == nil {
			continue
		}
		for j, r := range reach.From(i) {
			if r && code[j].Op == prog.OpQuiet {
				for _, a := range ci {
					before[a] = true
				}
			}
		}
	}
}

// PPOEntry returns the entry of the ppo table for a before b in program
// order, as axiom.PPO decides it: "✓" (ippo and oppo), "sqp" (both, on the
// same queue pair), "ippo:sqp" (ippo only, on the same queue pair) or "×"
// (neither); "ippo" / "oppo" for combinations the paper's table does not
// have.
func PPOEntry(a, b axiom.Class) string {
	ev := func(c axiom.Class, index, remote int) *axiom.Event {
		return &axiom.Event{Event: prog.Event{Kind: c.Kind(), Thread: 0, Remote: remote}, Index: index}
	}
	si, so := axiom.PPO(ev(a, 0, 1), ev(b, 1, 1))
	oi, oo := axiom.PPO(ev(a, 0, 1), ev(b, 1, 2))
	switch {
	case si && so && oi && oo:
		return "✓"
	case si && so && !oi && !oo:
		return "sqp"
	case si && !so && !oi && !oo:
		return "ippo:sqp"
	case !si && !so && !oi && !oo:
		return "×"
	case si || oi:
		return "ippo"
	}
	return "oppo"
}

// QPDependent reports whether the entry depends on the queue pair.
func QPDependent(entry string) bool { return entry == "sqp" || entry == "ippo:sqp" }
