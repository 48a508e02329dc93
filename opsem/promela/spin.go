package promela

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// RunOptions configure Run.
type RunOptions struct {
	// Dir is the working directory for model.pml, pan.c and pan; "" makes
	// a temporary one, removed afterwards.
	Dir string
	// Spin and CC are the commands; "" means "spin" and "gcc" on PATH.
	Spin, CC string
	// CFlags are added to the compiler flags (DefaultCFlags()), e.g.
	// "-DCOLLAPSE" to compress states.
	CFlags []string
	// MaxDepth is pan's first search depth bound (-m); Run searches again
	// with ten times the bound while pan reports it too small. 0: 100,000.
	MaxDepth int
	// HashBits sizes pan's hash table (2^HashBits slots, -w); 0 leaves
	// pan's default (24: 128 MiB, which pan clears on every run). Small
	// models run faster with 16 or so.
	HashBits int
}

// DefaultCFlags returns the C compiler flags that compile pan for an
// exhaustive safety search without partial order reduction (every
// interleaving of the machine is explored, as rdmasim does; with the
// model's global variables SPIN's reduction would not apply anyway) in
// which the model's printf statements print. -O1: on the benchmark
// programs pan searches as fast as with -O2 and compiles in half the time.
func DefaultCFlags() []string {
	return []string{"-O1", "-DSAFETY", "-DNOREDUCE", "-DPRINTF", "-DVECTORSZ=65536"}
}

// Result is what one SPIN run found.
type Result struct {
	// Outcomes are the distinct final outcomes, each the text after
	// "OUTCOME " ("x=1 y=0"; "" when no location is shown), sorted.
	Outcomes []string
	// Cut lists the bounds that blocked a step ("max-inflight", "unroll").
	Cut []string
	// States, Transitions and Depth are pan's statistics: states stored,
	// transitions (stored + matched) and the depth reached.
	States, Transitions uint64
	Depth               int
	// MemoryMiB is pan's "total actual memory usage" (hash table, states,
	// search stack), in MiB.
	MemoryMiB float64
	// Durations of spin -a, of compiling pan.c and of the search.
	Generate, Compile, Search time.Duration
}

// Run checks a Promela model written by Write with SPIN: spin -a, the C
// compiler on pan.c, and pan's exhaustive search (-E: final configurations
// with blocked processes are no errors; -n: no unreached-code report). It
// collects the OUTCOME and CUT lines the model prints. An error is returned
// when a tool fails, when pan reports errors, or when pan runs out of
// memory.
func Run(ctx context.Context, model []byte, ro RunOptions) (*Result, error) {
	res := &Result{}
	var err error
	res.Generate, res.Compile, res.Search, err = pipeline(ctx, model, ro, []string{"-a", "model.pml"},
		func(dir string, depth int) (bool, error) { return res.search(ctx, dir, depth, ro.HashBits) })
	if err != nil {
		return nil, err
	}
	return res, nil
}

// pipeline writes model to model.pml in ro.Dir (a temporary directory,
// removed afterwards, if ro.Dir is empty), runs spin with spinArgs and the C
// compiler (DefaultCFlags and ro.CFlags) on it, then calls search with pan's
// depth bound, from ro.MaxDepth (100,000 if zero) on, ten times larger each
// time search reports the bound too small. It returns the time of each
// phase: spin, the compiler and the searches.
func pipeline(ctx context.Context, model []byte, ro RunOptions, spinArgs []string, search func(dir string, depth int) (again bool, err error)) (gen, compile, srch time.Duration, err error) {
	spin, cc := cmp.Or(ro.Spin, "spin"), cmp.Or(ro.CC, "gcc")
	dir := ro.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "rdmasim-spin-")
		if err != nil {
			return 0, 0, 0, fmt.Errorf("spin: %w", err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	if err := os.WriteFile(filepath.Join(dir, "model.pml"), model, 0o644); err != nil {
		return 0, 0, 0, fmt.Errorf("spin: %w", err)
	}
	start := time.Now()
	if out, err := command(ctx, dir, spin, spinArgs...).CombinedOutput(); err != nil || bytes.Contains(out, []byte("Error")) {
		return 0, 0, 0, fmt.Errorf("spin %s: %v\n%s", strings.Join(spinArgs, " "), exitErr(err), out)
	}
	gen = time.Since(start)
	start = time.Now()
	args := append(append(DefaultCFlags(), ro.CFlags...), "-o", "pan", "pan.c")
	if out, err := command(ctx, dir, cc, args...).CombinedOutput(); err != nil {
		return 0, 0, 0, fmt.Errorf("%s %s: %v\n%s", cc, strings.Join(args, " "), exitErr(err), out)
	}
	compile = time.Since(start)
	depth := ro.MaxDepth
	if depth <= 0 {
		depth = 100000
	}
	start = time.Now()
	for {
		again, err := search(dir, depth)
		if err != nil {
			return 0, 0, 0, err
		}
		if !again {
			break
		}
		if depth >= 1e9 {
			return 0, 0, 0, fmt.Errorf("pan: search depth %d too small", depth)
		}
		depth *= 10
	}
	return gen, compile, time.Since(start), nil
}

func command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, name, args...)
	c.Dir = dir
	return c
}

