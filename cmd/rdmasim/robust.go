package main

import (
	"context"
	"fmt"
	"slices"

	"rdmasim/opsem/dot"
	"rdmasim/opsem/expect"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

func cmdRobust(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("robust", e)
	var sf searchFlags
	sf.register(fs)
	method := fs.String("method", "auto", "how to decide: auto (on a loop-free program, enum-machine within a budget of 500,000 configurations, then decide if it is not certain; with loops, --checkpoint, a symmetry group or more operations on a queue pair than --max-inflight allows in flight, decide alone; with remote atomics, enum-machine alone), decide (the paper's instrumentation: complete, loops and polls included), enum-machine (explore the RDMA machine with event graphs), enum-axiom (enumerate the declarative model's traces), both (the two enumerations) or all (the decider and both enumerations); with several, exit 1 if certain answers disagree")
	atomicsExp := fs.Bool("atomics-experimental", false, "let the decider (--method decide, all) answer on programs with remote atomics with its experimental instrumentation of them instead of refusing them: a violation it finds is checked and replayed, but its \"robust\" rests on a normal form not proved for atomics (SEMANTICS-ATOMICS.md section 5); with it, auto treats a loop-free program with atomics as any loop-free program (enum-machine within its budget, then the decider)")
	dotFile := fs.String("dot", "", "write the violation's execution graph as Graphviz DOT to this file (one file: use with one input)")
	svg := fs.Bool("svg", false, "with --dot, also render an SVG beside it (needs Graphviz)")
	fs.Lookup("unroll").Usage = fmt.Sprintf("iterations of each loop per entry; 0 = %d for programs with loops (event graphs and traces need a bound)", verdict.DefaultModelUnroll)
	var cf clusterFlags
	cf.register(fs)
	opt, code := parseSearch(fs, &sf, args, e, "robust")
	if code >= 0 {
		return code
	}
	// The decider's Karp–Miller search keeps every state in memory: it
	// stops, cut, at the visited set's budget (parseSearch checked it).
	kmBytes, _ := sf.Budget()
	methods, ok := robust.Methods(*method)
	if !ok {
		fmt.Fprintf(e.stderr, "rdmasim robust: --method %q: want auto, decide, enum-machine, enum-axiom, both or all\n", *method)
		return exitUsage
	}
	if *dotFile != "" && fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "rdmasim robust: --dot takes one input file")
		return exitUsage
	}
	nc, stop, code := cf.open(ctx, e, "robust", sf.Choices)
	if code >= 0 {
		return code
	}
	defer stop()
	if nc != nil && slices.Contains(methods, robust.EnumAxiom) {
		fmt.Fprintln(e.stderr, "rdmasim robust: --method enum-axiom: the declarative model's traces are enumerated in this process, not on the cluster")
	}
	code = exitOK
	limited := false // the model's size limit kept enum-axiom from answering some file
	for _, file := range fs.Args() {
		p, err := sf.params.load(ctx, file)
		if err != nil {
			code = max(code, fileFailed(e, sf.json, file, report.ErrorText(err), err))
			continue
		}
		if nc != nil {
			if opt.Remote, err = cf.remote(nc, e, "robust", sf.program(file)); err != nil {
				code = max(code, fileFailed(e, sf.json, file, fmt.Sprintf("rdmasim robust: %v", err), err))
				continue
			}
		}
		if *method == string(robust.Auto) && robust.Alone(p, opt.Settings) == robust.AloneCheckpoint {
			fmt.Fprintf(e.stderr, "rdmasim robust: %s: --checkpoint: the decider runs alone (method auto tries enum-machine first only without checkpoints)\n", file)
		}
		all := robust.DecideAll(ctx, p, methods, robust.Options{Verdict: opt, MaxBytes: kmBytes, Deadlocks: true, AtomicsExperimental: *atomicsExp})
		for i, r := range all.Results {
			if err := all.Errs[i]; err != nil {
				// With several methods, --json prints the error in the
				// file's object.
				code = max(code, fileFailed(e, sf.json && len(methods) == 1, file, fileMessage("robust", file, err), err))
				continue
			}
			limited = limited || r.Limit != nil
			if r.KarpMiller && nc != nil {
				fmt.Fprintf(e.stderr, "rdmasim robust: %s: %s\n", file, karpMillerLocal)
			} else if r.KarpMiller && (sf.Checkpoint != "" || sf.Store != "mem" || sf.Workers > 1) {
				fmt.Fprintf(e.stderr, "rdmasim robust: %s: a poll on a loop makes the decider's counters unbounded: its Karp–Miller search ran in memory on one core (within --mem-budget), without --checkpoint, --store or --workers\n", file)
			}
			if r.Expect != nil && r.Expect.Status.Failed() {
				code = max(code, exitFailed)
			}
			if *dotFile != "" && !r.Robust {
				if err := dot.WriteFile(*dotFile, r.Dot(), *svg); err != nil {
					fmt.Fprintf(e.stderr, "rdmasim robust: %v\n", err)
					code = max(code, exitUsage)
				}
			}
			switch {
			case sf.json && len(methods) == 1:
				out := r.JSON(file)
				if nc != nil && !r.KarpMiller {
					out.Workers = r.Search.Workers
				}
				writeJSON(e.stdout, out)
			case !sf.json:
				robust.WriteText(e.stdout, r)
				if !r.Robust && !prog.HasVerbs(r.Program) { // repair decides with the decider, which refuses multi-word operations
					fmt.Fprintf(e.stdout, "hint: rdmasim repair %s finds the polls/rfences that fix it\n", file)
				}
			}
		}
		for _, d := range all.Disagreements {
			fmt.Fprintf(e.stderr, "rdmasim robust: %s: the methods disagree: %s says %s, %s says %s\n",
				file, d[0].Method, expect.YesNo(d[0].Robust), d[1].Method, expect.YesNo(d[1].Robust))
			code = max(code, exitFailed)
		}
		if sf.json && len(methods) > 1 {
			out := all.JSON(file)
			for i, r := range all.Results {
				if nc != nil && r != nil && !r.KarpMiller {
					out.Methods[i].Workers = r.Search.Workers
				}
			}
			writeJSON(e.stdout, out)
		}
		if ctx.Err() != nil {
			sf.interrupted(e, "robust", "the verdicts above cover what was explored")
			return exitInterrupt
		}
	}
	if code == exitOK && limited {
		return exitLimit
	}
	return code
}
