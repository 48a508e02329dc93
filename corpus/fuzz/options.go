package fuzz

import (
	"errors"
	"fmt"

	"rdmasim/corpus/differ"
	"rdmasim/opsem/machine"
)

// MaxWorkers bounds Options.Workers.
const MaxWorkers = 256

// Check checks the options of a run as rdmasim fuzz's flags give them, and
// names each by its flag: Count and SpinEvery at least 0, Duration not
// negative, Workers 1..MaxWorkers, the differ's MaxInflight within
// machine.InflightBound and MaxModelCost at least 0, and some end to the
// run (Count, Duration or ProgramSeeds).
func (o Options) Check() error {
	switch {
	case o.Count < 0:
		return fmt.Errorf("--count %d: want at least 0", o.Count)
	case o.Duration < 0:
		return fmt.Errorf("--time %s: want a positive duration", o.Duration)
	case o.Workers < 1 || o.Workers > MaxWorkers:
		return fmt.Errorf("--workers %d: want 1..%d", o.Workers, MaxWorkers)
	}
	if err := machine.InflightBound.CheckFlag(o.Differ.MaxInflight); err != nil {
		return err
	}
	switch {
	case o.SpinEvery < 0:
		return fmt.Errorf("--spin-every %d: want at least 0", o.SpinEvery)
	case !(o.Differ.MaxModelCost >= 0): // also rejects NaN
		return fmt.Errorf("--max-model-cost %g: want at least 0", o.Differ.MaxModelCost)
	case o.Count == 0 && o.Duration == 0 && len(o.ProgramSeeds) == 0:
		return errors.New("--count 0 needs --time (or Ctrl-C would be the only way out)")
	}
	return nil
}

// ResolveSpin turns SpinEvery off when SPIN is not available
// (differ.SpinAvailable), and says how SPIN is compared: "on every
// program", "on every N-th program" or "off (why)".
func (o *Options) ResolveSpin() string {
	note := fmt.Sprintf("on every %d-th program", o.SpinEvery)
	if o.SpinEvery == 1 {
		note = "on every program"
	}
	switch err := differ.SpinAvailable(); {
	case o.SpinEvery == 0:
		note = "off (--spin-every 0)"
	case err != nil:
		o.SpinEvery = 0
		note = "off (" + err.Error() + ")"
	}
	return note
}
