package fuzz

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// A run on a cluster (rdmasim fuzz --cluster, --nats) is a campaign of
// batches: RunCampaign splits the run's programs into batches of
// consecutive program indices, the cluster's workers check each batch with
// Task (a Run of those programs alone: program i is still drawn from
// ProgramSeed(Seed, i), i its index in the whole run), and RunCampaign
// merges the batches' summaries in index order. A seed therefore gives the
// programs, the disagreements (minimised by the workers) and the counts of
// a run in one process; the regression files are written by the
// coordinator alone, from the text the workers render. The batches travel
// as opaque bytes (explore/dist knows nothing of programs): each carries
// the run's Options whole, so that every mode of the fuzzer (a field of
// Options) reaches the workers without a change here.

// TaskKind names a batch of a fuzz run as a campaign's task (explore/dist's
// RunCampaign): a worker that registers Task under it checks batches for
// any coordinator.
const TaskKind = "fuzz-batch"

// batchVersion is the version of the encoding of a batch and of its
// result. Task and RunCampaign refuse another, and unknown fields: a worker
// of another build must not draw other programs, or drop a mode it does
// not know, without saying so.
const batchVersion = 1

// batch is the payload of a task: the run's options with Count (and
// ProgramSeeds, when the run checks given seeds) cut to the batch, First
// the index of its first program in the run, and Regress whether the
// workers render each disagreement's regression file (the coordinator has
// a --regress-dir).
type batch struct {
	V       int     `json:"v"`
	Options Options `json:"options"`
	First   int     `json:"first"`
	Regress bool    `json:"regress"`
}

// batchResult is a task's result: what a batch's Run counted (Summary's
// fields but its timing), the disagreements with their programs as text,
// and how the worker compares SPIN (Options.ResolveSpin), which must be the
// coordinator's.
type batchResult struct {
	V             int                `json:"v"`
	Spin          string             `json:"spin"`
	Programs      int                `json:"programs"`
	Slow          []uint64           `json:"slow"`
	Stuck         []uint64           `json:"stuck"`
	Ended         bool               `json:"ended"`
	Skipped       map[string]int     `json:"skipped"`
	Compared      map[string]int     `json:"compared"`
	Robust        int                `json:"robust"`
	NotRobust     int                `json:"not_robust"`
	Stats         Stats              `json:"stats"`
	Disagreements []disagreementWire `json:"disagreements"`
}

// disagreementWire is a Disagreement in a batch's result: its programs as
// their text (which parses back to the same program), its regression file
// rendered.
type disagreementWire struct {
	Index           int              `json:"index"`
	Seed            uint64           `json:"seed"`
	Config          string           `json:"config"`
	Program         string           `json:"program"`
	Source          string           `json:"source,omitempty"`
	Problems        []differ.Problem `json:"problems"`
	Kind            differ.Kind      `json:"kind"`
	Minimal         string           `json:"minimal,omitempty"`
	MinimalProblems []differ.Problem `json:"minimal_problems,omitempty"`
	Minimized       MinimizeStats    `json:"minimized"`
	Regression      *regressionFile  `json:"regression,omitempty"`
}

// DefaultBatch is the fewest programs of a batch: about a second of a
// worker's time at the default bounds. BatchSize makes batches larger on
// long runs.
const DefaultBatch = 10

// BatchSize returns the programs per batch of a run of n programs:
// DefaultBatch, or more so that a run has at most about a thousand
// batches (every batch is put in the work queue up front).
func BatchSize(n int) int { return max(DefaultBatch, (n+999)/1000) }

// CheckCampaign says what keeps the run of opt (checked by Check) from
// running as a campaign of batches, naming the flag: it needs a fixed
// number of programs.
func (o Options) CheckCampaign() error {
	if o.Duration > 0 || (o.Count == 0 && len(o.ProgramSeeds) == 0) {
		return errors.New("--time: a run on a cluster checks a fixed number of programs, split into batches up front: give --count")
	}
	return nil
}

