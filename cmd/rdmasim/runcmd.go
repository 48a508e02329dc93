package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/verdict"
)

// runJSON is the JSON form of a random run.
type runJSON struct {
	File      string           `json:"file"`
	Name      string           `json:"name"`
	Semantics string           `json:"semantics"`
	Seed      uint64           `json:"seed"`
	Steps     []string         `json:"steps"`
	End       string           `json:"end"` // final, blocked, cut (bound), or step-limit
	Satisfies *bool            `json:"satisfies"`
	Memory    map[string]uint8 `json:"memory"`
}

func cmdRun(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("run", e)
	jsonOut := fs.Bool("json", false, "print the run as one JSON object")
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same run")
	maxSteps := fs.Int("steps", 10000, "stop after this many steps")
	sem := fs.String("semantics", "rdma", "machine to run: rdma or sc")
	unroll := fs.Int("unroll", 0, "iterations of each loop per entry, 0 = unbounded")
	inflight := fs.Int("max-inflight", machine.DefaultOptions().MaxInflight, "operations in the buffers of one queue pair")
	if code := parseFlags(fs, args, e, "run [flags] FILE"); code >= 0 {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "rdmasim run: want exactly one input file")
		return exitUsage
	}
	s, err := semantics(*sem)
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim run: %v\n", err)
		return exitUsage
	}
	if *maxSteps < 1 {
		fmt.Fprintf(e.stderr, "rdmasim run: --steps %d: want at least 1\n", *maxSteps)
		return exitUsage
	}
	file := fs.Arg(0)
	p, err := parse.File(file)
	if err != nil {
		fileFailed(e, *jsonOut, file, errorText(err), err)
		return exitUsage
	}
	m, err := verdict.NewMachine(p, s, machine.Options{MaxInflight: *inflight, Unroll: *unroll})
	if err != nil {
		fileFailed(e, *jsonOut, file, fmt.Sprintf("rdmasim run: %v", err), err)
		return exitUsage
	}
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	prev := m.Initial(nil)
	initial := m.Format(prev)
	var steps []machine.Transition
	n, deadEnd, pruned := explore.Walk(m, rng, *maxSteps, func(l explore.Label, next []byte) bool {
		steps = append(steps, m.ExplainChain(prev, l)...)
		prev = append(prev[:0], next...)
		return ctx.Err() == nil
	})
	st := m.NewState()
	m.Decode(prev, st)
	end := "step-limit"
	switch {
	case deadEnd && m.Final(st):
		end = "final"
	case deadEnd && pruned != 0:
		end = "cut by " + machine.PrunedString(pruned, m.Options())
	case deadEnd:
		end = "blocked"
	case ctx.Err() != nil:
		end = "interrupted"
	}
	var satisfies *bool
	if p.Query.Kind != 0 && p.Query.Cond != nil {
		sat := p.Query.Cond.Eval(p, st)
		satisfies = &sat
	}
	if *jsonOut {
		out := runJSON{File: file, Name: p.Name, Semantics: s.String(), Seed: *seed, End: end, Satisfies: satisfies, Memory: map[string]uint8{}}
		for _, t := range steps {
			out.Steps = append(out.Steps, stepLine(t))
		}
		for l, loc := range p.Locs {
			out.Memory[loc.Name] = st.Mem(l)
		}
		writeJSON(e.stdout, out)
	} else {
		fmt.Fprintf(e.stdout, "Run %s (%s, seed %d): %d steps, %s\n", p.Name, s, *seed, n, end)
		for _, line := range strings.Split(strings.TrimSuffix(initial, "\n"), "\n") {
			fmt.Fprintf(e.stdout, "  | %s\n", line)
		}
		for i, t := range steps {
			fmt.Fprintf(e.stdout, "  %3d. %s\n", i+1, stepLine(t))
		}
		fmt.Fprintln(e.stdout, "End configuration:")
		for _, line := range strings.Split(strings.TrimSuffix(m.Format(prev), "\n"), "\n") {
			fmt.Fprintf(e.stdout, "  | %s\n", line)
		}
		if satisfies != nil {
			fmt.Fprintf(e.stdout, "Condition %s %s: %v\n", p.Query.Kind, p.CondString(p.Query.Cond), *satisfies)
		}
	}
	if ctx.Err() != nil {
		return exitInterrupt
	}
	return exitOK
}

// stepLine prints one transition on one line.
func stepLine(t machine.Transition) string {
	line := t.Actor + ": " + t.What
	if t.Rule != "step" {
		line = t.Actor + ": " + t.Rule + " " + t.What
	}
	if t.Event != "" {
		line += "  " + t.Event
	}
	if len(t.Changes) > 0 {
		line += "  {" + strings.Join(t.Changes, "; ") + "}"
	}
	return line
}
