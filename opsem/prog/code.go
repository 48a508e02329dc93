package prog

import "fmt"

// Op is the operation of a compiled instruction.
type Op uint8

// Instruction operations. Branch and Skip are silent steps: they produce no
// event. End marks a terminated thread; Fail a thread stopped at an error
// point of a protocol (see opsem/parse's lowering): like End it has no step,
// unlike End it never makes a configuration final.
const (
	OpEnd      Op = iota // the thread has terminated
	OpSkip               // skip; go to Next
	OpBranch             // choose or loop head: go to any of Alts
	OpWrite              // X := A
	OpAssumeEq           // assume(X == A)
	OpAssumeNe           // assume(X != A)
	OpCAS                // X := cas(Z, A, B): two events
	OpGet                // X := Y (Y remote): events nrR, nlW on queue pair QP
	OpPut                // Y := X (Y remote): events nlR, nrW on queue pair QP
	OpRFence             // rfence(Remote): event nF on QP
	OpPoll               // poll(Remote)
	OpFail               // an error point: an assertion failed or a value left its range; no step leaves it
	OpRCAS               // X := rcas(Y, A, B) (Y remote): events naR, naW (on success), nlW on queue pair QP
	OpRFAA               // X := rfaa(Y, A) (Y remote): events naR, naW, nlW on queue pair QP
	OpSwitch             // read X once and go on after the one alternative (an assume on X) it satisfies; see switch.go
	OpLoad               // X := Y: X a register, Y an ordinary location of the node: one lR event; Fail if the value leaves X's range
	OpEval               // X := E: no event if X is a register, else one lW; Fail if E divides by zero or leaves X's range
	OpIf                 // go to Alts[0] if E != 0, else to Alts[1]: no event; Fail if E divides by zero
	OpQuiet              // quiet: event quiet, once every operation of the thread on every queue pair is complete and visible (SEMANTICS-VERBS.md 6)
)

var opNames = [...]string{"end", "skip", "branch", "write", "assume", "assume", "cas", "get", "put", "rfence", "poll", "fail", "rcas", "rfaa", "switch", "load", "eval", "if", "quiet"}

// HasAtomics reports whether some thread of p has a remote atomic.
func HasAtomics(p *Program) bool { return FirstAtomic(p) != nil }

// FirstAtomic returns the statement of p's first remote atomic, or nil.
func FirstAtomic(p *Program) *Stmt {
	for t := range p.Threads {
		for _, in := range p.Threads[t].Code {
			if in.Op.IsAtomic() {
				return in.Stmt
			}
		}
	}
	return nil
}

// FirstVerbs returns the statement of p's first use of a verbs feature of
// issue 32 (SEMANTICS-VERBS.md) that the decider does not cover, or nil: a
// multi-word put or get, an operation marked unsignaled, or a put marked
// inline. (It covers quiet and the fenced mark: section 9.)
func FirstVerbs(p *Program) *Stmt {
	return firstInstr(p, func(in *Instr) bool { return in.Words > 1 || in.Unsignaled || in.Inline })
}

// FirstAnyVerbs returns the statement of p's first use of any verbs
// feature of issue 32, or nil: a quiet, a put, get or atomic marked
// fenced or unsignaled, a put marked inline, or a multi-word put or get.
func FirstAnyVerbs(p *Program) *Stmt {
	return firstInstr(p, func(in *Instr) bool {
		return in.Op == OpQuiet || in.Fenced || in.Words > 1 || in.Unsignaled || in.Inline
	})
}

// firstInstr returns the statement of the first instruction of p, thread
// by thread, that f accepts, or nil.
func firstInstr(p *Program, f func(*Instr) bool) *Stmt {
	for t := range p.Threads {
		for i := range p.Threads[t].Code {
			if in := &p.Threads[t].Code[i]; f(in) {
				return in.Stmt
			}
		}
	}
	return nil
}

// VerbsFeature names the verbs feature statement s (from FirstVerbs or
// FirstAnyVerbs) uses, by its keyword: "quiet", "fenced", "unsignaled" or
// "inline", or "multi-word" for a put or get of several words. A statement
// with several features is named by one the decider refuses (FirstVerbs):
// a fenced multi-word put is "multi-word", a fenced unsignaled get
// "unsignaled".
func VerbsFeature(s *Stmt) string {
	switch {
	case s.Words > 1:
		return "multi-word"
	case s.Unsignaled:
		return "unsignaled"
	case s.Inline:
		return "inline"
	case s.Kind == SQuiet:
		return "quiet"
	case s.Fenced:
		return "fenced"
	}
	return fmt.Sprintf("statement kind %d", s.Kind)
}