// batches returns the payloads of the batches of opt's run, size programs
// each (the last one fewer), with regress as batch.Regress.
func batches(opt Options, size int, regress bool) ([][]byte, error) {
	n := opt.Count
	if len(opt.ProgramSeeds) > 0 {
		n = len(opt.ProgramSeeds)
	}
	base := opt
	base.Duration, base.RegressDir, base.Progress, base.Found = 0, "", nil, nil
	var out [][]byte
	for first := 0; first < n; first += size {
		b := batch{V: batchVersion, Options: base, First: first, Regress: regress}
		b.Options.Count = min(size, n-first)
		if len(opt.ProgramSeeds) > 0 {
			b.Options.Count = 0
			b.Options.ProgramSeeds = opt.ProgramSeeds[first : first+min(size, n-first)]
		}
		data, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("fuzz: encoding a batch: %w", err)
		}
		out = append(out, data)
	}
	return out, nil
}

// decodeStrict decodes data into v, refusing unknown fields.
func decodeStrict(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// Task runs the task of payload: the check of one batch of a run on a
// cluster, whose result it returns. A batch cut short (ctx done) is an
// error, so that the campaign gives it to another worker whole.
func Task(ctx context.Context, payload []byte) ([]byte, error) { return task(ctx, payload, nil) }

// task is Task with check as Options.check (nil: differ.Check), which
// does not travel in a batch.
func task(ctx context.Context, payload []byte, check func(context.Context, *prog.Program, differ.Options) (*differ.Report, error)) ([]byte, error) {
	var b batch
	if err := decodeStrict(payload, &b); err != nil {
		return nil, fmt.Errorf("fuzz: a task that is not a batch of this build's fuzz: %w", err)
	}
	if b.V != batchVersion {
		return nil, fmt.Errorf("fuzz: a batch of version %d; this rdmasim reads version %d", b.V, batchVersion)
	}
	opt := b.Options
	opt.first, opt.renderRegress, opt.check = b.First, b.Regress, check
	if err := opt.Check(); err != nil {
		return nil, fmt.Errorf("fuzz: batch at program %d: %w", b.First, err)
	}
	spin := opt.ResolveSpin()
	sum, err := Run(ctx, opt)
	switch {
	case err != nil:
		return nil, err
	case sum.Interrupted:
		return nil, fmt.Errorf("fuzz: batch at program %d interrupted: %w", b.First, context.Cause(ctx))
	}
	r := batchResult{V: batchVersion, Spin: spin, Programs: sum.Programs, Slow: sum.Slow, Stuck: sum.Stuck, Ended: sum.Ended,
		Skipped: sum.Skipped, Compared: sum.Compared, Robust: sum.Robust, NotRobust: sum.NotRobust, Stats: sum.Stats}
	for _, d := range sum.Disagreements {
		w := disagreementWire{Index: d.Index, Seed: d.Seed, Config: d.Config, Program: d.Program.String(), Source: d.Source,
			Problems: d.Problems, Kind: d.Kind, MinimalProblems: d.MinimalProblems, Minimized: d.Minimized, Regression: d.regression}
		if d.Minimal != nil {
			w.Minimal = d.Minimal.String()
		}
		r.Disagreements = append(r.Disagreements, w)
	}
	out, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("fuzz: encoding a batch's result: %w", err)
	}
	return out, nil
}

// Campaign runs tasks on a cluster's workers (each with Task) and calls
// result with each task's index and result in index order, as
// explore/dist's RunCampaign does on a NATS connection.
type Campaign func(ctx context.Context, tasks [][]byte, result func(index int, out []byte) error) error

// errEnded stops a campaign whose batch ended early (Summary.Ended).
var errEnded = errors.New("fuzz: a batch ended early")

