package fuzz

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/promela"
	"rdmasim/opsem/verdict"
)

// RegressionInfo is what a regression file records of the run that found
// it, and the bounds to recompute its verdicts with.
type RegressionInfo struct {
	RunSeed uint64
	Differ  differ.Options
	Timeout time.Duration
}

// Regression builds the regression test of a disagreement: its minimised
// program (the generated one when it was not minimised), named
// fuzz-KIND-SEED, with a query and expect lines for the verdicts that must
// hold, after comment lines saying how it was found and which semantics
// disagreed. The text parses back to the same program.
//
// The query and expect lines depend on the kind:
//   - outcomes-rdma, outcomes-sc: `exists` of the first disputed outcome
//     (every location's value), with the declarative model's RDMA and SC
//     verdicts: the model is the paper's definition, so it is the
//     reference; the machine's verdict is in the comment;
//   - spin-rdma, spin-sc: likewise, with the machine's verdicts (SPIN runs
//     a translation of the machine, which agrees with the model here);
//   - reach-rdma, reach-sc: the disputed reach query, with the machine's
//     RDMA and SC verdicts (the reference for configurations inside runs);
//   - errors-rdma, errors-sc: the error points only one side reaches, in
//     the comment (the machine is the reference);
//   - robust-enum, robust-decide, decider-error: no query, and
//     `expect robust` with the reference answer of differ.Report.Robust
//     (the model's enumeration when certain, else the decider's, else the
//     machine enumeration's);
//   - error: no query and no expect line; the comment has the error, and
//     checking the file fails the same way.
//
// Expect lines are written only for certain verdicts; with loops left in
// the program (the comparison bounded them) the comment says so.
func Regression(ctx context.Context, d *Disagreement, info RegressionInfo) (name, text string, err error) {
	p := d.Minimal
	if p == nil {
		p = d.Program
	}
	q := start(p)
	q.Name = fmt.Sprintf("fuzz-%s-%016x", d.Kind, d.Seed)
	q.Query = prog.Query{}
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	if d.Index >= 0 {
		note("Found by rdmasim fuzz --seed %d%s (program %d); rerun: rdmasim fuzz --program-seed %#x%s", info.RunSeed, d.rerunFlags(), d.Index, d.Seed, d.rerunFlags())
	} else {
		note("Found by rdmasim fuzz; rerun: rdmasim fuzz --program-seed %#x%s", d.Seed, d.rerunFlags())
	}
	if d.Minimal != nil {
		note("Minimised by delta debugging from %d to %d instructions (%d candidates tested).", d.Minimized.Before, d.Minimized.After, d.Minimized.Checks)
	}
	problems := d.MinimalProblems
	if d.Minimal == nil {
		problems = d.Problems
	}
	for _, pr := range problems {
		if pr.Kind == d.Kind {
			note("Disagreement (%s): %s", pr.Kind, firstLine(pr.Detail))
		}
	}
	if d.Kind != KindError {
		o := info.Differ
		o.Checks = differ.CheckAll | differ.For(d.Kind)
		cctx, cancel := withTimeout(ctx, info.Timeout)
		rep, err := differ.Check(cctx, p, o)
		cancel()
		if err != nil {
			return "", "", fmt.Errorf("fuzz: recomputing the verdicts of %s: %w", q.Name, err)
		}
		if err := expectations(ctx, q, rep, d.Kind, info.Differ, note); err != nil {
			return "", "", err
		}
		if rep.Unroll > 0 && verdict.HasLoops(q) {
			note("The program has loops: the semantics were compared with loops unrolled %d times per entry.", rep.Unroll)
		}
	}
	var b strings.Builder
	for _, n := range notes {
		for _, line := range strings.Split(n, "\n") {
			b.WriteString("# " + line + "\n")
		}
	}
	body := q.String()
	b.WriteString(body)
	text = b.String()
	back, err := parse.Parse(q.Name+".rdma", []byte(text))
	if err != nil {
		return "", "", fmt.Errorf("fuzz: regression %s does not parse: %w\n%s", q.Name, err, text)
	}
	if back.String() != body {
		return "", "", fmt.Errorf("fuzz: regression %s does not print back the same:\n%s\n---\n%s", q.Name, body, back.String())
	}
	return q.Name, text, nil
}

