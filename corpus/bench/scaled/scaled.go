// Package scaled writes the scaled program families of the decider's
// benchmarks as .rdma text: MP(n), n rounds of message passing with polled
// puts, and F(n), n threads putting a shared location, polling and writing
// it. Both are robust for every n. opsem/decide's benchmarks, the
// time-to-verdict tool (corpus/bench/verdicts -scaled) and the decider's
// kill test use them; corpus/bench/decide-mp10.rdma and f5.rdma are MP(10)
// and F(5) (TestFiles).
package scaled

import (
	"fmt"
	"strings"
)

// F is F(n): n threads on node A, each putting the shared x to
// its own z_i on node B, polling, then writing x. Robust for every n.
func F(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "litmus family-%d\nnode A { x = 1 }\nnode B {", n)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " z%d = 0;", i)
	}
	b.WriteString(" }\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "thread T%d on A { z%d := x; poll(B); x := %d }\n", i, i, i+2)
	}
	return b.String()
}

// MP is MP(n): n rounds of message passing with polled puts, a
// producer P putting data D then flag F, a consumer C checking, per round,
// F then D. Robust for every n; enumeration on the machine needs 2n+1
// operations in flight to be complete.
func MP(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "litmus mp-%d\nnode A { d = 0; f = 0 }\nnode B { D = 0; F = 0 }\nthread P on A {", n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, " d := %d; D := d; poll(B); f := %d; F := f; poll(B);", i, i)
	}
	b.WriteString(" }\nthread C on B {")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, " choose { assume(F == %d); assume(D == %d) } or { skip };", i, i)
	}
	b.WriteString(" }\n")
	return b.String()
}
