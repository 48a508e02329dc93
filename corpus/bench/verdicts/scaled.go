package main

import (
	"fmt"
	"strings"
)

// The scaled families of opsem/decide/bench_test.go, as program text: the
// same text as its rounds(n) and family(n) (the test checks it against
// corpus/bench/decide-mp10.rdma and corpus/bench/f5.rdma, which are
// rounds(10) and family(5)).

// familyText is F(n): n threads on node A, each putting the shared x to
// its own z_i on node B, polling, then writing x. Robust for every n.
func familyText(n int) string {
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

// roundsText is MP(n): n rounds of message passing with polled puts, a
// producer P putting data D then flag F, a consumer C checking, per round,
// F then D. Robust for every n; enumeration on the machine needs 2n+1
// operations in flight to be complete.
func roundsText(n int) string {
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

// scaledFamily is one family of the scaled mode: its name in the table,
// the file name and text of its n-th program, and the flags that make
// enumeration on the machine complete on it.
type scaledFamily struct {
	name     string
	file     func(n int) string
	text     func(n int) string
	enumArgs func(n int) []string
}

var families = []scaledFamily{
	{
		name: "MP",
		file: func(n int) string { return fmt.Sprintf("mp-%d.rdma", n) },
		text: roundsText,
		enumArgs: func(n int) []string {
			return []string{"--max-inflight", fmt.Sprint(2*n + 1)}
		},
	},
	{
		name:     "F",
		file:     func(n int) string { return fmt.Sprintf("family-%d.rdma", n) },
		text:     familyText,
		enumArgs: func(int) []string { return nil },
	},
}

// scaledCommands are the three ways of deciding robustness the scaled mode
// compares on the n-th program of f: the default method (auto: the race),
// the decider alone, and enumeration on the machine alone (complete).
func scaledCommands(f scaledFamily, n int) []command {
	return []command{
		{label: "robust", args: []string{"robust"}, parse: parseRobust},
		{label: "robust --method decide", args: []string{"robust", "--method", "decide"}, parse: parseRobust},
		{label: strings.TrimSpace("robust --method enum-machine " + strings.Join(f.enumArgs(n), " ")),
			args: append([]string{"robust", "--method", "enum-machine"}, f.enumArgs(n)...), parse: parseRobust},
	}
}