// expectations sets q's query and expect lines for a disagreement of kind
// k, from rep (the comparisons of q's program), and notes which side
// disagreed.
func expectations(ctx context.Context, q *prog.Program, rep *differ.Report, k differ.Kind, dopt differ.Options, note func(string, ...any)) error {
	switch k {
	case differ.OutcomesRDMA, differ.OutcomesSC, differ.OutcomesReduced, differ.SpinRDMA, differ.SpinSC:
		i := 0
		if k == differ.OutcomesSC || k == differ.SpinSC {
			i = 1
		}
		var vals []uint8
		m := rep.Machine[i]
		switch {
		case k == differ.OutcomesRDMA || k == differ.OutcomesSC:
			d := verdict.CompareOutcomes(m, rep.Model[i])
			if len(d.OnlyMachine) > 0 {
				vals = d.OnlyMachine[0]
			} else if len(d.OnlyModel) > 0 {
				vals = d.OnlyModel[0]
			}
		case k == differ.OutcomesReduced:
			d := verdict.CompareOutcomes(rep.Reduced, m)
			if len(d.OnlyMachine) > 0 {
				vals = d.OnlyMachine[0]
			} else if len(d.OnlyModel) > 0 {
				vals = d.OnlyModel[0]
			}
		case rep.Spin[i] != nil:
			vals = spinOnly(rep, i)
		}
		q.Query = prog.Query{Kind: prog.QExists, Cond: outcomeCond(m.Locs, vals)}
		if err := prog.Compile(q); err != nil {
			return fmt.Errorf("fuzz: %w", err)
		}
		opt := verdict.Options{Machine: machineOptions(rep, dopt)}
		model, err := modelResults(ctx, q, opt)
		if err != nil {
			return err
		}
		mach, err := machineResults(ctx, q, opt)
		if err != nil {
			return err
		}
		ref, refName := model, "the declarative model's verdicts (the paper's definition: the reference)"
		if k == differ.SpinRDMA || k == differ.SpinSC {
			ref, refName = mach, "the machine's verdicts (SPIN runs a translation of the machine)"
		}
		if vals != nil {
			note("Disputed outcome %s: machine %s, model %s under %s.", q.CondString(q.Query.Cond),
				word(mach[i]), word(model[i]), m.Semantics)
		}
		note("The expect lines give %s.", refName)
		for j, sem := range []prog.Semantics{prog.RDMA, prog.SC} {
			if ref[j].Certain() {
				q.Expects = append(q.Expects, prog.Expect{Sem: sem, Yes: ref[j].Allowed})
			}
		}
	case differ.ReachRDMA, differ.ReachSC:
		i := 0
		if k == differ.ReachSC {
			i = 1
		}
		for _, a := range rep.Reach {
			if m := a.Machine[i]; m != nil && m.Allowed != a.Model[i].Allowed {
				q.Query = a.Program.Query
				note("Disputed reach %s under %s: machine %s, model %s.", q.CondString(q.Query.Cond), m.Semantics, word(m), word(a.Model[i]))
				note("The expect lines give the machine's verdicts (the reference for configurations inside runs).")
				for j, sem := range []prog.Semantics{prog.RDMA, prog.SC} {
					if mj := a.Machine[j]; mj != nil && mj.Certain() {
						q.Expects = append(q.Expects, prog.Expect{Sem: sem, Yes: mj.Allowed})
					}
				}
				break
			}
		}
	case differ.ErrorsRDMA, differ.ErrorsSC:
		i := 0
		if k == differ.ErrorsSC {
			i = 1
		}
		if m, a := rep.Machine[i], rep.Model[i]; m != nil && a != nil {
			onlyM, onlyA := verdict.CompareErrors(m, a)
			note("Error points under %s: only the machine reaches %q, only the model %q; the machine is the reference (check --semantics both shows them).", m.Semantics, onlyM, onlyA)
		}
	default:
		note("The expect line gives the reference answer: the model's enumeration when certain, else the decider's, else the machine enumeration's.")
		note("Answers: %s.", robustAnswers(rep))
	}
	if robust, ok := rep.Robust(); ok {
		q.Expects = append(q.Expects, prog.Expect{Sem: prog.Robust, Yes: robust})
	}
	return nil
}

// machineOptions returns the machine options rep was computed with.
func machineOptions(rep *differ.Report, dopt differ.Options) machine.Options {
	o := machine.DefaultOptions()
	o.Unroll = rep.Unroll
	if dopt.MaxInflight > 0 {
		o.MaxInflight = dopt.MaxInflight
	}
	return o
}

