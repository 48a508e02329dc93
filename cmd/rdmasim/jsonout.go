package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"rdmasim/explore"
	"rdmasim/opsem/parse"
)

// writeJSON prints v as one line of JSON, without HTML escaping (traces
// contain "->").
func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(w, "{\"error\":%q}\n", err.Error())
	}
}

// errorJSON is an error in JSON: where (a parse error's file:line:col) and
// what.
type errorJSON struct {
	Pos     string `json:"pos,omitempty"`
	Message string `json:"message"`
}

// fileErrorJSON is what a command prints under --json for an input file it
// gives no answer for (the file does not parse, cannot be read, or its
// search failed), so that every input file has its object.
type fileErrorJSON struct {
	File  string    `json:"file"`
	Error errorJSON `json:"error"`
	// Errors lists every parse error when there are several; Error is the
	// first.
	Errors []errorJSON `json:"errors,omitempty"`
}

// newFileError describes err, an error about file, as JSON: a parse error
// (parse.ErrorList) with its positions, any other error by its message.
func newFileError(file string, err error) fileErrorJSON {
	out := fileErrorJSON{File: file, Error: errorJSON{Message: err.Error()}}
	var list parse.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return out
	}
	for _, pe := range list {
		ej := errorJSON{Pos: fmt.Sprintf("%d:%d", pe.Pos.Line, pe.Pos.Col), Message: pe.Msg}
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

// fileFailed reports that a command gives no answer for file: msg on stderr
// (as without --json) and, under --json, file's object on stdout, so that
// a reader of the JSON lines sees one per input file. It returns the exit
// code err calls for (failureCode).
func fileFailed(e *env, asJSON bool, file, msg string, err error) int {
	fmt.Fprintln(e.stderr, msg)
	if asJSON {
		writeJSON(e.stdout, newFileError(file, err))
	}
	return failureCode(err)
}

// failureCode is the exit code of a command that gives no answer because of
// err: exitInternal when a search failed for a reason that is not the
// input (explore.SearchError: a disk full, a corrupt checkpoint, an I/O
// error of the visited set), else exitUsage (the program, a flag or a
// file named on the command line is wrong).
func failureCode(err error) int {
	var se *explore.SearchError
	if errors.As(err, &se) {
		return exitInternal
	}
	return exitUsage
}
