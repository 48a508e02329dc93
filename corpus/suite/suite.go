// Package suite checks a suite of .rdma files against their expect lines
// under every semantics that applies, as `rdmasim corpus` does: the RDMA
// and SC machines and the declarative model (not for reach queries)
// against the rdma and sc lines, the decider and, on loop-free programs,
// both enumerations against the robust line (with loops, the machine's
// enumeration against a line that says "no": a violation found within
// bounds is one). Each file gets a Row: per
// semantics (a column) ok, FAIL, cut (a bound cut its search before it
// could confirm a line), limit (the program is too large for the
// declarative model: a trace of more than 64 events), - (no line for it)
// or n/a, and the file's result:
//
//   - pass: every expect line is confirmed by at least one semantics whose
//     answer is certain, and contradicted by none;
//   - FAIL: a certain answer contradicts a line, or a semantics failed;
//   - cut: some line no semantics could confirm, every search that could
//     was cut by a bound (raise the bounds, or the expectation cannot be
//     established);
//   - no-expect: nothing to check (such files, benchmarks, are parsed, not
//     explored); error: the file does not parse.
//
// Where package differ compares the semantics with each other on any
// program, suite checks each against what the file says it must answer.
package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/check"
	"rdmasim/opsem/expect"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// Columns of the table: the semantics each file goes through.
const (
	RDMA        = "rdma"         // the RDMA machine
	SC          = "sc"           // the SC machine
	ModelRDMA   = "model-rdma"   // RDMA-consistent traces of the declarative model
	ModelSC     = "model-sc"     // SC-consistent traces
	Decide      = "decide"       // robustness by the decider
	EnumMachine = "enum-machine" // robustness by enumeration on the machine (loop-free programs)
	EnumAxiom   = "enum-axiom"   // robustness by enumeration of the model's traces (loop-free programs)
)

// Columns lists the columns in the order of the table.
var Columns = []string{RDMA, SC, ModelRDMA, ModelSC, Decide, EnumMachine, EnumAxiom}

// Cell statuses.
const (
	CellOK    = "ok"   // every expect line the semantics checks holds (certain)
	CellFail  = "FAIL" // a certain verdict contradicts an expect line
	CellCut   = "cut"  // a bound cut the search before it could confirm a line
	CellNone  = "-"    // no expect line for this semantics
	CellNA    = "n/a"  // the semantics does not apply (reach query for the model, loops for enumerations but for the machine's on an "expect robust no", remote atomics for the decider)
	CellError = "error"
	// CellLimit: the program is too large for the declarative model (a
	// trace of more than 64 events), which could not confirm a line.
	CellLimit = "limit"
)

// File results.
const (
	Pass     = "pass"
	Fail     = "FAIL"
	Cut      = "cut"       // some expect line no complete search confirmed
	NoExpect = "no-expect" // nothing to check
	Error    = "error"     // the file does not parse
)

// Row is the result of one file.
type Row struct {
	File    string            `json:"file"`
	Name    string            `json:"name"`
	Result  string            `json:"result"`
	Seconds float64           `json:"seconds"`
	Cells   map[string]string `json:"semantics"` // by column
	Expect  []Expect          `json:"expect"`
	// Error is why the file does not parse, or why semantics failed (one
	// line each, "COLUMN: message").
	Error string `json:"error,omitempty"`
	// SearchFailed: a semantics failed because its search did, not
	// because of the file (explore.SearchError).
	SearchFailed bool `json:"-"`
}

// Expect is one expect line checked by the semantics of one column.
type Expect struct {
	By string `json:"by"` // the column
	expect.Expectation
}

// Passed reports whether the file passed: pass, or nothing to check.
func (r *Row) Passed() bool { return r.Result == Pass || r.Result == NoExpect }

// Options configure Check.
type Options struct {
	// Verdict are the machines' bounds and the search settings of every
	// semantics.
	Verdict verdict.Options
	// MaxBytes bounds the memory of the decider's Karp–Miller search.
	MaxBytes uint64
}