func exitErr(err error) string {
	if err == nil {
		return "reported errors"
	}
	return err.Error()
}

var (
	statsRE  = regexp.MustCompile(`(?m)^\s*(\d+) states, stored`)
	transRE  = regexp.MustCompile(`(?m)^\s*(\d+) transitions`)
	memRE    = regexp.MustCompile(`(?m)^\s*([0-9.]+)\s+total actual memory usage`)
	depthRE  = regexp.MustCompile(`depth reached (\d+), errors: (\d+)`)
	tooSmall = "max search depth too small"
)

// search runs pan once with depth bound depth, and reports whether the
// bound was too small (the results are then to be discarded).
func (res *Result) search(ctx context.Context, dir string, depth, hashBits int) (again bool, err error) {
	run, err := runPan(ctx, dir, depth, hashBits)
	if err != nil {
		return false, err
	}
	if strings.Contains(run.out, tooSmall) {
		return true, nil
	}
	st, err := run.stats()
	if err != nil {
		return false, err
	}
	if st.errors != 0 {
		return false, fmt.Errorf("pan: %d errors\n%s", st.errors, run.out)
	}
	res.Depth, res.States, res.Transitions, res.MemoryMiB = st.depth, st.states, st.transitions, st.memoryMiB
	res.Outcomes, res.Cut = sortedKeys(run.outcomes), sortedKeys(run.cuts)
	return false, nil
}

// panRun is what one run of pan printed.
type panRun struct {
	out            string // stdout but its OUTCOME and CUT lines
	stderr         string
	outcomes, cuts map[string]bool // the text after OutcomePrefix and CutPrefix
}

// runPan runs ./pan in dir once: an exhaustive search (-E, -n) with depth
// bound depth (-m), 2^hashBits hash slots (-w) if hashBits is positive, and
// the extra arguments. An error is returned when pan cannot run or exits
// with an error.
func runPan(ctx context.Context, dir string, depth, hashBits int, extra ...string) (*panRun, error) {
	args := []string{"-E", "-n", "-m" + strconv.Itoa(depth)}
	if hashBits > 0 {
		args = append(args, "-w"+strconv.Itoa(hashBits))
	}
	cmd := command(ctx, dir, "./pan", append(args, extra...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("pan: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pan: %w", err)
	}
	run := &panRun{outcomes: map[string]bool{}, cuts: map[string]bool{}}
	var rest strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, OutcomePrefix):
			run.outcomes[strings.TrimSpace(strings.TrimPrefix(line, OutcomePrefix))] = true
		case strings.HasPrefix(line, CutPrefix+" "):
			run.cuts[strings.TrimPrefix(line, CutPrefix+" ")] = true
		default:
			rest.WriteString(line)
			rest.WriteByte('\n')
		}
	}
	scanErr := sc.Err()
	waitErr := cmd.Wait()
	run.out, run.stderr = rest.String(), stderr.String()
	if scanErr != nil {
		return nil, fmt.Errorf("pan: reading its output: %w", scanErr)
	}
	if waitErr != nil {
		var ee *exec.ExitError
		if !errors.As(waitErr, &ee) || ctx.Err() != nil {
			return nil, fmt.Errorf("pan: %w", waitErr)
		}
		return nil, fmt.Errorf("pan: %v\n%s%s", waitErr, run.out, run.stderr)
	}
	return run, nil
}

// panStats are the statistics pan prints at the end of a search.
type panStats struct {
	depth, errors       int
	states, transitions uint64
	memoryMiB           float64
}

// stats reads the statistics of a complete run; an error is returned when
// they are missing or pan ran out of memory, of state-vector room or aborted.
func (run *panRun) stats() (panStats, error) {
	var st panStats
	m := depthRE.FindStringSubmatch(run.out)
	if m == nil {
		return st, fmt.Errorf("pan: no statistics in its output\n%s%s", run.out, run.stderr)
	}
	for _, bad := range []string{"out of memory", "VECTORSZ", "aborted"} {
		if strings.Contains(run.out, bad) {
			return st, fmt.Errorf("pan: %s\n%s", bad, run.out)
		}
	}
	st.depth, _ = strconv.Atoi(m[1])
	st.errors, _ = strconv.Atoi(m[2])
	if m := statsRE.FindStringSubmatch(run.out); m != nil {
		st.states, _ = strconv.ParseUint(m[1], 10, 64)
	}
	if m := transRE.FindStringSubmatch(run.out); m != nil {
		st.transitions, _ = strconv.ParseUint(m[1], 10, 64)
	}
	if m := memRE.FindStringSubmatch(run.out); m != nil {
		st.memoryMiB, _ = strconv.ParseFloat(m[1], 64)
	}
	return st, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// VerdictOutcomes formats the outcomes of an rdmasim result as Run reports
// SPIN's: "x=1 y=0" per outcome (the locations of r.Locs), sorted.
func VerdictOutcomes(p *prog.Program, r *verdict.Result) []string {
	out := make([]string, 0, len(r.Outcomes))
	for _, o := range r.Outcomes {
		f := make([]string, len(r.Locs))
		for i, l := range r.Locs {
			f[i] = p.Locs[l].Name + "=" + strconv.Itoa(int(o.Values[i]))
		}
		out = append(out, strings.Join(f, " "))
	}
	sort.Strings(out)
	return out
}
