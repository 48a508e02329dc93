package verdict

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
)

// tally is what Compute's visitor collects while the search runs: the
// counts of res, the distinct final outcomes, the error points reached,
// and the states of the witness and of the first deadlock. A checkpoint
// saves it (computeState) and a resumed search restores it.
type tally struct {
	p            *prog.Program
	m            *machine.Machine
	cond         *prog.Cond // the query's condition, true when it has none
	res          *Result
	firstWitness bool // stop at the first state that settles the query
	hasErrors    bool // p has error points (HasErrorPoints)

	outcomes map[string]bool // the values of res.Locs of each final outcome → whether it satisfies cond
	key      []byte          // scratch: the outcome of the state visited
	witness  int64           // the id of the witness state, -1: none yet
	deadlock int64           // the id of the first deadlocked state, -1: none yet
	errs     map[string]bool // the error points reached, described (ErrorPoints)
}

// newTally returns the empty tally of a search of m, built for p, whose
// condition is cond, into res.
func newTally(p *prog.Program, m *machine.Machine, cond *prog.Cond, res *Result, firstWitness bool) *tally {
	return &tally{
		p: p, m: m, cond: cond, res: res, firstWitness: firstWitness, hasErrors: HasErrorPoints(p),
		outcomes: map[string]bool{}, key: make([]byte, len(res.Locs)),
		witness: -1, deadlock: -1, errs: map[string]bool{},
	}
}

// visit is the search's visitor: it counts the state (final, or stuck and
// how), records the error points it is at, evaluates a reach condition on
// it and, when it is final, its outcome. It returns false to stop the
// search at the first witness (firstWitness).
func (t *tally) visit(id uint64, s []byte, depth int) bool {
	// The visitor reads states in place: decoding every one would cost
	// as much as generating it.
	st := t.m.Encoded(s)
	final := t.m.FinalEncoded(s)
	t.countKind(id, s, final)
	if t.hasErrors {
		for _, e := range ErrorPoints(t.p, st) {
			if t.res.ErrorAt == "" {
				t.res.ErrorAt = e
			}
			t.errs[e] = true
		}
	}
	kind := t.res.Query.Kind
	if kind == prog.QReach {
		if t.cond.Eval(t.p, st) {
			t.res.Positive++
			if t.witness < 0 {
				t.witness = int64(id)
				if t.firstWitness {
					return false
				}
			}
		} else {
			t.res.Negative++
		}
	}
	if !final {
		return true
	}
	return t.outcome(id, st)
}

// countKind counts state id (encoded s) as final, or as stuck: filtered
// by an assume, deadlocked (the first one kept, with where its threads
// wait) or failed.
func (t *tally) countKind(id uint64, s []byte, final bool) {
	res := t.res
	if final {
		res.Finals++
		return
	}
	switch t.m.StuckEncoded(s) {
	case machine.Filtered:
		res.Filtered++
	case machine.Deadlock:
		if res.Deadlocks == 0 {
			t.deadlock = int64(id)
			res.DeadlockAt = t.m.Waiting(s)
		}
		res.Deadlocks++
	case machine.Failed:
		res.Failed++
	}
}

// outcome records the outcome of final state id (configuration st) the
// first time it is met: whether it satisfies the condition and, for a
// query about final configurations, the counts and the witness (of exists,
// or the counterexample of ~exists and forall). It returns false to stop
// the search at the first witness.
func (t *tally) outcome(id uint64, st machine.Encoded) bool {
	for i, l := range t.res.Locs {
		t.key[i] = st.Mem(l)
	}
	if _, seen := t.outcomes[string(t.key)]; seen {
		return true
	}
	sat := t.cond.Eval(t.p, st)
	t.outcomes[string(t.key)] = sat
	kind := t.res.Query.Kind
	if kind == prog.QReach || kind == prog.QNone {
		return true
	}
	if sat {
		t.res.Positive++
	} else {
		t.res.Negative++
	}
	want := sat
	if kind == prog.QForall {
		want = !sat
	}
	if want && t.witness < 0 {
		t.witness = int64(id)
		if t.firstWitness {
			return false
		}
	}
	return true
}

// closeUnder completes the outcomes of a search reduced by sym with their
// images under sym and, for a query about final configurations, counts
// them again: one per outcome.
func (t *tally) closeUnder(sym *prog.Symmetry) {
	closeOutcomes(t.p, sym, t.res.Locs, t.outcomes)
	if kind := t.res.Query.Kind; kind == prog.QReach || kind == prog.QNone {
		return
	}
	t.res.Positive, t.res.Negative = 0, 0
	for _, sat := range t.outcomes {
		if sat {
			t.res.Positive++
		} else {
			t.res.Negative++
		}
	}
}

// finish writes the outcomes and the error points into res, sorted, and
// whether the condition is allowed.
func (t *tally) finish() {
	res := t.res
	for k, sat := range t.outcomes {
		res.Outcomes = append(res.Outcomes, Outcome{Values: []uint8(k), Satisfies: sat})
	}
	sort.Slice(res.Outcomes, func(i, j int) bool {
		return string(res.Outcomes[i].Values) < string(res.Outcomes[j].Values)
	})
	res.Allowed = res.Positive > 0
	for e := range t.errs {
		res.Errors = append(res.Errors, e)
	}
	sort.Strings(res.Errors)
}

