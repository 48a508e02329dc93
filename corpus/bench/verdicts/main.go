// Command verdicts measures rdmasim's time to verdict and peak memory.
//
// On files (make bench, make bench-protocols): for each FILE.rdma, rdmasim
// robust (default method) and rdmasim check, ROUNDS runs each, one row per
// file and command: the verdict, the method that answered (robust), the
// states (check: RDMA+SC configurations), the median wall time, the median
// peak resident set, and the file's expect lines (exit 1 when one fails).
//
//	go run ./corpus/bench/verdicts -rdmasim bin/rdmasim corpus/protocols/*.rdma corpus/bench/*.rdma
//
// Scaled (make bench-scaled): the families MP(n) and F(n) of
// corpus/bench/scaled, written to a temporary directory, each n
// decided three ways: rdmasim robust (default method), robust --method
// decide, and robust --method enum-machine (with --max-inflight 2n+1 on
// MP(n), which it needs to be complete). Once a command runs into the time
// limit on a family, it is skipped for the larger n.
//
//	go run ./corpus/bench/verdicts -scaled -mp 1-10 -f 1-5 -limit 10m -rdmasim bin/rdmasim
//
// Before and after (-before OTHER): both binaries on every command,
// alternately (OTHER, then -rdmasim, ROUNDS times), so that the host's
// drift hits both alike; the table shows both medians and the ratio
// after/before.
//
// Each run gets rdmasim's --timeout LIMIT (cell "limit": the run was cut
// there, and its other rounds are not run) and is killed a little after
// it. The peak resident set is the child's own (its rusage), so no
// /usr/bin/time is needed. Progress goes to stderr, the table to stdout
// at the end (-markdown for a Markdown table). Not a test: times depend on
// the machine and its load.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// command is one rdmasim command the table times.
type command struct {
	label string   // the column's name: robust, check, robust --method decide...
	args  []string // after the binary, before --json, --timeout and the file
	parse func([]byte) (answer, error)
}

var defaultCommands = []command{
	{label: "robust", args: []string{"robust"}, parse: parseRobust},
	{label: "check", args: []string{"check"}, parse: parseCheck},
}

// sample is one measured run.
type sample struct {
	wall   time.Duration
	peakKB int64
	ans    answer
}

