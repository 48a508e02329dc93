package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"rdmasim/explore"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/verdict"
	"rdmasim/store"
)

// Checkpoints of a command.
//
// A command run with --checkpoint DIR (check, explore or robust, on one input
// file) saves itself in DIR:
//
//   - DIR/run.json, written (atomically) before any search: the format
//     version, the command, every flag with its value (those given and the
//     defaults), the program file as given and its absolute path, the
//     SHA-256 of its text, the fingerprint seed, explore's checkpoint format
//     and the parsed search parameters.
//   - DIR/search-N, for the N-th exploration of a machine that the command
//     runs (N = 0, 1, ...: check explores the RDMA machine, then the SC one,
//     then, for an expect robust line, the RDMA machine with event graphs;
//     robust the decider's instrumented machine, then the RDMA machine with
//     event graphs, as its --method asks),
//     the checkpoint of that search in explore's format (see
//     explore.Checkpoint), with the outcomes, counts and witness collected so
//     far as the caller's state, and the search's description as its meta.
//   - the temporary directory of a visited set that spilled to disk, and
//     the segment files of a frontier that did (rdmasim-frontier-*.seg),
//     if no --store-dir was given; resume removes those a killed run left,
//     here and in --store-dir. The parent records of a traced search are
//     the checkpoint's own parents.bin (with --store pebble, --store-dir or
//     --mem-budget as without).
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

// runFormat is the version of run.json.
const runFormat = 1

// runManifestName is the name of the command's manifest in a checkpoint
// directory.
const runManifestName = "run.json"

// runManifest is the JSON form of run.json.
type runManifest struct {
	Format           int       `json:"format"`
	Command          string    `json:"command"`
	Flags            []string  `json:"flags"` // --name=value, every flag but those of the checkpoint and progress
	File             string    `json:"file"`  // the program, as given
	FileAbs          string    `json:"file_abs"`
	ProgramSHA256    string    `json:"program_sha256"`
	FingerprintSeed  [2]uint64 `json:"fingerprint_seed"`
	CheckpointFormat int       `json:"checkpoint_format"` // explore.CheckpointFormat
	Params           runParams `json:"params"`
	Created          time.Time `json:"created"`
}

// runParams are the parsed search parameters of a run, for people reading
// run.json; resume uses Flags.
type runParams struct {
	Unroll          int    `json:"unroll"`
	MaxInflight     int    `json:"max_inflight"`
	MaxStates       uint64 `json:"max_states"`
	Timeout         string `json:"timeout"`
	Order           string `json:"order"`
	Workers         int    `json:"workers"`
	Store           string `json:"store"`
	MemBudget       uint64 `json:"mem_budget_bytes"`
	CheckpointEvery string `json:"checkpoint_every"`
	Semantics       string `json:"semantics,omitempty"`
	Method          string `json:"method,omitempty"`
}

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
	rm, err := readRunManifest(dir)
	if err != nil {
		return fileFailed(e, *asJSON, dir, fmt.Sprintf("rdmasim resume: %v", err), err)
	}
	file, err := rm.program()
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

// readRunManifest reads the run.json of a checkpoint directory.
func readRunManifest(dir string) (*runManifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, runManifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s holds no checkpoint (no %s)", dir, runManifestName)
	}
	if err != nil {
		return nil, err
	}
	rm := new(runManifest)
	if err := json.Unmarshal(data, rm); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, runManifestName), err)
	}
	if rm.Format != runFormat {
		return nil, fmt.Errorf("%s: a checkpoint of format %d; this version reads format %d", dir, rm.Format, runFormat)
	}
	return rm, nil
}

// program returns the path of the program file to resume, and checks that
// the file's text is unchanged. The path is the one given to the interrupted
// run (which its report may print) if it still names the same file, else the
// absolute path of that file if it still exists, else the path given.
func (rm *runManifest) program() (string, error) {
	file := rm.File
	if a, err := os.Stat(rm.File); err != nil || !sameFile(a, rm.FileAbs) {
		if _, err := os.Stat(rm.FileAbs); err == nil {
			file = rm.FileAbs
		}
	}
	sum, err := fileSHA256(file)
	if err != nil {
		return "", err
	}
	if sum != rm.ProgramSHA256 {
		return "", fmt.Errorf("the program %s has changed since the checkpoint (SHA-256 %.12s..., now %.12s...); refusing to resume", rm.File, rm.ProgramSHA256, sum)
	}
	return file, nil
}

