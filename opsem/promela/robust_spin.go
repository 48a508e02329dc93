package promela

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// RobustRunOptions configure RunRobustness.
type RobustRunOptions struct {
	RunOptions
	// AllStates searches on past assertion violations (pan -c0), so that
	// the statistics cover the whole state space and Errors counts the
	// violations; by default pan stops at the first.
	AllStates bool
	// KeepWriteOnly runs spin -a -o2: variables that the model writes but
	// never reads stay in the state vector, so that pan's states are
	// opsem/instr's one to one. By default SPIN hides them (fewer states,
	// the same verdict).
	KeepWriteOnly bool
}

// RobustResult is what one SPIN run of a robustness model found.
type RobustResult struct {
	// Violation: an assertion failed, a target state of the instrumented
	// program is reachable, and the program is not robust.
	Violation bool
	// Errors is the number of violations pan reported (1 unless
	// AllStates).
	Errors int
	// Cut lists the bounds that blocked a step (CutMaxCounter): without a
	// violation, the program is then robust only up to the bound.
	Cut []string
	// States, Transitions, Depth and MemoryMiB are pan's statistics, as in
	// Result.
	States, Transitions uint64
	Depth               int
	MemoryMiB           float64
	// Durations of spin -a, of compiling pan.c and of the search.
	Generate, Compile, Search time.Duration
}

// Robust reports SPIN's verdict: robust when no violation was found.
func (r *RobustResult) Robust() bool { return !r.Violation }

// Complete reports whether the verdict is certain: a violation, or a
// search that no bound cut.
func (r *RobustResult) Complete() bool { return r.Violation || len(r.Cut) == 0 }

// RunRobustness checks a model written by WriteRobustness with SPIN: spin
// -a, the C compiler on pan.c (DefaultCFlags and ro.CFlags), and pan's
// search for an assertion violation (-E: blocked processes are no errors;
// -n: no unreached-code report). An error is returned when a tool fails or
// pan runs out of memory; an assertion violation is the answer "not
// robust", not an error.
func RunRobustness(ctx context.Context, model []byte, ro RobustRunOptions) (*RobustResult, error) {
	spinArgs := []string{"-a", "model.pml"}
	if ro.KeepWriteOnly {
		spinArgs = []string{"-a", "-o2", "model.pml"}
	}
	res := &RobustResult{}
	var err error
	res.Generate, res.Compile, res.Search, err = pipeline(ctx, model, ro.RunOptions, spinArgs,
		func(dir string, depth int) (bool, error) { return res.search(ctx, dir, depth, ro) })
	if err != nil {
		return nil, err
	}
	return res, nil
}

// search runs pan once with depth bound depth, and reports whether the
// bound was too small with no violation found (the search is then to be
// run again).
func (res *RobustResult) search(ctx context.Context, dir string, depth int, ro RobustRunOptions) (again bool, err error) {
	var extra []string
	if ro.AllStates {
		extra = append(extra, "-c0")
	}
	run, err := runPan(ctx, dir, depth, ro.HashBits, extra...)
	if err != nil {
		return false, err
	}
	st, err := run.stats()
	if err != nil {
		return false, err
	}
	if st.errors > 0 && !strings.Contains(run.out, "assertion violated") {
		return false, fmt.Errorf("pan: %d errors that are no assertion violations\n%s", st.errors, run.out)
	}
	// A violation found within the depth bound is real; without one, a
	// search cut by the bound proves nothing.
	if strings.Contains(run.out, tooSmall) && (st.errors == 0 || ro.AllStates) {
		return true, nil
	}
	res.Errors, res.Violation = st.errors, st.errors > 0
	res.Depth, res.States, res.Transitions, res.MemoryMiB = st.depth, st.states, st.transitions, st.memoryMiB
	res.Cut = sortedKeys(run.cuts)
	return false, nil
}
