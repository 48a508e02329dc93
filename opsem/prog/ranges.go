package prog

import (
	"fmt"
	"strings"
)

// Range is the declared range of a location of a protocol that a write the
// lowering cannot check may leave: a put's or a get's write, a remote
// atomic's write or the landing of its old value, a cas's landing. The
// lowering checks the values of CPU stores where they are issued (an error
// point, OpFail); these values are known only when the write happens, so
// the semantics check them there: a configuration in which a location holds
// a value outside its Range is an error point of the whole run, from which
// no step leaves (machine.Failed), and a trace with a write outside it is
// not a trace of the program (the declarative model). Loc.Check is nil for
// every location no such write can take out of its range, as for every
// location of a litmus test.
type Range struct {
	Lo, Hi uint8
	// Writers are the statements that may write a value outside Lo..Hi
	// into the location, by the lowering's over-approximation of the
	// values each location can hold.
	Writers []Writer
}

// Writer is a statement that may write a value outside a location's Range.
type Writer struct {
	Thread int
	Pos    Pos
	Text   string // the statement as written: "data := buf"
}

// HasRangeChecks reports whether a location of p has a Range to check.
func HasRangeChecks(p *Program) bool {
	for l := range p.Locs {
		if p.Locs[l].Check != nil {
			return true
		}
	}
	return false
}

// OutOfRange returns the first location of cfg whose value is outside its
// Range, or -1.
func (p *Program) OutOfRange(cfg Config) int {
	for l := range p.Locs {
		if r := p.Locs[l].Check; r != nil {
			if v := cfg.Mem(l); v < r.Lo || v > r.Hi {
				return l
			}
		}
	}
	return -1
}

// RangeError describes location l holding v outside its Range, naming the
// statements that may have written it: "T at line 5 (data := buf): the
// value 2 written into data leaves its range 0..1".
func (p *Program) RangeError(l int, v uint8) string {
	r := p.Locs[l].Check
	var who []string
	for _, w := range r.Writers {
		who = append(who, fmt.Sprintf("%s at line %d (%s)", p.Threads[w.Thread].Name, w.Pos.Line, w.Text))
	}
	return strings.Join(who, " or ") + ": " + RangeMsg(p.Locs[l].Name, v, r.Lo, r.Hi)
}

// RangeMsg says that the value v written into location loc leaves its
// range lo..hi.
func RangeMsg(loc string, v, lo, hi uint8) string {
	return fmt.Sprintf("the value %d written into %s leaves its range %d..%d", v, loc, lo, hi)
}

// failedByRange reports whether thread t may have written the value out of
// its Range that a location of cfg holds (see Range): T@fail holds then.
func (p *Program) failedByRange(t int, cfg Config) bool {
	l := p.OutOfRange(cfg)
	if l < 0 {
		return false
	}
	for _, w := range p.Locs[l].Check.Writers {
		if w.Thread == t {
			return true
		}
	}
	return false
}

// RangeWriter reports whether thread t may write a value outside a
// location's Range.
func (p *Program) RangeWriter(t int) bool {
	for l := range p.Locs {
		if r := p.Locs[l].Check; r != nil {
			for _, w := range r.Writers {
				if w.Thread == t {
					return true
				}
			}
		}
	}
	return false
}

// RangeChecksError is the error of a semantics or method that does not
// check the writes of Range (the robustness decider, the Promela models,
// robustness by enumeration): it refuses the program rather than answer
// for a program whose runs it does not stop where the others do.
type RangeChecksError struct {
	What string // the semantics or method: "the decider"
	Loc  string // a location with a Range
	Lo   uint8
	Hi   uint8
	W    string // one statement that may write outside it, with its thread and line
}

func (e *RangeChecksError) Error() string {
	return fmt.Sprintf("%s does not check ranges of NIC writes: %s may write a value outside the range %d..%d of %s (an error point the machines stop at); use rdmasim check", e.What, e.W, e.Lo, e.Hi, e.Loc)
}

// CheckRanges returns a RangeChecksError naming what, for the first
// location of p with a Range, or nil when there is none.
func CheckRanges(p *Program, what string) error {
	for l := range p.Locs {
		if r := p.Locs[l].Check; r != nil {
			w := r.Writers[0]
			return &RangeChecksError{What: what, Loc: p.Locs[l].Name, Lo: r.Lo, Hi: r.Hi,
				W: fmt.Sprintf("%s at line %d (%s)", p.Threads[w.Thread].Name, w.Pos.Line, w.Text)}
		}
	}
	return nil
}

// WithoutRangeChecks returns p itself when no location of p has a Range,
// else a copy of p whose locations have none, and the reason to say so: "the
// range 0..3 of cnt (written by producer[0] at line 12: old[i] :=
// rfaa(cnt, 1))". Robustness asks whether every RDMA trace is an SC trace;
// its methods (the decider above all, which refuses what it does not
// cover) answer it on the program without the checks, and say so.
func WithoutRangeChecks(p *Program) (*Program, string) {
	if !HasRangeChecks(p) {
		return p, ""
	}
	q := *p
	q.Locs = append([]Loc(nil), p.Locs...)
	var what []string
	for l := range q.Locs {
		if r := q.Locs[l].Check; r != nil {
			w := r.Writers[0]
			what = append(what, fmt.Sprintf("the range %d..%d of %s (written by %s at line %d: %s)", r.Lo, r.Hi, q.Locs[l].Name, p.Threads[w.Thread].Name, w.Pos.Line, w.Text))
			q.Locs[l].Check = nil
		}
	}
	return &q, strings.Join(what, "; ")
}
