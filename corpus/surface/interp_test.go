package surface

import (
	"regexp"
	"strings"
	"testing"

	"rdmasim/opsem/parse"
)

// errorRE matches an error of the file t.rdma as file:line:col: message.
var errorRE = regexp.MustCompile(`^t\.rdma:(\d+):(\d+): \S`)

// FuzzInterpret checks the interpreter on whatever parses: it never panics,
// it fails only with file:line:col errors, and it names the locations and
// threads as the lowering does.
func FuzzInterpret(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := parse.Parse("t.rdma", src)
		if err != nil {
			return
		}
		in, err := InterpretSC("t.rdma", src, parse.Options{}, 2000)
		if err != nil {
			if !errorRE.MatchString(err.Error()) {
				t.Fatalf("error %q is not file:line:col: message", err)
			}
			return
		}
		if len(in.Locs) != len(p.Locs) || len(in.Threads) != len(p.Threads) {
			t.Fatalf("%d locations and %d threads interpreted, %d and %d lowered", len(in.Locs), len(in.Threads), len(p.Locs), len(p.Threads))
		}
		for l := range p.Locs {
			if in.Locs[l] != p.Locs[l].Name {
				t.Fatalf("location %d: %s interpreted, %s lowered", l, in.Locs[l], p.Locs[l].Name)
			}
		}
		for th := range p.Threads {
			if in.Threads[th] != p.Threads[th].Name {
				t.Fatalf("thread %d: %s interpreted, %s lowered", th, in.Threads[th], p.Threads[th].Name)
			}
		}
		for _, m := range in.Finals {
			if len(m) != len(p.Locs) {
				t.Fatalf("a final memory of %d values for %d locations", len(m), len(p.Locs))
			}
		}
	})
}

// TestInterpretStaticErrors checks that a run meeting a mistake the
// lowering rejects fails the interpretation, at the mistake.
func TestInterpretStaticErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"node A { x = 0 }\nnode B { y = 0 }\nthread T on A { reg r\n r := y }\n", "t.rdma:4:7: y is on node B"},
		{"node A { x = 0 }\nnode B { y = 0 }\nthread T on A { y := x + 1 }\n", "t.rdma:3:17: y is on another node"},
		{"node A { x = 0 }\nthread T on A { rfence(A) }\n", "t.rdma:2:24: rfence(A) names the thread's own node"},
		{"node A { x = 0 }\nthread T on A { x := q }\n", "t.rdma:2:22: unknown name q"},
	} {
		_, err := InterpretSC("t.rdma", []byte(c.src), parse.Options{}, 0)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %s...", c.src, err, c.want)
		}
	}
}
