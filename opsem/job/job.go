// Package job is the description of one search: which machine, from which
// program, with which options. A Job is a plain value — the kind of search
// (the outcomes of the RDMA or SC machine, robustness by enumeration on the
// RDMA machine with event graphs, the decider's instrumented machine), the
// program (its file name and, to travel, its text; the protocol params set
// on the command line), the semantics, the machine's options and the
// decider's — with:
//
//   - Build, the one recipe that turns it into the parsed program and the
//     machine (an explore.Machine) that the search explores, used by the CLI,
//     by the workers of a distributed search (Machine is their factory) and
//     by whoever must rebuild a search elsewhere;
//   - Encode and Decode, its canonical, versioned encoding (JSON, fields in a
//     fixed order, params sorted by name), which explore and explore/dist
//     carry as opaque bytes: a cluster run's payload, a checkpointed run's
//     manifest;
//   - Key, a stable name of the search computed from that encoding (a
//     go-farm fingerprint), for directories and runs named after what they
//     hold rather than after the order in which they were opened.
//
// A new machine option or a new kind of search is added here, in one place:
// a field of Job (and of wire, its encoding), its check in Check, its
// normalisation in Canonical, and its use in Build.
package job

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"

	farm "github.com/dgryski/go-farm"

	"rdmasim/explore"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// Version is the version of the encoding. Decode refuses another: a worker
// or a resumed run of another rdmasim says so instead of building another
// machine.
const Version = 1

// Kind is the kind of a search: which machine of the program it explores.
type Kind string

// The kinds of search.
const (
	// Outcomes explores the RDMA or SC machine of the program to answer
	// its query (verdict.Compute, verdict.OutcomeMachine): the locations
	// nothing observes dead, control points hidden unless a reach
	// condition reads one.
	Outcomes Kind = "outcomes"
	// RobustEnum explores the RDMA machine with event graphs, without the
	// partial-order reduction, loops bounded as the model bounds them
	// (verdict.RobustMachine): robustness by enumeration.
	RobustEnum Kind = "robust-enum"
	// Decide explores the decider's instrumented SC machine (opsem/instr,
	// opsem/decide), whose target is reachable iff the program is not
	// robust.
	Decide Kind = "decide"
)

// Job describes one search. The zero value is not a job: a Kind and, for
// Outcomes and RobustEnum, a MaxInflight are needed (see Check). A job
// without File and Source describes the search of a program given apart
// (BuildFrom): a checkpointed search's, whose run manifest names the
// program and the SHA-256 of its text.
type Job struct {
	Kind Kind
	// File is the program's file name: in messages and the program's
	// name, and where Build reads the text when Source is nil. It is not
	// part of Key: two jobs on the same text are the same search.
	File string
	// Source is the program's text; nil: the text of File, read by Build.
	// A job that travels (to a worker) carries it.
	Source []byte
	// Params are a protocol's params set on the command line (--param);
	// nil or empty: the file's own.
	Params map[string]int
	// Semantics is the machine of Outcomes (RDMA or SC); the other kinds
	// are RDMA's.
	Semantics machine.Semantics
	// Machine are the bounds and the reduction of the machine of Outcomes
	// and RobustEnum (the decider has none).
	Machine MachineOptions
	// Symmetry makes the machine reduce by the program's verified symmetry
	// group (for Outcomes, the part its query is invariant under), when
	// it has one. RobustEnum's event graphs are never reduced.
	Symmetry bool
	// Decider are the options of the decider's machine (Decide).
	Decider Decider
	// Unchecked drops the program's checked ranges (prog.Range,
	// prog.WithoutRangeChecks) before Outcomes builds its machine: the
	// search of a program whose ranges were dropped, as robustness drops
	// them (its SC machine's deadlock search). RobustEnum and Decide
	// always drop them: robustness answers on the program without them,
	// and the decider refuses them.
	Unchecked bool
}

// MachineOptions are the machine options that a job carries: those of
// machine.Options that a user sets.
type MachineOptions struct {
	MaxInflight int  // operations in the buffers of one queue pair
	Unroll      int  // iterations of each loop per entry, 0: unbounded
	Reduce      bool // the RDMA machine's partial-order reduction
	// Placement is the order in which a multi-word operation's words
	// reach memory (machine.Options.Placement; SEMANTICS-VERBS.md 1).
	// Its zero value, machine.PlaceAny, is the default: it is not
	// encoded, so that every job without it keeps its key.
	Placement machine.Placement
}

