package prog_test

import (
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestSwitches checks Compile's rewrite of a choose of assumes into an
// OpSwitch: done when the alternatives are unlabelled assumes on one
// location whose tests no value passes twice, with Case taking each value
// to the alternative whose test it passes; not done otherwise; and undone by
// Unswitch.
func TestSwitches(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		cases      map[int]int // value -> alternative, -1: none; nil: no switch
	}{
		{"one alternative per value", "choose { assume(x == 0); y := 1 } or { assume(x == 2); y := 2 } or { assume(x == 1) }",
			map[int]int{0: 0, 1: 2, 2: 1, 3: -1, 255: -1}},
		{"a value and the rest", "choose { assume(x != 3); y := 1 } or { assume(x == 3) }",
			map[int]int{0: 0, 2: 0, 3: 1, 4: 0}},
		{"overlapping tests", "choose { assume(x != 0) } or { assume(x != 1) }", nil},
		{"the same test twice", "choose { assume(x == 0); y := 1 } or { assume(x == 0); y := 2 }", nil},
		{"two locations", "choose { assume(x == 0) } or { assume(y == 1) }", nil},
		{"an alternative that is not an assume", "choose { assume(x == 0) } or { y := 1 }", nil},
		{"a labelled alternative", "choose { L: assume(x == 0) } or { assume(x == 1) }", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "litmus sw\nnode A { x = 0; y = 0 }\nthread T on A {\n  " + tc.body + "\n}\n"
			p, err := parse.Parse("sw.rdma", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			code := p.Threads[0].Code
			in := &code[p.Threads[0].Entry]
			if tc.cases == nil {
				if in.Op != prog.OpBranch {
					t.Fatalf("compiled to %s, want a choose:\n%s", in.Op, p.CodeString())
				}
				return
			}
			if in.Op != prog.OpSwitch || in.X != 0 {
				t.Fatalf("compiled to %s on %d, want a switch on x:\n%s", in.Op, in.X, p.CodeString())
			}
			for v, want := range tc.cases {
				if got := in.SwitchAlt(uint8(v)); got != want {
					t.Errorf("x = %d takes alternative %d, want %d", v, got, want)
				}
			}
			if got := in.Succ(); len(got) != len(in.Alts) || got[0] != in.Alts[0] {
				t.Errorf("Succ = %v, want the alternatives %v", got, in.Alts)
			}
			prog.Unswitch(p)
			if in.Op != prog.OpBranch || in.Case != nil {
				t.Errorf("Unswitch left %s", in.Op)
			}
		})
	}
}

// TestNoSwitch checks that prog.NoSwitch keeps every choose.
func TestNoSwitch(t *testing.T) {
	prog.NoSwitch = true
	defer func() { prog.NoSwitch = false }()
	p, err := parse.Parse("sw.rdma", []byte("litmus sw\nnode A { x = 0 }\nthread T on A { choose { assume(x == 0) } or { assume(x == 1) } }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if op := p.Threads[0].Code[p.Threads[0].Entry].Op; op != prog.OpBranch {
		t.Errorf("compiled to %s under NoSwitch, want a choose", op)
	}
}
