// Package syntax is the front end of the .rdma format (shared/spec/FORMAT.md)
// and of its protocol language (docs/PROTOCOLS.md): the scanner, the
// recursive-descent parser and the syntax tree it builds, and the errors it
// reports, each at a position as file:line:col: message.
//
// ParseFile reads a whole file into a File. The tree keeps names as
// written: nothing is looked up, no location is given an index, no
// assignment is yet a put or a get. Package opsem/parse resolves a core
// file's tree into a prog.Program, or lowers a protocol file's, and is the
// entry point of every other package; corpus/surface interprets the tree
// directly to check that lowering.
//
// The parser stops at its first error (after it every token reads as the
// end of the file), and no input makes it panic: nesting is bounded by
// MaxDepth.
package syntax
