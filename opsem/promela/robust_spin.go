package promela

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
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
	args := []string{"-E", "-n", "-m" + strconv.Itoa(depth)}
	if ro.HashBits > 0 {
		args = append(args, "-w"+strconv.Itoa(ro.HashBits))
	}
	if ro.AllStates {
		args = append(args, "-c0")
	}
	cmd := command(ctx, dir, "./pan", args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return false, fmt.Errorf("pan: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("pan: %w", err)
	}
	cuts := map[string]bool{}
	var rest strings.Builder // everything but CUT lines
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, CutPrefix+" ") {
			cuts[strings.TrimPrefix(line, CutPrefix+" ")] = true
			continue
		}
		rest.WriteString(line)
		rest.WriteByte('\n')
	}
	scanErr := sc.Err()
	waitErr := cmd.Wait()
	out := rest.String()
	if scanErr != nil {
		return false, fmt.Errorf("pan: reading its output: %w", scanErr)
	}
	if waitErr != nil {
		var ee *exec.ExitError
		if !errors.As(waitErr, &ee) || ctx.Err() != nil {
			return false, fmt.Errorf("pan: %w", waitErr)
		}
		return false, fmt.Errorf("pan: %v\n%s%s", waitErr, out, stderr.String())
	}
	m := depthRE.FindStringSubmatch(out)
	if m == nil {
		return false, fmt.Errorf("pan: no statistics in its output\n%s%s", out, stderr.String())
	}
	for _, bad := range []string{"out of memory", "VECTORSZ", "aborted"} {
		if strings.Contains(out, bad) {
			return false, fmt.Errorf("pan: %s\n%s", bad, out)
		}
	}
	errs, _ := strconv.Atoi(m[2])
	if errs > 0 && !strings.Contains(out, "assertion violated") {
		return false, fmt.Errorf("pan: %d errors that are no assertion violations\n%s", errs, out)
	}
	// A violation found within the depth bound is real; without one, a
	// search cut by the bound proves nothing.
	if strings.Contains(out, tooSmall) && (errs == 0 || ro.AllStates) {
		return true, nil
	}
	res.Errors, res.Violation = errs, errs > 0
	res.Depth, _ = strconv.Atoi(m[1])
	if m := statsRE.FindStringSubmatch(out); m != nil {
		res.States, _ = strconv.ParseUint(m[1], 10, 64)
	}
	if m := transRE.FindStringSubmatch(out); m != nil {
		res.Transitions, _ = strconv.ParseUint(m[1], 10, 64)
	}
	if m := memRE.FindStringSubmatch(out); m != nil {
		res.MemoryMiB, _ = strconv.ParseFloat(m[1], 64)
	}
	res.Cut = sortedKeys(cuts)
	return false, nil
}
