package parse

import "rdmasim/opsem/syntax"

// Error is a problem at a position of an input file, printed as
// file:line:col: message. The syntax package defines it; the resolver and
// the lowering report their mistakes with it too.
type Error = syntax.Error

// ErrorList is a list of errors, sorted by position. It is the error type
// Parse returns.
type ErrorList = syntax.ErrorList
