package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/dot"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// graphJSON is the JSON form of graph's answer for its file.
type graphJSON struct {
	File      string `json:"file"`
	Name      string `json:"name"`
	Semantics string `json:"semantics"`
	// Executions is the number of executions drawn: 0 when none
	// satisfies the condition (exit code 1).
	Executions int `json:"executions"`
	// DOT holds each drawing's Graphviz text, without -o.
	DOT []string `json:"dot,omitempty"`
	// Files are the DOT files written, with -o.
	Files []string `json:"files,omitempty"`
}

func cmdGraph(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("graph", e)
	all := fs.Bool("all", false, "draw every consistent execution that satisfies the condition (default: the first)")
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
	if *sem != "rdma" && *sem != "sc" {
		fmt.Fprintf(e.stderr, "rdmasim graph: --semantics %q: want rdma or sc\n", *sem)
		return exitUsage
	}
	file := fs.Arg(0)
	p, err := parse.File(file)
	if err != nil {
		fileFailed(e, *jsonOut, file, errorText(err), err)
		return exitUsage
	}
	if p.Query.Kind == prog.QReach {
		err := errors.New("reach queries look inside runs; graph draws complete executions (use exists)")
		fileFailed(e, *jsonOut, file, "rdmasim graph: "+err.Error(), err)
		return exitUsage
	}
	cond := p.Query.Cond
	if cond == nil {
		cond = &prog.Cond{Op: prog.CTrue}
	}
	want := func(t *axiom.Trace) bool {
		sat := cond.Eval(p, verdict.FinalConfig{P: p, Memory: t.Memory(len(p.Locs))})
		if p.Query.Kind == prog.QForall {
			return !sat // counterexamples are what a forall user wants to see
		}
		return sat
	}
	var drawings []*dot.Graph
	seen := map[string]bool{}
	_, err = axiom.Enumerate(ctx, p, axiom.Options{Unroll: *unroll}, false, func(t *axiom.Trace, rdma, sc bool) bool {
		ok := rdma
		if *sem == "sc" {
			ok = sc
		}
		if !ok || !t.Complete || !want(t) {
			return true
		}
		key := t.Format(p)
		if seen[key] {
			return true
		}
		seen[key] = true
		title := fmt.Sprintf("%s: %s execution %d", p.Name, *sem, len(drawings)+1)
		drawings = append(drawings, traceDrawing(p, t, t.SCCycle(), title))
		return *all
	})
	if err != nil {
		fileFailed(e, *jsonOut, file, fmt.Sprintf("rdmasim graph: %v", err), err)
		return exitUsage
	}
	report := graphJSON{File: file, Name: p.Name, Semantics: *sem, Executions: len(drawings)}
	if len(drawings) == 0 {
		fmt.Fprintf(e.stderr, "rdmasim graph: no %s-consistent execution of %s satisfies %s %s\n", *sem, p.Name, p.Query.Kind, p.CondString(cond))
		if *jsonOut {
			writeJSON(e.stdout, report)
		}
		return exitFailed
	}
	if *jsonOut && *out == "" {
		for _, d := range drawings {
			var b strings.Builder
			if err := dot.Write(&b, d); err != nil {
				fileFailed(e, true, file, fmt.Sprintf("rdmasim graph: %v", err), err)
				return exitUsage
			}
			report.DOT = append(report.DOT, b.String())
		}
		writeJSON(e.stdout, report)
		return exitOK
	}
	if *out == "" {
		for _, d := range drawings {
			if err := dot.Write(e.stdout, d); err != nil {
				fmt.Fprintf(e.stderr, "rdmasim graph: %v\n", err)
				return exitUsage
			}
		}
		return exitOK
	}
	for i, d := range drawings {
		path := *out
		if *all {
			path = fmt.Sprintf("%s-%d.dot", strings.TrimSuffix(*out, ".dot"), i+1)
		}
		if err := writeDot(path, d, *svg); err != nil {
			fileFailed(e, *jsonOut, file, fmt.Sprintf("rdmasim graph: %v", err), err)
			return exitUsage
		}
		report.Files = append(report.Files, path)
	}
	if *jsonOut {
		writeJSON(e.stdout, report)
	} else {
		fmt.Fprintf(e.stdout, "%s: %s\n", p.Name, plural(len(drawings), "execution"))
	}
	return exitOK
}
