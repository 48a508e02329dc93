// Package parse reads programs in the .rdma litmus format (see
// shared/spec/FORMAT.md) into validated, compiled prog.Programs.
//
// Parsing runs in two passes: the parser of package opsem/syntax builds a
// syntax tree that still names things, then a resolver looks the names up,
// decides which assignments are gets and which are puts, and checks every
// rule of the format. A file in the protocol language (docs/PROTOCOLS.md) is
// lowered instead: its declarations expanded, its procedures inlined, and
// each thread compiled to a core control-flow graph. Every error is reported
// as file:line:col: message (an ErrorList), and no input makes the parser
// panic.
package parse

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
)

// File reads and parses the .rdma file at path.
func File(path string) (*prog.Program, error) {
	return FileOptions(path, Options{})
}

// FileOptions is File with settings: the params of a protocol.
func FileOptions(path string, opt Options) (*prog.Program, error) {
	return FileContext(context.Background(), path, opt)
}

// FileContext is FileOptions under ctx: lowering a protocol stops when ctx
// is done (see ParseContext).
func FileContext(ctx context.Context, path string, opt Options) (*prog.Program, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading program: %w", err)
	}
	return ParseContext(ctx, path, src, opt)
}

// Parse parses src, naming it filename in messages. The program's name
// defaults to the file name without extension. On failure the error is an
// ErrorList.
func Parse(filename string, src []byte) (*prog.Program, error) {
	return ParseOptions(filename, src, Options{})
}

// ParseOptions is Parse with settings: the params of a protocol.
func ParseOptions(filename string, src []byte, opt Options) (*prog.Program, error) {
	return ParseContext(context.Background(), filename, src, opt)
}

// ParseContext is ParseOptions under ctx. Lowering a protocol can take long
// (each thread is specialised for the register valuations it reaches); it
// checks ctx as it goes and, once ctx is done, returns an *InterruptedError
// at once, which wraps ctx's error.
func ParseContext(ctx context.Context, filename string, src []byte, opt Options) (*prog.Program, error) {
	f, errs := syntax.ParseFile(filename, src)
	if errs == nil {
		r := resolver{file: filename}
		var prg *prog.Program
		if f.IsSurface() || len(opt.Params) > 0 {
			var ie *InterruptedError
			prg, r.errs, ie = lowerFile(ctx, filename, f, opt)
			if ie != nil {
				return nil, ie
			}
		} else {
			prg = r.resolve(f)
		}
		if r.errs == nil {
			if prg.Name == "" {
				base := filepath.Base(filename)
				prg.Name = strings.TrimSuffix(base, filepath.Ext(base))
			}
			if err := prog.Compile(prg); err != nil {
				r.errorf(prog.Pos{Line: 1, Col: 1}, "%v", err)
			}
		}
		if r.errs != nil {
			r.errs.Sort()
			return nil, r.errs
		}
		return prg, nil
	}
	return nil, errs
}
