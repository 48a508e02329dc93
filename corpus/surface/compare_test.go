package surface

import (
	"context"
	"strings"
	"testing"
)

// cases are hand-written programs, each on an edge of the language, with
// what the comparison must find.
var cases = []struct {
	name string
	src  string
	// errors: the error points both sides must reach (as "T at line L:
	// message"), in order; finals: how many final memories.
	errors []string
	finals int
}{
	{"put-then-assert", `
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
`, nil, 1},
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
		})
	}
}
