package draw

import (
	"fmt"
	"io"
	"strings"

	"rdmasim/opsem/dot"
)

// JSON is the JSON form of the drawings of a program's executions (rdmasim
// graph --json), one object per file.
type JSON struct {
	File      string `json:"file"`
	Name      string `json:"name"`
	Semantics string `json:"semantics"`
	// Executions is the number of executions drawn: 0 when none was
	// selected.
	Executions int `json:"executions"`
	// DOT holds each drawing's Graphviz text, when they are not written to
	// files.
	DOT []string `json:"dot,omitempty"`
	// Files are the DOT files written (WriteFiles).
	Files []string `json:"files,omitempty"`
}

// Write writes every drawing of r to w as Graphviz DOT, one after the
// other.
func (r *Result) Write(w io.Writer) error {
	for _, g := range r.Graphs {
		if err := dot.Write(w, g); err != nil {
			return err
		}
	}
	return nil
}

// DOT returns the Graphviz text of each drawing of r.
func (r *Result) DOT() ([]string, error) {
	var texts []string
	for _, g := range r.Graphs {
		var b strings.Builder
		if err := dot.Write(&b, g); err != nil {
			return nil, err
		}
		texts = append(texts, b.String())
	}
	return texts, nil
}

// WriteFiles writes each drawing of r to a DOT file (dot.WriteFile), with
// svg an SVG beside it, and returns the paths written: the first drawing to
// path, or with numbered the i-th to PREFIX-i.dot (i = 1, 2, ...), where
// PREFIX is path without its .dot.
func (r *Result) WriteFiles(path string, numbered, svg bool) ([]string, error) {
	var paths []string
	for i, g := range r.Graphs {
		p := path
		if numbered {
			p = fmt.Sprintf("%s-%d.dot", strings.TrimSuffix(path, ".dot"), i+1)
		}
		if err := dot.WriteFile(p, g, svg); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
