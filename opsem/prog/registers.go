package prog

import "fmt"

// HasRegisters reports whether p keeps registers at run time: locations
// marked Reg, set and tested by OpLoad, OpEval and OpIf.
func HasRegisters(p *Program) bool { return firstRegister(p) >= 0 }

func firstRegister(p *Program) int {
	for l := range p.Locs {
		if p.Locs[l].Reg {
			return l
		}
	}
	return -1
}

// A RegistersError is the refusal, by a semantics that does not run them,
// of a program that keeps registers at run time, or of the part of them it
// does not cover (Construct): it never answers for a program it does not
// cover. The machines run every such program (rdmasim check).
type RegistersError struct {
	What     string // the semantics that refuses
	Thread   string
	Register string
	// Construct, when set, is what of the registers What does not cover,
	// in words ("an assume on a register outside a switch"); empty: What
	// covers no register kept at run time.
	Construct string
}

func (e *RegistersError) Error() string {
	if e.Construct != "" {
		return fmt.Sprintf("%s does not cover %s (%s of thread %s): the RDMA and SC machines run it (rdmasim check, robust --method enum-machine)", e.What, e.Construct, e.Register, e.Thread)
	}
	return fmt.Sprintf("%s does not cover registers kept at run time yet (%s of thread %s; the lowering keeps them there when specialising them would pass the instruction limit): the RDMA and SC machines run it (rdmasim check, robust --method enum-machine)", e.What, e.Register, e.Thread)
}

// CheckRegisters returns a RegistersError naming what for the first
// run-time register of p, or nil when there is none.
func CheckRegisters(p *Program, what string) error {
	l := firstRegister(p)
	if l < 0 {
		return nil
	}
	return &RegistersError{What: what, Thread: p.Threads[p.Locs[l].Owner].Name, Register: p.Locs[l].Name}
}

// RegisterOpString prints a run-time register instruction (OpLoad, OpEval,
// OpIf) in core terms: "r := x", "x := r + 1", "if (r != s)".
func (p *Program) RegisterOpString(in *Instr) string {
	name := func(l int) string { return p.Locs[l].Name }
	switch in.Op {
	case OpLoad:
		return name(in.X) + " := " + name(in.Y)
	case OpEval:
		return name(in.X) + " := " + in.E.Format(name)
	case OpIf:
		return "if (" + in.E.Format(name) + ")"
	}
	return p.StmtString(in.Stmt)
}

// IsRegisterOp reports whether o is an instruction of registers kept at
// run time.
func (o Op) IsRegisterOp() bool { return o == OpLoad || o == OpEval || o == OpIf }
