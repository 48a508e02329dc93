package parse

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
