package main

import (
	"context"
	"fmt"

	"rdmasim/opsem/check"
	"rdmasim/opsem/expect"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
)

func cmdCheck(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("check", e)
	var sf searchFlags
	sf.register(fs)
	witness := fs.BoolP("witness", "w", false, "print the shortest witness run of each verdict, step by step")
	jsonWitness := fs.Bool("json-witness", true, "with --json, include the witness runs (they need a parent record per configuration)")
	allOutcomes := fs.Bool("all-outcomes", false, "list every final outcome, as herd7 does: search the whole state space at --max-inflight even when a witness settles the query (by default check stops at the first witness of exists or reach, or counterexample of ~exists or forall, raising max-inflight from 1 by doubling; --semantics both, --checkpoint and --strict always list every outcome)")
	skipRobust := fs.Bool("skip-robust", false, "leave the file's expect robust line unchecked (its search, run after the query's, can take far longer; rdmasim robust decides it alone)")
	strict := fs.Bool("strict", false, "exit 1 also when an expect line stays unknown (a bound cut the search) or a run deadlocks")
	semFlag := fs.String("semantics", "machine", "machine (explore the RDMA and SC machines), axiom (enumerate the declarative model's traces) or both (compare their outcome sets; exit 1 on any difference)")
	var cf clusterFlags
	cf.register(fs)
	opt, code := parseSearch(fs, &sf, args, e, "check")
	if code >= 0 {
		return code
	}
	opt.Witness = *witness || sf.json && *jsonWitness
	// --strict fails on any deadlock: it needs every run, as a checkpoint
	// does.
	opt.FirstWitness = !*allOutcomes && sf.Checkpoint == "" && !*strict
	deepen := opt.FirstWitness
	switch *semFlag {
	case "machine", "axiom", "both":
	default:
		fmt.Fprintf(e.stderr, "rdmasim check: --semantics %q: want machine, axiom or both\n", *semFlag)
		return exitUsage
	}
	nc, stop, code := cf.open(ctx, e, "check", sf.Choices)
	if code >= 0 {
		return code
	}
	defer stop()
	if nc != nil && *semFlag != "machine" {
		fmt.Fprintf(e.stderr, "rdmasim check: --semantics %s: the declarative model's traces are enumerated in this process, not on the cluster\n", *semFlag)
	}
	code = exitOK
	limited := false // the model's size limit kept it from answering some file
	for _, file := range fs.Args() {
		p, err := sf.params.load(ctx, file)
		if err != nil {
			code = max(code, fileFailed(e, sf.json, file, report.ErrorText(err), err))
			continue
		}
		if nc != nil {
			if opt.Remote, err = cf.remote(nc, e, "check", sf.program(file)); err != nil {
				code = max(code, fileFailed(e, sf.json, file, fmt.Sprintf("rdmasim check: %v", err), err))
				continue
			}
		}
		r, err := check.Answer(ctx, p, check.Options{Semantics: check.Semantics(*semFlag), Verdict: opt, Deepen: deepen})
		if err != nil {
			code = max(code, fileFailed(e, sf.json, file, fmt.Sprintf("rdmasim check: %v", err), err))
			continue
		}
		limited = limited || r.Limited
		if r.Disagree {
			code = max(code, exitFailed)
		}
		r.SkipRobust = *skipRobust
		if err := r.CheckExpect(ctx, opt); err != nil {
			code = max(code, fileFailed(e, sf.json, file, fileMessage("check", file, err), err))
			continue
		}
		if nc != nil && r.KarpMiller {
			fmt.Fprintf(e.stderr, "rdmasim check: %s: %s\n", file, karpMillerLocal)
		}
		if sf.json {
			out := r.JSON(file)
			if nc != nil {
				out.Workers = r.Workers()
			}
			writeJSON(e.stdout, out)
		} else {
			check.WriteText(e.stdout, r, *witness)
			if hint := repairHint(r, file); hint != "" {
				fmt.Fprintln(e.stdout, hint)
			}
		}
		if r.Failed(*strict) {
			code = max(code, exitFailed)
		}
		if ctx.Err() != nil {
			sf.interrupted(e, "check", "the verdicts above cover what was explored")
			return exitInterrupt
		}
	}
	if code == exitOK && limited {
		return exitLimit
	}
	return code
}

// repairHint returns the line that ends a report with a "no" that rdmasim
// repair can fix, or "": the expect robust line computed "no" (repair's
// default goal), or the query answered under RDMA otherwise than under SC,
// each certain (its query goal: forbid what SC forbids, hold what SC
// holds).
func repairHint(r *check.Result, file string) string {
	if r.Program != nil && prog.HasVerbs(r.Program) {
		return "" // repair decides with the decider, which refuses multi-word operations (instr.FeatureError)
	}
	for _, x := range r.Expect {
		if x.Sem == "robust" && (x.Expected == "no" && x.Status == expect.OK || x.Expected == "yes" && x.Status == expect.Fail) {
			return fmt.Sprintf("hint: rdmasim repair %s finds the polls/rfences that make it robust", file)
		}
	}
	rdma, sc := r.Results[0], r.Results[1]
	if rdma == nil || sc == nil || !rdma.Certain() || !sc.Certain() {
		return ""
	}
	rh, _ := rdma.Holds()
	sh, _ := sc.Holds()
	if rh != sh {
		return fmt.Sprintf("hint: rdmasim repair --goal query %s finds the polls/rfences that make RDMA answer as SC does", file)
	}
	return ""
}
