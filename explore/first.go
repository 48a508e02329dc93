package explore

// First stops a search at the first state its predicate accepts and keeps
// that state's id, for searches that look for one state (a violation, a
// target, the end of a trace to replay). Its Visit is the search's
// Options.Visit (or Caller.Visit), or is called from one that checks more.
type First struct {
	// ID is the id of the state found, -1 until one is (a resumed search
	// may set it from its checkpoint).
	ID     int64
	accept func(state []byte) bool
}

// FirstWhere returns a First whose predicate is accept.
func FirstWhere(accept func(state []byte) bool) *First {
	return &First{ID: -1, accept: accept}
}

// Visit records the state id and stops the search (returns false) when
// accept takes the state; it goes on otherwise.
func (f *First) Visit(id uint64, state []byte, _ int) bool {
	if f.accept(state) {
		f.ID = int64(id)
		return false
	}
	return true
}

// Found reports whether a state was found.
func (f *First) Found() bool { return f.ID >= 0 }
