package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"rdmasim/explore"
	"rdmasim/opsem/report"
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

// fileFailed reports that a command gives no answer for file: msg on stderr
// (as without --json) and, under --json, file's object on stdout, so that
// a reader of the JSON lines sees one per input file. It returns the exit
// code err calls for (failureCode).
func fileFailed(e *env, asJSON bool, file, msg string, err error) int {
	fmt.Fprintln(e.stderr, msg)
	if asJSON {
		writeJSON(e.stdout, report.NewFileError(file, err))
	}
	return failureCode(err)
}

// fileMessage is the line that says why cmd gives no answer for file:
// "rdmasim CMD: FILE: ERR", or "rdmasim CMD: ERR" when err already starts
// with the file's name (a position in it, file:line:col, as the decider's
// refusals give).
func fileMessage(cmd, file string, err error) string {
	if msg := err.Error(); strings.HasPrefix(msg, file+":") {
		return "rdmasim " + cmd + ": " + msg
	}
	return fmt.Sprintf("rdmasim %s: %s: %v", cmd, file, err)
}

// failureCode is the exit code of a command that gives no answer because of
// err: exitInternal when a search failed for a reason that is not the
// input (explore.SearchError: a disk full, a corrupt checkpoint, an I/O
// error of the visited set), else exitUsage (the program, a flag or a
// file named on the command line is wrong).
func failureCode(err error) int {
	if errors.Is(err, context.Canceled) {
		return exitInterrupt // lowering a protocol was interrupted
	}
	var se *explore.SearchError
	if errors.As(err, &se) {
		return exitInternal
	}
	return exitUsage
}
