package suite

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/verdict"
	"rdmasim/store"
)

// write writes the program src to a file in dir and returns its path.
func write(t *testing.T, dir, name, src string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loopGets (corpus/litmus/rule-loop-gets-reorder.rdma) has gets on a loop
// that may overtake each other: not robust; loopGetsPolled polls each get
// before the next: robust.
const (
	loopGets = "node A { a = 0; b = 9 }\nnode B { d = 0; f = 0 }\n" +
		"thread T0 on A {\n  loop { a := f; poll(B); assume(a == 0) }\n  a := f\n  b := d\n}\n" +
		"thread T1 on B { d := 1; f := 1 }\nexists (a = 1 /\\ b = 0)\n"
	loopGetsPolled = "node A { a = 0; b = 9 }\nnode B { d = 0; f = 0 }\n" +
		"thread T0 on A {\n  loop { a := f; poll(B); assume(a == 0) }\n  a := f\n  poll(B)\n  b := d\n}\n" +
		"thread T1 on B { d := 1; f := 1 }\nexists (a = 1 /\\ b = 0)\n"
)

// TestCheck: a file's cells and result under every semantics.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	const sb = "node A { x = 0; one = 1 }\nnode B { z = 0; two = 1 }\n" +
		"thread T0 on A { z := one; assume(x == 0) }\nthread T1 on B { x := two; assume(z == 0) }\nexists true\n"
	tests := []struct {
		name, src string
		maxStates uint64
		result    string
		cells     map[string]string
		notes     int
	}{
		{"pass", sb + "expect rdma allowed\nexpect sc forbidden\nexpect robust no\n", 0, Pass,
			map[string]string{RDMA: CellOK, SC: CellOK, ModelRDMA: CellOK, ModelSC: CellOK, Decide: CellOK, EnumMachine: CellOK, EnumAxiom: CellOK}, 0},
		{"fail", sb + "expect rdma forbidden\n", 0, Fail,
			map[string]string{RDMA: CellFail, SC: CellNone, ModelRDMA: CellFail, Decide: CellNone}, 2},
		// The SC machine is cut before its witness; the model, which
		// answers reach queries from its trace prefixes, confirms the line.
		{"cut confirmed", sb[:strings.Index(sb, "exists")] + "reach T0@end\nexpect sc allowed\n", 3, Pass,
			map[string]string{SC: CellCut, ModelSC: CellOK}, 0},
		{"cut contradicted", sb[:strings.Index(sb, "exists")] + "reach T0@end\nexpect sc forbidden\n", 3, Fail,
			map[string]string{SC: CellCut, ModelSC: CellFail}, 2},
		{"reach", sb[:strings.Index(sb, "exists")] + "reach T0@end\nexpect rdma allowed\n", 0, Pass,
			map[string]string{RDMA: CellOK, ModelRDMA: CellOK, ModelSC: CellNone}, 0},
		{"no expect", sb, 0, NoExpect, map[string]string{RDMA: CellNone}, 0},
		// With loops the enumerations bound the iterations: the machine's
		// confirms a "no" (its violation is one whatever the bound), the
		// model's is not run, and neither can confirm a "yes".
		{"loop not robust", loopGets + "expect robust no\n", 0, Pass,
			map[string]string{Decide: CellOK, EnumMachine: CellOK, EnumAxiom: CellNA}, 0},
		{"loop robust", loopGetsPolled + "expect robust yes\n", 0, Pass,
			map[string]string{Decide: CellOK, EnumMachine: CellNA, EnumAxiom: CellNA}, 0},
		// A wrong "no" on a robust program with loops: the decider's
		// certain "yes" fails it; the machine's enumeration, robust within
		// its bounds, can say nothing (cut).
		{"loop wrong no", loopGetsPolled + "expect robust no\n", 0, Fail,
			map[string]string{Decide: CellFail, EnumMachine: CellCut, EnumAxiom: CellNA}, 2},
		{"bad syntax", "node A { x }\n", 0, Error, map[string]string{RDMA: CellNone}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := write(t, dir, strings.ReplaceAll(tc.name, " ", "-")+".rdma", tc.src)
			opt := Options{Verdict: verdict.Options{Machine: machine.DefaultOptions(), Settings: explore.Settings{MaxStates: tc.maxStates}}}
			row := Check(context.Background(), file, opt)
			if row.Result != tc.result {
				t.Fatalf("result %s, want %s: %+v", row.Result, tc.result, row)
			}
			for col, want := range tc.cells {
				if got := row.Cells[col]; got != want {
					t.Errorf("%s: %s, want %s", col, got, want)
				}
			}
			if got := len(row.Notes()); got != tc.notes {
				t.Errorf("%d notes, want %d: %q", got, tc.notes, row.Notes())
			}
		})
	}
}

// TestFiles: directories are walked recursively for .rdma files only,
// sorted; files given by name are taken as they are, each once.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.rdma", "a.rdma", "sub/c.rdma", "sub/d.vass", "README.md"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, dir, f, "")
	}
	got, err := Files([]string{dir, filepath.Join(dir, "a.rdma"), filepath.Join(dir, "sub", "d.vass")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.rdma"), filepath.Join(dir, "b.rdma"), filepath.Join(dir, "sub", "c.rdma"), filepath.Join(dir, "sub", "d.vass")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := Files([]string{filepath.Join(dir, "none")}); err == nil {
		t.Error("a missing file is no error")
	}
}

// TestTable: only the rows that did not pass, under one header, then the
// notes and the totals.
func TestTable(t *testing.T) {
	rows := []*Row{
		{File: "a.rdma", Result: Pass, Cells: map[string]string{}},
		{File: "bb.rdma", Result: Fail, Cells: map[string]string{RDMA: CellError}, Error: "rdma: broken"},
		{File: "c.rdma", Result: NoExpect, Cells: map[string]string{}},
	}
	for _, verbose := range []bool{false, true} {
		var b bytes.Buffer
		tab := NewTable(&b, []string{"a.rdma", "bb.rdma", "c.rdma"}, verbose)
		for _, r := range rows {
			tab.Add(r)
		}
		tab.Close(1500 * time.Millisecond)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		want := 4 // header, bb's row, its note, the totals
		if verbose {
			want += 2
		}
		if len(lines) != want || !strings.HasPrefix(lines[0], "FILE     RDMA ") || lines[len(lines)-2] != "bb.rdma: rdma: broken" ||
			lines[len(lines)-1] != "3 files: 1 pass, 1 FAIL, 0 cut, 1 no-expect; 1.5s" {
			t.Errorf("verbose %v:\n%s", verbose, b.String())
		}
	}
}

// TestSearchFailed: a semantics whose search fails (here its visited set
// cannot be made) is an error cell, and the row says that a search, not
// the file, failed.
func TestSearchFailed(t *testing.T) {
	file := write(t, t.TempDir(), "sb.rdma", "node A { x = 0 }\nthread T0 on A { x := 1 }\nexists (x = 1)\nexpect rdma allowed\n")
	full := errors.New("disk full")
	opt := Options{Verdict: verdict.Options{Machine: machine.DefaultOptions(),
		Settings: explore.Settings{NewSet: func(string) (store.Set, error) { return nil, full }}}}
	row := Check(context.Background(), file, opt)
	if row.Result != Fail || row.Cells[RDMA] != CellError || !row.SearchFailed || !strings.Contains(row.Error, "disk full") {
		t.Errorf("%+v", row)
	}
}
