package explore

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"rdmasim/store"
)

// Settings are what a user sets for every search a command runs on their
// behalf (a command may run several per input): the fields of Options that
// are the user's (order, bounds, workers, progress, where the frontier and
// the parent records live), and how to make what each search needs of its
// own: its visited set and its checkpoint. Open turns them, and what the
// caller brings (Caller), into one search.
type Settings struct {
	// Order, MaxStates, Timeout, Progress, Workers, SpillDir and
	// FrontierBudget are those of Options.
	Order     Order
	MaxStates uint64
	Timeout   time.Duration
	Progress  func(Stats)
	Workers   int // goroutines expanding states (0 or 1: sequential)
	// Symmetry is Options.Symmetry: one state per orbit of the machine's
	// symmetry, when it has one.
	Symmetry bool
	// NewSet, when non-nil, makes the visited set of each search (e.g. a
	// Pebble set on disk) from the search's key (Caller.Key, "" for a
	// search without one); the search's close closes it. Nil: in memory.
	NewSet func(key string) (store.Set, error)
	// Checkpoint, when non-nil, makes each search checkpoint itself: it is
	// called with the search's key (Caller.Key), which names it among the
	// run's searches whatever the order they are opened in, and returns
	// the search's Checkpoint (its directory, period and whether to
	// resume), or nil for none. Nil: no checkpoints.
	Checkpoint     func(key string) *Checkpoint
	SpillDir       string
	FrontierBudget int64
	// Remote, when non-nil, makes the Remote that expands each search
	// (Options.Remote) on other processes, from the search's description
	// (Caller.Job: what those processes build its machine from); the
	// search's close closes what it returns. A search that brings no Job
	// cannot be expanded elsewhere: Open refuses it. Nil: this process
	// expands.
	Remote func(job []byte) (RemoteCloser, error)
}

// A RemoteCloser is a Remote that holds resources (a run on a cluster) until
// it is closed.
type RemoteCloser interface {
	Remote
	Close() error
}

// Caller is what the caller of one search brings to it: the fields of
// Options that are the caller's (Name, Trace, Visit, and for checkpoints
// Meta, Save and Restore), with Meta any value that encodes to JSON, and
// the search's key.
type Caller struct {
	// Key names the search among those of a run, from what it searches
	// (for rdmasim's machines, the key of its job, opsem/job): its
	// checkpoint and its visited set on disk are named after it, so that
	// a resumed run finds each search's whatever order it opens them in.
	// A checkpointed search needs one; explore does not interpret it.
	Key string
	// Job describes the search to the processes that expand it
	// (Settings.Remote): for rdmasim's machines, the encoding of its job
	// (opsem/job), which a worker builds the same machine from. explore
	// does not interpret it; nil for a search that only runs here.
	Job     []byte
	Name    string
	Trace   bool
	Visit   func(id uint64, s []byte, depth int) bool
	Meta    any
	Save    func() (json.RawMessage, error)
	Restore func(json.RawMessage) error
}

// Open sets up one search of m with these settings and what the caller
// brings: it makes the visited set, and the checkpoint if there is one.
// close releases the search's files and its visited set; call it once the
// search's paths are no longer needed.
func (st *Settings) Open(m Machine, c Caller) (s *Search, close func(), err error) {
	var set store.Set
	closeSet := func() {}
	if st.NewSet != nil {
		if set, err = st.NewSet(c.Key); err != nil {
			return nil, nil, fmt.Errorf("opening the visited set: %w", err)
		}
		closeSet = func() { set.Close() }
	}
	var remote RemoteCloser
	if st.Remote != nil {
		if c.Job == nil {
			closeSet()
			return nil, nil, errors.New("a remote search without a description (explore.Caller.Job) to build its machine from")
		}
		if remote, err = st.Remote(c.Job); err != nil {
			closeSet()
			return nil, nil, fmt.Errorf("starting the remote search: %w", err)
		}
		cs := closeSet
		closeSet = func() { remote.Close(); cs() }
	}
	var ck *Checkpoint
	var meta json.RawMessage
	if st.Checkpoint != nil {
		if c.Key == "" {
			closeSet()
			return nil, nil, errors.New("a checkpointed search without a key (explore.Caller.Key) to name its checkpoint")
		}
		if ck = st.Checkpoint(c.Key); ck != nil {
			if meta, err = json.Marshal(c.Meta); err != nil {
				closeSet()
				return nil, nil, fmt.Errorf("describing the search: %w", err)
			}
		}
	}
	s = New(m, Options{
		Order:          st.Order,
		MaxStates:      st.MaxStates,
		Timeout:        st.Timeout,
		Progress:       st.Progress,
		Workers:        st.Workers,
		SpillDir:       st.SpillDir,
		FrontierBudget: st.FrontierBudget,
		Symmetry:       st.Symmetry,
		Set:            set,
		Checkpoint:     ck,
		Remote:         remote,

		Name:    c.Name,
		Trace:   c.Trace,
		Visit:   c.Visit,
		Meta:    meta,
		Save:    c.Save,
		Restore: c.Restore,
	})
	return s, func() {
		s.Close()
		closeSet()
	}, nil
}
