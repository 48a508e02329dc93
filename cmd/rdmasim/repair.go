package main

import (
	"context"
	"fmt"
	"os"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/repair"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
)

// cmdRepair finds the polls, rfences and read-backs that make a program
// robust, or (--goal query) make its query and assertions hold under RDMA
// (opsem/repair), and prints them, the proof and the repaired text.
func cmdRepair(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("repair", e)
	var sf searchFlags
	sf.register(fs)
	costs := fs.String("cost", "", "the cost of each kind of insertion, over poll=1,rfence=1,readback=3: e.g. --cost poll=2,readback=4")
	kinds := fs.String("kinds", "", "the kinds of insertion allowed, from poll, rfence, readback (default all)")
	goal := fs.String("goal", "robust", "what the repair must achieve: robust (every RDMA trace is an SC trace, by the decider) or query (under RDMA the file's exists/reach condition is forbidden, its ~exists/forall holds, no assertion fails, by check's complete search)")
	out := fs.StringP("output", "o", "", "write the repaired program to this file (its expect lines set to what the proof shows)")
	write := fs.Bool("write", false, "write the repaired program over FILE, keeping the original as FILE.orig")
	rounds := fs.Int("max-rounds", 50, "the most rounds of decide, learn, choose")
	maxProof := fs.Int("max-proof", 100, "the most decisions of the proof that no cheaper set of the insertions met is a repair (past it: irredundant only; -1: no proof)")
	opt, code := parseSearch(fs, &sf, args, e, "repair")
	if code >= 0 {
		return code
	}
	c, err := repair.ParseCosts(*costs)
	k, kerr := repair.ParseKinds(*kinds)
	if err == nil {
		err = kerr
	}
	g, gerr := repair.ParseGoal(*goal)
	if err == nil {
		err = gerr
	}
	if err == nil && fs.NArg() != 1 {
		err = fmt.Errorf("repair takes one input file")
	}
	if err == nil && *write && *out != "" {
		err = fmt.Errorf("--write and -o: choose one")
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim repair: %v\n", err)
		return exitUsage
	}
	file := fs.Arg(0)
	src, err := os.ReadFile(file)
	if err != nil {
		return fileFailed(e, sf.json, file, fmt.Sprintf("rdmasim repair: %v", err), err)
	}
	kmBytes, _ := sf.Budget()
	res, err := repair.Repair(ctx, src, repair.Options{
		Parse: func(ctx context.Context, text []byte) (*prog.Program, error) {
			return parse.ParseContext(ctx, file, text, parse.Options{Params: sf.params})
		},
		Costs: c, Kinds: k, MaxRounds: *rounds, MaxProof: *maxProof, Goal: g,
		Robust: robust.Options{Verdict: opt, MaxBytes: kmBytes},
	})
	if err != nil {
		return fileFailed(e, sf.json, file, report.ErrorText(err), err)
	}
	if res.Found() && !res.Already {
		if err := writeRepaired(file, *out, *write, src, res.Text); err != nil {
			fmt.Fprintf(e.stderr, "rdmasim repair: %v\n", err)
			return exitUsage
		}
	}
	if sf.json {
		writeJSON(e.stdout, repairJSON(file, res))
	} else {
		res.WriteText(e.stdout, file)
	}
	switch {
	case ctx.Err() != nil:
		sf.interrupted(e, "repair", "no repair was verified")
		return exitInterrupt
	case res.Cut != "":
		return exitLimit
	case !res.Found():
		return exitFailed
	}
	return exitOK
}

// writeRepaired writes the repaired text to out, or with write over file
// (the original kept in file.orig).
func writeRepaired(file, out string, write bool, orig, text []byte) error {
	if write {
		if err := os.WriteFile(file+".orig", orig, 0o644); err != nil {
			return err
		}
		out = file
	}
	if out == "" {
		return nil
	}
	return os.WriteFile(out, text, 0o644)
}

// repairJSONOut is repair --json's object.
type repairJSONOut struct {
	File       string             `json:"file"`
	Goal       string             `json:"goal"`
	Insertions []repair.Insertion `json:"insertions"`
	Cost       int                `json:"cost"`
	Repaired   string             `json:"repaired,omitempty"`
	Verified   any                `json:"verified,omitempty"`
	Minimal    string             `json:"minimal"`
	MinimalWhy string             `json:"minimal_why,omitempty"`
	Exact      bool               `json:"exact"` // each round chose a minimum-cost set over the clauses learnt
	Bounded    bool               `json:"bounded,omitempty"`
	Why        string             `json:"why,omitempty"`
	Cut        string             `json:"cut,omitempty"`
	Tried      int                `json:"tried"`
	Rounds     int                `json:"rounds"`
	Seconds    float64            `json:"seconds"`
}

// queryProof is one claim of a query repair and the final check that
// proves it (check --json's object).
type queryProof struct {
	Claim string `json:"claim"`
	Check any    `json:"check"`
}

func repairJSON(file string, r *repair.Result) repairJSONOut {
	o := repairJSONOut{File: file, Goal: r.Goal.String(), Insertions: r.Insertions, Cost: r.Cost, Minimal: "none", Exact: r.Exact, Bounded: r.Bounded,
		Why: r.Why, Cut: r.Cut, Tried: r.Decisions, Rounds: r.Rounds, Seconds: r.Seconds}
	if o.Insertions == nil {
		o.Insertions = []repair.Insertion{}
	}
	if r.Found() {
		o.Repaired, o.Minimal, o.MinimalWhy = string(r.Text), r.Minimal, r.MinimalWhy
		if r.Verified != nil {
			o.Verified = r.Verified.JSON(file)
		}
		if len(r.Checked) > 0 {
			var checks []queryProof
			for i, c := range r.Checked {
				checks = append(checks, queryProof{Claim: r.Claims[i], Check: c.JSON(file)})
			}
			o.Verified = checks
		}
	}
	return o
}
