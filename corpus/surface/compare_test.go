package surface

import (
	"context"
	"strings"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// cases are hand-written programs, each on an edge of the language, with
// what both sides must reach: the error points ("T at line L: message",
// sorted), the number of final memories and whether some run deadlocks.
var cases = []struct {
	name     string
	src      string
	errors   []string
	finals   int
	deadlock bool
}{
	{"put-overwrites-before-assert", `
node A { x : 0..2 = 0; buf[2] = 0 }
node B { y : 0..1 = 0 }
thread T on A {
  reg r : 0..3 = 0
  r := x + 1
  buf[r-1] := r
  y := x
}
thread U on B {
  y := 1
  assert(y == 1)
}
`, []string{"U at line 12: assertion y == 1 failed"}, 2, false},
	{"load-out-of-range", `
node A { x = 2 }
node B { y : 0..1 = 0 }
thread T on A { y := x }
thread U on B {
  reg r
  r := y
}
`, []string{"the value 2 written into y leaves its range 0..1"}, 0, false},
	{"short-circuit-guards-division", `
node A { x = 0; d = 0 }
thread T on A {
  reg r : 0..3 = 0
  if (r == 0 || x / r > 1) { d := 1 }
  if (r != 0 && x / r > 1) { d := 2 }
  r := 1 / r
}
`, []string{"T at line 7: 1 / r: division by zero"}, 0, false},
	{"store-leaves-range", `
node A { x : 1..2 = 1 }
thread T on A {
  reg r : 0..3 = 0
  choose { r := x + 1 } or { r := x + 2 }
  x := r
  r := r + 2
}
`, []string{"T at line 6: the value 3 leaves the range 1..2 of x", "T at line 7: the value 4 leaves the range 0..3 of register r"}, 0, false},
	{"assume-waits", `
node A { x = 0; y = 0 }
thread T on A {
  assume(x == 1)
  y := 1
}
thread U on A {
  x := 1
  x := 2
}
`, nil, 1, false},
	{"poll-without-operation-deadlocks", `
node A { x = 0 }
node B { y = 0 }
thread T on A {
  y := x
  poll(B)
  poll(B)
}
`, nil, 0, true},
	{"spin-is-not-a-deadlock", `
node A { x = 0 }
node B { y = 0 }
thread T on A {
  reg r : 0..1 = 0
  while (r == 0) { skip }
}
thread U on B { poll(A) }
`, nil, 0, false},
	{"while-over-memory-with-break", `
node A { x = 0; n = 0 }
thread T on A {
  reg r : 0..3 = 0
  while (x == 0) {
    r := r + 1
    if (r == 2) { break }
  }
  n := r
}
thread U on A { x := 1 }
`, nil, 3, false},
	{"for-and-arrays", `
node A { buf[3] = 0; s = 0 }
node B { out[3] = 0 }
thread T on A {
  reg r : 0..9 = 0
  for k in 0..2 {
    buf[k] := k + 1
    out[2 - k] := buf[k]
  }
  for k in 0..3 {
    r := r + buf[k]
  }
}
`, []string{"T at line 11: index out of bounds: buf[3] does not exist"}, 0, false},
	{"families-and-params", `
param N = 2
node m[i] for i in 0..N-1 { flag : 0..1 = 0; got = 0 }
node S { ack = 0 }
thread c[i] on m[i] for i in 0..N-1 {
  flag[i] := 1
  ack := flag[i]
  poll(S)
  got[i] := ack
}
thread s on S {
  while (ack == 0) { skip }
  assert(ack == 1)
}
`, nil, 1, false},
	{"cas-copies-old-value", `
node A { z = 0; x : 0..1 = 0; ok = 0 }
thread T on A {
  x := cas(z, 0, 5)
  ok := x + z
}
thread U on A { z := 3 }
`, []string{"the value 3 written into x leaves its range 0..1"}, 2, false},
	{"cas-new-value-out-of-range", `
node A { z : 0..1 = 0; x = 0 }
thread T on A {
  reg r : 0..3 = 2
  x := cas(z, 0, r)
}
`, []string{"T at line 5: the value 2 leaves the range 0..1 of z"}, 0, false},
	{"computed-node-out-of-range", `
node m[i] for i in 0..1 { v = 0 }
node A { w = 0 }
thread T on A {
  reg r : 0..2 = 0
  while (r < 2) {
    v[r] := w
    poll(m[r])
    r := r + 1
  }
  rfence(m[r])
}
`, []string{"T at line 11: index out of bounds: there is no node m[2]"}, 0, false},
	{"reads-interleave-within-a-statement", `
node A { x = 0; y = 0; seen = 0 }
thread T on A {
  seen := x + y
}
thread U on A {
  y := 1
  x := 1
}
`, nil, 3, false},
	{"choose-and-loop", `
node A { x = 0 }
thread T on A {
  reg r : 0..2 = 0
  loop {
    choose { x := 1 } or { r := r + 1 }
    if (r == 2) { break }
  }
}
`, nil, 2, false},
	{"multi-line-condition", `
node A { x = 0 }
thread T on A {
  reg r : 0..1 = 0
  assert(x == 1 ||
    r / x == 1)
}
`, []string{"T at line 6: r / x: division by zero"}, 0, false},
}

func TestCases(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Compare(context.Background(), c.name+".rdma", []byte(c.src), Options{MaxStates: 100000})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Skipped != "" {
				t.Fatalf("skipped: %s", rep.Skipped)
			}
			if len(rep.Problems) > 0 {
				t.Fatalf("disagreement:\n%s", strings.Join(rep.Problems, "\n"))
			}
			if !rep.Machine.Complete || !rep.Interp.Complete {
				t.Fatalf("a search was cut: machine %v, interpreter %v", rep.Machine.Complete, rep.Interp.Complete)
			}
			var got []string
			for _, e := range rep.Interp.Errors {
				got = append(got, e.String())
			}
			if strings.Join(got, "\n") != strings.Join(c.errors, "\n") {
				t.Errorf("error points:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.errors, "\n"))
			}
			if len(rep.Interp.Finals) != c.finals {
				t.Errorf("%d final memories, want %d", len(rep.Interp.Finals), c.finals)
			}
			if rep.Interp.Deadlock != c.deadlock {
				t.Errorf("deadlock %v, want %v", rep.Interp.Deadlock, c.deadlock)
			}
		})
	}
}

// TestCompareFindsDifferences checks that the comparison reports what one
// side reached and the other did not, both ways.
func TestCompareFindsDifferences(t *testing.T) {
	p, err := parse.Parse("d.rdma", []byte("node A { x = 0 }\nthread T on A { reg r\n r := x }\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := ErrorPoint{Thread: "T", Pos: prog.Pos{Line: 3, Col: 2}, Msg: "boom"}
	a := &Behaviours{Finals: [][]uint8{{0}, {1}}, Errors: []ErrorPoint{e}}
	b := &Behaviours{Finals: [][]uint8{{0}}}
	for _, c := range []struct {
		a, b *Behaviours
		want int
	}{{a, b, 2}, {b, a, 0}, {a, a, 0}} {
		r := &Report{}
		r.compare(p, c.a, c.b, "machine")
		if len(r.Problems) != c.want {
			t.Errorf("%d problems, want %d: %v", len(r.Problems), c.want, r.Problems)
		}
	}
}
