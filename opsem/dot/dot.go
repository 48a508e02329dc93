// Package dot draws execution graphs as Graphviz DOT, in the style of the
// seed paper's figures: one column per thread with events in program order,
// the initial writes on top, one colour per relation, and the edges of a
// cycle drawn bold.
package dot

import (
	"fmt"
	"io"
	"strings"
)

// Event is a node of the drawing.
type Event struct {
	Thread int    // column; -1 for initial writes
	Label  string // e.g. "nlR(x,2,n2)"
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
}

// relation colours, as in the paper's figures.
var colours = map[string]string{
	"po":  "black",
	"rf":  "red",
	"mo":  "blue",
	"rb":  "darkorange",
	"nfo": "darkgreen",
	"pf":  "purple",
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
			fmt.Fprintf(&b, "    e%d [label=%q];\n", i, g.Events[i].Label)
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
			fmt.Fprintf(&b, "    e%d [label=%q];\n", i, e.Label)
			if prev >= 0 {
				// keep the column in program order even without po edges
				fmt.Fprintf(&b, "    e%d -> e%d [style=invis, weight=10];\n", prev, i)
			}
			prev = i
		}
		b.WriteString("  }\n")
	}
	for _, e := range g.Edges {
		colour, ok := colours[e.Rel]
		if !ok {
			colour = "grey"
		}
		attrs := fmt.Sprintf("label=%q, color=%s, fontcolor=%s", e.Rel, colour, colour)
		if e.Rel != "po" {
			attrs += ", constraint=false"
		}
		if e.Bold {
			attrs += ", penwidth=2.5"
		}
		fmt.Fprintf(&b, "  e%d -> e%d [%s];\n", e.From, e.To, attrs)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
