package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"rdmasim/opsem/expect"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// Columns of the corpus table: the semantics each file goes through.
const (
	colRDMA        = "rdma"         // the RDMA machine
	colSC          = "sc"           // the SC machine
	colModelRDMA   = "model-rdma"   // RDMA-consistent traces of the declarative model
	colModelSC     = "model-sc"     // SC-consistent traces
	colDecide      = "decide"       // robustness by the decider
	colEnumMachine = "enum-machine" // robustness by enumeration on the machine (loop-free programs)
	colEnumAxiom   = "enum-axiom"   // robustness by enumeration of the model's traces (loop-free programs)
)

var corpusColumns = []string{colRDMA, colSC, colModelRDMA, colModelSC, colDecide, colEnumMachine, colEnumAxiom}

// Cell and file statuses of the corpus table.
const (
	cellOK    = "ok"   // every expect line the semantics checks holds (certain)
	cellFail  = "FAIL" // a certain verdict contradicts an expect line
	cellCut   = "cut"  // a bound cut the search before it could confirm a line
	cellNone  = "-"    // no expect line for this semantics
	cellNA    = "n/a"  // the semantics does not apply (reach query for the model, loops for enumerations)
	cellError = "error"

	// cellLimit: the program is too large for the declarative model (a
	// trace of more than 64 events), which could not confirm a line.
	cellLimit = "limit"

	filePass      = "pass"
	fileFail      = "FAIL"
	fileCut       = "cut"       // some expect line no complete search confirmed
	fileNoExpect  = "no-expect" // nothing to check
	fileBadSyntax = "error"
)

// corpusRow is the result of one file.
type corpusRow struct {
	File    string            `json:"file"`
	Name    string            `json:"name"`
	Result  string            `json:"result"`
	Seconds float64           `json:"seconds"`
	Cells   map[string]string `json:"semantics"`
	Expect  []corpusExpect    `json:"expect"`
	Error   string            `json:"error,omitempty"`
}

// corpusExpect is one expect line checked by one semantics.
type corpusExpect struct {
	By string `json:"by"` // column
	expect.Expectation
}

