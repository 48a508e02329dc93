package parse

import (
	"strings"
	"testing"
)

// surfaceSeeds are protocol programs for the parser's and the
// interpreter's fuzz targets: registers, expressions, control, arrays,
// families and params, ranges and error points.
var surfaceSeeds = []string{
	`param N = 2
node m[i] for i in 0..N-1 { flag : 0..1 = 0; got = 0 }
node S { ack = 0; buf[2] = 0 }
thread c[i] on m[i] for i in 0..N-1 {
  reg r : 0..3 = 0
  flag[i] := 1
  ack := flag[i]
  poll(S)
  got[i] := buf[i]
  r := got[i] + 1
}
thread s on S {
  while (ack == 0) { skip }
  assert(ack == 1)
}
`,
	`node A { x : 0..2 = 0; buf[2] = 0 }
node B { y : 0..1 = 0 }
thread T on A {
  reg r : 0..3 = 0
  r := x + 1
  buf[r - 1] := r
  y := x
  rfence(B)
}
thread U on B {
  y := 1
  assert(y == 1)
}
`,
	`node A { x = 0; n : 0..7 = 0; z = 0 }
thread T on A {
  reg r : 0..3 = 0
  while (x == 0 && r < 3) {
    r := r + 1
    if (r == 2) { break } else if (r == 1) { n := 1 } else { skip }
  }
  for k in 0..1 { n := n + k * r / (k + 1) % 3 }
  z := cas(n, 1, !(r >= 2) || -r < 0)
  assume(x == 1 || z != 2)
}
thread U on A { x := 1 }
`,
	`node A { s = 0 }
node B { out[3] = 0 }
thread T on A {
  reg r
  loop {
    choose { s := 1 } or { r := r + 1 }
    if (r == 2) { break }
  }
  out[r] := s
  poll(B)
}
`,
}

// FuzzInterpret checks the interpreter on whatever parses: it never panics,
// it fails only with file:line:col errors, and it names the locations and
// threads as the lowering does.
func FuzzInterpret(f *testing.F) {
	for _, s := range surfaceSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Parse("t.rdma", src)
		if err != nil {
			return
		}
		in, err := InterpretSC("t.rdma", src, Options{}, 2000)
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
		_, err := InterpretSC("t.rdma", []byte(c.src), Options{}, 0)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %s...", c.src, err, c.want)
		}
	}
}
