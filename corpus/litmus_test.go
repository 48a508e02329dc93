// Package corpus holds the programs rdmasim is tested on; its one test pins
// the whole report of every litmus test, as herdtools keeps a
// NAME.litmus.expected beside each test.
//
// A litmus test's expect lines pin only its verdicts. Its golden file
// corpus/litmus/NAME.expected, beside NAME.rdma, pins everything the
// machines and the decider answer: the final outcomes under RDMA and SC,
// the counts (configurations, transitions, depth, positive and negative,
// final, filtered and deadlocked configurations), completeness and the
// bound that cut a search, and robustness. So a change that moves any of
// them, a new reduction that explores fewer configurations as much as a
// bug that loses an outcome, shows up as a diff to review. After a change
// that should move them, regenerate the files and read the diff:
//
//	go test ./corpus -run TestLitmusExpected -update-expected
//	git diff corpus/litmus/
//
// (or make expected). Every number in a report is deterministic: searches
// are breadth-first and sequential, and no time or memory is printed.
package corpus

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

var updateExpected = flag.Bool("update-expected", false, "rewrite corpus/litmus/*.expected and corpus/protocols/*.expected from the current reports")

// litmusDir is where the litmus tests and their golden reports live;
// protocolsDir the protocols (docs/PROTOCOLS.md), pinned the same way, so
// that a change in a protocol's lowering, outcomes or robustness shows in
// review too.
const (
	litmusDir    = "litmus"
	protocolsDir = "protocols"
)

// options are those of rdmasim check with its defaults: --max-inflight 8,
// --unroll 0 (loops explored to a fixpoint), --reduce, breadth-first. The
// search runs on one goroutine; a parallel search finds the same counts,
// but the corpus is small and the machine may not be.
func options() verdict.Options {
	mo := machine.DefaultOptions()
	mo.Unroll = 0
	mo.Reduce = true
	// Symmetry as rdmasim's default: a family with a verified group is
	// searched one configuration per orbit (and says so).
	return verdict.Options{Machine: mo, Settings: explore.Settings{Symmetry: true}}
}

// TestLitmusExpected computes the report of every corpus/litmus/*.rdma and
// corpus/protocols/*.rdma and compares it with NAME.expected beside it; with
// -update-expected it rewrites the files instead (and removes those whose
// test is gone).
func TestLitmusExpected(t *testing.T) {
	for _, dir := range []string{litmusDir, protocolsDir} {
		t.Run(dir, func(t *testing.T) { testExpected(t, dir) })
	}
}

// testExpected pins the reports of the .rdma files of one directory.
func testExpected(t *testing.T, litmusDir string) {
	files, err := filepath.Glob(filepath.Join(litmusDir, "*.rdma"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no .rdma files in %s", litmusDir)
	}
	tests := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".rdma")
		tests[name] = true
		golden := filepath.Join(litmusDir, name+".expected")
		t.Run(name, func(t *testing.T) {
			// A protocol's search is larger than a litmus test's (seconds for
			// the largest): they run side by side.
			if litmusDir == protocolsDir {
				t.Parallel()
			}
			p, err := parse.File(file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := litmusReport(context.Background(), p, options())
			if err != nil {
				t.Fatal(err)
			}
			if *updateExpected {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (create it with go test ./corpus -run TestLitmusExpected -update-expected)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the report (- expected, + now); if the change is meant, rerun with -update-expected:\n%s", golden, lineDiff(string(want), got))
			}
		})
	}
	// A golden file without its test pins nothing.
	stale, err := filepath.Glob(filepath.Join(litmusDir, "*.expected"))
	if err != nil {
		t.Fatal(err)
	}
	for _, golden := range stale {
		if tests[strings.TrimSuffix(filepath.Base(golden), ".expected")] {
			continue
		}
		if *updateExpected {
			if err := os.Remove(golden); err != nil {
				t.Fatal(err)
			}
			t.Logf("removed %s: no .rdma beside it", golden)
			continue
		}
		t.Errorf("%s: no .rdma beside it (remove it, or rerun with -update-expected)", golden)
	}
}

