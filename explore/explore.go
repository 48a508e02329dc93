package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"rdmasim/explore/ckpt"
	"rdmasim/store"
)

// Order is the order in which a Search expands discovered states.
type Order int

const (
	// BFS expands states breadth-first, in discovery order, so every state
	// is discovered at its least depth and Path returns shortest runs.
	BFS Order = iota
	// DFS expands the most recently discovered state first: it pops a
	// state, pushes all its new successors, and repeats. Its frontier stays
	// small on deep state spaces, but its runs are not shortest.
	DFS
)

// String returns "bfs" or "dfs".
func (o Order) String() string {
	switch o {
	case BFS:
		return "bfs"
	case DFS:
		return "dfs"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// Stop says why a search ended.
type Stop int

const (
	// Complete means the frontier was exhausted: every state reachable
	// within the machine's bounds was discovered and expanded.
	Complete Stop = iota
	// StateLimit means a distinct state beyond Options.MaxStates was found.
	StateLimit
	// TimeLimit means Options.Timeout elapsed.
	TimeLimit
	// Canceled means the context passed to Run was done: the search was
	// interrupted (String says so, as every report does).
	Canceled
	// Stopped means Options.Visit returned false.
	Stopped
	// MemoryLimit means the memory a search must keep in memory reached
	// its bound (used by searches that keep every state, such as
	// explore/cover's).
	MemoryLimit
)

var stopNames = [...]string{
	Complete:    "complete",
	StateLimit:  "state limit",
	TimeLimit:   "time limit",
	Canceled:    "interrupted",
	Stopped:     "stopped",
	MemoryLimit: "memory limit",
}

// String returns a short lower-case description of s, such as "state limit".
func (s Stop) String() string {
	if s >= 0 && int(s) < len(stopNames) {
		return stopNames[s]
	}
	return fmt.Sprintf("Stop(%d)", int(s))
}

// Options configure a Search. The zero value is a breadth-first search with no
// bounds, an in-memory visited set and no trace.
type Options struct {
	// Order is the expansion order.
	Order Order

	// MaxStates bounds the number of distinct states. When a state beyond
	// the first MaxStates is discovered, the search stops with StateLimit;
	// that state is not counted or visited. Zero means no limit.
	MaxStates uint64

	// Timeout bounds the duration of Run; when it elapses the search stops
	// with TimeLimit. Zero means no limit.
	Timeout time.Duration

	// Set is the visited set. It should be empty; Run does not close it.
	// If nil, Run uses a store.NewMem(0) and closes it before returning.
	Set store.Set

	// Trace makes the search keep a parent record (8 bytes) per state, so
	// that Path can rebuild the run to any visited state. The records are
	// in memory, unless the search has a directory to use: with Checkpoint
	// they are the checkpoint's parents.bin, else with SpillDir a file
	// there. Either way Close releases the file.
	Trace bool

	// SpillDir, if not empty, is a directory where the search keeps on
	// disk what would otherwise grow in memory with the state space: the
	// parent records of Trace, in a file removed from the directory at
	// once (so nothing is left behind even after a kill; Close closes
	// it), and the part of the breadth-first frontier beyond
	// FrontierBudget, in segment files named rdmasim-frontier-*.seg,
	// each removed once it is read back, and all by the time Run returns.
	SpillDir string

	// FrontierBudget bounds the memory of the breadth-first frontier, in
	// bytes, when SpillDir is set; zero (or no SpillDir) keeps it all in
	// memory. The sequential search keeps the frontier in chunks of an
	// eighth of the budget (from 4 KiB to 1 MiB), at least the chunk
	// being drained and the chunk being filled in memory, and spills the
	// chunks between them, in queue order, whenever a new chunk takes it
	// over the budget. The parallel search bounds the blocks (64 KiB) of
	// the level being expanded and of the next level together: when
	// committing a block takes them over the budget, the next level's
	// blocks in memory are appended to its segment file, from which
	// workers read them back. Spilling changes neither the order of the
	// states nor the result. Depth-first frontiers are never spilled.
	FrontierBudget int64

	// Visit, if non-nil, is called once for every new distinct state, the
	// initial state included, in discovery order, with the state's id (0,
	// 1, 2, ... in discovery order), its encoding (valid only during the
	// call) and its depth (the number of transitions from the initial
	// state along the run that discovered it). Returning false stops the
	// search with Stopped; the state is counted.
	Visit func(id uint64, s []byte, depth int) bool

	// Progress, if non-nil, is called about once per second from the
	// goroutine running the search with a snapshot of its statistics.
	Progress func(Stats)

	// Name names the search in its progress reports (Stats.Search), e.g.
	// "SB-PUT rdma".
	Name string

	// Workers is the number of goroutines that expand states. Zero or one
	// selects the sequential search. A greater value runs a
	// level-synchronous parallel breadth-first search if Order is BFS and
	// the machine implements Cloner; otherwise the search is sequential,
	// and Result.Workers and Result.Fallback say so.
	//
	// A parallel search is the sequential breadth-first search, done
	// faster: the workers expand states and fingerprint their successors,
	// and the goroutine that called Run commits their results in the
	// order the sequential search would, inserting the successors into
	// the set and calling Visit. So it discovers the same
	// states with the same ids, depths and parents (Path returns the same
	// runs), calls Visit in the same order, from the goroutine that called
	// Run, and when MaxStates or Visit stops it, it stops at the same
	// state with the same counts. Each worker expands states on its own
	// clone of the machine; the machine passed to New is never expanded by
	// a worker, so Visit may call its methods (HasSCCycle, say).
	//
	// Only the goroutine that called Run uses the visited set: any Set
	// will do. If Set is nil, a parallel search uses a store.NewMem set.
	Workers int

	// Checkpoint, if non-nil, makes the search save checkpoints to a
	// directory, periodically and when it ends, and resume from one: see
	// Checkpoint. A resumed search needs an empty Set, into which it
	// inserts the visited states of the checkpoint.
	Checkpoint *Checkpoint

	// Meta, Save and Restore are what checkpoints keep of the caller's
	// search; without Checkpoint they are not used.
	//
	// Meta describes the search (a JSON value, or nil). It is stored in
	// the checkpoint, and a resumed search refuses a checkpoint whose Meta
	// differs.
	Meta json.RawMessage

	// Save, if non-nil, returns the caller's state that Visit built from
	// the states visited so far (a JSON value). It is called at each
	// checkpoint, never concurrently with Visit.
	Save func() (json.RawMessage, error)

	// Restore, if non-nil, is called on resume, before the search goes on,
	// with the state that Save returned for the checkpoint (nil if Save was
	// nil).
	Restore func(json.RawMessage) error

	// Remote, if non-nil, expands the levels of the search elsewhere (see
	// Remote): on other processes, each with its part of the visited set.
	// The search is breadth-first; Set then holds the initial state only,
	// Workers is not used, and Result.Workers counts the remote's
	// processes. Checkpoint must be nil.
	Remote Remote

	// Symmetry makes the search store one state per orbit when the
	// machine implements Symmetric and has a group (see Symmetric): the
	// initial state and every successor are replaced by their canonical
	// images before the visited-set lookup. Counts and Visit are then the
	// reduced search's; Path still rebuilds runs of the machine. A remote
	// search (Remote) reduces alike when the remote's processes expand
	// the same machine reduced (Reduced): they emit canonical successors,
	// so that each orbit has one owner and one id.
	Symmetry bool

	// frontierChunk, in tests, overrides the size of the chunks of a
	// sequential search's frontier (defaultChunk).
	frontierChunk int
}

// Stats describe the progress of a search.
type Stats struct {
	// Search names the search in progress reports (Options.Name); empty
	// elsewhere.
	Search string
	// States is the number of distinct states discovered, the initial
	// state included.
	States uint64
	// Transitions is the number of successors emitted by expanded states,
	// including those that were already visited.
	Transitions uint64
	// Frontier is the number of states discovered but not yet expanded.
	Frontier uint64
	// MaxDepth is the greatest depth of a discovered state.
	MaxDepth int
	// Elapsed is the time since Run began.
	Elapsed time.Duration
	// StoreBytes is the size of the visited set, as reported by its Bytes
	// method.
	StoreBytes uint64
	// DiskBytes is what the search itself holds on disk in
	// Options.SpillDir or the checkpoint directory: the spilled frontier
	// and the file of parent records (the visited set aside).
	DiskBytes uint64
}

// Result describes a finished search.
type Result struct {
	Stats
	// Stop says why the search ended.
	Stop Stop
	// Pruned is the bitwise OR of the values returned by Successors for
	// every expanded state. If it is non-zero, some successors were cut by
	// the machine's bounds, and a Complete search covered only the bounded
	// state space.
	Pruned Pruned
	// Workers is the number of goroutines that expanded states: 1 for a
	// sequential search.
	Workers int
	// Fallback says why the search was sequential although
	// Options.Workers asked for more than one worker; it is empty
	// otherwise.
	Fallback string
	// FrontierDiskPeak is the most bytes of the frontier that were on
	// disk at once (see Options.FrontierBudget); zero if it never
	// spilled.
	FrontierDiskPeak uint64
}

// Step is one step of a run: the label of the transition taken and the
// encoding of the state it reached.
type Step struct {
	Label Label  // the transition's label; 0 for the initial state
	State []byte // the encoding of the state reached, owned by the caller
}

// A Search explores the state space of a Machine. Create one with New and
// call Run once; after Run returns, Path rebuilds runs to the visited states
// if Options.Trace was set.
//
// A Search is not safe for concurrent use.
type Search struct {
	m      Machine // the machine searched: the reduced one under symmetry
	real   Machine // the machine given to New
	sym    Symmetric
	opt    Options
	ran    bool
	closed bool
	trace  trace // parent records, one per state, if opt.Trace
}

// New returns a search of the state space of m configured by opt.
func New(m Machine, opt Options) *Search {
	s := &Search{m: m, real: m, opt: opt}
	if opt.Symmetry {
		if sym := symmetryOf(m); sym != nil {
			s.m, s.sym = newReduced(m), sym
		}
	}
	return s
}

// Reduced reports whether the search stores one state per orbit of the
// machine's symmetry (Options.Symmetry, with a machine that has one).
func (s *Search) Reduced() bool { return s.sym != nil }

// maxEncoding bounds the length of a state encoding the frontier (and a
// checkpoint's frontier) can hold.
const maxEncoding = ckpt.MaxEncoding

// Run explores the state space from the initial state until the frontier is
// exhausted or a bound in the options, the context or the Visit callback stops
// it. The reason is in Result.Stop; a cancelled context yields Canceled and a
// nil error. Run returns an error only if the search failed: if the visited set
// failed, if the initial state was already in it, or if the machine misbehaved;
// the Result then describes the search up to the failure.
//
// Run checks the context and the timeout between expansions: about every 10ms,
// and at least once every 1024 expansions.
//
// Run may be called only once per Search.
func (s *Search) Run(ctx context.Context) (Result, error) {
	if s.ran {
		return Result{}, errors.New("explore: Search.Run called more than once")
	}
	s.ran = true

	start := time.Now()
	if s.opt.Remote != nil {
		if err := checkRemote(&s.opt); err != nil {
			return Result{}, err
		}
	}
	var (
		ck   *checkpointer
		from *ckpt.Manifest // the checkpoint to resume
	)
	if s.opt.Checkpoint != nil {
		var err error
		if ck, from, err = openCheckpoint(&s.opt, start); err != nil {
			return Result{}, err
		}
		defer ck.close()
		if f, n := ck.dir.Parents(); f != nil {
			s.trace.useFile(f, n)
		}
		if from != nil {
			if from.Finished {
				return s.resumeFinished(ck, from)
			}
			start = start.Add(-from.Elapsed)
		}
	}
	if s.opt.Trace && s.trace.f == nil && s.opt.SpillDir != "" {
		if err := s.trace.createFile(s.opt.SpillDir); err != nil {
			return Result{}, err
		}
	}
	set := s.opt.Set
	if set == nil {
		mem := store.NewMem(0)
		defer mem.Close()
		set = mem
	}
	if s.opt.Remote != nil {
		return s.runRemote(ctx, start, set)
	}
	var fallback string
	if s.opt.Workers > 1 {
		cl, ok := s.m.(Cloner)
		switch {
		case s.opt.Order == DFS:
			fallback = "depth-first search is sequential"
		case !ok:
			fallback = fmt.Sprintf("the machine (%T) does not implement explore.Cloner", s.m)
		default:
			return s.runParallel(ctx, start, set, cl, ck, from)
		}
	}
	res, err := s.runSequential(ctx, start, set, ck, from)
	res.Workers, res.Fallback = 1, fallback
	return res, err
}

// report passes the statistics st, named by Options.Name, to
// Options.Progress.
func (s *Search) report(st Stats) {
	st.Search = s.opt.Name
	s.opt.Progress(st)
}

// Path rebuilds the run from the initial state to the state with the given id,
// which requires Options.Trace. The first step is the initial state, with label
// 0; each later step holds the label of a transition and the state it reached,
// the last one being state id. After a BFS search the run is a shortest one.
//
// Under symmetry (Reduced) the run is one of the machine, not of the
// representatives: each step is the image of the recorded one under the
// symmetry that maps the representative to the run's state, so its states
// are the real ones and the last is in the orbit of state id.
//
// Path replays the run by calling Successors along it, so it relies on the
// machine being deterministic; it reports an error if a replayed state emits
// fewer successors than were recorded.
func (s *Search) Path(id uint64) ([]Step, error) {
	switch {
	case !s.opt.Trace:
		return nil, errors.New("explore: Path requires Options.Trace")
	case !s.ran:
		return nil, errors.New("explore: Path called before Run")
	case s.closed:
		return nil, errors.New("explore: Path called after Close")
	case id >= s.trace.n:
		return nil, fmt.Errorf("explore: Path to state %d: only %d states were visited", id, s.trace.n)
	}

	// Collect the ordinals of the steps, from the target back to the root.
	var ords []uint32
	for x := id; x != 0; {
		parent, ord, err := s.trace.get(x)
		if err != nil {
			return nil, fmt.Errorf("explore: Path to state %d: %w", id, err)
		}
		if parent >= x {
			return nil, fmt.Errorf("explore: Path to state %d: corrupt parent record %d -> %d", id, x, parent)
		}
		ords = append(ords, ord)
		x = parent
	}

	if s.sym != nil {
		path, err := realPath(s.real, s.sym, ords)
		if err != nil {
			return nil, fmt.Errorf("explore: Path to state %d: %w", id, err)
		}
		return path, nil
	}
	path := make([]Step, 0, len(ords)+1)
	path = append(path, Step{State: s.m.Initial(nil)})
	var (
		want  uint32
		seen  uint32
		found bool
		step  Step
	)
	emit := func(l Label, next []byte) {
		if seen == want {
			step = Step{Label: l, State: bytes.Clone(next)}
			found = true
		}
		seen++
	}
	for i := len(ords) - 1; i >= 0; i-- {
		want, seen, found = ords[i], 0, false
		s.m.Successors(path[len(path)-1].State, emit)
		if !found {
			return nil, fmt.Errorf("explore: Path to state %d: replayed step %d emitted %d successors, want more than %d; is the machine deterministic?",
				id, len(path), seen, want)
		}
		path = append(path, step)
	}
	return path, nil
}

// Close releases the file of parent records that a search with Options.Trace
// keeps in Options.SpillDir or its checkpoint directory; Path fails after it.
// A Search without such a file needs no Close, and Close may be called more
// than once.
func (s *Search) Close() error {
	s.closed = true
	return s.trace.close()
}
