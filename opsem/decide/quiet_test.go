package decide

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/opsem/instr"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestVerbsCovered: the decider covers quiet and the fenced mark
// (SEMANTICS-VERBS.md 9): on every corpus litmus test and regression with
// quiet or a fenced operation and no remote atomic it answers, completely,
// as the file's expect robust line says, and its violations carry witnesses (it
// checks them against the model and replays them on the machine before it
// answers). It still refuses multi-word operations, with an
// *instr.FeatureError naming the feature at the first one's position.
func TestVerbsCovered(t *testing.T) {
	var covered, refused int
	for _, pat := range []string{"litmus/QUIET-*", "litmus/FENCED-*", "litmus/WORDS-*", "regress/*"} {
		files, _ := filepath.Glob("../../corpus/" + pat + ".rdma")
		if len(files) == 0 {
			t.Fatalf("no corpus files %s", pat)
		}
		for _, f := range files {
			p, err := parse.File(f)
			if err != nil {
				t.Fatal(err)
			}
			if prog.HasAtomics(p) || prog.FirstAnyVerbs(p) == nil {
				continue // atomics: refused as such (TestDecideCorpus)
			}
			r, err := Decide(context.Background(), p, Options{})
			if s := prog.FirstVerbs(p); s != nil {
				var fe *instr.FeatureError
				if !errors.As(err, &fe) || fe.Pos != s.Pos || fe.Feature != "multi-word" || !strings.Contains(err.Error(), "does not cover multi-word") {
					t.Errorf("%s: %v, want an *instr.FeatureError naming multi-word at %s", f, err, s.Pos)
				}
				refused++
				continue
			}
			x, ok := p.Expectation(prog.Robust)
			switch {
			case err != nil:
				t.Errorf("%s: %v", f, err)
			case !ok:
				t.Errorf("%s: no expect robust line", f)
			case !r.Complete && r.Robust:
				t.Errorf("%s: robust, but the search was not complete", f)
			case r.Robust != x.Yes:
				t.Errorf("%s: decided robust %v, its expect line says %v", f, r.Robust, x.Yes)
			}
			covered++
		}
	}
	if covered < 6 || refused < 4 {
		t.Errorf("%d decided, %d refused: the corpus lost its quiet, fenced or multi-word tests", covered, refused)
	}
}
