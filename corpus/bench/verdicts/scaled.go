package main

import (
	"fmt"
	"strings"

	"rdmasim/corpus/bench/scaled"
)

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
		text: scaled.MP,
		enumArgs: func(n int) []string {
			return []string{"--max-inflight", fmt.Sprint(2*n + 1)}
		},
	},
	{
		name:     "F",
		file:     func(n int) string { return fmt.Sprintf("family-%d.rdma", n) },
		text:     scaled.F,
		enumArgs: func(int) []string { return nil },
	},
}

// scaledCommands are the three ways of deciding robustness the scaled mode
// compares on the n-th program of f: the default method (auto),
// the decider alone, and enumeration on the machine alone (complete).
func scaledCommands(f scaledFamily, n int) []command {
	return []command{
		{label: "robust", args: []string{"robust"}, parse: parseRobust},
		{label: "robust --method decide", args: []string{"robust", "--method", "decide"}, parse: parseRobust},
		{label: strings.TrimSpace("robust --method enum-machine " + strings.Join(f.enumArgs(n), " ")),
			args: append([]string{"robust", "--method", "enum-machine"}, f.enumArgs(n)...), parse: parseRobust},
	}
}
