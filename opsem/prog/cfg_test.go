package prog_test

import (
	"slices"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestControlFlow checks Succ, Reach and OnCycle on a thread with a loop
// around a choose, followed by straight-line code: the loop's instructions
// lie on a cycle and reach everything, the code after it reaches only what
// follows, and the end reaches nothing.
func TestControlFlow(t *testing.T) {
	src := `litmus cfg
node A { x = 0 }
thread T on A {
  loop {
    choose { x := 1 } or { skip }
  }
  x := 2
  L: skip
}
exists true
`
	p, err := parse.Parse("cfg.rdma", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	code := p.Threads[0].Code
	end := len(code) - 1
	if code[end].Op != prog.OpEnd || code[end].Succ() != nil {
		t.Fatalf("the last instruction is %s with successors %v, want the end with none", code[end].Op, code[end].Succ())
	}
	label := p.Threads[0].LabelPC("L")
	if got := code[label].Succ(); !slices.Equal(got, []int{end}) {
		t.Errorf("Succ(L) = %v, want [%d]", got, end)
	}
	onCycle := prog.OnCycle(code)
	reach := prog.NewReach(code)
	for pc := range code {
		in := &code[pc]
		if in.Op == prog.OpBranch && !slices.Equal(in.Succ(), in.Alts) {
			t.Errorf("Succ(%d) = %v, want the alternatives %v", pc, in.Succ(), in.Alts)
		}
		r := reach.From(pc)
		inLoop := in.Op == prog.OpBranch || in.Op == prog.OpSkip && pc != label || in.Op == prog.OpWrite && in.A == 1
		if onCycle[pc] != inLoop {
			t.Errorf("OnCycle[%d] (%s) = %v, want %v", pc, in.Op, onCycle[pc], inLoop)
		}
		var want int // instructions reachable from pc
		switch {
		case inLoop:
			want = len(code)
		case pc == end:
			want = 0
		case pc == label:
			want = 1
		default: // x := 2
			want = 2
		}
		if got := count(r); got != want {
			t.Errorf("From(%d) (%s) reaches %d instructions, want %d", pc, in.Op, got, want)
		}
	}
}

func count(b []bool) int {
	n := 0
	for _, x := range b {
		if x {
			n++
		}
	}
	return n
}
