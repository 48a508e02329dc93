// Package report renders what rdmasim finds in the program's own terms:
// runs of a machine (witnesses, runs to a deadlock, violations replayed on
// the RDMA machine) step by step, and sc cycles, as text and as JSON. Every
// command renders through it, so that a run or a cycle reads the same
// whichever command found it.
//
// A run prints as its initial configuration, each line after "  | ", then
// one numbered line per step: the actor (a thread, or the NIC of a queue
// pair) in a column as wide as the run's widest, what it did (the statement,
// or the NIC rule and what it does), the event in the paper's notation, and
// in braces the memory and buffers the step changed:
//
//	| A { x=1 }
//	| T0: at z := x (line 5)
//	  1. T0         z := x (submit)  {B1[T0->B] = [PUT(z,x)]}
//	  2. NIC T0->B  N1 put reads its source (B1 -> B2)  nlR(x,2,B)  {...}
//
// A cycle prints as one line per event, each followed by the relation that
// leads to the next (the last one's to the first): "T0 nlR(x,2,B) -po->".
package report

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/verdict"
)

// Step is one step of a run, as JSON.
type Step struct {
	Actor   string              `json:"actor"`  // "T0", or "NIC T0->B"
	Thread  string              `json:"thread"` // the thread, or the owner of the queue pair
	Line    int                 `json:"line,omitempty"`
	Rule    string              `json:"rule"` // "step", or N1..N8, F1, F2
	What    string              `json:"what"`
	Event   string              `json:"event,omitempty"`
	Memory  []machine.MemChange `json:"memory,omitempty"`
	Buffers []machine.BufChange `json:"buffers,omitempty"`
}

// Run is a run as JSON: its initial configuration, one line per node,
// thread and non-empty buffer, and its steps.
type Run struct {
	Initial []string `json:"initial"`
	Steps   []Step   `json:"steps"`
}

// NewRun returns run as JSON, with thread names from names; nil for a nil
// run.
func NewRun(run *verdict.Run, names func(t int) string) *Run {
	if run == nil {
		return nil
	}
	out := &Run{Initial: lines(run.InitialText), Steps: []Step{}}
	for _, t := range run.Steps {
		out.Steps = append(out.Steps, Step{Actor: t.Actor, Thread: names(t.Thread), Line: t.Line, Rule: t.Rule,
			What: t.What, Event: t.Event, Memory: t.Memory, Buffers: t.Buffers})
	}
	return out
}

// WriteRun prints run under a title line "TITLE (SEMANTICS, N steps):",
// or with no title line when title is empty.
func WriteRun(w io.Writer, title string, sem machine.Semantics, run *verdict.Run) {
	if title != "" {
		fmt.Fprintf(w, "%s (%s, %s):\n", title, sem, Plural(len(run.Steps), "step"))
	}
	WriteConfig(w, run.InitialText)
	WriteSteps(w, run.Steps)
}

// WriteConfig prints a configuration (as a machine formats it: one line per
// node, thread and non-empty buffer), or a program, each line after "  | ".
func WriteConfig(w io.Writer, text string) {
	for _, line := range lines(text) {
		fmt.Fprintf(w, "  | %s\n", line)
	}
}

// WriteSteps prints steps, numbered from 1, the actors in one column.
func WriteSteps(w io.Writer, steps []machine.Transition) {
	width := 0
	for _, s := range steps {
		width = max(width, len(s.Actor))
	}
	for i, s := range steps {
		fmt.Fprintf(w, "  %3d. %-*s  %s\n", i+1, width, s.Actor, StepText(s))
	}
}

// StepText is what a step did, without its actor: the statement or the
// rule, the event, the changes.
func StepText(s machine.Transition) string {
	line := s.What
	if s.Rule != "step" {
		line = s.Rule + " " + s.What
	}
	if s.Event != "" {
		line += "  " + s.Event
	}
	if len(s.Changes) > 0 {
		line += "  {" + strings.Join(s.Changes, "; ") + "}"
	}
	return line
}

// CycleEvent is one event of an sc cycle and the relation from it to the
// next event of the cycle.
type CycleEvent struct {
	Thread string `json:"thread"` // "init" for an initial write
	Event  string `json:"event"`  // in the paper's notation, e.g. nlR(x,2,B)
	Rel    string `json:"rel"`    // po, rf, rb or mo
	// Source is, in a protocol, the statement the event comes from:
	// "line 7: data := buf [d=0]".
	Source string `json:"source,omitempty"`
}

// CycleLines prints a cycle, one line per event.
func CycleLines(cycle []CycleEvent) []string {
	out := make([]string, len(cycle))
	for i, e := range cycle {
		out[i] = fmt.Sprintf("%s %s -%s->", e.Thread, e.Event, e.Rel)
		if e.Source != "" {
			out[i] = fmt.Sprintf("%s %s (%s) -%s->", e.Thread, e.Event, e.Source, e.Rel)
		}
	}
	return out
}

// ErrorJSON is an error in JSON: where (a parse error's file:line:col) and
// what.
type ErrorJSON struct {
	Pos     string `json:"pos,omitempty"`
	Message string `json:"message"`
}

// FileErrorJSON is what a command prints under --json for an input file it
// gives no answer for (the file does not parse, cannot be read, or its
// search failed), so that every input file has its object.
type FileErrorJSON struct {
	File  string    `json:"file"`
	Error ErrorJSON `json:"error"`
	// Errors lists every parse error when there are several; Error is the
	// first.
	Errors []ErrorJSON `json:"errors,omitempty"`
}

// NewFileError describes err, an error about file, as JSON: a parse error
// (parse.ErrorList) with its positions, any other error by its message.
func NewFileError(file string, err error) FileErrorJSON {
	out := FileErrorJSON{File: file, Error: ErrorJSON{Message: err.Error()}}
	var list parse.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return out
	}
	for _, pe := range list {
		ej := ErrorJSON{Pos: fmt.Sprintf("%d:%d", pe.Pos.Line, pe.Pos.Col), Message: pe.Msg}
		if pe.File != "" {
			ej.Pos = pe.File + ":" + ej.Pos
		}
		out.Errors = append(out.Errors, ej)
	}
	out.Error = out.Errors[0]
	if len(out.Errors) == 1 {
		out.Errors = nil
	}
	return out
}

// ErrorText prints an error about an input file as rdmasim does: a parse
// error with every message, one per line, any other error after
// "rdmasim: ".
func ErrorText(err error) string {
	var l parse.ErrorList
	if errors.As(err, &l) {
		return strings.TrimSuffix(l.Detail(), "\n")
	}
	return "rdmasim: " + err.Error()
}

func lines(text string) []string {
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// Count prints n with thousands separators: 4,827.
func Count(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Bytes prints a size in bytes: 1.5 GiB, 3.0 MiB, 12.0 KiB, 100 B.
func Bytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Plural prints a count of word, with thousands separators: "1 step",
// "4,827 states".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%s %ss", Count(uint64(n)), word)
}
