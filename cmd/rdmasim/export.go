package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/promela"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// exportOptions are the export flags every generator receives.
type exportOptions struct {
	semantics   verdict.Semantics
	maxInflight int
	unroll      int
	maxCounter  int
}

// exportOptionFlags are the flags of exportOptions. A generator reads some
// of them (exportGenerator.options); giving another is an error.
var exportOptionFlags = []string{"semantics", "max-inflight", "unroll", "max-counter"}

// exportGenerator writes one kind of model of a program in Promela. The
// generator whose flag is "" is the default; each other one is selected by
// its own boolean flag (at most one may be given).
type exportGenerator struct {
	flag    string   // "" for the default
	usage   string   // the flag's help
	options []string // the exportOptionFlags it reads
	promela func(w io.Writer, p *prog.Program, o exportOptions) error
}

// exportGenerators lists what export can write. A new kind of model is one
// more entry here: cmdExport registers its flag and runs it when the flag
// is given.
func exportGenerators() []exportGenerator {
	return []exportGenerator{
		{flag: "", options: []string{"semantics", "max-inflight", "unroll"}, promela: exportMachine},
		{flag: "robustness", options: []string{"max-counter"}, promela: exportRobustness,
			usage: "write the program instrumented for robustness (seed paper, section 6): an SC program whose assertion fails iff the program is not robust"},
	}
}

// exportRobustness writes p's instrumented program (opsem/promela's
// WriteRobustness): SPIN's verdict on it is the decider's, up to the
// counter bound.
func exportRobustness(w io.Writer, p *prog.Program, o exportOptions) error {
	return promela.WriteRobustness(w, p, promela.RobustOptions{MaxCounter: o.maxCounter})
}

// exportMachine writes the RDMA or SC machine of p (package opsem/promela).
func exportMachine(w io.Writer, p *prog.Program, o exportOptions) error {
	return promela.Write(w, p, promela.Options{Semantics: o.semantics, MaxInflight: o.maxInflight, Unroll: o.unroll})
}

// exportJSON is the JSON form of export's model of its file.
type exportJSON struct {
	File   string `json:"file"`
	Name   string `json:"name"`
	Format string `json:"format"` // promela
	// Model is what the model is of: "machine" (the RDMA or SC machine),
	// or the flag of another generator ("robustness").
	Model string `json:"model"`
	// Options are the values of the options the generator reads, by flag
	// name (semantics, max-inflight, unroll; max-counter).
	Options map[string]any `json:"options"`
	// Promela is the model's text, without -o; Output the file written,
	// with -o.
	Promela string `json:"promela,omitempty"`
	Output  string `json:"output,omitempty"`
	Bytes   int    `json:"bytes"` // the model's size
}

// value returns the value of export option name (an exportOptionFlags
// entry) in o.
func (o exportOptions) value(name string) any {
	switch name {
	case "semantics":
		return o.semantics.String()
	case "max-inflight":
		return o.maxInflight
	case "unroll":
		return o.unroll
	case "max-counter":
		return o.maxCounter
	}
	return nil
}

func cmdExport(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("export", e)
	format := fs.Bool("promela", false, "write a Promela model for the SPIN model checker (required: the only format)")
	sem := fs.String("semantics", "rdma", "machine to export: rdma (queue-pair machine) or sc")
	maxInflight := fs.Int("max-inflight", machine.DefaultOptions().MaxInflight, "operations in the buffers of one queue pair (as for check)")
	unroll := fs.Int("unroll", 0, "iterations of each loop per entry, 0 = unbounded (as for check)")
	maxCounter := fs.Int("max-counter", promela.DefaultMaxCounter, "with --robustness: bound of the poll counters of queue pairs polled in a loop; "+
		"a NIC write that would exceed it is blocked and the model prints \"CUT max-counter\", and SPIN's \"robust\" then holds only up to the bound "+
		"(a violation is always real; counters of finitely polled queue pairs are exact, and poll-free programs have none)")
	out := fs.StringP("output", "o", "", "write the model to this file (default stdout)")
	jsonOut := fs.Bool("json", false, "print one JSON object: the model's text (with -o: the file written) and the options it was made with")
	gens := exportGenerators()
	selected := make([]*bool, len(gens))
	for i, g := range gens {
		if g.flag != "" {
			selected[i] = fs.Bool(g.flag, false, g.usage)
		}
	}
	if code := parseFlags(fs, args, e, "export --promela [flags] FILE"); code >= 0 {
		return code
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(e.stderr, "rdmasim export: "+format+"\n", args...)
		return exitUsage
	}
	if fs.NArg() != 1 {
		return fail("want exactly one input file")
	}
	if !*format {
		return fail("want --promela (the only output format)")
	}
	var gen *exportGenerator
	for i := range gens {
		if selected[i] != nil && *selected[i] {
			if gen != nil {
				return fail("--%s and --%s exclude each other", gen.flag, gens[i].flag)
			}
			gen = &gens[i]
		}
	}
	for i := range gens {
		if gen == nil && gens[i].flag == "" {
			gen = &gens[i]
		}
	}
	for _, name := range exportOptionFlags {
		if fs.Changed(name) && !slices.Contains(gen.options, name) {
			what := "the machine export"
			if gen.flag != "" {
				what = "--" + gen.flag
			}
			return fail("--%s does not apply to %s", name, what)
		}
	}
	s, err := semantics(*sem)
	if err != nil {
		return fail("%v", err)
	}
	for _, err := range []error{machine.InflightBound.CheckFlag(*maxInflight), machine.UnrollBound.CheckFlag(*unroll),
		promela.MaxCounterBound.CheckFlag(*maxCounter)} {
		if err != nil {
			return fail("%v", err)
		}
	}
	file := fs.Arg(0)
	p, err := parse.File(file)
	if err != nil {
		return fileFailed(e, *jsonOut, file, report.ErrorText(err), err)
	}
	if *jsonOut {
		// The failures from here on are about the file: each has its
		// object.
		fail = func(format string, args ...any) int {
			err := fmt.Errorf(format, args...)
			return fileFailed(e, true, file, "rdmasim export: "+err.Error(), err)
		}
	}
	o := exportOptions{semantics: s, maxInflight: *maxInflight, unroll: *unroll, maxCounter: *maxCounter}
	var text bytes.Buffer // the model, for --json
	var f *os.File
	w := io.Writer(e.stdout)
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
			return fail("%v", err)
		}
		w = f
	}
	switch {
	case *jsonOut && f != nil:
		w = io.MultiWriter(f, &text)
	case *jsonOut:
		w = &text
	}
	err = gen.promela(w, p, o)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fail("%v", err)
	}
	if *jsonOut {
		report := exportJSON{File: file, Name: p.Name, Format: "promela", Model: cmp.Or(gen.flag, "machine"),
			Options: map[string]any{}, Output: *out, Bytes: text.Len()}
		for _, name := range gen.options {
			report.Options[name] = o.value(name)
		}
		if *out == "" {
			report.Promela = text.String()
		}
		writeJSON(e.stdout, report)
	}
	return exitOK
}