// litmusReport computes and renders the report of p: the machines' answers
// under RDMA and SC, then robustness by the decider and, when p has no
// loop, by enumeration on the RDMA machine (with loops, enumeration bounds
// the iterations and cannot confirm "robust").
func litmusReport(ctx context.Context, p *prog.Program, opt verdict.Options) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Test %s\n", p.Name)
	for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
		r, err := verdict.Compute(ctx, p, sem, opt)
		if err != nil {
			return "", err
		}
		writeResult(&b, p, r)
	}
	if s := prog.FirstVerbs(p); s != nil {
		// The decider refuses the verbs features it does not cover
		// (multi-word operations; instr.FeatureError): both
		// enumerations answer.
		var fe *instr.FeatureError
		if _, err := decide.Decide(ctx, p, decide.Options{NoWitness: true, Settings: opt.Settings}); !errors.As(err, &fe) {
			return "", fmt.Errorf("the decider on a program with %s: %v, want its refusal (*instr.FeatureError)", prog.VerbsFeature(s), err)
		}
		fmt.Fprintf(&b, "Robust: refused by the decider (%s)\n", fe.Feature)
		m, _, err := verdict.RobustModel(ctx, p, opt)
		if err != nil {
			return "", err
		}
		fmt.Fprintln(&b, robustLine(m))
	} else if prog.HasAtomics(p) {
		// The decider refuses remote atomics: both enumerations answer.
		if _, err := decide.Decide(ctx, p, decide.Options{NoWitness: true, Settings: opt.Settings}); err == nil {
			return "", fmt.Errorf("the decider answered on a program with remote atomics")
		}
		fmt.Fprintln(&b, "Robust: refused by the decider (remote atomics)")
		if !lowered(p) {
			// The model's violation search over atomics is slow on the
			// protocols (corpus/suite's atomicsModelBudget); the litmus
			// tests pin it.
			m, _, err := verdict.RobustModel(ctx, p, opt)
			if err != nil {
				return "", err
			}
			fmt.Fprintln(&b, robustLine(m))
		}
	} else {
		d, err := decide.Decide(ctx, p, decide.Options{NoWitness: true, Settings: opt.Settings})
		if err != nil {
			return "", err
		}
		fmt.Fprintln(&b, decideLine(d))
	}
	if !verdict.HasLoops(p) {
		r, err := verdict.RobustMachine(ctx, p, opt)
		if err != nil {
			return "", err
		}
		fmt.Fprintln(&b, robustLine(r))
	}
	return b.String(), nil
}

// writeResult renders one semantics in the shape of rdmasim check's report,
// without what is not deterministic or not an answer (times, witnesses),
// and with every count: the query's verdict, herd's Positive/Negative and
// Observation, the search and how its runs ended.
func writeResult(b *strings.Builder, p *prog.Program, r *verdict.Result) {
	fmt.Fprintf(b, "Semantics %s\n", r.Semantics)
	fmt.Fprintf(b, "States %d\n", len(r.Outcomes))
	for _, o := range r.Outcomes {
		fmt.Fprintln(b, outcomeText(p, r.Locs, o))
	}
	if r.Query.Kind != prog.QNone {
		fmt.Fprintln(b, report.Holds(r))
		fmt.Fprintf(b, "Positive: %d Negative: %d\n", r.Positive, r.Negative)
		fmt.Fprintf(b, "Condition %s %s\n", r.Query.Kind, p.CondString(r.Query.Cond))
		fmt.Fprintf(b, "Observation %s %s %d %d\n", p.Name, report.Observation(r.Positive, r.Negative, r.Complete), r.Positive, r.Negative)
	}
	s := r.Search
	fmt.Fprintf(b, "Explored %s, %s, depth %d: %s\n", plural(s.States, "configuration"), plural(s.Transitions, "transition"), s.MaxDepth, coverage(r.Coverage(), r.Bound))
	fmt.Fprintf(b, "Ends %d final, %d filtered, %d deadlocked", r.Finals, r.Filtered, r.Deadlocks)
	if r.Failed > 0 {
		fmt.Fprintf(b, ", %d at an error point", r.Failed)
	}
	fmt.Fprintln(b)
	if r.Deadlocks > 0 {
		fmt.Fprintf(b, "Deadlock %s\n", r.DeadlockAt)
	}
	if r.ErrorAt != "" {
		fmt.Fprintf(b, "Error %s\n", r.ErrorAt)
	}
	if r.Vacuous() {
		fmt.Fprintln(b, "Vacuous: no run ends and some deadlock or stops at an error point")
	}
	if r.Symmetry != "" {
		fmt.Fprintf(b, "Symmetry %s\n", r.Symmetry)
	}
}

// outcomeText prints one final outcome as herd does (x=1; y=0;), marked
// with a * when it satisfies the condition; "(final)" when no location is
// shown.
func outcomeText(p *prog.Program, locs []int, o verdict.Outcome) string {
	s := report.Outcome(p, locs, o.Values)
	if o.Satisfies && p.Query.Kind != prog.QReach && p.Query.Kind != prog.QNone {
		s = "*> " + s
	}
	return s
}

