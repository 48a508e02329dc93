package reduce

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"rdmasim/opsem/decide"
	"rdmasim/opsem/parse"
)

// TestDecideVASS: the decider answers "not robust" exactly when the
// accepting state is coverable, terminating on every instance, including
// those whose accepting state needs counter values beyond any unroll bound.
func TestDecideVASS(t *testing.T) {
	files, _ := filepath.Glob("../vass/*.vass")
	for _, f := range files {
		v, err := LoadVASS(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parse.Parse(f, v.Program())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		r, err := decide.Decide(ctx, p, decide.Options{})
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !r.Certain() {
			t.Fatalf("%s: no certain answer (%s)", f, r.Bound)
		}
		if want := !v.Coverable(); r.Robust != want {
			t.Errorf("%s: decider robust=%v, coverable=%v", f, r.Robust, !want)
		}
		t.Logf("%s: robust=%v, %d states, %d accelerations", filepath.Base(f), r.Robust, r.Search.States, r.Search.Accelerations)
	}
}
