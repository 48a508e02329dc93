package promela

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
)

// A Model is one kind of Promela model of a program that this package
// writes: the RDMA or SC machine (Write), the default, or the program
// instrumented for robustness (WriteRobustness). A command selects one with
// its Flag (none for the default) and gives it ModelOptions, of which it
// reads those named in Options. A new kind of model is one more entry in
// Models.
type Model struct {
	Flag    string   // the boolean flag that selects it, "" for the default
	Usage   string   // the flag's help
	Options []string // the ModelOptionNames it reads
	write   func(w io.Writer, p *prog.Program, o ModelOptions) error
}

// ModelOptions are the options every model receives: the machine's
// (Options) and the instrumentation's (RobustOptions).
type ModelOptions struct {
	Options
	RobustOptions
}

// ModelOptionNames are the names of the fields of ModelOptions, as a
// command's flags name them: semantics, max-inflight, unroll, placement,
// max-counter, atomics-experimental (RobustOptions.AllowAtomics).
var ModelOptionNames = []string{"semantics", "max-inflight", "unroll", "placement", "max-counter", "atomics-experimental"}

// Models lists the models this package writes, the default first.
func Models() []Model {
	return []Model{
		{Options: []string{"semantics", "max-inflight", "unroll", "placement"}, write: func(w io.Writer, p *prog.Program, o ModelOptions) error {
			return Write(w, p, o.Options)
		}},
		{Flag: "robustness", Options: []string{"max-counter", "atomics-experimental"}, write: func(w io.Writer, p *prog.Program, o ModelOptions) error {
			// SPIN's verdict on it is the decider's, up to the counter
			// bound.
			return WriteRobustness(w, p, o.RobustOptions)
		}, Usage: "write the program instrumented for robustness (seed paper, section 6): an SC program whose assertion fails iff the program is not robust"},
	}
}

// Name is what the model is of: "machine" (the RDMA or SC machine), or the
// flag of another model ("robustness").
func (m Model) Name() string { return cmp.Or(m.Flag, "machine") }

// Write writes m's model of p with options o.
func (m Model) Write(w io.Writer, p *prog.Program, o ModelOptions) error { return m.write(w, p, o) }

// SelectModel returns the model that a command's flags select: the one
// whose flag is chosen (chosen(flag) reports whether it was given), or the
// default. At most one may be chosen, and no option the model does not read
// may be given (changed(name) reports whether ModelOptionNames' name was).
func SelectModel(chosen, changed func(string) bool) (Model, error) {
	models := Models()
	m := models[0]
	for _, c := range models[1:] {
		if chosen(c.Flag) {
			if m.Flag != "" {
				return m, fmt.Errorf("--%s and --%s exclude each other", m.Flag, c.Flag)
			}
			m = c
		}
	}
	for _, name := range ModelOptionNames {
		if changed(name) && !slices.Contains(m.Options, name) {
			what := "the machine export"
			if m.Flag != "" {
				what = "--" + m.Flag
			}
			return m, fmt.Errorf("--%s does not apply to %s", name, what)
		}
	}
	return m, nil
}

// CheckFlags checks the bounds of o, as a command's flags give them:
// "--max-inflight 0: want 1..250".
func (o ModelOptions) CheckFlags() error {
	for _, err := range []error{machine.InflightBound.CheckFlag(o.MaxInflight), machine.UnrollBound.CheckFlag(o.Unroll),
		MaxCounterBound.CheckFlag(o.MaxCounter)} {
		if err != nil {
			return err
		}
	}
	return nil
}

// Value returns the value of the option name (a ModelOptionNames entry) in
// o, as a report of the model shows it.
func (o ModelOptions) Value(name string) any {
	switch name {
	case "semantics":
		return o.Semantics.String()
	case "max-inflight":
		return o.MaxInflight
	case "unroll":
		return o.Unroll
	case "placement":
		return o.Placement.String()
	case "max-counter":
		return o.MaxCounter
	case "atomics-experimental":
		return o.AllowAtomics
	}
	return nil
}

// JSON is the JSON form of a model of a program (rdmasim export --json).
type JSON struct {
	File   string `json:"file"`
	Name   string `json:"name"`
	Format string `json:"format"` // promela
	// Model is what the model is of (Model.Name): "machine" (the RDMA or
	// SC machine), or the flag of another model ("robustness").
	Model string `json:"model"`
	// Options are the values of the options the model reads, by flag
	// name (semantics, max-inflight, unroll, placement; max-counter,
	// atomics-experimental).
	Options map[string]any `json:"options"`
	// Promela is the model's text, unless it was written to a file;
	// Output is that file.
	Promela string `json:"promela,omitempty"`
	Output  string `json:"output,omitempty"`
	Bytes   int    `json:"bytes"` // the model's size
}

// JSON returns the JSON form of m's model of p, of file, made with options
// o: its text, or with output (the file it was written to) its path.
func (m Model) JSON(file string, p *prog.Program, o ModelOptions, text, output string) JSON {
	j := JSON{File: file, Name: p.Name, Format: "promela", Model: m.Name(), Options: map[string]any{}, Output: output, Bytes: len(text)}
	for _, name := range m.Options {
		j.Options[name] = o.Value(name)
	}
	if output == "" {
		j.Promela = text
	}
	return j
}
