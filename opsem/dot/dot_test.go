package dot

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func sample() *Graph {
	return &Graph{
		Title:   `paper-5.1 "witness"`,
		Threads: []string{"p"},
		Events: []Event{
			{Thread: -1, Label: "lW(x,1)"},
			{Thread: 0, Label: "nlR(x,2,n2)"},
			{Thread: 0, Label: "lW(x,2)"},
		},
		Edges: []Edge{
			{From: 1, To: 2, Rel: "po", Bold: true},
			{From: 2, To: 1, Rel: "rf", Bold: true},
			{From: 0, To: 2, Rel: "mo"},
		},
	}
}

func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`digraph "paper-5.1 \"witness\"" {`,
		`subgraph cluster_init {`,
		`e1 [label="nlR(x,2,n2)"];`,
		`e1 -> e2 [label="po", color=black, fontcolor=black, penwidth=2.5];`,
		`e2 -> e1 [label="rf", color=red, fontcolor=red, constraint=false, penwidth=2.5];`,
		`e0 -> e2 [label="mo", color=blue, fontcolor=blue, constraint=false];`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
}

// TestRenders runs Graphviz on the output. The Makefile installs graphviz;
// under CI its absence is a failure, elsewhere the test is skipped.
func TestRenders(t *testing.T) {
	exe, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("graphviz's dot is not installed (make tools installs it)")
		}
		t.Skip("graphviz not installed; run make tools")
	}
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-Tsvg")
	cmd.Stdin = &b
	svg, err := cmd.Output()
	if err != nil {
		t.Fatalf("dot failed: %v", err)
	}
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("nlR(x,2,n2)")) {
		t.Fatalf("unexpected SVG:\n%s", svg)
	}
}