// measure runs bin with args, --json, --timeout limit and file, and
// reads its answer. A run still going a little after the limit is killed
// and counts as limited.
func measure(bin string, c command, file string, limit time.Duration) (sample, error) {
	args := append(append([]string(nil), c.args...), "--json", "--timeout", limit.String(), file)
	grace := limit / 10
	if grace < 10*time.Second {
		grace = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit+grace)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(start)}
	if cmd.ProcessState != nil {
		s.peakKB = maxRSSKiB(cmd.ProcessState)
	}
	if ctx.Err() != nil {
		s.ans = answer{Verdict: "limit", Limited: true, Expect: "-"}
		return s, nil
	}
	// rdmasim exits 1 when an answer disagrees with an expect line; the
	// JSON says so, and the table shows it.
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && stdout.Len() > 0) {
		return s, fmt.Errorf("%s %s: %v: %s", bin, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	s.ans, err = c.parse([]byte(stdout.String()))
	return s, err
}

// summary is a command's runs on one file by one binary.
type summary struct {
	runs    int
	wall    time.Duration // median
	peakKB  int64         // median
	ans     answer        // of the median run, Verdict "MIXED ..." when runs disagreed
	method  string        // methods over the runs
	limited bool
	skipped string // why the command did not run
}

func summarize(ss []sample) summary {
	if len(ss) == 0 {
		return summary{}
	}
	walls := make([]time.Duration, len(ss))
	peaks := make([]int64, len(ss))
	var ms []string
	sum := summary{runs: len(ss)}
	verdicts := map[string]bool{}
	for i, s := range ss {
		walls[i], peaks[i] = s.wall, s.peakKB
		if s.ans.Method != "" {
			ms = append(ms, s.ans.Method)
		}
		verdicts[s.ans.Verdict] = true
		if s.ans.Limited {
			sum.limited = true
		}
	}
	sum.wall, sum.peakKB = medianDuration(walls), medianInt(peaks)
	sum.ans = ss[medianIndex(walls)].ans
	sum.method = methods(ms)
	if len(verdicts) > 1 {
		var vs []string
		for _, s := range ss {
			vs = append(vs, s.ans.Verdict)
		}
		sum.ans.Verdict = "MIXED " + strings.Join(vs, " | ")
		sum.ans.Failed = true
	}
	return sum
}

func (s summary) time(limit time.Duration) string {
	switch {
	case s.skipped != "":
		return s.skipped
	case s.limited:
		return "limit (" + limit.String() + ")"
	}
	return seconds(s.wall)
}

func (s summary) peak() string {
	if s.skipped != "" {
		return "-"
	}
	return mib(s.peakKB)
}

// job is one command on one program, by one or two binaries.
type job struct {
	name string // the program's name in the table
	file string
	cmd  command
}

// bench runs the jobs and prints the table.
type bench struct {
	bin, before string
	rounds      int
	limit       time.Duration
	markdown    bool
	log         io.Writer
	header      []string
	rows        [][]string
	failed      bool
}

// run measures j by each binary not in skip (before first, then after,
// alternately), ROUNDS times or until a run is limited, and adds its row.
// It returns the summaries, before's first (nil without -before).
func (b *bench) run(j job, skip map[string]string) (after, before *summary) {
	bins := []string{b.bin}
	if b.before != "" {
		bins = []string{b.before, b.bin}
	}
	samples := make([][]sample, len(bins))
	done := make([]bool, len(bins))
	for i, bin := range bins {
		if skip[bin] != "" {
			done[i] = true
		}
	}
	for r := 0; r < b.rounds; r++ {
		for i, bin := range bins {
			if done[i] {
				continue
			}
			s, err := b.measureOne(bin, j)
			if err != nil {
				fmt.Fprintf(b.log, "%s: %v\n", j.name, err)
				b.failed = true
				done[i] = true
				continue
			}
			fmt.Fprintf(b.log, "%s %s [%s] run %d: %s, %s, %s %s\n", j.name, j.cmd.label, filepath.Base(bin), r+1,
				seconds(s.wall), mib(s.peakKB), s.ans.Verdict, s.ans.Method)
			samples[i] = append(samples[i], s)
			if s.ans.Limited {
				done[i] = true
			}
		}
	}
	sums := make([]summary, len(bins))
	for i, bin := range bins {
		sums[i] = summarize(samples[i])
		if skip[bin] != "" {
			sums[i].skipped = skip[bin]
		} else if len(samples[i]) == 0 {
			sums[i].skipped = "error"
		}
		if sums[i].ans.Failed {
			b.failed = true
		}
	}
	if b.before == "" {
		b.addRow(j, sums[0])
		return &sums[0], nil
	}
	b.addPair(j, sums[0], sums[1])
	return &sums[1], &sums[0]
}

func (b *bench) measureOne(bin string, j job) (sample, error) {
	return measure(bin, j.cmd, j.file, b.limit)
}

func (b *bench) addRow(j job, s summary) {
	if b.header == nil {
		b.header = []string{"PROGRAM", "COMMAND", "VERDICT", "METHOD", "STATES", "TIME", "PEAK", "EXPECT"}
	}
	b.rows = append(b.rows, []string{j.name, j.cmd.label, cell(s.ans.Verdict), cell(s.method), cell(s.ans.States),
		s.time(b.limit), s.peak(), cell(s.ans.Expect)})
}

// both is one cell for two summaries: the one value, or "before → after".
func both(before, after string) string {
	before, after = cell(before), cell(after)
	if before == after {
		return before
	}
	return before + " → " + after
}

func (b *bench) addPair(j job, before, after summary) {
	if b.header == nil {
		b.header = []string{"PROGRAM", "COMMAND", "VERDICT", "METHOD", "STATES", "BEFORE", "AFTER", "RATIO",
			"PEAK-BEFORE", "PEAK-AFTER", "EXPECT"}
	}
	r := "-"
	if before.skipped == "" && after.skipped == "" && !before.limited && !after.limited {
		r = ratio(after.wall.Seconds(), before.wall.Seconds())
	}
	b.rows = append(b.rows, []string{j.name, j.cmd.label, both(before.ans.Verdict, after.ans.Verdict),
		both(before.method, after.method), both(before.ans.States, after.ans.States),
		before.time(b.limit), after.time(b.limit), r, before.peak(), after.peak(),
		both(before.ans.Expect, after.ans.Expect)})
}

func cell(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (b *bench) print(w io.Writer) {
	if b.markdown {
		fmt.Fprintln(w, "| "+strings.Join(b.header, " | ")+" |")
		fmt.Fprintln(w, strings.Repeat("|---", len(b.header))+"|")
		for _, r := range b.rows {
			fmt.Fprintln(w, "| "+strings.Join(r, " | ")+" |")
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(b.header, "\t"))
	for _, r := range b.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

func main() {
	b := &bench{log: os.Stderr}
	flag.StringVar(&b.bin, "rdmasim", "bin/rdmasim", "the rdmasim binary (the after side with -before)")
	flag.StringVar(&b.before, "before", "", "another rdmasim binary to run alternately with -rdmasim (the before side)")
	flag.IntVar(&b.rounds, "rounds", 3, "runs of each command per binary (medians are shown)")
	limit := flag.Duration("limit", 0, "time limit of one run (default 2m on files, 10m with -scaled)")
	flag.BoolVar(&b.markdown, "markdown", false, "print a Markdown table")
	scaled := flag.Bool("scaled", false, "the scaled families MP(n) and F(n) instead of files")
	mp := flag.String("mp", "1-10", "with -scaled: the n of MP(n), e.g. 1-10 or 2,4,8 (empty: none)")
	fam := flag.String("f", "1-5", "with -scaled: the n of F(n) (empty: none)")
	dir := flag.String("dir", "", "with -scaled: write the programs here and keep them (default: a temporary directory)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: verdicts [flags] FILE.rdma...\n       verdicts -scaled [flags]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if b.rounds < 1 {
		fmt.Fprintln(os.Stderr, "verdicts: -rounds must be at least 1")
		os.Exit(2)
	}
	b.limit = *limit
	if b.limit == 0 {
		b.limit = 2 * time.Minute
		if *scaled {
			b.limit = 10 * time.Minute
		}
	}
	for _, bin := range []string{b.bin, b.before} {
		if bin == "" {
			continue
		}
		if _, err := os.Stat(bin); err != nil {
			fmt.Fprintf(os.Stderr, "verdicts: %v\n", err)
			os.Exit(2)
		}
	}
	var err error
	if *scaled {
		err = b.scaled(*mp, *fam, *dir)
	} else {
		if flag.NArg() == 0 {
			flag.Usage()
			os.Exit(2)
		}
		for _, f := range flag.Args() {
			for _, c := range defaultCommands {
				b.run(job{name: strings.TrimSuffix(filepath.Base(f), ".rdma"), file: f, cmd: c}, nil)
			}
		}
	}
	b.print(os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verdicts: %v\n", err)
		os.Exit(2)
	}
	if b.failed {
		os.Exit(1)
	}
}

// scaled runs the scaled mode on MP(n) for n in mp and F(n) for n in fam.
func (b *bench) scaled(mp, fam, dir string) error {
	sets := make([][]int, len(families))
	for i, s := range []string{mp, fam} {
		ns, err := parseRange(s)
		if err != nil {
			return err
		}
		sets[i] = ns
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "rdmasim-scaled-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, f := range families {
		// skip[command][binary]: why the command no longer runs on f.
		skip := map[int]map[string]string{}
		for _, n := range sets[i] {
			file := filepath.Join(dir, f.file(n))
			if err := os.WriteFile(file, []byte(f.text(n)), 0o644); err != nil {
				return err
			}
			for k, c := range scaledCommands(f, n) {
				after, before := b.run(job{name: fmt.Sprintf("%s(%d)", f.name, n), file: file, cmd: c}, skip[k])
				for bin, s := range map[string]*summary{b.bin: after, b.before: before} {
					if s != nil && s.limited && s.skipped == "" {
						if skip[k] == nil {
							skip[k] = map[string]string{}
						}
						skip[k][bin] = fmt.Sprintf("skipped (limit at n=%d)", n)
					}
				}
			}
		}
	}
	return nil
}