// rebuildRuns sets res's witness run and the run to its first deadlock
// from search, which kept a parent per state (Options.Witness).
func (t *tally) rebuildRuns(search *explore.Search, sem machine.Semantics) error {
	res, name := t.res, t.p.Name
	if t.witness >= 0 {
		path, err := search.Path(uint64(t.witness))
		if err != nil {
			return &explore.SearchError{Err: fmt.Errorf("rebuilding the witness of %s under %s: %w", name, sem, err)}
		}
		res.Witness = explain(t.m, path)
	}
	if t.deadlock >= 0 {
		path, err := search.Path(uint64(t.deadlock))
		if err != nil {
			return &explore.SearchError{Err: fmt.Errorf("rebuilding the run to a deadlock of %s under %s: %w", name, sem, err)}
		}
		res.DeadlockRun = explain(t.m, path)
		if res.Symmetry != "" {
			// The run ends in the orbit of the configuration the
			// search saw: say where its threads wait.
			res.DeadlockAt = t.m.Waiting(res.DeadlockRun.Last())
		}
	}
	return nil
}

// save is the search's checkpoint of the tally (computeState).
func (t *tally) save() (json.RawMessage, error) {
	res := t.res
	cs := computeState{
		Positive: res.Positive, Negative: res.Negative, Witness: t.witness,
		Finals: res.Finals, Filtered: res.Filtered, Deadlocks: res.Deadlocks, Failed: res.Failed, Deadlock: &t.deadlock, DeadlockAt: res.DeadlockAt, ErrorAt: res.ErrorAt,
	}
	for e := range t.errs {
		cs.Errors = append(cs.Errors, e)
	}
	sort.Strings(cs.Errors)
	for k, sat := range t.outcomes {
		cs.Outcomes = append(cs.Outcomes, outcomeState{Values: hex.EncodeToString([]byte(k)), Satisfies: sat})
	}
	sort.Slice(cs.Outcomes, func(i, j int) bool { return cs.Outcomes[i].Values < cs.Outcomes[j].Values })
	return json.Marshal(cs)
}

// restore sets the tally to the checkpoint data that save wrote.
func (t *tally) restore(data json.RawMessage) error {
	var cs computeState
	if err := json.Unmarshal(data, &cs); err != nil {
		return err
	}
	res := t.res
	clear(t.outcomes)
	for _, o := range cs.Outcomes {
		k, err := hex.DecodeString(o.Values)
		if err != nil || len(k) != len(res.Locs) {
			return fmt.Errorf("outcome %q: not %d hexadecimal values", o.Values, len(res.Locs))
		}
		t.outcomes[string(k)] = o.Satisfies
	}
	res.Positive, res.Negative, t.witness = cs.Positive, cs.Negative, cs.Witness
	res.Finals, res.Filtered, res.Deadlocks, res.DeadlockAt = cs.Finals, cs.Filtered, cs.Deadlocks, cs.DeadlockAt
	res.ErrorAt, res.Failed = cs.ErrorAt, cs.Failed
	clear(t.errs)
	for _, e := range cs.Errors {
		t.errs[e] = true
	}
	if cs.Deadlock == nil {
		// Its final and stuck configurations were never counted:
		// resuming would report a vacuous verdict.
		return errors.New("the checkpoint was written by an older rdmasim, which did not count final and stuck configurations: run the search again")
	}
	t.deadlock = *cs.Deadlock
	return nil
}

// closeOutcomes adds to outcomes (keyed by the values of locs) their
// images under every permutation of sym, with the same satisfaction (the
// query is invariant under sym). locs is invariant under sym as a set.
func closeOutcomes(p *prog.Program, sym *prog.Symmetry, locs []int, outcomes map[string]bool) {
	pos := make([]int, len(p.Locs))
	for i := range pos {
		pos[i] = -1
	}
	for i, l := range locs {
		pos[l] = i
	}
	found := make([]string, 0, len(outcomes))
	for k := range outcomes {
		found = append(found, k)
	}
	img := make([]byte, len(locs))
	sym.Permutations(p, func(r prog.Renaming) bool {
		for _, k := range found {
			for i, l := range locs {
				// The value at l moves to r.Loc[l].
				img[pos[r.Loc[l]]] = k[i]
			}
			if _, ok := outcomes[string(img)]; !ok {
				outcomes[string(img)] = outcomes[k]
			}
		}
		return true
	})
}

// computeState is the state of Compute's visitor in a checkpoint.
type computeState struct {
	Outcomes []outcomeState `json:"outcomes"`
	Positive uint64         `json:"positive"`
	Negative uint64         `json:"negative"`
	Witness  int64          `json:"witness"` // the id of the witness, or -1
	// Since the deadlock report; a checkpoint without them was written by
	// a search that did not count them (Deadlock nil).
	Finals     uint64 `json:"finals,omitempty"`
	Filtered   uint64 `json:"filtered,omitempty"`
	Deadlocks  uint64 `json:"deadlocks,omitempty"`
	Failed     uint64 `json:"failed,omitempty"`
	Deadlock   *int64 `json:"deadlock,omitempty"` // the id of the first deadlock, or -1
	DeadlockAt string `json:"deadlock_at,omitempty"`
	ErrorAt    string `json:"error_at,omitempty"`
	// Errors are the error points reached (Result.Errors); a checkpoint
	// written before they were kept has none.
	Errors []string `json:"errors,omitempty"`
}

// outcomeState is one distinct final outcome in a checkpoint: the values of
// Result.Locs in hexadecimal, and whether the condition holds.
type outcomeState struct {
	Values    string `json:"values"`
	Satisfies bool   `json:"satisfies"`
}
