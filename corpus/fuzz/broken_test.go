//go:build rdmasim_broken

package fuzz

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/opsem/parse"
)

// TestBrokenRuleCaught runs only in builds with the rdmasim_broken tag,
// where the declarative model lacks one oppo entry (nrW before nrW on the
// same queue pair; opsem/axiom/broken_on.go): from a fixed seed the fuzzer
// must find a disagreement within a minute and minimise it to at most six
// instructions, written as a regression file that parses.
//
//	go test -count=1 -tags rdmasim_broken -run Broken ./corpus/fuzz/
func TestBrokenRuleCaught(t *testing.T) {
	const limit = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var found *Disagreement
	dir := t.TempDir()
	start := time.Now()
	sum, err := Run(ctx, Options{
		Seed:       1,
		Count:      2000,
		Differ:     differ.Options{MaxStates: 100000, MaxModelCost: 20},
		Timeout:    5 * time.Second,
		Minimize:   MinimizeOptions{Time: 30 * time.Second},
		RegressDir: dir,
		Found: func(d *Disagreement) {
			if found == nil {
				found = d
			}
			cancel() // the first one is enough
		},
	})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if found == nil {
		t.Fatalf("no disagreement in %d programs (%s)", sum.Programs, elapsed)
	}
	if elapsed > limit {
		t.Fatalf("took %s", elapsed)
	}
	t.Logf("program %d (seed %#x), %s, found and minimised after %s, %d programs:\n%v", found.Index, found.Seed, found.Kind, elapsed.Round(time.Millisecond), sum.Programs, found.Problems)
	if found.Minimal == nil {
		t.Fatal("not minimised")
	}
	n := CountStatements(found.Minimal)
	t.Logf("minimised from %d to %d instructions (%d statements) with %d checks:\n%s", found.Minimized.Before, found.Minimized.After, n, found.Minimized.Checks, found.Minimal)
	if n > 6 {
		t.Errorf("minimised program has %d simple statements, want at most 6", n)
	}
	if len(found.MinimalProblems) == 0 {
		t.Error("the minimised program shows no disagreement of the kind found")
	}
	if found.File == "" {
		t.Fatalf("no regression file: %v", found.FileErr)
	}
	if filepath.Dir(found.File) != dir {
		t.Errorf("regression file %s not in %s", found.File, dir)
	}
	text, err := os.ReadFile(found.File)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parse.Parse(found.File, text)
	if err != nil {
		t.Fatalf("regression file does not parse: %v\n%s", err, text)
	}
	if len(p.Expects) == 0 {
		t.Errorf("regression file has no expect line:\n%s", text)
	}
	t.Logf("%s:\n%s", found.File, text)
}
