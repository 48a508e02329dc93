package main

import (
	"context"
	"fmt"

	"rdmasim/opsem/report"
)

// cmdLower prints what is checked of a program: a protocol's lowering to
// the core (each thread's control-flow graph, an instruction a line with
// the source line, statement and registers it comes from), or a core
// program as it was read.
func cmdLower(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("lower", e)
	params := paramFlag{}
	params.register(fs)
	jsonOut := fs.Bool("json", false, "print one JSON object per file: every thread's instructions")
	if code := parseFlags(fs, args, e, "lower [flags] FILE..."); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(e.stderr, "rdmasim lower: no input files")
		return exitUsage
	}
	code := exitOK
	for _, file := range fs.Args() {
		p, err := params.load(ctx, file)
		if err != nil {
			code = max(code, fileFailed(e, *jsonOut, file, report.ErrorText(err), err))
			continue
		}
		if *jsonOut {
			writeJSON(e.stdout, report.Lowered(file, p))
			continue
		}
		fmt.Fprint(e.stdout, p.CodeString())
	}
	return code
}
