package machine

import "fmt"

// A Bound is a bound on the state space that a user sets: its name, which is
// also its command-line flag's, and the values it takes, Lo..Hi.
type Bound struct {
	Name   string
	Lo, Hi int
}

// The machines' bounds.
var (
	// InflightBound is Options.MaxInflight's.
	InflightBound = Bound{Name: "max-inflight", Lo: 1, Hi: 250}
	// UnrollBound is Options.Unroll's (0: no bound).
	UnrollBound = Bound{Name: "unroll", Lo: 0, Hi: 254}
)

// Check returns nil if n is one of b's values, else an error such as
// "max-inflight 0: must be 1..250".
func (b Bound) Check(n int) error {
	if n < b.Lo || n > b.Hi {
		return fmt.Errorf("%s %d: must be %d..%d", b.Name, n, b.Lo, b.Hi)
	}
	return nil
}

// CheckFlag is Check as a command-line tool says it of b's flag:
// "--max-inflight 0: want 1..250".
func (b Bound) CheckFlag(n int) error {
	if n < b.Lo || n > b.Hi {
		return fmt.Errorf("--%s %d: want %d..%d", b.Name, n, b.Lo, b.Hi)
	}
	return nil
}

// At names b set to n, as results name a bound that cut a search:
// "max-inflight=8", "unroll=2".
func (b Bound) At(n int) string { return fmt.Sprintf("%s=%d", b.Name, n) }