// HasVerbs reports whether p uses a verbs feature the decider does not
// cover (FirstVerbs).
func HasVerbs(p *Program) bool { return FirstVerbs(p) != nil }

// IsAtomic reports whether o is a remote atomic (rcas or rfaa).
func (o Op) IsAtomic() bool { return o == OpRCAS || o == OpRFAA }

// IsRemote reports whether o travels on a queue pair: a get, a put, a
// remote atomic or an rfence (a poll uses a queue pair but sends nothing).
func (o Op) IsRemote() bool {
	return o == OpGet || o == OpPut || o == OpRFence || o.IsAtomic()
}

// AtomicResult returns what the remote atomic in does at its target, given
// the value old it reads there: the value it writes and whether it writes
// at all (a compare-and-swap whose comparison fails does not). A
// fetch-and-add wraps modulo MaxValue+1, as a NIC's 64-bit addition wraps
// modulo 2^64.
func (in *Instr) AtomicResult(old uint8) (uint8, bool) {
	if in.Op == OpRFAA {
		return old + in.A, true
	}
	return in.B, old == in.A
}

// String returns a short name of the operation.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// Instr is one instruction of a thread's control-flow graph.
//
// For an OpBranch of a loop, Loop is the loop's number in the thread and
// Alts[0] enters the body, Alts[1] leaves the loop; for a choose, Loop is -1
// and Alts holds one entry per branch. An OpSwitch is a choose whose
// alternatives are assumes on X (switch.go): Alts are those assumes, Case
// which one each value of X takes.
type Instr struct {
	Op     Op
	Next   int     // successor, for every op but OpBranch, OpSwitch and OpEnd
	Alts   []int   // OpBranch successors; OpSwitch: its alternatives, each an assume on X
	Case   []int16 // OpSwitch: Case[v] is the index in Alts of the alternative X = v takes, -1 for none
	Loop   int     // OpBranch: loop number, or -1 for choose
	X, Y   int     // locations, as in Stmt
	Z      int     // OpCAS location
	A, B   uint8   // values
	QP     int     // OpGet, OpPut, OpRFence, OpPoll, OpRCAS, OpRFAA: queue-pair index
	Remote int     // node of the queue pair
	Stmt   *Stmt   // the statement it was compiled from (nil for OpEnd)
	// Fenced marks a put, get or remote atomic whose work request carries
	// the fence flag (SEMANTICS-VERBS.md 4): it leaves B1 only once every
	// earlier get and atomic of its queue pair is complete.
	Fenced bool
	// Inline marks a put whose source words are read when it is submitted
	// (SEMANTICS-VERBS.md 5): its nlR events are the submission's.
	Inline bool
	// Words is the number of consecutive words of a multi-word put or get
	// (Stmt.Words, at least 2), or 0 for a one-word operation: locations
	// X+i and Y+i, i < Words, are its word i's source and target.
	Words int
	// Unsignaled marks a put, get or remote atomic posted without a
	// completion entry (SEMANTICS-VERBS.md 2): no poll matches it; the
	// poll that matches the next signalled operation of its queue pair
	// waits for it too.
	Unsignaled bool

	// E is the expression of OpEval and OpIf, over constants and
	// register locations (Loc.Reg); Fail is the error point (an OpFail)
	// that OpLoad, OpEval and OpIf go to when E divides by zero or a value
	// leaves its destination's range (Lo..Hi).
	E      Expr
	Fail   int
	Lo, Hi uint8

	// PollsLeft[k] bounds the number of polls the thread may still execute on
	// its queue pair with QP.Local == k on any path
	// from this instruction, this one included; Unbounded when some path
	// loops through such a poll. Machines use it to forget the completion
	// state of operations that no future poll can wait for.
	PollsLeft []int
}

// Unbounded marks an unbounded number of future polls.
const Unbounded = int(^uint(0) >> 1)

