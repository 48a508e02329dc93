package explore

import "math/rand/v2"

// WalkEnd is why a random walk ended.
type WalkEnd uint8

// Why walks end.
const (
	// EndDeadEnd: the walk reached a state with no successors.
	EndDeadEnd WalkEnd = iota
	// EndDepth: the walk took WalkerOptions.MaxSteps transitions.
	EndDepth
	// EndStopped: the visitor returned false, or WalkerOptions.Done was
	// closed.
	EndStopped
)

// String names the end: "dead end", "depth" or "stopped".
func (e WalkEnd) String() string {
	switch e {
	case EndDeadEnd:
		return "dead end"
	case EndDepth:
		return "depth"
	}
	return "stopped"
}

// defaultWalkSteps is the step bound of a walk given none.
const defaultWalkSteps = 10000

// doneEvery is how many steps a walk takes between looks at
// WalkerOptions.Done.
const doneEvery = 1 << 12

// WalkerOptions configure a Walker.
type WalkerOptions struct {
	// MaxSteps bounds the transitions of one walk; zero or less means 10000.
	MaxSteps int
	// Prefer marks the preferred transitions, by label; nil prefers none.
	Prefer func(Label) bool
	// Bias is the probability, in [0, 1], that a step from a state with both
	// preferred and other successors chooses uniformly among the preferred
	// ones only; otherwise (and always at states whose successors are all
	// preferred or all not) it chooses uniformly among all successors. Zero
	// gives plain uniform walks; one takes a preferred transition whenever
	// there is one.
	Bias float64
	// Trace keeps the labels of each walk's transitions (Walker.Trace).
	Trace bool
	// Done, when closed, stops the current walk within a few thousand steps
	// (EndStopped); nil never stops.
	Done <-chan struct{}
}

// WalkResult describes one walk.
type WalkResult struct {
	Steps int     // transitions taken
	End   WalkEnd // why the walk ended
	// Pruned is the OR of the bounds reported by every state expanded.
	Pruned Pruned
	// LastPruned is what the last state expanded reported: for a dead end,
	// nonzero when a bound cut its successors (the walk did not end on its
	// own).
	LastPruned Pruned
}

// Walker takes random walks through the state space of a machine: from the
// initial state, each step moves to one of the current state's successors
// chosen uniformly at random (or, with WalkerOptions.Bias, preferring some
// transitions). A walk is determined by the machine, the options and the
// state of the generator, so walks are reproduced by seeding a fresh
// generator identically. It is the package's one random walker: stress
// testing (opsem/stress.Run) takes many walks with one Walker, and a single
// run (rdmasim run, opsem/stress.Walk) takes one.
//
// A Walker reuses its buffers: once they have grown to the largest state and
// successor count met, a step allocates nothing. Each step collects the
// successors of the current state into one flat buffer and then draws a
// single random number (none when there is one successor). A Walker is not
// safe for concurrent use.
type Walker struct {
	m     Machine
	rng   *rand.Rand
	opt   WalkerOptions
	emit  func(Label, []byte)
	cur   []byte  // the current state
	succ  []byte  // successors of cur, concatenated
	ends  []int   // ends[i]: end of successor i in succ
	label []Label // label[i]: the label of successor i
	pref  []int   // indices of the preferred successors
	trace []Label
}

// NewWalker returns a walker over m that draws from rng.
func NewWalker(m Machine, rng *rand.Rand, opt WalkerOptions) *Walker {
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = defaultWalkSteps
	}
	w := &Walker{m: m, rng: rng, opt: opt}
	if opt.Prefer != nil && opt.Bias > 0 {
		prefer := opt.Prefer
		w.emit = func(l Label, s []byte) {
			if prefer(l) {
				w.pref = append(w.pref, len(w.label))
			}
			w.succ = append(w.succ, s...)
			w.ends = append(w.ends, len(w.succ))
			w.label = append(w.label, l)
		}
	} else {
		w.emit = func(l Label, s []byte) {
			w.succ = append(w.succ, s...)
			w.ends = append(w.ends, len(w.succ))
			w.label = append(w.label, l)
		}
	}
	return w
}

// Walk takes one walk from the initial state. If visit is not nil, it is
// called with the initial state (step 0) and with the state reached by each
// transition (step 1, 2, ...); the walk stops when it returns false. The
// state passed to visit is valid only during the call.
func (w *Walker) Walk(visit func(step int, s []byte) bool) WalkResult {
	var r WalkResult
	w.cur = w.m.Initial(w.cur[:0])
	w.trace = w.trace[:0]
	if visit != nil && !visit(0, w.cur) {
		r.End = EndStopped
		return r
	}
	for r.Steps < w.opt.MaxSteps {
		if w.opt.Done != nil && r.Steps%doneEvery == doneEvery-1 {
			select {
			case <-w.opt.Done:
				r.End = EndStopped
				return r
			default:
			}
		}
		w.succ, w.ends, w.label, w.pref = w.succ[:0], w.ends[:0], w.label[:0], w.pref[:0]
		r.LastPruned = w.m.Successors(w.cur, w.emit)
		r.Pruned |= r.LastPruned
		n := len(w.ends)
		if n == 0 {
			r.End = EndDeadEnd
			return r
		}
		i := w.choose(n)
		start := 0
		if i > 0 {
			start = w.ends[i-1]
		}
		w.cur = append(w.cur[:0], w.succ[start:w.ends[i]]...)
		if w.opt.Trace {
			w.trace = append(w.trace, w.label[i])
		}
		r.Steps++
		if visit != nil && !visit(r.Steps, w.cur) {
			r.End = EndStopped
			return r
		}
	}
	r.End = EndDepth
	return r
}

// choose picks one of the n >= 1 successors collected.
func (w *Walker) choose(n int) int {
	if k := len(w.pref); k > 0 && k < n && w.rng.Float64() < w.opt.Bias {
		if k == 1 {
			return w.pref[0]
		}
		return w.pref[w.rng.IntN(k)]
	}
	if n == 1 {
		return 0
	}
	return w.rng.IntN(n)
}

// State returns the state the last walk ended in. It is valid until the
// next walk.
func (w *Walker) State() []byte { return w.cur }

// Trace returns the labels of the last walk's transitions, when
// WalkerOptions.Trace is set. It is valid until the next walk.
func (w *Walker) Trace() []Label { return w.trace }
