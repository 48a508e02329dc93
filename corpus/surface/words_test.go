package surface

import (
	"context"
	"testing"

	"rdmasim/opsem/parse"
)

// TestWordsAgree: protocols with word ranges (SEMANTICS-VERBS.md 1: one
// put or get of several words, one SC step) lower and interpret to the same
// SC behaviours, with registers specialised and kept at run time: a
// message of two words sent with a flag after it, polled on the flag; a
// get of a whole slot; a range whose start an index computes. Under SC a
// reader never sees part of a message: the assertions hold.
func TestWordsAgree(t *testing.T) {
	for _, src := range []string{`param N = 2
node A { msg[N] = 0; one = 1 }
node B { buf[N] = 0; flag : 0..1 = 0 }
thread sender on A {
  msg[0] := 1
  msg[1] := 2
  buf[0..N-1] := msg[0..N-1]
  flag := one
}
thread receiver on B {
  reg f : 0..1
  reg a
  reg b
  f := flag
  if (f == 1) {
    a := buf[0]
    b := buf[1]
    assert(a == 1 && b == 2)
  }
}
`, `node A { r[3] = 0 }
node B { slot[4] = 5; k : 0..1 = 1 }
thread reader on A {
  for i in 0..1 {
    r[i..i+1] := slot[2*i..2*i+1]
  }
}
thread writer on B {
  reg j : 0..1
  j := k
  slot[2*j] := 7
}
`} {
		for _, regs := range []parse.RegisterMode{parse.RegistersStatic, parse.RegistersRuntime} {
			rep, err := Compare(context.Background(), "words.rdma", []byte(src), Options{Registers: regs})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Agree() {
				t.Errorf("registers %v: skipped %q, problems %q\n%s", regs, rep.Skipped, rep.Problems, src)
			}
			if len(rep.Interp.Errors) != 0 || len(rep.Interp.Finals) == 0 {
				t.Errorf("registers %v: the interpreter reaches %d finals and the error points %v, want finals and no error point under SC", regs, len(rep.Interp.Finals), rep.Interp.Errors)
			}
		}
	}
}
