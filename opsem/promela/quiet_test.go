package promela

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"rdmasim/opsem/parse"
)

// TestQuietOutcomesMatch: on every litmus test of quiet
// (corpus/litmus/QUIET-*.rdma, SEMANTICS-VERBS.md 6), SPIN's search of the
// exported machine reaches exactly the final outcomes rdmasim finds, and
// stores as many states as it explores, under both semantics and with a
// max-inflight bound of 2 as well as the default.
func TestQuietOutcomesMatch(t *testing.T) { litmusOutcomesMatch(t, "QUIET-*.rdma", "quiet") }

// litmusOutcomesMatch is TestQuietOutcomesMatch and TestFencedOutcomesMatch:
// on the litmus tests of glob (at least four, of a feature called what),
// SPIN's search of the exported machine against rdmasim's, under both
// semantics, at the default max-inflight and at 2.
func litmusOutcomesMatch(t *testing.T, glob, what string) {
	needSpin(t)
	files, err := filepath.Glob(litmus + glob)
	if err != nil || len(files) < 4 {
		t.Fatalf("want at least four litmus tests of %s, found %d (%v)", what, len(files), err)
	}
	for _, file := range files {
		for _, sem := range sems {
			for _, k := range []int{0, 2} {
				t.Run(fmt.Sprintf("%s/k=%d/%s", filepath.Base(file), k, sem), func(t *testing.T) {
					t.Parallel()
					p, err := parse.File(file)
					if err != nil {
						t.Fatal(err)
					}
					compare(t, p, sem, k, 0)
				})
			}
		}
	}
}

// TestVerbsRobustnessRefused: the robustness model, which is the decider's
// instrumentation, refuses multi-word operations with its typed error
// naming them, as the decider does, and writes nothing (it instruments
// quiet and fenced: robustFiles).
func TestVerbsRobustnessRefused(t *testing.T) {
	p, err := parse.File(litmus + "WORDS-LAST-WORD.rdma")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err = WriteRobustness(&b, p, RobustOptions{})
	var fe *FeatureError
	if !errors.As(err, &fe) || fe.Feature != "multi-word" {
		t.Fatalf("WriteRobustness: %v, want a *FeatureError naming multi-word", err)
	}
	if b.Len() != 0 {
		t.Errorf("WriteRobustness wrote %d bytes before refusing", b.Len())
	}
}