// Decider are the decider's options that change its machine.
type Decider struct {
	// EagerGuess guesses the boundary memory up front (instr.Options).
	EagerGuess bool
	// Block restricts the machine to violations whose SC cycle lies among
	// these threads (bit t for thread t; instr.Options.CycleThreads): one
	// block of the program's conflict graph. 0: every thread.
	Block uint64
	// Symmetric says that the program's symmetry group maps Block onto
	// itself, so that with Job.Symmetry the machine reduces by the whole
	// group; otherwise by the permutations that fix Block's threads
	// (prog.Symmetry.Without).
	Symmetric bool
	// AllowAtomics instruments remote atomics (instr.Options.AllowAtomics,
	// experimental) instead of refusing them.
	AllowAtomics bool
}

// InstrOptions returns the instrumented machine's options for d on p: a
// search restricted to a block freezes every thread that cannot change
// what the block's threads read (instr.Influence).
func (d Decider) InstrOptions(p *prog.Program) instr.Options {
	o := instr.Options{EagerGuess: d.EagerGuess, CycleThreads: d.Block, AllowAtomics: d.AllowAtomics}
	if d.Block != 0 {
		all := uint64(1)<<len(p.Threads) - 1
		o.Frozen = all &^ instr.Influence(p, d.Block)
	}
	return o
}

// Options returns the machine.Options of m.
func (m MachineOptions) Options() machine.Options {
	return machine.Options{MaxInflight: m.MaxInflight, Unroll: m.Unroll, Reduce: m.Reduce, Placement: m.Placement}
}

// MachineOf returns the options of a job that machine.Options o gives.
func MachineOf(o machine.Options) MachineOptions {
	return MachineOptions{MaxInflight: o.MaxInflight, Unroll: o.Unroll, Reduce: o.Reduce, Placement: o.Placement}
}

// Check says what is wrong with j, if anything: an unknown kind, a
// semantics other than RDMA's for a kind that has no other, no program,
// bounds out of their range.
func (j Job) Check() error {
	switch j.Kind {
	case Outcomes:
		if j.Semantics != machine.RDMA && j.Semantics != machine.SC {
			return fmt.Errorf("job: semantics %d: want rdma or sc", j.Semantics)
		}
	case RobustEnum, Decide:
		if j.Semantics != machine.RDMA {
			return fmt.Errorf("job: a %s search is of the rdma semantics, not %s", j.Kind, j.Semantics)
		}
	default:
		return fmt.Errorf("job: kind %q: want %s, %s or %s", j.Kind, Outcomes, RobustEnum, Decide)
	}
	if j.Kind != Decide {
		if err := machine.InflightBound.Check(j.Machine.MaxInflight); err != nil {
			return fmt.Errorf("job: %w", err)
		}
		if err := machine.UnrollBound.Check(j.Machine.Unroll); err != nil {
			return fmt.Errorf("job: %w", err)
		}
	}
	if _, err := machine.ParsePlacement(j.Machine.Placement.String()); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	return nil
}

// Canonical returns j with what its kind ignores set to zero, so that two
// jobs that build the same machine encode alike (and have the same Key):
// the decider has no machine options, RobustEnum no reduction and no
// symmetry, Outcomes under SC no reduction (the SC machine has none), and
// only Decide has decider options. Empty params are nil.
func (j Job) Canonical() Job {
	switch j.Kind {
	case Decide:
		j.Machine = MachineOptions{}
	case RobustEnum:
		j.Machine.Reduce, j.Symmetry = false, false
	}
	if j.Kind != Decide {
		j.Decider = Decider{}
	}
	if j.Kind != Outcomes {
		j.Unchecked = false // implied
	}
	if !j.Symmetry {
		j.Decider.Symmetric = false
	}
	if j.Kind == Outcomes && j.Semantics == machine.SC {
		// The SC machine has no reduction, and places a multi-word
		// operation's words at once.
		j.Machine.Reduce, j.Machine.Placement = false, machine.PlaceAny
	}
	if len(j.Params) == 0 {
		j.Params = nil
	}
	return j
}

// wire is the encoding of a Job: JSON, in this order of fields (params,
// a map, are written sorted by name).
type wire struct {
	Version     int            `json:"v"`
	Kind        Kind           `json:"kind"`
	File        string         `json:"file,omitempty"`
	Source      []byte         `json:"source,omitempty"`
	Params      map[string]int `json:"params,omitempty"`
	Semantics   string         `json:"semantics"`
	MaxInflight int            `json:"max_inflight,omitempty"`
	Unroll      int            `json:"unroll,omitempty"`
	Reduce      bool           `json:"reduce,omitempty"`
	Symmetry    bool           `json:"symmetry,omitempty"`
	EagerGuess  bool           `json:"eager_guess,omitempty"`
	Block       uint64         `json:"block,omitempty"`
	Symmetric   bool           `json:"symmetric,omitempty"`
	Atomics     bool           `json:"atomics,omitempty"`
	Unchecked   bool           `json:"unchecked,omitempty"`
	// Placement: "in-order", or omitted for the default "any".
	Placement string `json:"placement,omitempty"`
}

