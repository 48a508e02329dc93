package stress

import (
	"cmp"
	"fmt"

	"rdmasim/opsem/machine"
)

// CheckFlags checks the numbers of o as rdmasim stress's flags give them,
// and names each by its flag: at least one walk of at least one step, a
// Bias that is a probability, and the machine's bounds
// (machine.UnrollBound, machine.InflightBound).
func (o Options) CheckFlags() error {
	var err error
	switch {
	case o.Walks < 1:
		err = fmt.Errorf("--walks %d: want at least 1", o.Walks)
	case o.Depth < 1:
		err = fmt.Errorf("--depth %d: want at least 1", o.Depth)
	case !(o.Bias >= 0 && o.Bias <= 1): // also rejects NaN
		err = fmt.Errorf("--bias %g: want a probability in 0..1", o.Bias)
	}
	return cmp.Or(err, machine.UnrollBound.CheckFlag(o.Machine.Unroll), machine.InflightBound.CheckFlag(o.Machine.MaxInflight))
}
