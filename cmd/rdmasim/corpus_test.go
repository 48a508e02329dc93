package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rdmasim/corpus/suite"
)

// corpusTimes matches the timings of a corpus table: the TIME column and
// the total.
var corpusTimes = regexp.MustCompile(`( +\d+\.\d\ds  )|(; \d+\.\ds\n)`)

func normalizeCorpus(s string) string {
	return corpusTimes.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, ";") {
			return "; X.Xs\n"
		}
		return strings.Repeat(" ", len(m)-7) + "X.XXs  "
	})
}

// corpusFiles pass, have loops (the model is cut, the machine and the
// decider confirm), a reach query (no model), fail by the machines and by
// every robustness method, and do not parse.
var corpusFiles = []string{litmus + "PUT-LW.rdma", litmus + "paper-vass-loop.rdma", litmus + "rule-loop-gets-reorder.rdma",
	"testdata/wrong-expect.rdma", "testdata/wrong-robust.rdma", "testdata/bad-syntax.rdma"}

// TestGoldenCorpus compares corpus's tables (timings normalised).
func TestGoldenCorpus(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		// By default the rows of the files that did not pass only; -v
		// every row.
		{"corpus-files", append([]string{"corpus"}, corpusFiles...), exitFailed},
		{"corpus-files-verbose", append([]string{"corpus", "-v"}, corpusFiles...), exitFailed},
		// Every file passes: the totals alone.
		{"corpus-pass", []string{"corpus", litmus + "PUT-LW.rdma", litmus + "paper-vass-loop.rdma"}, exitOK},
		// A state limit cuts the machine searches: the model confirms
		// what it can, but not sc forbidden, which its loop bound cuts.
		// --strict makes a cut file fail; without it a cut is no failure.
		{"corpus-cut", []string{"corpus", "--strict", "--max-states", "3", litmus + "SB-PUT.rdma", litmus + "rule-loop-gets-reorder.rdma"}, exitFailed},
		{"corpus-cut-lenient", []string{"corpus", "--max-states", "3", litmus + "SB-PUT.rdma", litmus + "rule-loop-gets-reorder.rdma"}, exitOK},
		{"corpus-missing", []string{"corpus", "testdata/no-such-dir"}, exitUsage},
		{"corpus-no-args", []string{"corpus"}, exitUsage},
		{"corpus-checkpoint", []string{"corpus", "--checkpoint", "testdata/no-such-dir", litmus + "PUT-LW.rdma"}, exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { goldenNormalized(t, tc.name, tc.args, tc.code, normalizeCorpus) })
	}
}

// TestCorpusAll: every bundled litmus test and regression test passes
// under every semantics (what CI runs with rdmasim corpus corpus/, apart
// from the benchmark).
func TestCorpusAll(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"corpus", "-v", "../../corpus/litmus", "../../corpus/regress"}, &stdout, &stderr)
	out := stdout.String()
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stderr.String(), out)
	}
	files, _ := filepath.Glob(litmus + "*.rdma")
	if n := strings.Count(out, " pass\n"); n < len(files) {
		t.Fatalf("%d files pass, %d litmus files\n%s", n, len(files), out)
	}
	if !strings.Contains(out, " 0 FAIL") || strings.Contains(out, " FAIL\n") || strings.Contains(out, " cut\n") {
		t.Fatalf("failures:\n%s", out)
	}
}

// TestCorpusFiles: directories are walked recursively for .rdma files
// only, sorted; files given by name are taken as they are; each file once;
// no file at all is an error.
func TestCorpusFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.rdma", "a.rdma", "sub/c.rdma", "sub/d.vass", "README.md"} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("node n { x }\nthread t on n { }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := suite.Files([]string{dir, filepath.Join(dir, "a.rdma")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.rdma"), filepath.Join(dir, "b.rdma"), filepath.Join(dir, "sub", "c.rdma")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", got, want)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"corpus", t.TempDir()}, &stdout, &stderr); code != exitUsage {
		t.Fatalf("no .rdma files: exit %d", code)
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"corpus", dir}, &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "3 files: 0 pass, 0 FAIL, 0 cut, 3 no-expect; ") {
		t.Fatalf("exit %d\n%s", code, stdout.String())
	}
}

// TestCorpusProgress: with --progress, a line per file checked on stderr
// (make run's corpus run shows how far it is), none without.
func TestCorpusProgress(t *testing.T) {
	for _, progress := range []bool{false, true} {
		args := []string{"corpus", "../../corpus/regress"}
		if progress {
			args = append(args[:1], "--progress", args[1])
		}
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		}
		n := strings.Count(stderr.String(), "rdmasim: corpus: ")
		if progress && (n == 0 || !strings.Contains(stderr.String(), " files (")) || !progress && n != 0 {
			t.Errorf("%v: %d progress lines:\n%s", args, n, stderr.String())
		}
	}
}

// TestCorpusJSON: one JSON object per file, with the status of every
// expect line under every semantics that checked it.
func TestCorpusJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"corpus", "--json", litmus + "PUT-LW.rdma", "testdata/wrong-expect.rdma"}, &stdout, &stderr)
	if code != exitFailed {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), stdout.String())
	}
	var rows [2]suite.Row
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if r := rows[0]; r.Result != suite.Pass || len(r.Expect) != 7 || r.Cells[suite.Decide] != suite.CellOK || r.Cells[suite.ModelSC] != suite.CellOK {
		t.Errorf("PUT-LW: %+v", r)
	}
	if r := rows[1]; r.Result != suite.Fail || r.Cells[suite.RDMA] != suite.CellFail {
		t.Errorf("wrong-expect: %+v", r)
	}
}

// TestWorkersIdentical checks that check's reports (verdicts, counts,
// outcomes, witnesses, where a bound stops) on every bundled litmus test are
// byte for byte the same with one worker and with several.
func TestWorkersIdentical(t *testing.T) {
	t.Parallel() // beside the other long tests: it only reads the corpus
	files, err := filepath.Glob(litmus + "*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no litmus files: %v", err)
	}
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"default", nil},
		{"every-interleaving", []string{"--reduce=false"}},
		{"cut", []string{"--max-states", "40"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			report := func(workers string) string {
				var stdout, stderr bytes.Buffer
				args := append(append([]string{"check", "--json", "--all-outcomes", "-w", "--workers", workers}, tc.flags...), files...)
				code := run(context.Background(), args, &stdout, &stderr)
				if code != exitOK && code != exitFailed {
					t.Fatalf("--workers %s: exit %d\n%s", workers, code, stderr.String())
				}
				return stdout.String()
			}
			one := report("1")
			if !strings.Contains(one, `"witness"`) {
				t.Fatal("no witness in the reports")
			}
			// Without the limit, max-inflight cuts one search (a put
			// in a loop, ppo-33-LOOP-PUT-POLL); the limit cuts many.
			if cut := strings.Count(one, `"complete":false`); (cut > 10) != (tc.name == "cut") {
				t.Fatalf("%d searches cut by a bound", cut)
			}
			for _, w := range []string{"2", "5"} {
				if got := report(w); got != one {
					t.Errorf("--workers %s: the reports differ from one worker's", w)
				}
			}
		})
	}
}
