package parse

import (
	"testing"
)

// TestWrongInputs: the mistakes a new user makes in a protocol (issue 34's
// "fourteen wrong inputs") each get one error, at its place, with the fix.
func TestWrongInputs(t *testing.T) {
	const head = "node A { x = 0; o = 0 }\nnode B { L = 0 }\nthread T on A {\n  reg r\n"
	tests := []struct{ name, body, want string }{
		{"misspelt while", "  whlie (x != 0) {\n    skip\n  }\n}",
			"t.rdma:5:3: unknown statement whlie; did you mean while (cond) { A }?"},
		{"while on a remote location", "  while (L != 0) {\n    skip\n  }\n}",
			"t.rdma:5:10: L is on node B: thread T reads only the memory of its own node A (get it into a location of A first: l := L)"},
		{"rcas constant out of range", "  o := rcas(L, 0, 256)\n}",
			"t.rdma:5:19: rcas: the value swapped in, 256, is outside 0..255, the values a location holds"},
		{"rfaa constant out of range", "  o := rfaa(L, 300)\n}",
			"t.rdma:5:16: rfaa: the value added, 300, is outside 0..255, the values a location holds"},
		{"cas constant out of range", "  o := cas(x, 256, 1)\n}",
			"t.rdma:5:15: cas: the value compared, 256, is outside 0..255, the values a location holds"},
		{"misspelt if", "  iff (r == 1) {\n    x := 1\n  }\n}",
			"t.rdma:5:3: unknown statement iff; did you mean if (cond) { A } else { B }?"},
		{"misspelt assert", "  asert(r == 1)\n}",
			"t.rdma:5:3: unknown statement asert; did you mean assert(cond)?"},
		{"misspelt break", "  while (x == 0) {\n    brek\n  }\n}",
			"t.rdma:6:5: unknown statement brek; did you mean break?"},
		{"elif", "  if (r == 1) {\n    x := 1\n  } elif (r == 2) {\n    x := 2\n  }\n}",
			"t.rdma:7:5: unknown word elif after an if's block; did you mean else if (cond) { B } or else { B }?"},
		{"misspelt for", "  forr (r == 0) {\n    skip\n  }\n}",
			"t.rdma:5:3: unknown statement forr; did you mean for k in lo..hi { A }?"},
		{"until", "  until (x == 1) {\n    skip\n  }\n}",
			"t.rdma:5:3: unknown statement until; did you mean while (cond) { A }?"},
		{"no such statement before a block", "  frobnicate (x == 1) {\n    skip\n  }\n}",
			"t.rdma:5:3: unknown statement frobnicate followed by a block (statements are skip, assignments x := ..., assume, assert, rfence, poll, quiet, choose, loop, while, if, for, break and calls of procedures)"},
		{"remote read in an expression", "  r := L + 1\n}",
			"t.rdma:5:8: L is on node B: thread T reads only the memory of its own node A (get it into a location of A first: l := L)"},
		{"assert with =", "  assert(r = 1)\n}",
			"t.rdma:5:12: assert compares with '==' or '!=', not '=' (write assert(r == v))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.rdma", []byte(head+tc.body+"\n"))
			errs, ok := err.(ErrorList)
			if !ok || len(errs) != 1 {
				t.Fatalf("got %v, want exactly one error: %s", err, tc.want)
			}
			if got := errs[0].Error(); got != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}
