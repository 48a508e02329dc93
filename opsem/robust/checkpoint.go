package robust

import (
	"errors"
	"fmt"

	"rdmasim/opsem/decide"
	"rdmasim/opsem/prog"
)

// Checkpointable says why the methods that name stands for (see Methods)
// cannot run on p with checkpoints (explore.Settings.Checkpoint), which
// save only explorations of machines: EnumAxiom explores none, and the
// decider's Karp–Miller search, which a poll on a loop needs, is not
// checkpointed. It returns nil when they can, or when p is nil (a program
// that was not read; its error is the caller's). Its errors name the flags
// of rdmasim robust.
func Checkpointable(name string, p *prog.Program) error {
	switch Method(name) {
	case EnumAxiom:
		return fmt.Errorf("--checkpoint saves the explorations of machines, which --method %s does not run: use decide, enum-machine, both or all", name)
	case Decider, Auto:
		if p == nil {
			return nil
		}
		if finite, err := decide.Finite(p); err == nil && !finite {
			return errors.New("--checkpoint: a poll on a loop makes the decider's poll counters unbounded, and its Karp–Miller search is not checkpointed: use --method enum-machine")
		}
	}
	return nil
}
