package surface

import (
	"context"
	"testing"

	"rdmasim/opsem/parse"
)

// TestQuietAgrees: a protocol with quiet and fenced operations
// (SEMANTICS-VERBS.md 6, 4) lowers and interprets to the same SC behaviours
// (quiet is a step that changes nothing under SC, the mark changes nothing
// there), with registers specialised and kept at run time, and
// an assertion after the quiet that SC never fails.
func TestQuietAgrees(t *testing.T) {
	const src = `node A { val = 1; one = 1 }
node F { log : 0..1 = 0 }
node C { commit : 0..1 = 0; copy : 0..1 = 0 }
proc flush() { quiet }
thread leader on A {
  for i in 0..1 {
    log := val fenced
    flush()
  }
  commit := one
}
thread client on C {
  reg c : 0..1
  reg v : 0..1
  c := commit
  if (c == 1) {
    copy := log fenced
    quiet
    v := copy
    assert(v == 1)
  }
}
`
	for _, regs := range []parse.RegisterMode{parse.RegistersStatic, parse.RegistersRuntime} {
		rep, err := Compare(context.Background(), "quiet.rdma", []byte(src), Options{Registers: regs})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Agree() {
			t.Errorf("registers %v: skipped %q, problems %q", regs, rep.Skipped, rep.Problems)
		}
		if len(rep.Interp.Errors) != 0 || len(rep.Interp.Finals) == 0 {
			t.Errorf("registers %v: the interpreter reaches %d finals and the error points %v, want finals and no error point under SC", regs, len(rep.Interp.Finals), rep.Interp.Errors)
		}
	}
}