// Encode returns the canonical encoding of j (of j.Canonical()): the same
// bytes for the same search, whatever the process or the run. It does not
// check j (Decode does).
func (j Job) Encode() []byte {
	j = j.Canonical()
	b, err := json.Marshal(wire{Version: Version, Kind: j.Kind, File: j.File, Source: j.Source, Params: j.Params,
		Semantics: j.Semantics.String(), MaxInflight: j.Machine.MaxInflight, Unroll: j.Machine.Unroll,
		Reduce: j.Machine.Reduce, Symmetry: j.Symmetry, EagerGuess: j.Decider.EagerGuess,
		Block: j.Decider.Block, Symmetric: j.Decider.Symmetric, Atomics: j.Decider.AllowAtomics, Unchecked: j.Unchecked,
		Placement: placementWire(j.Machine.Placement)})
	if err != nil {
		// A struct of strings, numbers and a map of strings to
		// numbers always encodes.
		panic(fmt.Sprintf("job: encoding %+v: %v", j, err))
	}
	return b
}

// Decode returns the job that data encodes (as Encode does), checked
// (Check). Data that is not such an encoding — not JSON, unknown fields,
// another version, an unknown kind or semantics, bounds out of range — is
// an error, never a panic.
func Decode(data []byte) (Job, error) {
	var w wire
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&w); err != nil {
		return Job{}, fmt.Errorf("job: not the description of a search: %w", err)
	}
	if d.More() {
		return Job{}, errors.New("job: not the description of a search: data after its end")
	}
	if w.Version != Version {
		return Job{}, fmt.Errorf("job: a description of version %d; this rdmasim reads version %d", w.Version, Version)
	}
	sem, err := machine.ParseSemantics(w.Semantics)
	if err != nil {
		return Job{}, fmt.Errorf("job: semantics %w", err)
	}
	pl := machine.PlaceAny
	if w.Placement != "" {
		if pl, err = machine.ParsePlacement(w.Placement); err != nil || pl == machine.PlaceAny {
			return Job{}, fmt.Errorf("job: placement %q: want in-order, or none for any", w.Placement)
		}
	}
	j := Job{Kind: w.Kind, File: w.File, Source: w.Source, Params: w.Params, Semantics: sem,
		Machine:  MachineOptions{MaxInflight: w.MaxInflight, Unroll: w.Unroll, Reduce: w.Reduce, Placement: pl},
		Symmetry: w.Symmetry, Decider: Decider{EagerGuess: w.EagerGuess, Block: w.Block, Symmetric: w.Symmetric, AllowAtomics: w.Atomics},
		Unchecked: w.Unchecked}
	if err := j.Check(); err != nil {
		return Job{}, err
	}
	return j.Canonical(), nil
}

// Key names the search j describes: 16 hexadecimal digits, the go-farm
// fingerprint of its canonical encoding without the file name. It is the
// same in every process and every run of the same rdmasim (and of any
// version with the same encoding), and differs between jobs that differ in
// anything but File: a directory or a run named by it holds this search and
// no other.
func (j Job) Key() string {
	j.File = ""
	return fmt.Sprintf("%016x", farm.Fingerprint64(j.Encode()))
}

// String describes j in words, for logs and run names: "mp3.rdma
// outcomes rdma max-inflight=8".
func (j Job) String() string {
	j = j.Canonical()
	s := j.File
	if s == "" {
		s = "(program text)"
	}
	s += " " + string(j.Kind)
	if j.Kind == Outcomes {
		s += " " + j.Semantics.String()
	}
	if j.Kind != Decide {
		s += " " + machine.InflightBound.At(j.Machine.MaxInflight)
		if j.Machine.Unroll != 0 {
			s += " " + machine.UnrollBound.At(j.Machine.Unroll)
		}
		if !j.Machine.Reduce && j.Kind == Outcomes && j.Semantics == machine.RDMA {
			s += " reduce=false"
		}
		if j.Machine.Placement != machine.PlaceAny {
			s += " placement=" + j.Machine.Placement.String()
		}
	}
	if j.Symmetry {
		s += " symmetry"
	}
	if j.Decider.EagerGuess {
		s += " eager-guess"
	}
	if j.Decider.Block != 0 {
		s += fmt.Sprintf(" block=%#x", j.Decider.Block)
	}
	if j.Unchecked {
		s += " unchecked"
	}
	for _, n := range slices.Sorted(maps.Keys(j.Params)) {
		s += " " + n + "=" + strconv.Itoa(j.Params[n])
	}
	return s
}

