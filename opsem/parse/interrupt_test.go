package parse

import (
	"context"
	"errors"
	"testing"
)

// spinTicket is a ticket lock whose clients spin on a get of serving, with
// no declared ranges: before the hop budget (budget.go) every read
// branched over 0..255, and its lowering ran for minutes (issue 27).
const spinTicket = `litmus spin-ticket
param N = 2
node S { next = 0; serving = 0; D = 0 }
node c[i] for i in 0..N-1 { t = 0; s = 0; d = 0; v = 0; n = 0 }
thread client[i] on c[i] for i in 0..N-1 {
  t[i] := rfaa(next, 1)
  poll(S)
  s[i] := serving
  poll(S)
  while (s[i] != t[i]) {
    s[i] := serving
    poll(S)
  }
  d[i] := D
  poll(S)
  v[i] := d[i] + 1
  D := v[i]
  n[i] := t[i] + 1
  serving := n[i]
  poll(S)
  poll(S)
}
exists ~(D = 2)
`

// TestLoweringInterrupted: a lowering under a done context stops within a
// few hundred steps with an *InterruptedError that wraps the context's
// error and says where it was.
func TestLoweringInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ParseContext(ctx, "spin.rdma", []byte(spinTicket), Options{NoHopBudget: true})
	var ie *InterruptedError
	if !errors.As(err, &ie) {
		t.Fatalf("ParseContext under a canceled context: %v, want an *InterruptedError", err)
	}
	if !errors.Is(err, context.Canceled) || ie.Thread != "client[0]" || ie.File != "spin.rdma" {
		t.Errorf("interrupted at thread %q of %q (%v), want client[0] of spin.rdma, wrapping context.Canceled", ie.Thread, ie.File, err)
	}
	// A file without the protocol language is not lowered: the context
	// does not matter.
	if _, err := ParseContext(ctx, "sb.rdma", []byte("node A { x = 0 }\nthread T on A { x := 1 }\n"), Options{}); err != nil {
		t.Errorf("a core file under a canceled context: %v", err)
	}
}
