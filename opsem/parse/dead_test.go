package parse_test

import (
	"context"
	"fmt"
	"testing"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// TestDeadRuntimeRegistersReset checks that a register kept at run time
// is reset where it dies, so that its dead values do not split
// configurations: r, read from x (which another thread sets to 1, 2 or
// 3), only steers the if; after it, the runs that read 2 and 3 are the
// same configurations. Keeping r live to the end (the variant's
// assertion reads it, and always holds) keeps them apart, so the
// variant must store more configurations (without the resets both store
// 48).
func TestDeadRuntimeRegistersReset(t *testing.T) {
	const src = `litmus dead
node a { x = 0; y = 0; z = 0 }
thread w on a {
  choose { x := 1 } or { x := 2 } or { x := 3 }
}
thread t on a {
  reg r
  reg s
  r := x
  s := z
  if (r == 1) { y := 1 }
  z := 1
  z := 2
  %s
}
exists (y = 1)
`
	count := func(extra string) map[machine.Semantics]uint64 {
		p, err := parse.ParseOptions("dead.rdma", []byte(fmt.Sprintf(src, extra)), parse.Options{Registers: parse.RegistersRuntime})
		if err != nil {
			t.Fatal(err)
		}
		out := map[machine.Semantics]uint64{}
		for _, sem := range []machine.Semantics{machine.SC, machine.RDMA} {
			res, err := verdict.Compute(context.Background(), p, sem, verdict.Options{Machine: machine.Options{MaxInflight: 2, Reduce: false}})
			if err != nil {
				t.Fatal(err)
			}
			out[sem] = res.Search.States
		}
		return out
	}
	dead, live := count(""), count("assert(r + s < 9)")
	for _, sem := range []machine.Semantics{machine.SC, machine.RDMA} {
		if dead[sem] >= live[sem] {
			t.Errorf("%v: %d configurations with r dead after the if, %d with r live: the dead values still split configurations", sem, dead[sem], live[sem])
		}
	}
	t.Logf("configurations, dead/live: %v / %v", dead, live)
}

// TestRegistersLine checks the file's registers line: it chooses where
// the lowering keeps the registers unless the caller forces a mode, and
// "registers" stays a name elsewhere.
func TestRegistersLine(t *testing.T) {
	const src = `litmus regs
%s
node a { x = 0; registers = 0 }
thread t on a {
  reg r
  r := x
  if (r == 0) { registers := 1 }
}
exists (registers = 1)
`
	for _, tc := range []struct {
		line    string
		force   parse.RegisterMode
		runtime bool
	}{
		{"", parse.RegistersAuto, false},
		{"registers static", parse.RegistersAuto, false},
		{"registers auto", parse.RegistersAuto, false},
		{"registers runtime", parse.RegistersAuto, true},
		{"registers runtime", parse.RegistersStatic, false},
		{"registers static", parse.RegistersRuntime, true},
	} {
		p, err := parse.ParseOptions("regs.rdma", []byte(fmt.Sprintf(src, tc.line)), parse.Options{Registers: tc.force})
		if err != nil {
			t.Fatalf("%q: %v", tc.line, err)
		}
		if got := prog.HasRegisters(p); got != tc.runtime {
			t.Errorf("%q with mode %d: registers at run time %v, want %v", tc.line, tc.force, got, tc.runtime)
		}
	}
}