// Compile builds the control-flow graph of every thread of p, numbers the
// queue pairs, and computes the poll bounds. The parser calls it; it is
// exported for programs built in code. A thread marked Lowered keeps the
// graph it comes with (its Code, Entry, Loops and Labels): Compile numbers
// its queue pairs from the graph and computes the poll bounds.
func Compile(p *Program) error {
	p.QPs = p.QPs[:0]
	for ti := range p.Threads {
		t := &p.Threads[ti]
		t.QPs = make([]int, len(p.Nodes))
		for n := range t.QPs {
			t.QPs[n] = -1
		}
		c := compiler{p: p, t: t, ti: ti}
		if t.Lowered {
			if err := c.checkLowered(); err != nil {
				return err
			}
			continue
		}
		t.Code = t.Code[:0]
		t.Labels = t.Labels[:0]
		t.Loops = 0
		c.assignQPs(t.Body)
		end := c.emit(Instr{Op: OpEnd, Loop: -1, QP: -1, Remote: -1})
		entry, err := c.block(t.Body, end)
		if err != nil {
			return err
		}
		// Move OpEnd to the last position: it was emitted first so that
		// blocks could be compiled back to front.
		c.moveEndLast(end)
		t.Entry = c.remap(entry)
		for i := range t.Labels {
			t.Labels[i].PC = c.remap(t.Labels[i].PC)
		}
		if len(t.Code) > MaxCode {
			return fmt.Errorf("thread %s: %d instructions, more than the limit of %d", t.Name, len(t.Code), MaxCode)
		}
	}
	for ti := range p.Threads {
		if !NoSwitch {
			switches(&p.Threads[ti])
		}
		pollBounds(p, ti)
	}
	return bindLabels(p, p.Query.Cond)
}

// bindLabels sets the instruction of every T@L in c.
func bindLabels(p *Program, c *Cond) error {
	if c == nil {
		return nil
	}
	if c.Op == CAt {
		c.PCs = p.Threads[c.Thread].LabelPCs(c.Label)
		if len(c.PCs) == 0 {
			return fmt.Errorf("%s: thread %s has no label %s", c.Pos, p.Threads[c.Thread].Name, c.Label)
		}
	}
	if err := bindLabels(p, c.L); err != nil {
		return err
	}
	return bindLabels(p, c.R)
}

type compiler struct {
	p     *Program
	t     *Thread
	ti    int
	remap func(int) int
}

var remoteOps = [...]Op{SGet: OpGet, SPut: OpPut, SRFence: OpRFence, SPoll: OpPoll, SRCAS: OpRCAS, SRFAA: OpRFAA}

func (c *compiler) emit(in Instr) int {
	c.t.Code = append(c.t.Code, in)
	return len(c.t.Code) - 1
}

// checkLowered numbers the queue pairs of a lowered thread in the order of
// its instructions and checks the graph's shape: OpEnd last and only there,
// every successor an instruction, and every cycle through a loop head's
// first alternative (so that --unroll bounds every cycle, as the model's
// enumeration and the event graphs need).
func (c *compiler) checkLowered() error {
	t := c.t
	n := len(t.Code)
	if n == 0 || t.Code[n-1].Op != OpEnd {
		return fmt.Errorf("thread %s: a lowered graph ends with its OpEnd instruction", t.Name)
	}
	if n > MaxCode {
		return fmt.Errorf("thread %s: %d instructions, more than the limit of %d", t.Name, n, MaxCode)
	}
	for pc := range t.Code {
		in := &t.Code[pc]
		if in.Op == OpEnd && pc != n-1 {
			return fmt.Errorf("thread %s: instruction %d is a second OpEnd", t.Name, pc)
		}
		for _, s := range in.Succ() {
			if s < 0 || s >= n {
				return fmt.Errorf("thread %s: instruction %d goes to %d, outside the graph", t.Name, pc, s)
			}
		}
		switch in.Op {
		case OpGet, OpPut, OpRFence, OpPoll, OpRCAS, OpRFAA:
			c.useQP(in.Remote)
			in.QP = t.QPs[in.Remote]
		case OpLoad, OpEval, OpIf:
			if err := c.checkRegisterOp(in); err != nil {
				return fmt.Errorf("thread %s: instruction %d (%v): %w", t.Name, pc, in.Op, err)
			}
		}
	}
	// Without the loop heads' back edges the graph must be acyclic.
	cut := make([]Instr, n)
	copy(cut, t.Code)
	for pc := range cut {
		if cut[pc].Op == OpBranch && cut[pc].Loop >= 0 {
			cut[pc].Alts = cut[pc].Alts[1:]
		}
	}
	for pc, on := range OnCycle(cut) {
		if on {
			return fmt.Errorf("thread %s: instruction %d lies on a cycle that passes no loop head", t.Name, pc)
		}
	}
	return nil
}