// cmdCorpus checks every .rdma file under its arguments (directories are
// walked recursively; other files are ignored) through every semantics that
// applies: the RDMA and SC machines and the declarative model (not for
// reach queries) against the rdma and sc expect lines, the decider and, on
// loop-free programs, both enumerations against the robust line. It prints
// one row per file: per semantics ok, FAIL, cut (a bound cut its search
// before it could confirm a line), limit (the program is too large for the
// declarative model: a trace of more than 64 events), - (no line for it)
// or n/a, then the time and the file's result:
//   - pass: every expect line is confirmed by at least one semantics whose
//     answer is certain, and contradicted by none;
//   - FAIL: a certain answer contradicts a line, or a semantics failed;
//   - cut: some line no semantics could confirm, every search that could was
//     cut by a bound. Never reported as a pass: it fails the run too (raise
//     --max-states or --timeout, or the expectation cannot be established);
//   - no-expect: nothing to check; error: the file does not parse.
//
// By default only the rows of files that did not pass (FAIL, cut, error)
// are printed, as each is checked, then why each did not pass, and the
// totals last: a run over the whole corpus that passes prints one line.
// -v prints the row of every file. The exit code is 1 when a file is FAIL
// or does not parse, and with --strict also when one is cut (an expect line
// no complete search confirmed), as for check.
func cmdCorpus(ctx context.Context, args []string, e *env) int {
	flags := newFlagSet("corpus", e)
	var sf searchFlags
	strict := flags.Bool("strict", false, "exit 1 also when a file is cut (an expect line that no complete search confirmed)")
	verbose := flags.BoolP("verbose", "v", false, "print the row of every file (default: only those that FAIL, are cut or do not parse)")
	sf.register(flags)
	setDefault(flags, "max-states", "5000000")
	setDefault(flags, "timeout", "60s")
	flags.Lookup("max-states").Usage = "stop each search after this many distinct configurations (decider: states), 0 = no limit"
	flags.Lookup("timeout").Usage = "stop each search after this long, 0 = no limit"
	if code := parseFlags(flags, args, e, "corpus [flags] DIR|FILE...   (every .rdma file under each DIR)"); code >= 0 {
		return code
	}
	if flags.NArg() == 0 {
		fmt.Fprintln(e.stderr, "rdmasim corpus: no directories or files")
		return exitUsage
	}
	opt, err := sf.options(e)
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim corpus: %v\n", err)
		return exitUsage
	}
	kmBytes, _ := sf.budget() // checked by options
	files, err := rdmaFiles(flags.Args())
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim corpus: %v\n", err)
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprintf(e.stderr, "rdmasim corpus: no .rdma files in %s\n", strings.Join(flags.Args(), " "))
		return exitUsage
	}
	width := len("FILE")
	for _, f := range files {
		width = max(width, len(f))
	}
	header := false // printed before the first row
	start := time.Now()
	counts := map[string]int{}
	var notes []string
	for _, file := range files {
		row := corpusFile(ctx, file, opt, kmBytes)
		counts[row.Result]++
		passed := row.Result == filePass || row.Result == fileNoExpect
		switch {
		case sf.json:
			writeJSON(e.stdout, row)
		case *verbose || !passed:
			if !header {
				fmt.Fprintf(e.stdout, "%-*s", width, "FILE")
				for _, c := range corpusColumns {
					fmt.Fprintf(e.stdout, "  %-*s", colWidth(c), strings.ToUpper(c))
				}
				fmt.Fprintf(e.stdout, "  %7s  %s\n", "TIME", "RESULT")
				header = true
			}
			fmt.Fprintf(e.stdout, "%-*s", width, file)
			for _, c := range corpusColumns {
				fmt.Fprintf(e.stdout, "  %-*s", colWidth(c), row.Cells[c])
			}
			fmt.Fprintf(e.stdout, "  %6.2fs  %s\n", row.Seconds, row.Result)
		}
		notes = append(notes, rowNotes(row)...)
		if ctx.Err() != nil {
			break
		}
	}
	if !sf.json {
		for _, n := range notes {
			fmt.Fprintln(e.stdout, n)
		}
		var parts []string
		for _, r := range []string{filePass, fileFail, fileCut, fileBadSyntax, fileNoExpect} {
			if counts[r] > 0 || r == filePass || r == fileFail || r == fileCut {
				parts = append(parts, fmt.Sprintf("%d %s", counts[r], r))
			}
		}
		fmt.Fprintf(e.stdout, "%s: %s; %.1fs\n", report.Plural(len(files), "file"), strings.Join(parts, ", "), time.Since(start).Seconds())
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(e.stderr, "rdmasim corpus: interrupted; the table covers the files checked")
		return exitInterrupt
	case counts[fileFail]+counts[fileBadSyntax] > 0, *strict && counts[fileCut] > 0:
		return exitFailed
	}
	return exitOK
}

// colWidth is the width of a column of the table: its name's, at least
// that of every cell status.
func colWidth(col string) int { return max(len(col), len(cellError)) }

// setDefault changes the default value of a registered flag (and the
// default its usage shows).
func setDefault(fs *pflag.FlagSet, name, value string) {
	if err := fs.Set(name, value); err != nil {
		panic(err)
	}
	fs.Lookup(name).DefValue = value
	fs.Lookup(name).Changed = false
}

