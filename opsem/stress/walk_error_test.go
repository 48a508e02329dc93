package stress

import (
	"context"
	"testing"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
)

// TestWalkEndsAtErrorPoint: a run that stops at an error point says which,
// not "filtered (an assume failed)": an assertion that fails, and a put
// that writes a value out of its location's range (issue 34).
func TestWalkEndsAtErrorPoint(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"assertion", "node A { x = 0 }\nthread T on A {\n  reg r\n  assert(x == 1)\n}\n",
			"error point (T at line 4: assertion x == 1 failed)"},
		{"put out of range", "node A { x = 2 }\nnode B { L : 0..1 = 0 }\nthread T on A { L := x }\n",
			"error point (T at line 3 (L := x): the value 2 written into L leaves its range 0..1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parse.Parse(tc.name+".rdma", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
				r, err := Walk(context.Background(), p, WalkOptions{Semantics: sem, Machine: machine.DefaultOptions(), Seed: 1, MaxSteps: 100})
				if err != nil {
					t.Fatal(err)
				}
				if r.End != tc.want {
					t.Errorf("%s: end %q, want %q", sem, r.End, tc.want)
				}
			}
		})
	}
}