// RunCampaign is Run on a cluster: it splits opt's run (checked by Check
// and CheckCampaign) into batches of BatchSize programs, has campaign
// check them, and merges their summaries in program order into the
// summary Run would give, but for its timing: the same programs,
// disagreements, slow programs and counts. Options.Found is called with
// each disagreement in program order, after its regression file is
// written into Options.RegressDir (here, never by a worker);
// Options.Progress after each batch, at most once a second. spin is this
// process's SPIN note (Options.ResolveSpin): a worker that compares SPIN
// otherwise fails the run. When ctx ends the run, the summary covers the
// batches merged (Interrupted); a batch that ends early (Summary.Ended)
// ends it. The error is for bad options, the campaign's failure and
// results it cannot read.
func RunCampaign(ctx context.Context, opt Options, spin string, campaign Campaign) (*Summary, error) {
	if err := cmp.Or(opt.Check(), opt.CheckCampaign()); err != nil {
		return nil, fmt.Errorf("fuzz: %w", err)
	}
	n := opt.Count
	if len(opt.ProgramSeeds) > 0 {
		n = len(opt.ProgramSeeds)
	}
	tasks, err := batches(opt, BatchSize(n), opt.RegressDir != "")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	sum := &Summary{Seed: opt.Seed, Skipped: map[string]int{}, Compared: map[string]int{}}
	var lastProgress time.Time
	err = campaign(ctx, tasks, func(index int, out []byte) error {
		var r batchResult
		if err := decodeStrict(out, &r); err != nil {
			return fmt.Errorf("fuzz: the result of batch %d: %w", index, err)
		}
		if r.V != batchVersion {
			return fmt.Errorf("fuzz: the result of batch %d is of version %d; this rdmasim reads version %d", index, r.V, batchVersion)
		}
		if r.Spin != spin {
			return fmt.Errorf("fuzz: a worker compares SPIN %s, this process %s: give the workers spin and gcc on their PATH, or --spin-every 0", r.Spin, spin)
		}
		if err := sum.merge(&r, opt); err != nil {
			return fmt.Errorf("fuzz: the result of batch %d: %w", index, err)
		}
		if opt.Progress != nil && time.Since(lastProgress) >= time.Second {
			lastProgress = time.Now()
			opt.Progress(Progress{Programs: sum.Programs, Disagreements: len(sum.Disagreements), Elapsed: time.Since(start)})
		}
		if r.Ended {
			return errEnded
		}
		return nil
	})
	sum.Elapsed = time.Since(start)
	switch {
	case errors.Is(err, errEnded):
	case err != nil && ctx.Err() != nil:
		sum.Interrupted = true
	case err != nil:
		return nil, err
	}
	sort.Slice(sum.Slow, func(i, j int) bool { return sum.Slow[i] < sum.Slow[j] })
	return sum, nil
}

// merge adds a batch's result r to s (a run with opt): its counts, and its
// disagreements, whose programs it parses back and whose regression files
// it writes into opt.RegressDir, calling opt.Found with each.
func (s *Summary) merge(r *batchResult, opt Options) error {
	s.Programs += r.Programs
	s.Slow = append(s.Slow, r.Slow...)
	s.Stuck = append(s.Stuck, r.Stuck...)
	s.Ended = s.Ended || r.Ended
	for k, n := range r.Skipped {
		s.Skipped[k] += n
	}
	for k, n := range r.Compared {
		s.Compared[k] += n
	}
	s.Robust += r.Robust
	s.NotRobust += r.NotRobust
	s.Stats.Merge(&r.Stats)
	for i := range r.Disagreements {
		w := &r.Disagreements[i]
		d := &Disagreement{Index: w.Index, Seed: w.Seed, Config: w.Config, Source: w.Source, Problems: w.Problems, Kind: w.Kind,
			MinimalProblems: w.MinimalProblems, Minimized: w.Minimized}
		var err error
		if w.Source != "" {
			// A protocol: its lowering, as checkOne made it.
			d.Program, err = parse.Parse(fmt.Sprintf("surface-%016x.rdma", w.Seed), []byte(w.Source))
		} else {
			d.Program, err = parseText(w.Program)
		}
		if err != nil {
			return fmt.Errorf("program %d: %w", w.Index, err)
		}
		if w.Minimal != "" {
			if d.Minimal, err = parseText(w.Minimal); err != nil {
				return fmt.Errorf("program %d, minimised: %w", w.Index, err)
			}
		}
		if reg := w.Regression; reg != nil && opt.RegressDir != "" {
			if reg.Err != "" {
				d.FileErr = errors.New(reg.Err)
			} else {
				d.File, d.FileErr = writeRegressionFile(opt.RegressDir, reg.Name, reg.Text)
			}
		}
		s.Disagreements = append(s.Disagreements, d)
		if opt.Found != nil {
			opt.Found(d)
		}
	}
	return nil
}

// parseText parses a program's text as a worker printed it (Program's
// String, which parses back to the same program).
func parseText(text string) (*prog.Program, error) {
	p, err := parse.Parse("batch.rdma", []byte(text))
	if err != nil {
		return nil, fmt.Errorf("a program that does not parse back: %w", err)
	}
	return p, nil
}