// rdmaFiles returns the .rdma files under each argument (a directory,
// walked recursively, or a file), sorted, each once.
func rdmaFiles(args []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".rdma") && !seen[path] {
				seen[path] = true
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// corpusFile checks one file through every applicable semantics.
func corpusFile(ctx context.Context, file string, opt verdict.Options, kmBytes uint64) *corpusRow {
	start := time.Now()
	row := &corpusRow{File: file, Cells: map[string]string{}, Expect: []corpusExpect{}}
	defer func() { row.Seconds = time.Since(start).Seconds() }()
	for _, c := range corpusColumns {
		row.Cells[c] = cellNone
	}
	p, err := parse.File(file)
	if err != nil {
		row.Result, row.Error = fileBadSyntax, errorText(err)
		return row
	}
	row.Name = p.Name
	if len(p.Expects) == 0 {
		// Nothing to check: benchmarks such as corpus/bench/mp4y.rdma
		// (10^8 configurations) are parsed, not explored.
		row.Result = fileNoExpect
		return row
	}
	fail := func(col string, err error) {
		row.Cells[col] = cellError
		row.Error = strings.TrimSpace(row.Error + "\n" + col + ": " + err.Error())
	}
	add := func(col string, exps []expect.Expectation) {
		for _, x := range exps {
			if x.Status != "" {
				row.Expect = append(row.Expect, corpusExpect{col, x})
			}
		}
	}
	// The machines.
	var mach [2]*verdict.Result
	for i, sem := range []verdict.Semantics{verdict.RDMA, verdict.SC} {
		r, err := verdict.Compute(ctx, p, sem, opt)
		if err != nil {
			fail([]string{colRDMA, colSC}[i], err)
			continue
		}
		mach[i] = r
	}
	if mach[0] != nil && mach[1] != nil {
		split(expect.Check(p, mach), colRDMA, colSC, add)
	}
	// The declarative model (not for reach queries). A program too large
	// for it gets unknown expectations, and limit cells.
	limited := map[string]bool{}
	if p.Query.Kind == prog.QReach {
		row.Cells[colModelRDMA], row.Cells[colModelSC] = cellNA, cellNA
	} else {
		mr, ms, err := verdict.ComputeModel(ctx, p, opt)
		if lr, ls, ok := verdict.ModelLimited(p, err); ok {
			mr, ms, err = lr, ls, nil
			limited[colModelRDMA], limited[colModelSC] = true, true
		}
		if err != nil {
			fail(colModelRDMA, err)
		} else {
			split(expect.Check(p, [2]*verdict.Result{mr, ms}), colModelRDMA, colModelSC, add)
		}
	}
	// Robustness: the decider always, the enumerations on loop-free
	// programs (with loops they bound the iterations and cannot confirm
	// "robust").
	if _, ok := p.Expectation(prog.Robust); ok {
		for _, col := range []string{colDecide, colEnumMachine, colEnumAxiom} {
			if col != colDecide && verdict.HasLoops(p) {
				row.Cells[col] = cellNA
				continue
			}
			r, err := robust.Decide(ctx, p, robust.Options{Method: robust.Method(col), Verdict: opt, MaxBytes: kmBytes})
			if err != nil {
				fail(col, err)
				continue
			}
			limited[col] = r.Limit != nil
			add(col, []expect.Expectation{*r.Expect})
		}
	}
	for _, x := range row.Expect {
		row.Cells[x.By] = worse(row.Cells[x.By], cellOf(x.Status))
	}
	for col := range limited {
		if limited[col] && row.Cells[col] == cellCut {
			row.Cells[col] = cellLimit
		}
	}
	row.Result = fileResult(p, row)
	return row
}

// split hands the rdma lines of exps to column rdma and the sc lines to
// column sc.
func split(exps []expect.Expectation, rdma, sc string, add func(string, []expect.Expectation)) {
	for _, x := range exps {
		switch x.Sem {
		case "rdma":
			add(rdma, []expect.Expectation{x})
		case "sc":
			add(sc, []expect.Expectation{x})
		}
	}
}

func cellOf(s expect.Status) string {
	switch s {
	case expect.OK:
		return cellOK
	case expect.Fail, expect.Vacuous:
		return cellFail
	}
	return cellCut
}

// worse combines two cell statuses: error and FAIL win over cut, cut over
// ok, ok over none.
func worse(a, b string) string {
	rank := map[string]int{cellNone: 0, cellNA: 0, cellOK: 1, cellCut: 2, cellLimit: 2, cellFail: 3, cellError: 4}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// fileResult decides a file: FAIL when a semantics failed or a certain
// verdict contradicts an expect line; cut when some expect line was
// confirmed by no semantics (every search that could was cut by a bound);
// pass otherwise, no-expect when the file has no expect line.
func fileResult(p *prog.Program, row *corpusRow) string {
	for _, c := range row.Cells {
		if c == cellFail || c == cellError {
			return fileFail
		}
	}
	if len(p.Expects) == 0 {
		return fileNoExpect
	}
	for _, x := range p.Expects {
		confirmed := false
		for _, ce := range row.Expect {
			confirmed = confirmed || ce.Sem == x.Sem.String() && ce.Status == expect.OK
		}
		if !confirmed {
			return fileCut
		}
	}
	return filePass
}

// rowNotes explains a file that did not pass: every line that failed or
// that no semantics could confirm.
func rowNotes(row *corpusRow) []string {
	if row.Result == filePass || row.Result == fileNoExpect {
		return nil
	}
	var out []string
	if row.Error != "" {
		for _, l := range strings.Split(row.Error, "\n") {
			out = append(out, fmt.Sprintf("%s: %s", row.File, l))
		}
	}
	for _, x := range row.Expect {
		if x.Status == expect.OK {
			continue
		}
		line := fmt.Sprintf("%s: %s: expect %s %s: %s", row.File, x.By, x.Sem, x.Expected, x.Status)
		if x.Why != "" {
			line += " (" + x.Why + ")"
		}
		out = append(out, line)
	}
	return out
}