// Program parses j's program: Source, or the text of File, with the
// params. Lowering a protocol stops when ctx is done (parse.ParseContext).
func (j Job) Program(ctx context.Context) (*prog.Program, error) {
	if j.File == "" && j.Source == nil {
		return nil, errors.New("job: no program (neither a file nor a text)")
	}
	src := j.Source
	if src == nil {
		var err error
		if src, err = os.ReadFile(j.File); err != nil {
			return nil, fmt.Errorf("reading program: %w", err)
		}
	}
	return parse.ParseContext(ctx, j.File, src, parse.Options{Params: j.Params})
}

// Built is what Build makes of a job: the program and the machine the
// search explores, in general (Machine) and as its own type (Outcome or
// Instr), and the symmetry group it reduces by.
type Built struct {
	Job     Job
	Program *prog.Program
	// Machine is the machine to explore (Outcome or Instr).
	Machine explore.Machine
	// Outcome is the RDMA or SC machine of Outcomes and RobustEnum; nil
	// for Decide.
	Outcome *machine.Machine
	// Instr is the decider's instrumented machine of Decide; nil for the
	// others.
	Instr *instr.Machine
	// Options are the options the machine of Outcomes or RobustEnum was
	// built with (the job's, and what the recipe adds: dead locations,
	// hidden control points, event graphs, the loop bound).
	Options machine.Options
	// Symmetry is the group the machine reduces by (Job.Symmetry and a
	// verified group of the program); nil for none.
	Symmetry *prog.Symmetry
}

// Build checks j, parses its program (Program) and builds the machine of
// its search (BuildFrom).
func (j Job) Build(ctx context.Context) (*Built, error) {
	if err := j.Check(); err != nil {
		return nil, err
	}
	p, err := j.Program(ctx)
	if err != nil {
		return nil, err
	}
	return j.BuildFrom(p)
}

// BuildFrom builds the machine of j's search of p, a program already read
// (j's File and Source are not read): the one recipe of every machine that
// a search explores, which verdict.Compute, verdict.RobustMachine,
// decide.Decide and the workers of a distributed search all call.
// Outcomes: OutcomeMachine (and OutcomeSymmetry). RobustEnum: the RDMA
// machine with event graphs, no reduction, loops bounded by LoopBound, every
// location tracked. Decide: the instrumented machine (instr.New),
// restricted to a block of threads, and its symmetry. RobustEnum, Decide
// and an Unchecked Outcomes build from p without its checked ranges
// (Built.Program).
func (j Job) BuildFrom(p *prog.Program) (*Built, error) {
	if err := j.Check(); err != nil {
		return nil, err
	}
	j = j.Canonical()
	if j.Unchecked || j.Kind != Outcomes {
		p, _ = prog.WithoutRangeChecks(p)
	}
	b := &Built{Job: j, Program: p}
	switch j.Kind {
	case Outcomes:
		m, mopt, err := outcomeMachine(p, j.Semantics, j.Machine.Options())
		if err != nil {
			return nil, err
		}
		if j.Symmetry {
			b.Symmetry = OutcomeSymmetry(p, m)
		}
		b.Machine, b.Outcome, b.Options = m, m, mopt
	case RobustEnum:
		mopt := j.Machine.Options()
		mopt.Unroll = LoopBound(p, mopt.Unroll)
		mopt.Graph = true
		m, err := machine.NewRDMA(p, mopt)
		if err != nil {
			return nil, err
		}
		b.Machine, b.Outcome, b.Options = m, m, mopt
	case Decide:
		m, err := instr.New(p, j.Decider.InstrOptions(p))
		if err != nil {
			return nil, err
		}
		if j.Symmetry {
			// prog.FindSymmetry gives a program with remote atomics no
			// group (the queue-pair machine keeps their lock in B3
			// entries); the instrumented machine, which keeps it per
			// location, has its own (instr.AtomicsSymmetry).
			sym, _ := prog.FindSymmetry(p)
			if j.Decider.AllowAtomics && prog.HasAtomics(p) {
				sym = instr.AtomicsSymmetry(p)
			}
			if !j.Decider.Symmetric {
				// The permutations that fix the block's threads
				// leave the restricted machine as it is.
				sym = sym.Without(j.Decider.Block)
			}
			if sym != nil {
				m.UseSymmetry(sym)
				if m.Symmetric() {
					b.Symmetry = sym
				}
			}
		}
		b.Machine, b.Instr = m, m
	}
	return b, nil
}