func sameFile(a os.FileInfo, path string) bool {
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// fileSHA256 returns the SHA-256 of a file's contents, in hexadecimal.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// setupCheckpoint validates --checkpoint (and --resume) for the command, writes
// run.json for a new run or checks it when resuming, and makes opt checkpoint
// each machine search in a directory search-N of the checkpoint directory.
func (f *searchFlags) setupCheckpoint(fs *pflag.FlagSet, command string, opt *verdict.Options) error {
	dir := f.checkpoint
	switch {
	case dir == "":
		return errors.New("--resume needs --checkpoint")
	case fs.NArg() != 1:
		return fmt.Errorf("--checkpoint takes one input file, not %d", fs.NArg())
	case f.checkpointEvery < 0:
		return fmt.Errorf("--checkpoint-every %v: want a duration of 0 or more", f.checkpointEvery)
	}
	params := runParams{Unroll: f.unroll, MaxInflight: f.maxInflight, MaxStates: f.maxStates, Timeout: f.timeout.String(),
		Order: f.order, Workers: f.workers, Store: f.store, CheckpointEvery: f.checkpointEvery.String()}
	params.MemBudget, _ = f.budget()
	if fl := fs.Lookup("semantics"); fl != nil {
		params.Semantics = fl.Value.String()
		if command == "check" && params.Semantics == "axiom" {
			return errors.New("--checkpoint saves the explorations of the machines, which --semantics axiom does not run")
		}
	}
	if fl := fs.Lookup("method"); fl != nil {
		params.Method = fl.Value.String()
		if command == "robust" && params.Method == "enum-axiom" {
			return fmt.Errorf("--checkpoint saves the explorations of machines, which --method %s does not run: use decide, enum-machine, both or all", params.Method)
		}
	}
	file := fs.Arg(0)
	if command == "robust" && (params.Method == "decide" || params.Method == "auto") {
		// A file that does not parse is reported by the command itself.
		if p, err := parse.File(file); err == nil {
			if finite, err := decide.Finite(p); err == nil && !finite {
				return errors.New("--checkpoint: a poll on a loop makes the decider's poll counters unbounded, and its Karp–Miller search is not checkpointed: use --method enum-machine")
			}
		}
	}
	sum, err := fileSHA256(file)
	if err != nil {
		return err
	}
	if f.resume {
		rm, err := readRunManifest(dir)
		if err != nil {
			return err
		}
		if rm.Command != command || rm.ProgramSHA256 != sum {
			return fmt.Errorf("%s is a checkpoint of rdmasim %s on %s (SHA-256 %.12s...), not of rdmasim %s on %s (SHA-256 %.12s...)",
				dir, rm.Command, rm.File, rm.ProgramSHA256, command, file, sum)
		}
		// The temporary stores and frontier segments of the interrupted
		// run.
		stale, _ := filepath.Glob(filepath.Join(dir, "pebbleset-*"))
		for _, d := range []string{dir, f.storeDir} {
			if d != "" {
				segs, _ := filepath.Glob(filepath.Join(d, "rdmasim-frontier-*.seg"))
				stale = append(stale, segs...)
			}
		}
		for _, d := range stale {
			if err := os.RemoveAll(d); err != nil {
				return fmt.Errorf("removing the store of the interrupted run: %w", err)
			}
		}
	} else {
		if _, err := os.Stat(filepath.Join(dir, runManifestName)); err == nil {
			return fmt.Errorf("%s already holds a checkpoint: continue it with 'rdmasim resume %s', or remove it", dir, dir)
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			return err
		}
		rm := &runManifest{Format: runFormat, Command: command, File: file, FileAbs: abs, ProgramSHA256: sum,
			FingerprintSeed: store.FingerprintSeed(), CheckpointFormat: explore.CheckpointFormat, Params: params,
			Created: time.Now().UTC()}
		fs.VisitAll(func(fl *pflag.Flag) {
			if !slices.Contains(notSaved, fl.Name) {
				rm.Flags = append(rm.Flags, "--"+fl.Name+"="+fl.Value.String())
			}
		})
		if err := writeRunManifest(dir, rm); err != nil {
			return fmt.Errorf("writing the checkpoint: %w", err)
		}
	}
	n := 0
	every, resume := f.checkpointEvery, f.resume
	opt.Checkpoint = func() *explore.Checkpoint {
		c := &explore.Checkpoint{Dir: filepath.Join(dir, fmt.Sprintf("search-%d", n)), Every: every, Resume: resume}
		n++
		return c
	}
	return nil
}

// writeRunManifest writes run.json atomically: to a temporary file, synced,
// then renamed, and the directory synced.
func writeRunManifest(dir string, rm *runManifest) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rm, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "tmp-run-*.json")
	if err != nil {
		return err
	}
	err = tmp.Chmod(0o644)
	if err == nil {
		_, err = tmp.Write(append(data, '\n'))
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, runManifestName))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
