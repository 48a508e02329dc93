package prog

// CondOp is the operator of a condition node.
type CondOp uint8

// Condition operators.
const (
	CTrue CondOp = iota // true
	CEq                 // Loc = Val
	CNe                 // Loc != Val
	CAt                 // Thread@Label (Thread is at one of the labelled instructions PCs)
	CEnd                // Thread@end
	CFail               // Thread@fail (Thread stopped at an error point: an OpFail instruction, or a value it wrote outside a location's Range)
	CNot                // ~L
	CAnd                // L /\ R
	COr                 // L \/ R
)

// Cond is a condition over a configuration (herd7 style).
type Cond struct {
	Op     CondOp
	Loc    int
	Val    uint8
	Thread int
	Label  string // for CAt
	PCs    []int  // for CAt: the labelled instructions (several where a lowering specialised the statement)
	L, R   *Cond
	Pos    Pos
}

// Config is what a condition can observe of a machine configuration.
type Config interface {
	// Mem returns the value of location loc.
	Mem(loc int) uint8
	// PC returns the instruction thread t executes next, and whether t is in
	// the middle of an instruction (between the two events of a CAS, or under
	// SC of a put or get), where it is at no label.
	PC(t int) (pc int, mid bool)
}

// Eval evaluates c in the configuration cfg of program p.
func (c *Cond) Eval(p *Program, cfg Config) bool {
	switch c.Op {
	case CTrue:
		return true
	case CEq:
		return cfg.Mem(c.Loc) == c.Val
	case CNe:
		return cfg.Mem(c.Loc) != c.Val
	case CAt:
		pc, mid := cfg.PC(c.Thread)
		if mid {
			return false
		}
		for _, l := range c.PCs {
			if pc == l {
				return true
			}
		}
		return false
	case CEnd:
		pc, _ := cfg.PC(c.Thread)
		return pc == p.Threads[c.Thread].End()
	case CFail:
		pc, _ := cfg.PC(c.Thread)
		return p.Threads[c.Thread].Code[pc].Op == OpFail || p.failedByRange(c.Thread, cfg)
	case CNot:
		return !c.L.Eval(p, cfg)
	case CAnd:
		return c.L.Eval(p, cfg) && c.R.Eval(p, cfg)
	case COr:
		return c.L.Eval(p, cfg) || c.R.Eval(p, cfg)
	}
	return false
}

// Locs appends to dst the locations c mentions, each once, in order of first
// mention.
func (c *Cond) Locs(dst []int) []int {
	if c == nil {
		return dst
	}
	switch c.Op {
	case CEq, CNe:
		for _, l := range dst {
			if l == c.Loc {
				return dst
			}
		}
		return append(dst, c.Loc)
	case CNot:
		return c.L.Locs(dst)
	case CAnd, COr:
		return c.R.Locs(c.L.Locs(dst))
	}
	return dst
}

// HasControl reports whether c mentions a thread's control point (T@L or
// T@end).
func (c *Cond) HasControl() bool {
	if c == nil {
		return false
	}
	switch c.Op {
	case CAt, CEnd, CFail:
		return true
	case CNot:
		return c.L.HasControl()
	case CAnd, COr:
		return c.L.HasControl() || c.R.HasControl()
	}
	return false
}

// CanFail reports whether thread t can stop at an error point, where
// t@fail holds: it has an assertion (an OpFail instruction) or may write a
// value out of a location's Range.
func (p *Program) CanFail(t int) bool {
	for _, in := range p.Threads[t].Code {
		if in.Op == OpFail {
			return true
		}
	}
	return p.RangeWriter(t)
}

// FailCond returns the condition that some thread is at an error point,
// T0@fail \/ T1@fail \/ ... over the threads that can fail (CanFail), in
// thread order and grouped to the left; nil when no thread can. It is the
// reach query of a program with error points and no query of its own.
func (p *Program) FailCond() *Cond {
	var c *Cond
	for t := range p.Threads {
		if !p.CanFail(t) {
			continue
		}
		at := &Cond{Op: CFail, Thread: t}
		if c == nil {
			c = at
		} else {
			c = &Cond{Op: COr, L: c, R: at}
		}
	}
	return c
}
