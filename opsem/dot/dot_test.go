package dot

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
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
		`e2 -> e1 [label="rf", color=firebrick, fontcolor=firebrick, constraint=false, penwidth=2.5];`,
		`e0 -> e2 [label="mo", color=blue, fontcolor=blue, constraint=false];`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
}

// TestLegend: the legend names the relations drawn, in the legend's order
// and their colours, says what bold edges are only when some are, and is
// left out when not asked for (robust --dot draws without one).
func TestLegend(t *testing.T) {
	plain := sample()
	for i := range plain.Edges {
		plain.Edges[i].Bold = false
	}
	plain.Edges = append(plain.Edges, Edge{From: 0, To: 1, Rel: "odd"})
	tests := []struct {
		name        string
		g           *Graph
		legend      bool
		want, avoid []string
	}{
		{"off", sample(), false, nil, []string{"cluster_legend", "<table"}},
		{"bold", sample(), true, []string{
			"subgraph cluster_legend {",
			`<tr><td align="left"><font color="black">po</font></td><td align="left">program order</td></tr>`,
			`<font color="firebrick">rf</font>`,
			`<font color="blue">mo</font>`,
			`<b>bold</b></td><td align="left">a cycle of sc = po ∪ rf ∪ rb ∪ mo`,
		}, []string{">rb<", ">nfo<", ">pf<"}},
		{"no-bold-unknown-relation", plain, true, []string{
			`<tr><td align="left"><font color="grey">odd</font></td><td align="left"></td></tr>`,
		}, []string{"<b>bold</b>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.g.Legend = tc.legend
			var b bytes.Buffer
			if err := Write(&b, tc.g); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("missing %s in\n%s", want, out)
				}
			}
			for _, avoid := range tc.avoid {
				if strings.Contains(out, avoid) {
					t.Errorf("unexpected %s in\n%s", avoid, out)
				}
			}
			if tc.legend && strings.Index(out, ">po<") > strings.Index(out, ">rf<") {
				t.Errorf("po after rf in the legend:\n%s", out)
			}
		})
	}
}

// TestRenders runs Graphviz on the output, with and without a legend. The
// Makefile installs graphviz; under CI its absence is a failure, elsewhere
// the test is skipped.
func TestRenders(t *testing.T) {
	exe := needDot(t)
	for _, legend := range []bool{false, true} {
		g := sample()
		g.Legend = legend
		var b bytes.Buffer
		if err := Write(&b, g); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "-Tsvg")
		cmd.Stdin = &b
		svg, err := cmd.Output()
		if err != nil {
			t.Fatalf("legend %v: dot failed: %v", legend, err)
		}
		if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("nlR(x,2,n2)")) ||
			bytes.Contains(svg, []byte("program order")) != legend {
			t.Fatalf("legend %v: unexpected SVG:\n%s", legend, svg)
		}
	}
}

// TestWriteFile writes the DOT file and renders the SVG beside it.
func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.dot")
	if err := WriteFile(path, sample(), false); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("%s: %v\n%s", path, err, got)
	}
	if err := WriteFile(filepath.Join(t.TempDir(), "missing", "g.dot"), sample(), false); err == nil {
		t.Fatal("no error writing into a missing directory")
	}
	needDot(t)
	if err := WriteFile(path, sample(), true); err != nil {
		t.Fatal(err)
	}
	if svg, err := os.ReadFile(strings.TrimSuffix(path, ".dot") + ".svg"); err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Fatalf("no SVG beside %s: %v", path, err)
	}
}

// needDot returns the path of Graphviz's dot program, skipping the test
// when it is not installed (failing it under CI).
func needDot(t *testing.T) string {
	t.Helper()
	exe, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("graphviz's dot is not installed (make tools installs it)")
		}
		t.Skip("graphviz not installed; run make tools")
	}
	return exe
}

// TestRelationContrast: every relation's colour, used for its edge labels
// and its legend entry, has a contrast of at least 4.5:1 on white (WCAG AA
// for text). The table gives the sRGB of the named colours the relations
// use; a colour missing from it fails the test, so a new one gets checked.
func TestRelationContrast(t *testing.T) {
	rgb := map[string][3]float64{
		"black": {0, 0, 0}, "firebrick": {178, 34, 34}, "blue": {0, 0, 255}, "sienna": {160, 82, 45},
		"darkgreen": {0, 100, 0}, "purple": {128, 0, 128},
	}
	lum := func(c [3]float64) float64 {
		var l [3]float64
		for i, v := range c {
			v /= 255
			if v <= 0.03928 {
				l[i] = v / 12.92
			} else {
				l[i] = math.Pow((v+0.055)/1.055, 2.4)
			}
		}
		return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
	}
	for _, r := range relations {
		c, ok := rgb[r.Colour]
		if !ok {
			t.Errorf("%s: colour %q not in the table", r.Name, r.Colour)
			continue
		}
		if ratio := 1.05 / (lum(c) + 0.05); ratio < 4.5 {
			t.Errorf("%s: %s has a contrast of %.2f:1 on white, want at least 4.5:1", r.Name, r.Colour, ratio)
		}
	}
}
