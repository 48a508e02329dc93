package ckpt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"rdmasim/store"
)

// A run manifest describes a whole command run with checkpoints, above the
// checkpoints of its searches. A command run with a checkpoint directory
// DIR writes DIR/run.json (RunName), atomically, before any search: the
// format version (RunFormat), the command, every flag with its value, the
// program file as given and its absolute path, the SHA-256 of its text, the
// fingerprint seed, the search checkpoints' Format, the parsed search
// parameters and the command's description of its searches (Job: for
// rdmasim, opsem/job's encoding, as opaque bytes here). Each search of the
// command then checkpoints itself in a subdirectory of DIR (see Open), which
// the command names by the search's key. Resuming reads run.json back,
// checks that the program and the description are unchanged, and runs the
// command again with the recorded flags. The manifest knows commands, flags,
// programs and searches only as strings and bytes.

// FrontierPattern names, for os.CreateTemp and filepath.Glob, the segment
// files a breadth-first frontier spills to.
const FrontierPattern = "rdmasim-frontier-*.seg"

// RunFormat is the version of run.json. A manifest of another version is
// refused.
const RunFormat = 2

// RunName is the name of the run manifest in a checkpoint directory.
const RunName = "run.json"

// Run is the JSON form of run.json.
type Run struct {
	Format           int       `json:"format"`
	Command          string    `json:"command"`
	Flags            []string  `json:"flags"` // --name=value, every flag but those of the checkpoint and progress
	File             string    `json:"file"`  // the program, as given
	FileAbs          string    `json:"file_abs"`
	ProgramSHA256    string    `json:"program_sha256"`
	FingerprintSeed  [2]uint64 `json:"fingerprint_seed"`
	CheckpointFormat int       `json:"checkpoint_format"` // Format
	Params           RunParams `json:"params"`
	// Job is how the command describes its searches (JSON, which the
	// manifest keeps and compares and does not read): resuming refuses a
	// run whose command now describes them otherwise, as their
	// checkpoints' names and contents may then differ.
	Job     json.RawMessage `json:"job,omitempty"`
	Created time.Time       `json:"created"`
}

// RunParams are the parsed search parameters of a run (those of explore's
// Choices; the machine's are in Run.Job), for people reading run.json;
// resuming uses Run.Flags.
type RunParams struct {
	MaxStates       uint64 `json:"max_states"`
	Timeout         string `json:"timeout"`
	Order           string `json:"order"`
	Workers         int    `json:"workers"`
	Store           string `json:"store"`
	MemBudget       uint64 `json:"mem_budget_bytes"`
	CheckpointEvery string `json:"checkpoint_every"`
}

// CreateRun starts a new run in dir: it refuses a directory that already
// holds a run manifest, and writes r, whose Command, Flags, File and Params
// the caller sets; CreateRun fills in the rest (the format, the absolute
// path and SHA-256 of the file, the fingerprint seed, the checkpoint format
// and the time).
func CreateRun(dir string, r *Run) error {
	sum, err := FileSHA256(r.File)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, RunName)); err == nil {
		return fmt.Errorf("%s already holds a checkpoint: continue it with 'rdmasim resume %s', or remove it", dir, dir)
	}
	abs, err := filepath.Abs(r.File)
	if err != nil {
		return err
	}
	r.Format, r.FileAbs, r.ProgramSHA256 = RunFormat, abs, sum
	r.FingerprintSeed, r.CheckpointFormat, r.Created = store.FingerprintSeed(), Format, time.Now().UTC()
	if err := writeRun(dir, r); err != nil {
		return fmt.Errorf("writing the checkpoint: %w", err)
	}
	return nil
}

// StartRun begins a run with checkpoints in dir: a new one (CreateRun), or
// with resume the continuation of the run dir holds (ResumeRun, then
// RemoveLeftovers of it and of storeDir), which must describe its searches
// as r.Job does.
func StartRun(dir string, r *Run, resume bool, storeDir string) error {
	if !resume {
		return CreateRun(dir, r)
	}
	old, err := ResumeRun(dir, r.Command, r.File)
	if err != nil {
		return err
	}
	if !sameJSON(old.Job, r.Job) {
		return fmt.Errorf("%s is a checkpoint of searches described as %s, which this rdmasim describes as %s (another version?): run them again", dir, old.Job, r.Job)
	}
	return RemoveLeftovers(dir, storeDir)
}

// ResumeRun reads the run manifest of dir and checks that it is one of
// command on a file with file's text.
func ResumeRun(dir, command, file string) (*Run, error) {
	sum, err := FileSHA256(file)
	if err != nil {
		return nil, err
	}
	r, err := ReadRun(dir)
	if err != nil {
		return nil, err
	}
	if r.Command != command || r.ProgramSHA256 != sum {
		return nil, fmt.Errorf("%s is a checkpoint of rdmasim %s on %s (SHA-256 %.12s...), not of rdmasim %s on %s (SHA-256 %.12s...)",
			dir, r.Command, r.File, r.ProgramSHA256, command, file, sum)
	}
	return r, nil
}

// RemoveLeftovers removes what a killed run left in its checkpoint
// directory dir and its store directory storeDir (if not ""): the temporary
// directories of visited sets that spilled to disk (pebbleset-*, in dir) and
// the segment files of frontiers that did (rdmasim-frontier-*.seg, in
// both).
func RemoveLeftovers(dir, storeDir string) error {
	stale, _ := filepath.Glob(filepath.Join(dir, store.TempPattern))
	for _, d := range []string{dir, storeDir} {
		if d != "" {
			segs, _ := filepath.Glob(filepath.Join(d, FrontierPattern))
			stale = append(stale, segs...)
		}
	}
	for _, d := range stale {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("removing the store of the interrupted run: %w", err)
		}
	}
	return nil
}

// ReadRun reads the run manifest of a checkpoint directory.
func ReadRun(dir string) (*Run, error) {
	data, err := os.ReadFile(filepath.Join(dir, RunName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s holds no checkpoint (no %s)", dir, RunName)
	}
	if err != nil {
		return nil, err
	}
	r := new(Run)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, RunName), err)
	}
	if r.Format != RunFormat {
		return nil, fmt.Errorf("%s: a checkpoint of format %d; this version reads format %d", dir, r.Format, RunFormat)
	}
	return r, nil
}

// Program returns the path of the program file to resume, and checks that
// the file's text is unchanged. The path is the one given to the interrupted
// run (which its report may print) if it still names the same file, else the
// absolute path of that file if it still exists, else the path given.
func (r *Run) Program() (string, error) {
	file := r.File
	if a, err := os.Stat(r.File); err != nil || !sameFile(a, r.FileAbs) {
		if _, err := os.Stat(r.FileAbs); err == nil {
			file = r.FileAbs
		}
	}
	sum, err := FileSHA256(file)
	if err != nil {
		return "", err
	}
	if sum != r.ProgramSHA256 {
		return "", fmt.Errorf("the program %s has changed since the checkpoint (SHA-256 %.12s..., now %.12s...); refusing to resume", r.File, r.ProgramSHA256, sum)
	}
	return file, nil
}

// sameFile says whether path names the file a describes.
func sameFile(a os.FileInfo, path string) bool {
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// FileSHA256 returns the SHA-256 of a file's contents, in hexadecimal.
func FileSHA256(path string) (string, error) {
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

// writeRun writes run.json atomically: to a temporary file, synced, then
// renamed, and the directory synced.
func writeRun(dir string, r *Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeJSONAtomic(dir, RunName, r, (*os.File).Sync)
}
