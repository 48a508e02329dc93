package stress

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// WalkOptions configure Walk.
type WalkOptions struct {
	Semantics machine.Semantics
	Machine   machine.Options // bounds
	Seed      uint64          // the same seed gives the same run
	MaxSteps  int             // the run stops after this many steps
}

// OneRun is one random run of a program, step by step.
type OneRun struct {
	Program *prog.Program
	Options WalkOptions
	Run     *verdict.Run
	// Steps counts the transitions taken (a transition that the machine
	// settles by invisible steps counts once; Run lists every step).
	Steps int
	// End is how the run ended: final, deadlock, filtered (an assume
	// failed), cut by a bound, step-limit or interrupted.
	End string
	// Waiting says where the threads of a deadlock wait.
	Waiting string
	// Satisfies: the last configuration satisfies the query's condition;
	// nil without one.
	Satisfies *bool
	// Memory is the last configuration's memory, and FinalText the
	// configuration, printed.
	Memory    []uint8
	FinalText string
}

// Walk takes one random run of p with an explore.Walker, reproducible from
// opt.Seed, until no step is enabled, MaxSteps or ctx is done.
func Walk(ctx context.Context, p *prog.Program, opt WalkOptions) (*OneRun, error) {
	mopt := opt.Machine
	mopt.ReadNow = true // a protocol's reads take a value the location holds
	m, err := machine.New(p, opt.Semantics, mopt)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	w := explore.NewWalker(m, rng, explore.WalkerOptions{MaxSteps: opt.MaxSteps, Trace: true})
	walk := w.Walk(func(int, []byte) bool { return ctx.Err() == nil })
	r := &OneRun{Program: p, Options: opt, Run: verdict.Explain(m, m.Initial(nil), w.Trace()), End: "step-limit"}
	prev := r.Run.Last()
	r.Steps = walk.Steps
	st := m.NewState()
	m.Decode(prev, st)
	deadEnd := walk.End == explore.EndDeadEnd
	switch {
	case deadEnd && m.Final(st):
		r.End = "final"
	case deadEnd && walk.Pruned != 0:
		r.End = "cut by " + machine.PrunedString(walk.Pruned, m.Options())
	case deadEnd && m.StuckEncoded(prev) == machine.Deadlock:
		r.End, r.Waiting = "deadlock", m.Waiting(prev)
	case deadEnd && m.StuckEncoded(prev) == machine.Failed:
		r.End = "error point (" + verdict.ErrorAt(p, m.Encoded(prev)) + ")"
	case deadEnd:
		r.End = "filtered (an assume failed)"
	case walk.End == explore.EndStopped:
		r.End = "interrupted"
	}
	if p.Query.Kind != 0 && p.Query.Cond != nil {
		sat := p.Query.Cond.Eval(p, st)
		r.Satisfies = &sat
	}
	for l := range p.Locs {
		r.Memory = append(r.Memory, st.Mem(l))
	}
	r.FinalText = m.Format(prev)
	return r, nil
}

// WriteText prints r: a headline, the run step by step, where a deadlock
// waits, the last configuration and whether it satisfies the condition.
func (r *OneRun) WriteText(w io.Writer) {
	p, opt := r.Program, r.Options
	fmt.Fprintf(w, "Run %s (%s, seed %d): %d steps, %s\n", p.Name, opt.Semantics, opt.Seed, r.Steps, r.End)
	report.WriteRun(w, "", opt.Semantics, r.Run)
	if r.Waiting != "" {
		fmt.Fprintln(w, report.Deadlock(r.Waiting))
	}
	fmt.Fprintln(w, "End configuration:")
	report.WriteConfig(w, r.FinalText)
	if r.Satisfies != nil {
		fmt.Fprintf(w, "Condition %s %s: %v\n", p.Query.Kind, p.CondString(p.Query.Cond), *r.Satisfies)
	}
}

// OneRunJSON is the JSON form of a random run (run --json).
type OneRunJSON struct {
	File      string      `json:"file"`
	Name      string      `json:"name"`
	Semantics string      `json:"semantics"`
	Seed      uint64      `json:"seed"`
	Run       *report.Run `json:"run"`
	// End is final, deadlock, error point (and which), filtered (an
	// assume failed), cut (a bound), step-limit or interrupted.
	End string `json:"end"`
	// Waiting says where the threads of a deadlock wait.
	Waiting   string           `json:"waiting,omitempty"`
	Satisfies *bool            `json:"satisfies"`
	Memory    map[string]uint8 `json:"memory"`
}

// JSON returns the JSON form of r, for the program in file.
func (r *OneRun) JSON(file string) OneRunJSON {
	p := r.Program
	out := OneRunJSON{File: file, Name: p.Name, Semantics: r.Options.Semantics.String(), Seed: r.Options.Seed, End: r.End,
		Waiting: r.Waiting, Satisfies: r.Satisfies, Memory: map[string]uint8{}, Run: report.NewRun(r.Run, p.ThreadName)}
	for l, loc := range p.Locs {
		out.Memory[loc.Name] = r.Memory[l]
	}
	return out
}
