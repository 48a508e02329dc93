// Package dot draws execution graphs as Graphviz DOT, in the style of the
// seed paper's figures: one column per thread with events in program order,
// the initial writes on top, one colour per relation, and the edges of a
// cycle drawn bold.
package dot

import (
	"fmt"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Event is a node of the drawing.
type Event struct {
	Thread int    // column; -1 for initial writes
	Label  string // e.g. "nlR(x,2,n2)"
	// Line and Col are the source position of the statement the event
	// comes from (0 when unknown, as for an initial write), and Stmt that
	// statement as the user wrote it: a reader of the drawing finds the
	// event's origin in the program (Write puts it in the node's tooltip).
	Line, Col int
	Stmt      string
}

// Source is where e comes from, for a tooltip: "line 7:3: put x, y"; ""
// when e has no source position.
func (e Event) Source() string {
	if e.Line == 0 {
		return ""
	}
	return fmt.Sprintf("line %d:%d: %s", e.Line, e.Col, e.Stmt)
}

// nodeAttrs are the DOT attributes of event e: its label and, when it has
// a source position, a tooltip naming it (shown on hover in SVG output).
func nodeAttrs(e Event) string {
	a := fmt.Sprintf("label=%q", e.Label)
	if s := e.Source(); s != "" {
		a += fmt.Sprintf(", tooltip=%q", s)
	}
	return a
}

// Edge is a relation edge between two events.
type Edge struct {
	From, To int
	Rel      string // po, rf, mo, rb, nfo, pf (anything else is drawn grey)
	Bold     bool   // part of the highlighted cycle
}

// Graph is an execution graph to draw.
type Graph struct {
	Title   string
	Threads []string // column titles
	Events  []Event
	Edges   []Edge
	// Legend adds a box that names each relation drawn, in its colour,
	// and says what bold edges are when some are: a reader of the picture
	// needs no other key.
	Legend bool
}

// relations lists the relations an execution graph draws, in the order a
// legend shows them, each with its colour (as in the paper's figures) and
// what it means. Any other relation name is drawn grey.
var relations = []Relation{
	{"po", "black", "program order"},
	// rf is firebrick (6.7:1 on white), not red (4.0:1), and rb sienna, not
	// orange: their labels need a contrast of 4.5:1.
	{"rf", "firebrick", "reads-from: a write → the read that takes its value"},
	{"mo", "blue", "modification order: the order of the writes to one location"},
	{"rb", "sienna", "reads-before: a read → the write after the one it read, in mo"},
	{"nfo", "darkgreen", "NIC flush order: between NIC events of one queue pair"},
	{"pf", "purple", "polls-from: a NIC write → the poll that waits for it"},
}

// colour returns the colour of relation rel, grey for one Write does not
// know.
func colour(rel string) string {
	for _, r := range relations {
		if r.Name == rel {
			return r.Colour
		}
	}
	return "grey"
}

// Write prints g as a DOT digraph.
func Write(w io.Writer, g *Graph) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %q {\n", g.Title)
	b.WriteString("  rankdir=TB; newrank=true; nodesep=0.6; ranksep=0.5;\n")
	fmt.Fprintf(&b, "  label=%q; labelloc=t; fontname=\"Helvetica\";\n", g.Title)
	b.WriteString("  node [shape=plaintext, fontname=\"Helvetica\", fontsize=12];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=10, arrowsize=0.7];\n")
	var init []int
	for i, e := range g.Events {
		if e.Thread < 0 {
			init = append(init, i)
		}
	}
	if len(init) > 0 {
		b.WriteString("  subgraph cluster_init {\n    label=\"init\"; style=dashed; color=grey;\n")
		for _, i := range init {
			fmt.Fprintf(&b, "    e%d [%s];\n", i, nodeAttrs(g.Events[i]))
		}
		b.WriteString("  }\n")
	}
	for t, name := range g.Threads {
		fmt.Fprintf(&b, "  subgraph cluster_t%d {\n    label=%q; style=rounded; color=grey;\n", t, name)
		var prev = -1
		for i, e := range g.Events {
			if e.Thread != t {
				continue
			}
			fmt.Fprintf(&b, "    e%d [%s];\n", i, nodeAttrs(e))
			if prev >= 0 {
				// keep the column in program order even without po edges
				fmt.Fprintf(&b, "    e%d -> e%d [style=invis, weight=10];\n", prev, i)
			}
			prev = i
		}
		b.WriteString("  }\n")
	}
	for _, e := range g.Edges {
		colour := colour(e.Rel)
		attrs := fmt.Sprintf("label=%q, color=%s, fontcolor=%s", e.Rel, colour, colour)
		if e.Rel != "po" {
			attrs += ", constraint=false"
		}
		if e.Bold {
			attrs += ", penwidth=2.5"
		}
		fmt.Fprintf(&b, "  e%d -> e%d [%s];\n", e.From, e.To, attrs)
	}
	if g.Legend {
		writeLegend(&b, g)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Relation is a relation an execution graph draws: its name (po, rf, ...),
// the colour of its edges and what it means ("" for a name this package
// does not know, drawn grey).
type Relation struct {
	Name    string `json:"name"`
	Colour  string `json:"colour"`
	Meaning string `json:"meaning"`
}

// Key returns the relations g draws, as its legend lists them: the known
// ones in the paper's order, then any other by name.
func (g *Graph) Key() []Relation {
	drawn := map[string]bool{}
	for _, e := range g.Edges {
		drawn[e.Rel] = true
	}
	var rows []Relation
	for _, r := range relations {
		if drawn[r.Name] {
			rows = append(rows, r)
			delete(drawn, r.Name)
		}
	}
	var others []string
	for name := range drawn {
		others = append(others, name)
	}
	sort.Strings(others)
	for _, name := range others {
		rows = append(rows, Relation{Name: name, Colour: colour(name)})
	}
	return rows
}

// BoldMeaning is what bold edges are, in a legend: the edges of an sc cycle.
const BoldMeaning = "a cycle of sc = po ∪ rf ∪ rb ∪ mo: the execution is not SC-consistent"

// writeLegend adds the legend of g: a dashed box holding one node whose
// HTML-like label is a table with a row per relation g draws (its name in
// its colour, what it means) and, when an edge is bold, a row saying that
// the bold edges form a cycle of sc = po ∪ rf ∪ rb ∪ mo. The node has no
// edges, so it does not disturb the columns.
func writeLegend(b *strings.Builder, g *Graph) {
	bold := false
	for _, e := range g.Edges {
		bold = bold || e.Bold
	}
	rows := g.Key()
	if len(rows) == 0 && !bold {
		return
	}
	b.WriteString("  subgraph cluster_legend {\n    label=\"legend\"; style=dashed; color=grey; fontsize=10;\n")
	b.WriteString("    legend [fontsize=10, label=<<table border=\"0\" cellspacing=\"0\" cellpadding=\"2\">\n")
	for _, r := range rows {
		fmt.Fprintf(b, "      <tr><td align=\"left\"><font color=\"%s\">%s</font></td><td align=\"left\">%s</td></tr>\n",
			r.Colour, html.EscapeString(r.Name), html.EscapeString(r.Meaning))
	}
	if bold {
		fmt.Fprintf(b, "      <tr><td align=\"left\"><b>bold</b></td><td align=\"left\">%s</td></tr>\n",
			html.EscapeString(BoldMeaning))
	}
	b.WriteString("    </table>>];\n  }\n")
}

// WriteFile writes g as DOT to the file path and, with svg, renders it
// with Graphviz to an .svg file beside it (path with its extension
// replaced).
func WriteFile(path string, g *Graph, svg bool) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the graph: %w", err)
	}
	if err := Write(f, g); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if svg {
		return RenderSVG(path)
	}
	return nil
}

// RenderSVG runs Graphviz's dot program on the DOT file path, writing the
// SVG beside it. It fails with advice when dot is not installed.
func RenderSVG(path string) error {
	exe, err := exec.LookPath("dot")
	if err != nil {
		return fmt.Errorf("--svg needs Graphviz's dot program on the PATH (apt-get install graphviz)")
	}
	out := strings.TrimSuffix(path, filepath.Ext(path)) + ".svg"
	cmd := exec.Command(exe, "-Tsvg", "-o", out, path)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("dot -Tsvg %s: %v: %s", path, err, msg)
	}
	return nil
}
