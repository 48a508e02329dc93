package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// paramFlag is --param NAME=VALUE, repeatable: the params of a protocol
// (param N = 2 in the file), set from the command line.
type paramFlag map[string]int

func (f paramFlag) String() string {
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = n + "=" + strconv.Itoa(f[n])
	}
	return strings.Join(names, ",")
}

// Set takes NAME=VALUE, or several separated by commas.
func (f paramFlag) Set(s string) error {
	for _, kv := range strings.Split(s, ",") {
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		v, err := strconv.Atoi(strings.TrimSpace(val))
		if !ok || name == "" || err != nil {
			return fmt.Errorf("%q: want NAME=NUMBER, as N=4", kv)
		}
		f[strings.TrimSpace(name)] = v
	}
	return nil
}

func (f paramFlag) Type() string { return "NAME=N" }

// register adds --param to fs.
func (f paramFlag) register(fs *pflag.FlagSet) {
	fs.Var(f, "param", "set a param of a protocol, overriding the file's param line: --param N=4 (repeat it, or N=4,M=2, for several)")
}

// load parses file with the params; lowering a protocol stops when ctx is
// done (an Interrupt, see failureCode).
func (f paramFlag) load(ctx context.Context, file string) (*prog.Program, error) {
	return parse.FileContext(ctx, file, parse.Options{Params: f})
}
