package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/promela"
	"rdmasim/opsem/report"
)

func cmdExport(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("export", e)
	params := paramFlag{}
	params.register(fs)
	format := fs.Bool("promela", false, "write a Promela model for the SPIN model checker (required: the only format)")
	sem := fs.String("semantics", "rdma", "machine to export: rdma (queue-pair machine) or sc")
	var o promela.ModelOptions
	fs.IntVar(&o.MaxInflight, "max-inflight", machine.DefaultOptions().MaxInflight, "operations in the buffers of one queue pair (as for check)")
	fs.IntVar(&o.Unroll, "unroll", 0, "iterations of each loop per entry, 0 = unbounded (as for check)")
	placement := fs.String("placement", "any", placementUsage)
	fs.IntVar(&o.MaxCounter, "max-counter", promela.DefaultMaxCounter, "with --robustness: bound of the poll counters of queue pairs polled in a loop; "+
		"a NIC write that would exceed it is blocked and the model prints \"CUT max-counter\", and SPIN's \"robust\" then holds only up to the bound "+
		"(a violation is always real; counters of finitely polled queue pairs are exact, and poll-free programs have none)")
	fs.BoolVar(&o.AllowAtomics, "atomics-experimental", false, "with --robustness: instrument remote atomics (rcas, rfaa) as the decider's experimental instrumentation does "+
		"(robust --atomics-experimental) instead of refusing them; SPIN's \"robust\" on such a model rests on a normal form not proved for atomics (SEMANTICS-ATOMICS.md section 5.4)")
	out := fs.StringP("output", "o", "", "write the model to this file (default stdout)")
	jsonOut := fs.Bool("json", false, "print one JSON object: the model's text (with -o: the file written) and the options it was made with")
	selected := map[string]*bool{}
	for _, m := range promela.Models()[1:] {
		selected[m.Flag] = fs.Bool(m.Flag, false, m.Usage)
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
	gen, err := promela.SelectModel(func(flag string) bool { return *selected[flag] }, fs.Changed)
	if err != nil {
		return fail("%v", err)
	}
	if o.Semantics, err = semantics(*sem); err != nil {
		return fail("%v", err)
	}
	if o.Placement, err = placementFlag(*placement); err != nil {
		return fail("%v", err)
	}
	if err := o.CheckFlags(); err != nil {
		return fail("%v", err)
	}
	file := fs.Arg(0)
	p, err := params.load(ctx, file)
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
	err = gen.Write(w, p, o)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fail("%v", err)
	}
	if *jsonOut {
		writeJSON(e.stdout, gen.JSON(file, p, o, text.String(), *out))
	}
	return exitOK
}
