package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"rdmasim/opsem/report"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// Help and version: `rdmasim help [COMMAND]`, `rdmasim version` (and
// --version), and the width help text is wrapped to.

// defaultColumns is the width help is wrapped to when neither $COLUMNS nor
// a terminal says otherwise.
const defaultColumns = 80

// helpColumns returns the width to wrap help to: $COLUMNS (columnsEnv)
// when it is a positive number, else the width of the first of files that
// is a terminal, else defaultColumns. Shells set COLUMNS but rarely export
// it, hence the terminal's own width.
func helpColumns(columnsEnv string, files ...*os.File) int {
	if n, err := strconv.Atoi(strings.TrimSpace(columnsEnv)); err == nil && n > 0 {
		return n
	}
	for _, f := range files {
		if w := terminalWidth(f); w > 0 {
			return w
		}
	}
	return defaultColumns
}

// terminalWidth returns the number of columns of terminal f, or 0 when f is
// not a terminal (the TIOCGWINSZ ioctl fails).
func terminalWidth(f *os.File) int {
	if f == nil {
		return 0
	}
	var ws struct{ row, col, xpixel, ypixel uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	if errno != 0 {
		return 0
	}
	return int(ws.col)
}

// columns returns the width e's help is wrapped to (main sets it from the
// environment; tests leave it 0, which means defaultColumns, so that their
// output does not depend on the terminal they run in).
func (e *env) columns() int {
	if e.cols > 0 {
		return e.cols
	}
	return defaultColumns
}

// usageColumn is where each command's summary starts in its usage line
// (command.usage): the synopsis before it is padded to this width.
const usageColumn = 24

// usage prints the top-level help: every command with its summary, wrapped
// to cols columns under the summaries' column.
func usage(w io.Writer, cols int) {
	fmt.Fprintln(w, "usage: rdmasim COMMAND [flags] FILE...")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		synopsis, summary := c.usage[:usageColumn], c.usage[usageColumn:]
		fmt.Fprintf(w, "  %s%s\n", synopsis, report.Wrap(summary, cols-2-usageColumn, 2+usageColumn))
	}
	fmt.Fprintln(w, "\nrun 'rdmasim help COMMAND' for the flags of a command")
}

// cmdHelp prints help: alone, the list of commands; with a command, that
// command's flags, exactly as COMMAND --help does.
func cmdHelp(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("help", e)
	if code := parseFlags(fs, args, e, "help [COMMAND]"); code >= 0 {
		return code
	}
	switch fs.NArg() {
	case 0:
		usage(e.stdout, e.columns())
		return exitOK
	case 1:
		for _, c := range commands() {
			if c.name == fs.Arg(0) {
				return c.run(ctx, []string{"--help"}, e)
			}
		}
		fmt.Fprintf(e.stderr, "rdmasim help: unknown command %q\n", fs.Arg(0))
		usage(e.stderr, e.columns())
		return exitUsage
	}
	fmt.Fprintln(e.stderr, "rdmasim help: want at most one command")
	return exitUsage
}

// cmdVersion prints "rdmasim VERSION (GO VERSION)".
// The VCS revision the binary was built from and whether the tree was
// modified ("true"), set by the Makefile's -ldflags -X for builds whose
// GOFLAGS turn Go's own VCS stamp off (-buildvcs=false); empty otherwise.
var (
	vcsRevision string
	vcsModified string
)

func cmdVersion(_ context.Context, args []string, e *env) int {
	fs := newFlagSet("version", e)
	if code := parseFlags(fs, args, e, "version"); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(e.stderr, "rdmasim version: takes no arguments")
		return exitUsage
	}
	bi, ok := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, report.VersionLine(report.WithRevision(bi, vcsRevision, vcsModified), ok))
	return exitOK
}
