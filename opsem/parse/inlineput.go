package parse

// inlineMisplaced is the message for an `inline` mark on a statement that
// is not a put (SEMANTICS-VERBS.md 5): IBV_SEND_INLINE copies the data of
// an RDMA write (or send) into the work request when it is posted, and a
// get, a remote atomic, a local copy or an expression has no such data.
// what names the statement as the user wrote it.
func inlineMisplaced(what string) string {
	return "inline marks a put (its source is copied when the work request is posted, IBV_SEND_INLINE), not " + what
}
