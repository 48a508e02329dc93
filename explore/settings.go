package explore

import (
	"encoding/json"
	"fmt"
	"time"

	"rdmasim/store"
)

// Settings are what a user sets for every search a command runs on their
// behalf (a command may run several per input): order, bounds, workers,
// progress, where the visited set, the frontier and the parent records
// live, and checkpoints. Open turns them into one search.
type Settings struct {
	Order     Order
	MaxStates uint64
	Timeout   time.Duration
	Progress  func(Stats)
	Workers   int // goroutines expanding states (0 or 1: sequential)
	// NewSet, when non-nil, makes the visited set of each search (e.g. a
	// Pebble set on disk); the search's close closes it. Nil: in memory.
	NewSet func() (store.Set, error)
	// Checkpoint, when non-nil, makes each search checkpoint itself: it is
	// called once per search, in the order the searches are opened, and
	// returns the checkpoint's directory, period and whether to resume
	// (Dir, Every, Resume), or nil for none. Open fills in the rest: the
	// search's description (Meta) and the state its visitor collects
	// (Save, Restore), so that a resumed search gives the result of an
	// uninterrupted one. Nil: no checkpoints.
	Checkpoint func() *Checkpoint
	// SpillDir and FrontierBudget are those of Options: a directory where
	// each search keeps its parent records and the part of its
	// breadth-first frontier beyond FrontierBudget bytes. Empty: both in
	// memory.
	SpillDir       string
	FrontierBudget int64
}

// Caller is what the caller of one search brings to it: whether it keeps
// parent records (Options.Trace), its visitor, and for checkpoints its
// description (Meta, any JSON value) and the state its visitor builds (Save,
// Restore; see Checkpoint).
type Caller struct {
	// Name says which search this is in progress reports (Stats.Search),
	// e.g. "SB-PUT rdma".
	Name    string
	Trace   bool
	Visit   func(id uint64, s []byte, depth int) bool
	Meta    any
	Save    func() (json.RawMessage, error)
	Restore func(json.RawMessage) error
}

// Open sets up one search of m with these settings: it makes the visited
// set, and the checkpoint if there is one. close releases the search's files
// and its visited set; call it once the search's paths are no longer needed.
func (st *Settings) Open(m Machine, c Caller) (s *Search, close func(), err error) {
	var set store.Set
	closeSet := func() {}
	if st.NewSet != nil {
		if set, err = st.NewSet(); err != nil {
			return nil, nil, fmt.Errorf("opening the visited set: %w", err)
		}
		closeSet = func() { set.Close() }
	}
	var ck *Checkpoint
	if st.Checkpoint != nil {
		if ck = st.Checkpoint(); ck != nil {
			meta, err := json.Marshal(c.Meta)
			if err != nil {
				closeSet()
				return nil, nil, fmt.Errorf("describing the search: %w", err)
			}
			ck.Meta, ck.Save, ck.Restore = meta, c.Save, c.Restore
		}
	}
	s = New(m, Options{
		Set:            set,
		Workers:        st.Workers,
		Order:          st.Order,
		MaxStates:      st.MaxStates,
		Timeout:        st.Timeout,
		Trace:          c.Trace,
		Visit:          c.Visit,
		Progress:       st.named(c.Name),
		Checkpoint:     ck,
		SpillDir:       st.SpillDir,
		FrontierBudget: st.FrontierBudget,
	})
	return s, func() {
		s.Close()
		closeSet()
	}, nil
}

// named returns the Progress of these settings with the search's name filled
// in, or nil when there is none.
func (st *Settings) named(name string) func(Stats) {
	if st.Progress == nil {
		return nil
	}
	progress := st.Progress
	return func(s Stats) {
		s.Search = name
		progress(s)
	}
}