// DefaultModelUnroll is the loop bound of the declarative model (and of the
// machine when the two are compared, and of event graphs) when none is
// given: the model enumerates label sequences, so its loops must be
// unrolled.
const DefaultModelUnroll = 2

// LoopBound returns the loop bound to use for p where loops must be
// bounded (the model's label sequences, event graphs, comparisons of the
// two): unroll when given, DefaultModelUnroll when p has loops, else 0.
func LoopBound(p *prog.Program, unroll int) int {
	if unroll == 0 && HasLoops(p) {
		return DefaultModelUnroll
	}
	return unroll
}

// HasLoops reports whether some thread of p has a loop.
func HasLoops(p *prog.Program) bool {
	for t := range p.Threads {
		if p.Threads[t].Loops > 0 {
			return true
		}
	}
	return false
}

// ShownLocations returns the locations whose final values are listed as
// outcomes: those of the query's condition; when it mentions none, every
// location for queries about final configurations (and for no query), and
// none for reach, which asks about control and memory at any point.
func ShownLocations(p *prog.Program) []int {
	locs := p.Query.Cond.Locs(nil)
	if len(locs) == 0 && p.Query.Kind != prog.QReach {
		for l := range p.Locs {
			locs = append(locs, l)
		}
	}
	return locs
}

// OutcomeMachine returns the machine of an Outcomes search of p under sem
// with the options opt (verdict.Compute's): with the locations nothing
// observes (ShownLocations, the condition) dead and, unless a reach
// condition reads one, control points hidden.
func OutcomeMachine(p *prog.Program, sem machine.Semantics, opt machine.Options) (*machine.Machine, error) {
	m, _, err := outcomeMachine(p, sem, opt)
	return m, err
}

// outcomeMachine is OutcomeMachine, also returning the options the machine
// was built with.
func outcomeMachine(p *prog.Program, sem machine.Semantics, opt machine.Options) (*machine.Machine, machine.Options, error) {
	opt.Dead = machine.DeadLocations(p, ShownLocations(p))
	opt.ControlHidden = p.Query.Kind != prog.QReach || p.Query.Cond == nil || !p.Query.Cond.HasControl()
	m, err := machine.New(p, sem, opt)
	return m, opt, err
}

// OutcomeSymmetry makes m, a machine OutcomeMachine built for p, reduce by
// the part of p's verified group under which its query is invariant
// (prog.Symmetry.ForCond), and returns it; nil when there is none.
func OutcomeSymmetry(p *prog.Program, m *machine.Machine) *prog.Symmetry {
	full, _ := prog.FindSymmetry(p)
	if full == nil {
		return nil
	}
	kept, _ := full.ForCond(p, p.Query.Cond)
	m.UseSymmetry(kept)
	return m.Symmetry()
}

// Remote returns the explore.Settings.Remote of the searches of one
// program: each search's description (explore.Caller.Job: the encoding of
// a job that names no program, for the search was given its program
// parsed, as verdict.Compute, verdict.RobustMachine and decide.Decide are)
// is decoded, given the program of program (its File, Source and Params)
// and handed to start, which starts the search's run elsewhere (a
// dist.Coordinator whose payload is the job's Encode, which the workers'
// Machine builds). Every search of a command thus travels with its own
// job, whatever the order they are opened in.
func Remote(program Job, start func(Job) (explore.RemoteCloser, error)) func([]byte) (explore.RemoteCloser, error) {
	return func(desc []byte) (explore.RemoteCloser, error) {
		j, err := Decode(desc)
		if err != nil {
			return nil, err
		}
		j.File, j.Source, j.Params = program.File, program.Source, program.Params
		return start(j)
	}
}

// Machine builds the machine of the job that payload encodes: the factory
// (explore/dist's Factory) of a worker of a distributed search. A machine
// that reduces by a symmetry group (Built.Symmetry) is returned reduced
// (explore.Reduced): it emits the canonical images of its successors, as
// the coordinator's search, reduced too (explore.Options.Symmetry), expects.
func Machine(payload []byte) (explore.Machine, error) {
	j, err := Decode(payload)
	if err != nil {
		return nil, err
	}
	b, err := j.Build(context.Background())
	if err != nil {
		return nil, err
	}
	if b.Symmetry != nil {
		return explore.Reduced(b.Machine), nil
	}
	return b.Machine, nil
}

// placementWire is p as the encoding writes it: "" for the default.
func placementWire(p machine.Placement) string {
	if p == machine.PlaceAny {
		return ""
	}
	return p.String()
}
