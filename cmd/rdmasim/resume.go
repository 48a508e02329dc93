package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"rdmasim/explore/ckpt"
	"rdmasim/opsem/job"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// Checkpoints of a command.
//
// A command run with --checkpoint DIR (check, explore or robust, on one input
// file) saves itself in DIR: the run manifest run.json (explore/ckpt's Run,
// with every flag of the command and its value, those given and the
// defaults), and the checkpoint of each exploration of a machine that the
// command runs in DIR/search-KEY, KEY the key of the search's job (opsem/job:
// which machine, with which options; explore.Choices.Checkpoints), so that a
// resumed run finds each search's checkpoint whatever the order it runs them
// in (check explores the RDMA machine and the SC one and, for an expect
// robust line, the RDMA machine with event graphs; robust the decider's
// instrumented machine or the RDMA machine with event graphs, as its
// --method asks), with the outcomes, counts and witness collected so far.
//
// rdmasim resume DIR checks that the program file still has the recorded
// hash, and runs the command again with the recorded flags and a hidden
// --resume: each search then continues from its checkpoint (a finished one
// returns its result at once; one that had not started starts afresh), and
// the command prints the report that the uninterrupted run would have
// printed. Work that is not an exploration of a machine (the declarative
// model of check --semantics both and robust --method all, and the
// decider's Karp–Miller search, which a program with a poll on a loop
// needs) is not checkpointed and is done again.

// notSaved are the flags that run.json does not record: the checkpoint's
// own, and progress, which resume takes from its command line.
var notSaved = []string{"checkpoint", "resume", "progress"}

func cmdResume(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("resume", e)
	progress := fs.Bool("progress", false, "print progress on stderr once a second (default when stderr is a terminal)")
	every := fs.Duration("checkpoint-every", 0, "period of the checkpoints (default: that of the interrupted run)")
	asJSON := fs.Bool("json", false, "print the report as JSON, one object (as the command's --json), whether or not the interrupted run had --json")
	if code := parseFlags(fs, args, e, "resume [flags] DIR"); code >= 0 {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "rdmasim resume: want one checkpoint directory")
		return exitUsage
	}
	dir := fs.Arg(0)
	rm, err := ckpt.ReadRun(dir)
	if err != nil {
		return fileFailed(e, *asJSON, dir, fmt.Sprintf("rdmasim resume: %v", err), err)
	}
	file, err := rm.Program()
	if err != nil {
		return fileFailed(e, *asJSON, rm.File, fmt.Sprintf("rdmasim resume: %s: %v", dir, err), err)
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == rm.Command && slices.Contains([]string{"check", "explore", "robust"}, c.name) {
			cmd = &c
		}
	}
	if cmd == nil {
		err := fmt.Errorf("a checkpoint of an unknown command %q", rm.Command)
		return fileFailed(e, *asJSON, rm.File, fmt.Sprintf("rdmasim resume: %s: %v", dir, err), err)
	}
	cargs := append(slices.Clone(rm.Flags), "--checkpoint="+dir, "--resume")
	if *asJSON {
		cargs = append(cargs, "--json") // after the recorded --json=false
		if rm.Command == "check" && slices.Contains(rm.Flags, "--json=false") && slices.Contains(rm.Flags, "--witness=false") {
			// The interrupted run kept no parent records: no witnesses.
			cargs = append(cargs, "--json-witness=false")
		}
	}
	if *progress {
		cargs = append(cargs, "--progress")
	}
	if fs.Changed("checkpoint-every") {
		cargs = append(cargs, "--checkpoint-every="+every.String())
	}
	cargs = append(cargs, "--", file)
	return cmd.run(ctx, cargs, e)
}

// manifestJob returns the job that the run manifest of a checkpointed
// command records: that of the first search it runs, without the program
// (the manifest names its file and the SHA-256 of its text) — an outcome
// search for check and explore (of the SC machine under --semantics sc), the
// decider's for robust unless --method asks for enumeration alone. The
// command's other searches differ from it in kind or semantics only, so
// that a resumed run whose flags make another job (another rdmasim that
// describes or names searches otherwise) is refused.
func (f *searchFlags) manifestJob(command, semantics, method string) job.Job {
	kind, sem := job.Outcomes, machine.RDMA
	if semantics == "sc" {
		sem = machine.SC
	}
	if command == "robust" {
		kind, sem = job.Decide, machine.RDMA
		if method == string(robust.EnumMachine) || method == "both" {
			kind = job.RobustEnum
		}
	}
	return f.searchJob(kind, "", sem)
}

// setupCheckpoint validates --checkpoint (and --resume) for the command, writes
// run.json for a new run or checks it when resuming, and makes opt checkpoint
// each machine search in a directory search-KEY of the checkpoint directory.
func (f *searchFlags) setupCheckpoint(fs *pflag.FlagSet, command string, opt *verdict.Options) error {
	dir := f.Checkpoint
	switch {
	case dir == "":
		return errors.New("--resume needs --checkpoint")
	case fs.NArg() != 1:
		return fmt.Errorf("--checkpoint takes one input file, not %d", fs.NArg())
	case f.CheckpointEvery < 0:
		return fmt.Errorf("--checkpoint-every %v: want a duration of 0 or more", f.CheckpointEvery)
	}
	params := ckpt.RunParams{MaxStates: f.MaxStates, Timeout: f.Timeout.String(),
		Order: f.Order, Workers: f.Workers, Store: f.Store, CheckpointEvery: f.CheckpointEvery.String()}
	params.MemBudget, _ = f.Budget()
	var semantics, method string
	if fl := fs.Lookup("semantics"); fl != nil {
		semantics = fl.Value.String()
		if command == "check" && semantics == "axiom" {
			return errors.New("--checkpoint saves the explorations of the machines, which --semantics axiom does not run")
		}
	}
	if fl := fs.Lookup("method"); fl != nil {
		method = fl.Value.String()
	}
	file := fs.Arg(0)
	if command == "robust" {
		p, _ := f.params.load(context.Background(), file) // a file that does not parse is reported by the command itself
		if err := robust.Checkpointable(method, p); err != nil {
			return err
		}
	}
	rm := &ckpt.Run{Command: command, File: file, Params: params, Job: f.manifestJob(command, semantics, method).Encode()}
	fs.VisitAll(func(fl *pflag.Flag) {
		if !slices.Contains(notSaved, fl.Name) {
			rm.Flags = append(rm.Flags, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	if err := ckpt.StartRun(dir, rm, f.Resume, f.StoreDir); err != nil {
		return err
	}
	opt.Checkpoint = f.Checkpoints()
	return nil
}