// useQP makes sure the thread has a queue pair towards node remote, numbering
// a new one after the thread's others.
func (c *compiler) useQP(remote int) {
	if c.t.QPs[remote] >= 0 {
		return
	}
	local := 0
	for _, q := range c.p.QPs {
		if q.Thread == c.ti {
			local++
		}
	}
	c.p.QPs = append(c.p.QPs, QP{Thread: c.ti, Remote: remote, Local: local})
	c.t.QPs[remote] = len(c.p.QPs) - 1
}

// assignQPs numbers the thread's queue pairs in order of first use.
func (c *compiler) assignQPs(stmts []*Stmt) {
	for _, s := range stmts {
		switch s.Kind {
		case SGet, SPut, SRFence, SPoll, SRCAS, SRFAA:
			c.useQP(s.Remote)
		case SChoose, SLoop:
			for _, b := range s.Branches {
				c.assignQPs(b)
			}
		}
	}
}

// block compiles stmts so that control continues at next afterwards, and
// returns the block's first instruction. Statements are compiled back to
// front, so instructions appear in reverse order; moveEndLast renumbers them.
func (c *compiler) block(stmts []*Stmt, next int) (int, error) {
	for i := len(stmts) - 1; i >= 0; i-- {
		pc, err := c.stmt(stmts[i], next)
		if err != nil {
			return 0, err
		}
		next = pc
	}
	return next, nil
}

func (c *compiler) stmt(s *Stmt, next int) (int, error) {
	in := Instr{Next: next, Loop: -1, X: s.X, Y: s.Y, Z: s.Z, A: s.A, B: s.B, QP: -1, Remote: -1, Stmt: s, Fenced: s.Fenced, Unsignaled: s.Unsignaled, Inline: s.Inline, Words: s.Words}
	var pc int
	switch s.Kind {
	case SSkip:
		in.Op = OpSkip
		pc = c.emit(in)
	case SWrite:
		in.Op = OpWrite
		pc = c.emit(in)
	case SAssume:
		in.Op = OpAssumeEq
		if s.Ne {
			in.Op = OpAssumeNe
		}
		pc = c.emit(in)
	case SCAS:
		in.Op = OpCAS
		pc = c.emit(in)
	case SQuiet:
		in.Op = OpQuiet
		pc = c.emit(in)
	case SGet, SPut, SRFence, SPoll, SRCAS, SRFAA:
		in.Op = remoteOps[s.Kind]
		in.Remote = s.Remote
		in.QP = c.t.QPs[s.Remote]
		pc = c.emit(in)
	case SChoose:
		in.Op = OpBranch
		in.Next = -1
		for _, b := range s.Branches {
			start, err := c.block(b, next)
			if err != nil {
				return 0, err
			}
			in.Alts = append(in.Alts, start)
		}
		pc = c.emit(in)
	case SLoop:
		in.Op = OpBranch
		in.Next = -1
		in.Loop = c.t.Loops
		c.t.Loops++
		head := c.emit(in)
		body, err := c.block(s.Branches[0], head)
		if err != nil {
			return 0, err
		}
		c.t.Code[head].Alts = []int{body, next}
		pc = head
	default:
		return 0, fmt.Errorf("%s: unknown statement kind %d", s.Pos, s.Kind)
	}
	if s.Label != "" {
		c.t.Labels = append(c.t.Labels, Label{Name: s.Label, PC: pc})
	}
	return pc, nil
}

