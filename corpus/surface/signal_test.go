package surface

import (
	"context"
	"testing"

	"rdmasim/opsem/parse"
)

// TestUnsignaledAgrees: protocols with the unsignaled mark
// (SEMANTICS-VERBS.md 2) lower and interpret to the same SC behaviours,
// with registers specialised and kept at run time: a batch whose last put
// is signalled and polled once (the thread ends); a loop of batches, each
// polled once; and a thread whose second poll has no signalled operation
// left to match, which waits there under both (no final configuration of
// it), so that an interpreter that counted unsignaled operations for its
// polls would disagree.
func TestUnsignaledAgrees(t *testing.T) {
	for _, tc := range []struct {
		src    string
		finals bool // the interpreter reaches a final configuration
	}{{`node A { buf[3] = 1; done : 0..1 = 0 }
node B { req[3] = 0 }
thread client on A {
  req[0] := buf[0] unsignaled
  req[1] := buf[1] unsignaled
  req[2] := buf[2]
  poll(B)
  done := 1
}
thread server on B {
  reg v
  v := req[0]
  assert(v != 2)
}
`, true}, {`node A { buf[2] = 1; got[2] = 0 }
node B { req[2] = 3 }
thread client on A {
  for i in 0..1 {
    got[i] := req[i] unsignaled
    req[i] := buf[i]
    poll(B)
  }
}
`, true}, {`node A { a = 1; r = 0 }
node B { x = 0; y = 2 }
thread client on A {
  x := a unsignaled
  r := y
  poll(B)
  poll(B)
}
`, false}} {
		for _, regs := range []parse.RegisterMode{parse.RegistersStatic, parse.RegistersRuntime} {
			rep, err := Compare(context.Background(), "unsignaled.rdma", []byte(tc.src), Options{Registers: regs})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Agree() {
				t.Errorf("registers %v: skipped %q, problems %q\n%s", regs, rep.Skipped, rep.Problems, tc.src)
			}
			if len(rep.Interp.Errors) != 0 || (len(rep.Interp.Finals) > 0) != tc.finals {
				t.Errorf("registers %v: the interpreter reaches %d finals and the error points %v, want finals %v and no error point under SC", regs, len(rep.Interp.Finals), rep.Interp.Errors, tc.finals)
			}
		}
	}
}
