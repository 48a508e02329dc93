package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"rdmasim/corpus/suite"
)

// cmdCorpus checks every .rdma file under its arguments (directories are
// walked recursively) against its expect lines under every semantics that
// applies (package suite). It prints the row of each file that did not pass
// (FAIL, cut, error), as each is checked, then why each did not pass, and
// the totals last: a run over the whole corpus that passes prints one line.
// -v prints the row of every file, --json one object per file. The exit
// code is 1 when a file is FAIL or does not parse, and with --strict also
// when one is cut (an expect line no complete search confirmed), as for
// check; 4 when a search failed for a reason that is not the file.
func cmdCorpus(ctx context.Context, args []string, e *env) int {
	flags := newFlagSet("corpus", e)
	var sf searchFlags
	strict := flags.Bool("strict", false, "exit 1 also when a file is cut (an expect line that no complete search confirmed)")
	verbose := flags.BoolP("verbose", "v", false, "print the row of every file (default: only those that FAIL, are cut or do not parse)")
	sf.register(flags)
	var cf clusterFlags
	cf.registerCampaign(flags, "check the files on a cluster")
	setDefault(flags, "max-states", "5000000")
	setDefault(flags, "timeout", "60s")
	flags.Lookup("max-states").Usage = "stop each search after this many distinct configurations (decider: states), 0 = no limit"
	flags.Lookup("timeout").Usage = "stop each search after this long, 0 = no limit"
	if code := parseFlags(flags, args, e, "corpus [flags] DIR|FILE...   (every .rdma file under each DIR)"); code >= 0 {
		return code
	}
	if flags.NArg() == 0 {
		fmt.Fprintln(e.stderr, "rdmasim corpus: no directories or files")
		return exitUsage
	}
	if flags.Changed("checkpoint") || flags.Changed("checkpoint-every") {
		// Many files and searches per file: nothing one checkpoint
		// could resume.
		fmt.Fprintln(e.stderr, "rdmasim corpus: --checkpoint: corpus runs are not checkpointed (checkpoint one file with check or robust)")
		return exitUsage
	}
	opt, err := sf.options(e)
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim corpus: %v\n", err)
		return exitUsage
	}
	kmBytes, _ := sf.Budget() // checked by options
	files, err := suite.Files(flags.Args())
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim corpus: %v\n", err)
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprintf(e.stderr, "rdmasim corpus: no .rdma files in %s\n", strings.Join(flags.Args(), " "))
		return exitUsage
	}
	if cf.active() {
		if err := cf.checkCampaign(); err != nil {
			fmt.Fprintf(e.stderr, "rdmasim corpus: %v\n", err)
			return exitUsage
		}
	}
	start := time.Now()
	table := suite.NewTable(e.stdout, files, *verbose)
	searchFailed := false
	add := func(row *suite.Row) {
		searchFailed = searchFailed || row.SearchFailed
		if sf.json {
			table.Counts[row.Result]++
			writeJSON(e.stdout, row)
		} else {
			table.Add(row)
		}
	}
	sopt := suite.Options{Verdict: opt, MaxBytes: kmBytes}
	if cf.active() {
		// Each file a task on the cluster's workers; the rows come back
		// in file order.
		if err := cf.campaign(ctx, e, "corpus", suite.TaskKind, files, func(f string) ([]byte, error) { return suite.NewTask(f, sopt) },
			func(_ int, out []byte) error {
				row, err := suite.TaskRow(out)
				if err == nil {
					add(row)
				}
				return err
			}); err != nil && ctx.Err() == nil {
			fmt.Fprintf(e.stderr, "rdmasim corpus: %v\n", err)
			return exitInternal
		}
	} else {
		// --progress (or a terminal): a line per file checked, so that a
		// run of the whole corpus (make run) shows how far it is.
		showProgress := sf.progress || e.isTerminal && !sf.json
		for i, file := range files {
			add(suite.Check(ctx, file, sopt))
			if ctx.Err() != nil {
				break
			}
			if showProgress {
				e.progress.work("corpus", "files", uint64(i+1), uint64(len(files)), time.Since(start), file)
			}
		}
	}
	if !sf.json {
		table.Close(time.Since(start))
	}
	counts := table.Counts
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(e.stderr, "rdmasim corpus: interrupted; the table covers the files checked")
		return exitInterrupt
	case searchFailed:
		return exitInternal
	case counts[suite.Fail]+counts[suite.Error] > 0, *strict && counts[suite.Cut] > 0:
		return exitFailed
	}
	return exitOK
}

// setDefault changes the default value of a registered flag (and the
// default its usage shows).
func setDefault(fs *pflag.FlagSet, name, value string) {
	if err := fs.Set(name, value); err != nil {
		panic(err)
	}
	fs.Lookup(name).DefValue = value
	fs.Lookup(name).Changed = false
}
