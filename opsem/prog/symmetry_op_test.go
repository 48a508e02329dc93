package prog

import (
	"strings"
	"testing"
)

// TestSymmetryKnowsEveryOp: the symmetry check compares the locations of
// every operation of the core (sameInstr has a case for each), so that a
// new operation is never taken for symmetric by a check that ignores its
// locations; an operation past the last one is refused.
func TestSymmetryKnowsEveryOp(t *testing.T) {
	p := &Program{Locs: []Loc{{Name: "x"}}, Nodes: []Node{{Name: "A"}}}
	r := &Renaming{Loc: []int{0}, Node: []int{0}, QP: []int{0}}
	op := Op(0)
	for ; !strings.HasPrefix(op.String(), "op("); op++ {
		in := &Instr{Op: op, Remote: 0, QP: 0}
		if msg := r.sameInstr(p, in, in); msg != "" {
			t.Errorf("%v against itself, renamed by the identity: %s", op, msg)
		}
	}
	if in := (&Instr{Op: op}); r.sameInstr(p, in, in) == "" {
		t.Errorf("%v (past the last operation) is taken for symmetric", op)
	}
}
