package explore

// SearchError is the failure of a search itself, rather than of what it was
// given to search: its visited set, frontier or parent records could not be
// written or read (a full disk, an I/O error), a checkpoint could not be
// saved, or the one to resume is corrupt. The packages that run searches
// (verdict, decide) return their searches' errors as SearchErrors, so that a
// front-end tells such a failure from an invalid program or flag with
// errors.As, whatever the message says. Its message is Err's.
type SearchError struct {
	Err error
}

func (e *SearchError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *SearchError) Unwrap() error { return e.Err }
