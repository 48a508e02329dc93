package prog_test

import (
	"strings"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// symProgram is a family of N identical clients, each putting its value to
// its own slot on the server and reading the shared x; extra is added to
// the server's body, client to each client's.
func symProgram(n int, nodeInit, client, server string) string {
	return `param N = ` + string(rune('0'+n)) + `
node S { x : 0..3 = 0; slot[N] : 0..3 = 0 }
node m[i] for i in 0..N-1 { v : 0..3 = ` + nodeInit + `; d : 0..3 = 0 }
thread client[i] on m[i] for i in 0..N-1 {
  slot[i] := v[i]
  poll(S)
  d[i] := x
` + client + `
}
thread server on S {
  x := 1
` + server + `
}
`
}

func TestFindSymmetry(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want string // Symmetry.String(), or "none"
		why  string // a word of the reason when none
	}{
		{"clients", symProgram(3, "1", "", ""), "3 instances of client (6 permutations)", ""},
		{"four", symProgram(4, "1", "", ""), "4 instances of client (24 permutations)", ""},
		{"writes its index", symProgram(3, "1", "d[i] := i", ""), "none", "values"},
		// The reason names the statement (its line) and the locations.
		{"a client reads client 0's slot", symProgram(2, "1", "d[i] := slot[0]\nd[i] := slot[0]", ""), "none", "(slot[0], renamed slot[1], against slot[0])"},
		{"server reads in order", symProgram(2, "1", "", "assume(slot[0] == 1)\nassume(slot[1] == 1)"), "none", "server"},
		{"server puts to each client", symProgram(2, "1", "", "d[0] := x\nd[1] := x"), "none", "server has a queue pair towards m[0] and one towards m[1]"},
		{"server reads symmetric", symProgram(2, "1", "", "while (x == 0) { skip }"), "2 instances of client (2 permutations)", ""},
		{"different initial values", symProgram(3, "i", "", ""), "none", "initial"},
		{"single", symProgram(1, "1", "", ""), "none", ""},
		{"a client waits for client 0", symProgram(2, "1", "d[i] := slot[0]", ""), "none", "client"},
		{"core program", "node A { x = 0 }\nthread T on A { x := 1 }\n", "none", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parse.Parse(tc.name+".rdma", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			sym, why := prog.FindSymmetry(p)
			if got := sym.String(); got != tc.want {
				t.Fatalf("symmetry %q, want %q (why: %v)", got, tc.want, why)
			}
			if tc.why != "" && !strings.Contains(strings.Join(why, "; "), tc.why) {
				t.Errorf("why %q, want it to mention %q", why, tc.why)
			}
			if sym == nil {
				return
			}
			// Every element of the group leaves the program invariant.
			n := 0
			sym.Permutations(p, func(r prog.Renaming) bool {
				n++
				if err := r.Invariant(p); err != nil {
					t.Errorf("permutation %v: %v", r.Thread, err)
				}
				return true
			})
			if uint64(n) != sym.Order() {
				t.Errorf("%d permutations, want %d", n, sym.Order())
			}
		})
	}
}

func TestSymmetryForCond(t *testing.T) {
	src := symProgram(3, "1", "", "")
	for _, tc := range []struct {
		query, want string
	}{
		{"exists (x = 1)", "3 instances of client (6 permutations)"},
		{"exists (d[0] = 1 /\\ d[1] = 1 /\\ d[2] = 1)", "3 instances of client (6 permutations)"},
		{"exists (d[0] = 1)", "2 instances of client (2 permutations)"},
		{"exists (d[0] = 1 /\\ slot[1] = 1)", "none"},
		{"reach client[2]@end", "2 instances of client (2 permutations)"},
	} {
		p, err := parse.Parse("q.rdma", []byte(src+tc.query+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		sym, _ := prog.FindSymmetry(p)
		sub, _ := sym.ForCond(p, p.Query.Cond)
		if got := sub.String(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.query, got, tc.want)
		}
	}
}

// TestSymmetryWithout: the permutations that fix a set of threads are those
// of the instances outside it, a group only while two or more remain.
func TestSymmetryWithout(t *testing.T) {
	p, err := parse.Parse("w.rdma", []byte(symProgram(4, "1", "", "")+"exists (x = 1)\n"))
	if err != nil {
		t.Fatal(err)
	}
	sym, _ := prog.FindSymmetry(p)
	thread := func(name string) uint64 {
		for i := range p.Threads {
			if p.Threads[i].Name == name {
				return 1 << i
			}
		}
		t.Fatalf("no thread %s", name)
		return 0
	}
	for _, tc := range []struct {
		fixed uint64
		want  string
	}{
		{0, "4 instances of client (24 permutations)"},
		{thread("server"), "4 instances of client (24 permutations)"},
		{thread("server") | thread("client[0]"), "3 instances of client (6 permutations)"},
		{thread("client[1]") | thread("client[3]"), "2 instances of client (2 permutations)"},
		{thread("client[0]") | thread("client[1]") | thread("client[2]"), "none"},
	} {
		if got := sym.Without(tc.fixed).String(); got != tc.want {
			t.Errorf("Without(%b): %q, want %q", tc.fixed, got, tc.want)
		}
	}
}