// moveEndLast renumbers the instructions so that they appear in program
// order (the reverse of emission, with OpEnd last) and fixes every reference.
func (c *compiler) moveEndLast(end int) {
	code := c.t.Code
	n := len(code)
	// Emission order is: end, then statements back to front with nested
	// blocks emitted before their heads. Reversing the non-end instructions
	// gives program order for straight-line code and a readable order
	// otherwise; OpEnd goes last.
	newIdx := make([]int, n)
	k := 0
	for i := n - 1; i >= 0; i-- {
		if i == end {
			continue
		}
		newIdx[i] = k
		k++
	}
	newIdx[end] = n - 1
	out := make([]Instr, n)
	for i, in := range code {
		if in.Op != OpBranch && in.Op != OpSwitch && in.Op != OpEnd {
			in.Next = newIdx[in.Next]
		}
		if in.Alts != nil {
			alts := make([]int, len(in.Alts))
			for j, a := range in.Alts {
				alts[j] = newIdx[a]
			}
			in.Alts = alts
		}
		out[newIdx[i]] = in
	}
	c.t.Code = out
	c.remap = func(i int) int { return newIdx[i] }
}

// pollBounds computes Instr.PollsLeft for thread ti.
func pollBounds(p *Program, ti int) {
	t := &p.Threads[ti]
	var qps []int // queue pairs of this thread, in Program.QPs order
	for q, qp := range p.QPs {
		if qp.Thread == ti {
			qps = append(qps, q)
		}
	}
	n := len(t.Code)
	onCycle := OnCycle(t.Code)
	for i := range t.Code {
		t.Code[i].PollsLeft = make([]int, len(qps))
	}
	for k, q := range qps {
		isPoll := func(i int) bool { return t.Code[i].Op == OpPoll && t.Code[i].QP == q }
		// Instructions that can reach a poll of q lying on a cycle have an
		// unbounded number of polls ahead.
		inf := make([]bool, n)
		for i := 0; i < n; i++ {
			if isPoll(i) && onCycle[i] {
				inf[i] = true
			}
		}
		for changed := true; changed; {
			changed = false
			for i := 0; i < n; i++ {
				if inf[i] {
					continue
				}
				for _, s := range t.Code[i].Succ() {
					if inf[s] {
						inf[i] = true
						changed = true
						break
					}
				}
			}
		}
		// Elsewhere no cycle contains a poll of q, so the longest path
		// count is a finite fixpoint, reached within n rounds.
		val := make([]int, n)
		for changed := true; changed; {
			changed = false
			for i := n - 1; i >= 0; i-- {
				if inf[i] {
					continue
				}
				best := 0
				for _, s := range t.Code[i].Succ() {
					if !inf[s] && val[s] > best {
						best = val[s]
					}
				}
				if isPoll(i) {
					best++
				}
				if best != val[i] {
					val[i] = best
					changed = true
				}
			}
		}
		for i := 0; i < n; i++ {
			if inf[i] {
				t.Code[i].PollsLeft[k] = Unbounded
			} else {
				t.Code[i].PollsLeft[k] = val[i]
			}
		}
	}
}

// checkRegisterOp checks a run-time register instruction of the thread: its
// expression reads registers of the thread only; OpLoad loads an ordinary
// location of the thread's node into one of its registers; OpEval stores
// into one of its registers or an ordinary location of its node; the error
// point it may take is an OpFail.
func (c *compiler) checkRegisterOp(in *Instr) error {
	p, t := c.p, c.t
	own := func(l int) bool { return l >= 0 && l < len(p.Locs) && p.Locs[l].Reg && p.Locs[l].Owner == c.ti }
	local := func(l int) bool { return l >= 0 && l < len(p.Locs) && !p.Locs[l].Reg && p.Locs[l].Node == t.Node }
	if in.Op != OpLoad {
		if err := in.E.Check(len(p.Locs)); err != nil {
			return err
		}
		for _, l := range in.E.Locs() {
			if !own(l) {
				return fmt.Errorf("its expression reads %s, which is not one of the thread's registers", p.Locs[l].Name)
			}
		}
	}
	switch {
	case in.Op == OpLoad && (!own(in.X) || !local(in.Y)):
		return fmt.Errorf("a load goes from a location of the thread's node into one of its registers")
	case in.Op == OpEval && !own(in.X) && !local(in.X):
		return fmt.Errorf("it stores outside the thread's registers and node")
	case in.Op == OpIf && len(in.Alts) != 2:
		return fmt.Errorf("%d alternatives, want 2", len(in.Alts))
	case in.Fail >= 0 && t.Code[in.Fail].Op != OpFail:
		return fmt.Errorf("its error point %d is a %v", in.Fail, t.Code[in.Fail].Op)
	}
	return nil
}