// coverage says how much a search covered, and what cut it.
func coverage(c verdict.Coverage, bound string) string {
	switch c {
	case verdict.Complete:
		return "complete"
	case verdict.WithinBounds:
		return "complete within bounds, cut by " + bound
	}
	return "unknown, stopped by " + bound
}

// decideLine is the decider's answer: robust or not, the states of the
// instrumented machine it searched (of the Karp–Miller tree when a poll
// lies on a loop), and whether the search was complete. A violation is
// certain whatever the search covered.
func decideLine(d *decide.Result) string {
	how := "decide"
	if d.KarpMiller {
		how += ", Karp–Miller"
	}
	how += fmt.Sprintf(", %s, %s", plural(d.Search.States, "state"), plural(d.Search.Transitions, "transition"))
	if d.Symmetry != "" {
		how += ", symmetry: " + d.Symmetry
	}
	switch {
	case !d.Robust:
		return fmt.Sprintf("Robust: no (%s)", how)
	case d.Complete:
		return fmt.Sprintf("Robust: yes (%s, complete)", how)
	}
	return fmt.Sprintf("Robust: unknown (%s, stopped by %s)", how, d.Bound)
}

// robustLine is robustness by enumeration on the RDMA machine (event
// graphs in the configurations, no reduction), which stops at the first
// configuration with an sc cycle.
func robustLine(r *verdict.RobustResult) string {
	how := fmt.Sprintf("%s, %s, %s", r.Method, plural(r.Search.States, "configuration"), plural(r.Search.Transitions, "transition"))
	if r.Method == "enum-axiom" {
		how = fmt.Sprintf("%s, %s", r.Method, plural(r.Search.States, "candidate trace"))
	}
	switch {
	case !r.Robust:
		return fmt.Sprintf("Robust: no (%s)", how)
	case r.Complete:
		return fmt.Sprintf("Robust: yes (%s, complete)", how)
	case r.Coverage() == verdict.WithinBounds:
		return fmt.Sprintf("Robust: yes within bounds (%s, cut by %s)", how, r.Bound)
	}
	return fmt.Sprintf("Robust: unknown (%s, stopped by %s)", how, r.Bound)
}

// plural prints "1 state", "2 states".
func plural(n uint64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// lineDiff shows how got differs from want line by line: a longest common
// subsequence of lines kept as context (indented), lines only in want
// prefixed with -, lines only in got with +. Reports are short, so the
// quadratic table is cheap.
func lineDiff(want, got string) string {
	a, c := lines(want), lines(got)
	// lcs[i][j] is the length of a longest common subsequence of a[i:]
	// and c[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(c)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(c) - 1; j >= 0; j-- {
			if a[i] == c[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(c) {
		switch {
		case i < len(a) && j < len(c) && a[i] == c[j]:
			fmt.Fprintf(&b, "  %s\n", a[i])
			i, j = i+1, j+1
		case i < len(a) && (j == len(c) || lcs[i+1][j] >= lcs[i][j+1]):
			fmt.Fprintf(&b, "- %s\n", a[i])
			i++
		default:
			fmt.Fprintf(&b, "+ %s\n", c[j])
			j++
		}
	}
	return b.String()
}

// lines splits s into its lines, without their newlines.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// TestLineDiff checks the diff that TestLitmusExpected prints on a
// mismatch: removed lines before added ones, common lines as context.
func TestLineDiff(t *testing.T) {
	for _, c := range []struct{ name, want, got, diff string }{
		{"equal", "a\nb\n", "a\nb\n", "  a\n  b\n"},
		{"changed", "a\nb\nc\n", "a\nB\nc\n", "  a\n- b\n+ B\n  c\n"},
		{"added", "a\n", "a\nb\n", "  a\n+ b\n"},
		{"removed", "a\nb\n", "b\n", "- a\n  b\n"},
		{"new file", "", "a\n", "+ a\n"},
	} {
		if d := lineDiff(c.want, c.got); d != c.diff {
			t.Errorf("%s: lineDiff(%q, %q) = %q, want %q", c.name, c.want, c.got, d, c.diff)
		}
	}
}

// lowered reports whether p is a protocol (its threads lowered).
func lowered(p *prog.Program) bool {
	for t := range p.Threads {
		if p.Threads[t].Lowered {
			return true
		}
	}
	return false
}
