package main

import (
	"context"
	"errors"
	"fmt"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/draw"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// cmdGraph draws executions of the declarative model as Graphviz DOT:
// those that satisfy the query's condition (--show cond), every consistent
// one (all) or the RDMA-consistent ones with an sc cycle (violation); the
// choosing and drawing is package draw's.
func cmdGraph(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("graph", e)
	params := paramFlag{}
	params.register(fs)
	show := fs.String("show", "cond", "which executions: cond (those that satisfy the condition; for forall, those that violate it), all (every consistent execution) or violation (RDMA-consistent with an sc cycle, drawn bold)")
	all := fs.Bool("all", false, "draw every selected execution (default: the first)")
	out := fs.StringP("output", "o", "", "write the DOT to this file (with --all: PREFIX-1.dot, PREFIX-2.dot, ...); default stdout")
	svg := fs.Bool("svg", false, "also render SVG beside each DOT file (needs -o and Graphviz)")
	sem := fs.String("semantics", "rdma", "rdma (RDMA-consistent traces) or sc (SC-consistent traces)")
	unroll := fs.Int("unroll", verdict.DefaultModelUnroll, "iterations of each loop per entry")
	jsonOut := fs.Bool("json", false, "print one JSON object: the DOT text of each drawing (with -o: the files written) and their number")
	if code := parseFlags(fs, args, e, "graph [flags] FILE"); code >= 0 {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "rdmasim graph: want exactly one input file")
		return exitUsage
	}
	if *svg && *out == "" {
		fmt.Fprintln(e.stderr, "rdmasim graph: --svg needs -o")
		return exitUsage
	}
	if err := machine.UnrollBound.CheckFlag(*unroll); err != nil {
		fmt.Fprintf(e.stderr, "rdmasim graph: %v\n", err)
		return exitUsage
	}
	opt := draw.Options{Unroll: *unroll, Every: *all}
	var err error
	if opt.Semantics, err = machine.ParseSemantics(*sem); err != nil {
		fmt.Fprintf(e.stderr, "rdmasim graph: --semantics %v\n", err)
		return exitUsage
	}
	if opt.Show, err = draw.ParseShow(*show); err != nil {
		fmt.Fprintf(e.stderr, "rdmasim graph: %v\n", err)
		return exitUsage
	}
	file := fs.Arg(0)
	p, err := params.load(ctx, file)
	if err != nil {
		return fileFailed(e, *jsonOut, file, report.ErrorText(err), err)
	}
	res, err := draw.Executions(ctx, p, opt)
	var limit *axiom.LimitError
	if errors.As(err, &limit) {
		fileFailed(e, *jsonOut, file, fmt.Sprintf("rdmasim graph: %s: unknown (%s)", file, verdict.LimitBound(limit)), err)
		return exitLimit
	}
	if err != nil {
		return fileFailed(e, *jsonOut, file, fmt.Sprintf("rdmasim graph: %v", err), err)
	}
	answer := draw.JSON{File: file, Name: p.Name, Semantics: *sem, Executions: len(res.Graphs)}
	if len(res.Graphs) == 0 {
		msg := opt.Nothing(p)
		if res.Bounded {
			msg += fmt.Sprintf(" with its loops unrolled %d times (--unroll)", *unroll)
		}
		fmt.Fprintf(e.stderr, "rdmasim graph: %s\n", msg)
		if *jsonOut {
			writeJSON(e.stdout, answer)
		}
		return exitFailed
	}
	if *jsonOut && *out == "" {
		if answer.DOT, err = res.DOT(); err != nil {
			return fileFailed(e, true, file, fmt.Sprintf("rdmasim graph: %v", err), err)
		}
		writeJSON(e.stdout, answer)
		return exitOK
	}
	if *out == "" {
		if err := res.Write(e.stdout); err != nil {
			fmt.Fprintf(e.stderr, "rdmasim graph: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	if answer.Files, err = res.WriteFiles(*out, *all, *svg); err != nil {
		return fileFailed(e, *jsonOut, file, fmt.Sprintf("rdmasim graph: %v", err), err)
	}
	if *jsonOut {
		writeJSON(e.stdout, answer)
	} else {
		fmt.Fprintf(e.stdout, "%s: %s\n", p.Name, report.Plural(len(res.Graphs), "execution"))
	}
	return exitOK
}
