package promela

import (
	"bytes"
	"errors"
	"testing"

	"rdmasim/opsem/parse"
)

// TestInlineOutcomesMatch: on every one-word litmus test of the inline mark
// (corpus/litmus/INLINE-*.rdma but INLINE-WORDS, whose two-word put the
// export refuses: TestInlineWordsRefused), SPIN's search of the exported machine
// reaches exactly the final outcomes rdmasim finds, and stores as many
// states, under both semantics, with max-inflight 2 and the default.
func TestInlineOutcomesMatch(t *testing.T) { litmusOutcomesMatch(t, "INLINE-[^W]*.rdma", "inline") }

// TestInlineRobustnessRefused: the robustness model, the decider's
// instrumentation, refuses an inline put with its typed error naming it.
func TestInlineRobustnessRefused(t *testing.T) {
	p, err := parse.File(litmus + "INLINE-REUSE.rdma")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err = WriteRobustness(&b, p, RobustOptions{})
	var fe *FeatureError
	if !errors.As(err, &fe) || fe.Feature != "inline" {
		t.Fatalf("WriteRobustness: %v, want a *FeatureError naming inline", err)
	}
	if b.Len() != 0 {
		t.Errorf("WriteRobustness wrote %d bytes before refusing", b.Len())
	}
}

// TestInlineWordsRefused: the machines' export refuses a multi-word put
// marked inline with its typed error, and writes nothing.
func TestInlineWordsRefused(t *testing.T) {
	p, err := parse.File(litmus + "INLINE-WORDS.rdma")
	if err != nil {
		t.Fatal(err)
	}
	for _, sem := range sems {
		var b bytes.Buffer
		err := Write(&b, p, Options{Semantics: sem})
		var iw *InlineWordsError
		if !errors.As(err, &iw) || iw.Pos.Line == 0 {
			t.Errorf("Write (%s): %v, want an *InlineWordsError", sem, err)
		}
		if b.Len() != 0 {
			t.Errorf("Write (%s) wrote %d bytes before refusing", sem, b.Len())
		}
	}
}
