package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// runJSON is the JSON form of a random run.
type runJSON struct {
	File      string      `json:"file"`
	Name      string      `json:"name"`
	Semantics string      `json:"semantics"`
	Seed      uint64      `json:"seed"`
	Run       *report.Run `json:"run"`
	// End is final, deadlock, filtered (an assume failed), cut (a
	// bound), step-limit or interrupted.
	End string `json:"end"`
	// Waiting says where the threads of a deadlock wait.
	Waiting   string           `json:"waiting,omitempty"`
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
		return fileFailed(e, *jsonOut, file, report.ErrorText(err), err)
	}
	m, err := verdict.NewMachine(p, s, machine.Options{MaxInflight: *inflight, Unroll: *unroll})
	if err != nil {
		return fileFailed(e, *jsonOut, file, fmt.Sprintf("rdmasim run: %v", err), err)
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
	end, waiting := "step-limit", ""
	switch {
	case deadEnd && m.Final(st):
		end = "final"
	case deadEnd && pruned != 0:
		end = "cut by " + machine.PrunedString(pruned, m.Options())
	case deadEnd && m.StuckEncoded(prev) == machine.Deadlock:
		end = "deadlock"
		waiting = m.Waiting(prev)
	case deadEnd:
		end = "filtered (an assume failed)"
	case ctx.Err() != nil:
		end = "interrupted"
	}
	var satisfies *bool
	if p.Query.Kind != 0 && p.Query.Cond != nil {
		sat := p.Query.Cond.Eval(p, st)
		satisfies = &sat
	}
	if *jsonOut {
		out := runJSON{File: file, Name: p.Name, Semantics: s.String(), Seed: *seed, End: end, Waiting: waiting, Satisfies: satisfies, Memory: map[string]uint8{},
			Run: report.NewRun(&verdict.Run{InitialText: initial, Steps: steps}, p.ThreadName)}
		for l, loc := range p.Locs {
			out.Memory[loc.Name] = st.Mem(l)
		}
		writeJSON(e.stdout, out)
	} else {
		fmt.Fprintf(e.stdout, "Run %s (%s, seed %d): %d steps, %s\n", p.Name, s, *seed, n, end)
		report.WriteRun(e.stdout, "", s, &verdict.Run{InitialText: initial, Steps: steps})
		if waiting != "" {
			fmt.Fprintf(e.stdout, "Deadlock %s: waits for ever, nothing left to complete\n", waiting)
		}
		fmt.Fprintln(e.stdout, "End configuration:")
		report.WriteConfig(e.stdout, m.Format(prev))
		if satisfies != nil {
			fmt.Fprintf(e.stdout, "Condition %s %s: %v\n", p.Query.Kind, p.CondString(p.Query.Cond), *satisfies)
		}
	}
	if ctx.Err() != nil {
		return exitInterrupt
	}
	return exitOK
}