// Files returns the .rdma files under each of args (a directory, walked
// recursively, or a file, taken whatever its name), sorted within each
// directory, each once.
func Files(args []string) ([]string, error) {
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

// Check checks one file through every applicable semantics.
func Check(ctx context.Context, file string, opt Options) *Row {
	return CheckSource(ctx, file, nil, opt)
}

// CheckSource is Check of the program text src, named file; a nil src is
// read from file.
func CheckSource(ctx context.Context, file string, src []byte, opt Options) *Row {
	start := time.Now()
	row := &Row{File: file, Cells: map[string]string{}, Expect: []Expect{}}
	defer func() { row.Seconds = time.Since(start).Seconds() }()
	for _, c := range Columns {
		row.Cells[c] = CellNone
	}
	var p *prog.Program
	var err error
	if src == nil {
		p, err = parse.File(file)
	} else {
		p, err = parse.Parse(file, src)
	}
	if err != nil {
		row.Result, row.Error = Error, report.ErrorText(err)
		return row
	}
	row.Name = p.Name
	if len(p.Expects) == 0 {
		// Nothing to check: benchmarks such as corpus/bench/mp4y.rdma
		// (10^8 configurations) are parsed, not explored.
		row.Result = NoExpect
		return row
	}
	vopt := opt.Verdict
	limited := map[string]bool{}
	// The machines.
	mach, errs := verdict.ComputeMachines(ctx, p, vopt)
	for i, err := range errs {
		if err != nil {
			row.fail([]string{RDMA, SC}[i], err)
		}
	}
	if mach[0] != nil && mach[1] != nil {
		row.split(expect.Check(p, mach), RDMA, SC)
	}
	// The declarative model (reach queries too, from its trace prefixes;
	// one it does not answer, a reach condition on control points, gets
	// n/a cells). A program too large for it gets unknown expectations,
	// and limit cells.
	{
		mr, ms, err := verdict.ComputeModel(ctx, p, vopt)
		if lr, ls, ok := verdict.ModelLimited(p, err); ok {
			mr, ms, err = lr, ls, nil
			limited[ModelRDMA], limited[ModelSC] = true, true
		}
		if _, refused := verdict.ModelRefused(err); refused {
			row.Cells[ModelRDMA], row.Cells[ModelSC] = CellNA, CellNA
		} else if err != nil {
			row.fail(ModelRDMA, err)
		} else {
			row.split(expect.Check(p, [2]*verdict.Result{mr, ms}), ModelRDMA, ModelSC)
			for i, col := range []string{ModelRDMA, ModelSC} {
				if err := crossCheck(p, mach[i], []*verdict.Result{mr, ms}[i]); err != nil {
					row.fail(col, err)
				}
			}
		}
	}
	// Robustness: the decider always, the enumerations on loop-free
	// programs. With loops they bound the iterations and cannot confirm
	// "robust", but a violation they find is one whatever the bound: the
	// machine's enumeration runs on a program with loops whose line says
	// "no" (the spinning locks on remote atomics, which the decider does
	// not cover, are confirmed so).
	if x, ok := p.Expectation(prog.Robust); ok {
		loops := verdict.HasLoops(p)
		for _, col := range []string{Decide, EnumMachine, EnumAxiom} {
			if col == Decide && (prog.HasAtomics(p) || prog.HasVerbs(p)) || col == EnumAxiom && loops || col == EnumMachine && loops && x.Yes {
				// The decider refuses remote atomics (instr.AtomicsError)
				// and the verbs features it does not cover
				// (instr.FeatureError).
				row.Cells[col] = CellNA
				continue
			}
			mctx, cancel := ctx, context.CancelFunc(func() {})
			if col == EnumAxiom && prog.HasAtomics(p) {
				// The model's violation search over remote atomics cannot
				// take ob ⊇ po's shortcut and grows fast with the traces
				// (SEMANTICS-ATOMICS.md): past its budget the cell is a
				// limit, as for a program beyond the model's 64 events.
				mctx, cancel = context.WithTimeout(ctx, atomicsModelBudget)
			}
			r, err := robust.Decide(mctx, p, robust.Options{Method: robust.Method(col), Verdict: vopt, MaxBytes: opt.MaxBytes})
			overBudget := mctx.Err() != nil && ctx.Err() == nil
			cancel()
			if overBudget {
				row.Cells[col] = CellLimit
				continue
			}
			if err != nil {
				row.fail(col, err)
				continue
			}
			limited[col] = r.Limit != nil || overBudget
			row.Expect = append(row.Expect, Expect{col, *r.Expect})
		}
	}
	for _, x := range row.Expect {
		row.Cells[x.By] = worse(row.Cells[x.By], cellOf(x.Status))
	}
	for col := range limited {
		if limited[col] && row.Cells[col] == CellCut {
			row.Cells[col] = CellLimit
		}
	}
	row.Result = row.result(p)
	return row
}

// crossCheck compares a machine's answer with the model's under one
// semantics, as check --semantics both does (check.Differences: outcomes,
// a reach query's answer, error points), when both covered everything: the
// machine search complete (no bound cut it, every outcome listed) and the
// model's too. The machine is the reference; a difference is the model
// column's error.
func crossCheck(p *prog.Program, mach, model *verdict.Result) error {
	if mach == nil || model == nil || model.Limit != nil || !mach.Complete || mach.AtWitness || !model.Complete {
		return nil
	}
	if diffs, _ := check.Differences(p, mach, model); len(diffs) > 0 {
		return fmt.Errorf("disagrees with the %s machine: %s", mach.Semantics, strings.Join(diffs, "; "))
	}
	return nil
}

// atomicsModelBudget is the time the declarative model's robustness
// enumeration gets on a program with remote atomics before its cell is a
// limit.
const atomicsModelBudget = 10 * time.Second

// fail records that the semantics of column col failed.
func (r *Row) fail(col string, err error) {
	r.Cells[col] = CellError
	r.Error = strings.TrimSpace(r.Error + "\n" + col + ": " + err.Error())
	var se *explore.SearchError
	r.SearchFailed = r.SearchFailed || errors.As(err, &se)
}

// split adds the rdma lines of exps to column rdma and the sc lines to
// column sc.
func (r *Row) split(exps []expect.Expectation, rdma, sc string) {
	for _, x := range exps {
		switch x.Sem {
		case prog.RDMA.String():
			r.Expect = append(r.Expect, Expect{rdma, x})
		case prog.SC.String():
			r.Expect = append(r.Expect, Expect{sc, x})
		}
	}
}

func cellOf(s expect.Status) string {
	switch {
	case s == expect.OK:
		return CellOK
	case s.Failed():
		return CellFail
	}
	return CellCut
}

// worse combines two cell statuses: error and FAIL win over cut, cut over
// ok, ok over none.
func worse(a, b string) string {
	rank := map[string]int{CellNone: 0, CellNA: 0, CellOK: 1, CellCut: 2, CellLimit: 2, CellFail: 3, CellError: 4}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// result decides the file: FAIL when a semantics failed or a certain
// verdict contradicts an expect line; cut when some expect line was
// confirmed by no semantics (every search that could was cut by a bound);
// pass otherwise.
func (r *Row) result(p *prog.Program) string {
	for _, c := range r.Cells {
		if c == CellFail || c == CellError {
			return Fail
		}
	}
	for _, x := range p.Expects {
		confirmed := false
		for _, ce := range r.Expect {
			confirmed = confirmed || ce.Sem == x.Sem.String() && ce.Status == expect.OK
		}
		if !confirmed {
			return Cut
		}
	}
	return Pass
}

// Notes explains a file that did not pass: why a semantics failed, and
// every line that failed or that no semantics could confirm.
func (r *Row) Notes() []string {
	if r.Passed() {
		return nil
	}
	var out []string
	if r.Error != "" {
		for _, l := range strings.Split(r.Error, "\n") {
			out = append(out, fmt.Sprintf("%s: %s", r.File, l))
		}
	}
	for _, x := range r.Expect {
		if x.Status == expect.OK {
			continue
		}
		line := fmt.Sprintf("%s: %s: expect %s %s: %s", r.File, x.By, x.Sem, x.Expected, x.Status)
		if x.Why != "" {
			line += " (" + x.Why + ")"
		}
		out = append(out, line)
	}
	return out
}

// Table prints rows as the corpus command does: a row for each file that
// did not pass (Verbose: every file), as each is added, under a header
// printed before the first; then, at Close, why each did not pass, and the
// totals last ("112 files: 104 pass, 0 FAIL, 0 cut, 8 no-expect; 0.2s").
type Table struct {
	w       io.Writer
	verbose bool
	files   int
	width   int // of the FILE column
	header  bool
	notes   []string
	// Counts counts the rows added by result.
	Counts map[string]int
}

// NewTable returns a table for files, printing to w.
func NewTable(w io.Writer, files []string, verbose bool) *Table {
	t := &Table{w: w, verbose: verbose, files: len(files), width: len("FILE"), Counts: map[string]int{}}
	for _, f := range files {
		t.width = max(t.width, len(f))
	}
	return t
}

// colWidth is the width of a column of the table: its name's, at least
// that of every cell status.
func colWidth(col string) int { return max(len(col), len(CellError)) }

// Add counts a row, and prints it when the table is verbose or the file did
// not pass.
func (t *Table) Add(r *Row) {
	t.Counts[r.Result]++
	t.notes = append(t.notes, r.Notes()...)
	if !t.verbose && r.Passed() {
		return
	}
	if !t.header {
		fmt.Fprintf(t.w, "%-*s", t.width, "FILE")
		for _, c := range Columns {
			fmt.Fprintf(t.w, "  %-*s", colWidth(c), strings.ToUpper(c))
		}
		fmt.Fprintf(t.w, "  %7s  %s\n", "TIME", "RESULT")
		t.header = true
	}
	fmt.Fprintf(t.w, "%-*s", t.width, r.File)
	for _, c := range Columns {
		fmt.Fprintf(t.w, "  %-*s", colWidth(c), r.Cells[c])
	}
	fmt.Fprintf(t.w, "  %6.2fs  %s\n", r.Seconds, r.Result)
}

// Close prints the notes of the files that did not pass and the totals,
// with the time the run took.
func (t *Table) Close(elapsed time.Duration) {
	for _, n := range t.notes {
		fmt.Fprintln(t.w, n)
	}
	var parts []string
	for _, r := range []string{Pass, Fail, Cut, Error, NoExpect} {
		if t.Counts[r] > 0 || r == Pass || r == Fail || r == Cut {
			parts = append(parts, fmt.Sprintf("%d %s", t.Counts[r], r))
		}
	}
	fmt.Fprintf(t.w, "%s: %s; %.1fs\n", report.Plural(t.files, "file"), strings.Join(parts, ", "), elapsed.Seconds())
}
