package robust

import (
	"flag"
	"fmt"
	"strings"
	"testing"
)

var (
	tornAll   = flag.Bool("robust.torn.all", false, "TestAtomicsTornTemplate: every program of the template, not one in 499")
	tornEvery = flag.Int("robust.torn.every", 0, "TestAtomicsTornTemplate: one program in this many (0: 499, or 1 with -robust.torn.all)")
	tornFrom  = flag.Int("robust.torn.offset", 0, "TestAtomicsTornTemplate: the first program drawn, modulo the sampling")
)

// tornPrograms draws a template aimed at the shape SEMANTICS-ATOMICS.md 5.4
// calls the likeliest gap of the decider's instrumentation of atomics: a
// *torn* atomic, a CPU write of y between the atomic's read and its write,
// that needs operations the atomic's thread submits after the atomic (so
// the pending step, which stops the thread at the atomic, cannot have it),
// on a queue pair whose later entries may keep the atomic's read from
// happening late (A1 needs the queue pair's RW empty).
//
// Thread p on n1 submits the atomic on n2's y, then zero to three of: a put
// of f and a put of z (both to n2, so on the atomic's queue pair), a get of
// n2's h, a poll, a second atomic on n2's u. Thread c on n2 writes y once
// zero to two of "f is 1", "z is 1" (assumed) and "h := 1" came first,
// then possibly reads y or writes h. An observer d on n2 is absent, reads
// y as the atomic's write and z as not yet written, waits for h and then
// reads z as not written, or performs a second atomic on y.
func tornPrograms() []string {
	seqs := func(ops []string, min, max int) [][]string {
		var out [][]string
		cur := [][]string{{}}
		for l := 0; l <= max; l++ {
			if l >= min {
				out = append(out, cur...)
			}
			var next [][]string
			for _, c := range cur {
				for _, o := range ops {
					next = append(next, append(append([]string{}, c...), o))
				}
			}
			cur = next
		}
		return out
	}
	atoms := []string{"x := rfaa(y, 1)", "x := rcas(y, 0, 1)"}
	pops := []string{"f := one", "z := one", "g := h", "poll(n2)", "k := rfaa(u, 1)"}
	pre := []string{"assume(f == 1)", "assume(z == 1)", "h := 1"}
	post := [][]string{{}, {"h := 1"}, {"if (y == 5) {\n    w := 1\n  }"}}
	ds := []string{"", "assume(y == 1)\n  assume(z == 0)", "assume(h == 1)\n  assume(z == 0)", "v := rfaa(y, 2)"}
	var out []string
	for _, a := range atoms {
		for _, ps := range seqs(pops, 0, 3) {
			for _, cs := range seqs(pre, 0, 2) {
				for _, po := range post {
					for _, d := range ds {
						var b strings.Builder
						b.WriteString("litmus torn\nnode n1 { x = 9; g = 0; k = 0; one = 1 }\nnode n2 { y = 0; f = 0; z = 0; h = 0; u = 0; w = 0 }\nnode n3 { v = 0 }\n")
						fmt.Fprintf(&b, "thread p on n1 {\n  %s\n", a)
						for _, o := range ps {
							fmt.Fprintf(&b, "  %s\n", o)
						}
						b.WriteString("}\nthread c on n2 {\n")
						for _, o := range append(append(append([]string{}, cs...), "y := 5"), po...) {
							fmt.Fprintf(&b, "  %s\n", o)
						}
						b.WriteString("}\n")
						if d != "" {
							on := "n2"
							if strings.Contains(d, "rfaa") {
								on = "n3"
							}
							fmt.Fprintf(&b, "thread d on %s {\n  %s\n}\n", on, d)
						}
						out = append(out, b.String())
					}
				}
			}
		}
	}
	return out
}

// TestAtomicsTornTemplate: on the template of tornPrograms the decider's
// experimental instrumentation of atomics answers as enumeration on the RDMA
// machine (complete on these loop-free programs). One in 499 by default;
// -robust.torn.all (or -robust.torn.every N, -robust.torn.offset K) for more.
func TestAtomicsTornTemplate(t *testing.T) {
	every := 499
	if *tornAll {
		every = 1
	}
	if *tornEvery > 0 {
		every = *tornEvery
	}
	progs := tornPrograms()
	from := *tornFrom % every
	compared, notRobust := compareTemplate(t, "torn", progs, func(i int) bool { return i >= from && (i-from)%every == 0 })
	t.Logf("%d of %d programs compared (one in %d), %d not robust", compared, len(progs), every, notRobust)
	if want := len(progs) / every * 9 / 10; compared < want {
		t.Errorf("only %d programs compared, want at least %d", compared, want)
	}
}
