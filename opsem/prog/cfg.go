package prog

// Succ returns the instructions that can follow in in its thread's
// control-flow graph: a branch's alternatives, none after the end or an
// error point, and Next after any other instruction. A switch's are its
// alternatives, the assumes it takes in the same step as its read: in the
// graph, as for an analysis, a switch is the choose it replaced.
func (in *Instr) Succ() []int {
	switch in.Op {
	case OpEnd, OpFail:
		return nil
	case OpBranch, OpSwitch:
		return in.Alts
	case OpLoad, OpEval:
		if in.Fail < 0 {
			return []int{in.Next}
		}
		return []int{in.Next, in.Fail}
	case OpIf:
		if in.Fail < 0 {
			return in.Alts
		}
		return []int{in.Alts[0], in.Alts[1], in.Fail}
	}
	return []int{in.Next}
}

// Reach computes which instructions of a thread's control-flow graph an
// instruction reaches: the transitive closure of Succ. It keeps its buffers
// from one question to the next, so a loop over every instruction allocates
// once.
type Reach struct {
	code  []Instr
	seen  []bool
	stack []int
}

// NewReach returns a Reach over code, a thread's instructions.
func NewReach(code []Instr) *Reach {
	return &Reach{code: code, seen: make([]bool, len(code))}
}

// From returns the instructions reachable from pc in one or more steps: pc
// itself is among them only if it lies on a cycle. The result is
// overwritten by the next call.
func (r *Reach) From(pc int) []bool {
	clear(r.seen)
	r.stack = append(r.stack[:0], r.code[pc].Succ()...)
	for len(r.stack) > 0 {
		j := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		if r.seen[j] {
			continue
		}
		r.seen[j] = true
		r.stack = append(r.stack, r.code[j].Succ()...)
	}
	return r.seen
}

// OnCycle marks the instructions of code that lie on a cycle of its
// control-flow graph: those a thread can execute more than once.
func OnCycle(code []Instr) []bool {
	on := make([]bool, len(code))
	r := NewReach(code)
	for pc := range code {
		on[pc] = r.From(pc)[pc]
	}
	return on
}
