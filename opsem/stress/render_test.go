package stress

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"rdmasim/opsem/machine"
)

// TestRender: the report and the JSON of a stress test say the same, the
// first witness included.
func TestRender(t *testing.T) {
	p := load(t, "PUT-LW.rdma")
	for _, first := range []bool{false, true} {
		opt := Options{Semantics: machine.RDMA, Machine: machine.DefaultOptions(), Walks: 200, Seed: 1, First: first}
		r, err := Run(context.Background(), p, opt)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		WriteText(&b, p, opt, r)
		text := b.String()
		j := r.JSON("f.rdma", p, opt)
		if !strings.HasPrefix(text, "Test PUT-LW Allowed\n") || !strings.Contains(text, "Histogram (") ||
			j.Validated == nil || !*j.Validated || j.Walks != r.Walks || len(j.Outcomes) != len(r.Outcomes) {
			t.Errorf("first %v: JSON %+v\n%s", first, j, text)
		}
		if (j.First != nil) != first || strings.Contains(text, "First witness: walk") != first {
			t.Errorf("first %v: first witness %+v\n%s", first, j.First, text)
		}
		if first && !strings.Contains(text, "Observation PUT-LW Sometimes ") {
			t.Errorf("a search stopped at its first witness shows Sometimes (never Always):\n%s", text)
		}
	}
}

// TestFirstObservation: a search stopped at its first witness, after one
// final walk, shows the condition Sometimes, not Always (issue 34).
func TestFirstObservation(t *testing.T) {
	p := load(t, "SB-PUT-POLL.rdma")
	opt := Options{Semantics: machine.RDMA, Machine: machine.DefaultOptions(), Walks: 100000, Depth: 10000, Seed: 2, First: true}
	r, err := Run(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.First == nil || r.Negative != 0 {
		t.Fatalf("want a first witness and no negative outcome, got %+v", r)
	}
	var b bytes.Buffer
	WriteText(&b, p, opt, r)
	if want := "Observation SB-PUT-POLL Sometimes 1 0\n"; !strings.Contains(b.String(), want) {
		t.Errorf("report without %q:\n%s", want, b.String())
	}
}