func modelResults(ctx context.Context, q *prog.Program, opt verdict.Options) ([2]*verdict.Result, error) {
	r, s, err := verdict.ComputeModel(ctx, q, opt)
	if err != nil {
		return [2]*verdict.Result{}, fmt.Errorf("fuzz: %w", err)
	}
	return [2]*verdict.Result{r, s}, nil
}

func machineResults(ctx context.Context, q *prog.Program, opt verdict.Options) ([2]*verdict.Result, error) {
	out, errs := verdict.ComputeMachines(ctx, q, opt)
	for _, err := range errs {
		if err != nil {
			return out, fmt.Errorf("fuzz: %w", err)
		}
	}
	return out, nil
}

// word is a result's verdict on the condition: allowed, forbidden, or
// forbidden within bounds.
func word(r *verdict.Result) string {
	switch {
	case r.Allowed:
		return "allowed"
	case r.Complete:
		return "forbidden"
	}
	return "forbidden within " + r.Bound
}

// robustAnswers lists every robustness answer of rep.
func robustAnswers(rep *differ.Report) string {
	var out []string
	ans := func(name string, robust, certain bool) {
		w := "no"
		switch {
		case robust && certain:
			w = "yes"
		case robust:
			w = "yes within bounds"
		}
		out = append(out, name+" "+w)
	}
	if r := rep.RobustMachine; r != nil {
		ans("enum-machine", r.Robust, r.Certain())
	}
	if r := rep.RobustModel; r != nil {
		ans("enum-axiom", r.Robust, r.Certain())
	}
	switch {
	case rep.Decide != nil:
		ans("decide", rep.Decide.Robust, rep.Decide.Certain())
	case rep.DecideErr != nil:
		out = append(out, "decide failed")
	}
	return strings.Join(out, ", ")
}

// spinOnly returns the first outcome in which SPIN and the machine differ
// (values of the machine result's locations), or nil.
func spinOnly(rep *differ.Report, i int) []uint8 {
	m := rep.Machine[i]
	p := rep.Program
	spin := map[string]bool{}
	for _, o := range rep.Spin[i].Outcomes {
		spin[o] = true
	}
	mine := map[string]bool{}
	for _, o := range m.Outcomes {
		s := promela.VerdictOutcomes(p, &verdict.Result{Locs: m.Locs, Outcomes: []verdict.Outcome{o}})[0]
		if !spin[s] {
			return o.Values
		}
		mine[s] = true
	}
	for _, s := range rep.Spin[i].Outcomes {
		if mine[s] {
			continue
		}
		vals := make([]uint8, len(m.Locs))
		for _, f := range strings.Fields(s) {
			name, v, _ := strings.Cut(f, "=")
			x, _ := strconv.Atoi(v)
			for k, l := range m.Locs {
				if p.Locs[l].Name == name {
					vals[k] = uint8(x)
				}
			}
		}
		return vals
	}
	return nil
}

// outcomeCond is the condition that the locations locs hold vals
// (true when vals is nil or empty).
func outcomeCond(locs []int, vals []uint8) *prog.Cond {
	var c *prog.Cond
	for k, l := range locs {
		if k >= len(vals) {
			break
		}
		a := &prog.Cond{Op: prog.CEq, Loc: l, Val: vals[k]}
		if c == nil {
			c = a
		} else {
			c = &prog.Cond{Op: prog.CAnd, L: c, R: a}
		}
	}
	if c == nil {
		c = &prog.Cond{Op: prog.CTrue}
	}
	return c
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// WriteRegression writes the regression test of d (Regression) to
// dir/NAME.rdma, creating dir, and returns the file's path.
func WriteRegression(ctx context.Context, dir string, d *Disagreement, info RegressionInfo) (string, error) {
	name, text, err := Regression(ctx, d, info)
	if err != nil {
		return "", err
	}
	return writeRegressionFile(dir, name, text)
}

// writeRegressionFile writes text as dir/name.rdma, making dir if needed,
// and returns the file's path.
func writeRegressionFile(dir, name, text string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("fuzz: %w", err)
	}
	path := filepath.Join(dir, name+".rdma")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("fuzz: %w", err)
	}
	return path, nil
}
