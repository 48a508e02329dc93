package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/verdict"
)

// TaskKind names the check of one file as a campaign's task (explore/dist's
// RunCampaign): a worker that registers Task under it checks corpus files
// for any coordinator.
const TaskKind = "corpus-file"

// task is the payload of a task: the file's text and what Options hold that
// travels (the machine's bounds and the search's limits; each worker keeps
// its own visited sets in memory and expands on one core).
type task struct {
	File        string        `json:"file"`
	Source      []byte        `json:"source"`
	MaxInflight int           `json:"max_inflight"`
	Unroll      int           `json:"unroll"`
	Reduce      bool          `json:"reduce"`
	MaxStates   uint64        `json:"max_states"`
	Timeout     time.Duration `json:"timeout"`
	MaxBytes    uint64        `json:"max_bytes"`
}

// taskResult is a task's result: the row, and whether a search failed.
type taskResult struct {
	Row          *Row `json:"row"`
	SearchFailed bool `json:"search_failed"`
}

// NewTask returns the payload of the check of file with opt, the file read
// now.
func NewTask(file string, opt Options) ([]byte, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		// The worker reports it as the row of a file that does not
		// parse, as Check would.
		src = nil
	}
	v := opt.Verdict
	b, err := json.Marshal(task{File: file, Source: src, MaxInflight: v.Machine.MaxInflight, Unroll: v.Machine.Unroll,
		Reduce: v.Machine.Reduce, MaxStates: v.MaxStates, Timeout: v.Timeout, MaxBytes: opt.MaxBytes})
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	return b, nil
}

// Task runs the task of payload: the check of one file, whose row it
// returns.
func Task(ctx context.Context, payload []byte) ([]byte, error) {
	var t task
	if err := json.Unmarshal(payload, &t); err != nil {
		return nil, fmt.Errorf("suite: a task that is not a corpus file: %w", err)
	}
	st, err := explore.Choices{Order: "bfs", MaxStates: t.MaxStates, Timeout: t.Timeout, Workers: 1, Store: "mem"}.Settings()
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	opt := Options{Verdict: verdict.Options{Machine: machine.Options{MaxInflight: t.MaxInflight, Unroll: t.Unroll, Reduce: t.Reduce}, Settings: st},
		MaxBytes: t.MaxBytes}
	var row *Row
	if t.Source == nil {
		row = Check(ctx, t.File, opt) // unreadable where it was sent from: say so from here
	} else {
		row = CheckSource(ctx, t.File, t.Source, opt)
	}
	return json.Marshal(taskResult{Row: row, SearchFailed: row.SearchFailed})
}

// TaskRow decodes a task's result.
func TaskRow(out []byte) (*Row, error) {
	var r taskResult
	if err := json.Unmarshal(out, &r); err != nil || r.Row == nil {
		return nil, fmt.Errorf("suite: a task's result that is not a row: %v", err)
	}
	r.Row.SearchFailed = r.SearchFailed
	return r.Row, nil
}
