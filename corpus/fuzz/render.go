package fuzz

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/corpus/gen"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/report"
)

// SummaryJSON is the JSON form of a run's summary (fuzz --json).
type SummaryJSON struct {
	Seed          uint64             `json:"seed"`
	Programs      int                `json:"programs"`
	Seconds       float64            `json:"seconds"`
	Rate          float64            `json:"programs_per_second"`
	Interrupted   bool               `json:"interrupted"`
	Disagreements []DisagreementJSON `json:"disagreements"`
	Slow          []string           `json:"slow"`  // program seeds over --timeout
	Stuck         []string           `json:"stuck"` // program seeds that did not stop (the run ended there)
	Compared      map[string]int     `json:"compared"`
	Skipped       map[string]int     `json:"not_compared"`
	Robust        int                `json:"robust"`
	NotRobust     int                `json:"not_robust"`
	WithLoops     int                `json:"with_loops"`
	WithChoose    int                `json:"with_choose"`
	Instructions  map[string]int     `json:"instructions"`
	PPO           []PPOEntryJSON     `json:"ppo"`
	Spin          string             `json:"spin"` // "every N programs", or why SPIN is off
	Options       map[string]string  `json:"options"`
	// Workers is the workers of a cluster that checked batches of the
	// run (fuzz --cluster, --nats); absent in one process.
	Workers int `json:"workers,omitempty"`
}

// DisagreementJSON is a disagreement in JSON.
type DisagreementJSON struct {
	Index        int      `json:"index"`
	ProgramSeed  string   `json:"program_seed"`
	Kind         string   `json:"kind"`
	Problems     []string `json:"problems"`
	Config       string   `json:"config"`
	Program      string   `json:"program"`
	Minimal      string   `json:"minimal,omitempty"`
	Instructions [2]int   `json:"instructions"` // before and after minimising
	File         string   `json:"file,omitempty"`
	FileError    string   `json:"file_error,omitempty"`
}

// PPOEntryJSON is a cell of the ppo table in JSON: programs with an event
// of class From before one of class To in program order, on the same queue
// pair or not.
type PPOEntryJSON struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Entry   string `json:"entry"`
	SameQP  int    `json:"same_qp"`
	OtherQP int    `json:"other_qp"`
}

// stuckAfter is the grace Run gives a program past its deadline.
func stuckAfter(opt Options) time.Duration {
	if opt.StuckAfter > 0 {
		return opt.StuckAfter
	}
	return defaultStuckAfter
}

// WriteDisagreement prints one disagreement as it is found: its kind, the
// program seed to rerun it, its problems, the minimised program and where
// it was written.
func WriteDisagreement(w io.Writer, d *Disagreement) {
	fmt.Fprintf(w, "DISAGREEMENT in program %d (program seed %#x): %s\n", d.Index, d.Seed, d.Kind)
	fmt.Fprintf(w, "  config: %s\n", d.Config)
	for _, p := range d.Problems {
		fmt.Fprintf(w, "  %s: %s\n", p.Kind, strings.ReplaceAll(p.Detail, "\n", "\n    "))
	}
	if d.Source != "" {
		fmt.Fprintf(w, "  rerun: rdmasim fuzz --surface --program-seed %#x\n", d.Seed)
		report.WriteConfig(w, d.Source)
	} else {
		fmt.Fprintf(w, "  rerun: rdmasim fuzz --program-seed %#x%s\n", d.Seed, d.rerunFlags())
	}
	prog := d.Program
	if d.Minimal != nil {
		prog = d.Minimal
		fmt.Fprintf(w, "  minimised from %d to %d instructions (%d candidates tested", d.Minimized.Before, d.Minimized.After, d.Minimized.Checks)
		if d.Minimized.Exhausted {
			fmt.Fprint(w, ", stopped by the minimisation bounds")
		}
		fmt.Fprintln(w, "):")
		for _, p := range d.MinimalProblems {
			fmt.Fprintf(w, "  %s: %s\n", p.Kind, firstLineOf(p.Detail))
		}
	}
	if d.Source == "" {
		report.WriteConfig(w, prog.String())
	}
	switch {
	case d.File != "":
		fmt.Fprintf(w, "  written to %s\n", d.File)
	case d.FileErr != nil:
		fmt.Fprintf(w, "  not written: %v\n", d.FileErr)
	}
	fmt.Fprintln(w)
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// comparisons are the comparisons of a summary, in print order.
var comparisons = []string{string(differ.OutcomesRDMA), string(differ.OutcomesSC), string(differ.ErrorsRDMA), string(differ.ErrorsSC), string(differ.ReachRDMA), string(differ.ReachSC), string(differ.OutcomesReduced), string(differ.OutcomesSymmetry), string(differ.RobustEnum), "decider", string(differ.RobustSymmetry), string(differ.Deadlocks), string(differ.SpinRDMA), string(differ.SpinSC), string(differ.Repair)}

// WriteSummary prints the summary of a run with opt: programs and their
// rate, what was compared and what a bound kept from being compared, the
// reference robustness, the instructions drawn and the ppo table's
// coverage. spin says when SPIN ran ("on every 1000-th program", or why it
// did not).
func WriteSummary(w io.Writer, s *Summary, opt Options, spin string) {
	what := fmt.Sprintf("seed %d", s.Seed)
	if len(opt.ProgramSeeds) > 0 {
		what = "program seeds"
	}
	fmt.Fprintf(w, "Fuzz %s: %s in %.1fs (%.1f programs/s), %s\n", what, report.Plural(s.Programs, "program"), s.Elapsed.Seconds(), s.Rate(),
		report.Plural(len(s.Disagreements), "disagreement"))
	if s.Interrupted {
		fmt.Fprintln(w, "Interrupted: the summary covers the programs checked")
	}
	for _, x := range s.Stuck {
		fmt.Fprintf(w, "STUCK: program seed %#x did not stop within %s of its deadline (a search that does not notice cancellation): not compared\n", x, stuckAfter(opt))
	}
	if s.Ended && !s.Interrupted {
		fmt.Fprintln(w, "Ended early: more programs stuck at once than workers")
	}
	timeout := "no timeout"
	if opt.Timeout > 0 {
		timeout = fmt.Sprintf("timeout %s per program", opt.Timeout)
	}
	fmt.Fprintf(w, "Bounds: max-states %d, max-inflight %d, max-model-cost %g, %s; SPIN %s\n", opt.Differ.MaxStates, opt.Differ.MaxInflight,
		opt.Differ.MaxModelCost, timeout, spin)
	var cmp []string
	for _, c := range comparisons {
		if c == string(differ.Repair) && !opt.Repair {
			continue
		}
		cmp = append(cmp, fmt.Sprintf("%s %d", c, s.Compared[c]))
	}
	fmt.Fprintf(w, "Compared: %s\n", strings.Join(cmp, ", "))
	if len(s.Skipped) > 0 || len(s.Slow) > 0 {
		fmt.Fprintln(w, "Not compared (a bound cut the search):")
		keys := make([]string, 0, len(s.Skipped))
		for k := range s.Skipped {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %6d %s\n", s.Skipped[k], k)
		}
		if len(s.Slow) > 0 {
			var seeds []string
			for _, x := range s.Slow[:min(len(s.Slow), 5)] {
				seeds = append(seeds, fmt.Sprintf("%#x", x))
			}
			more := ""
			if len(s.Slow) > 5 {
				more = ", ..."
			}
			fmt.Fprintf(w, "  %6d programs over the %s timeout, not compared at all (program seeds %s%s)\n", len(s.Slow), opt.Timeout, strings.Join(seeds, ", "), more)
		}
	}
	fmt.Fprintf(w, "Robustness (reference answer): %d robust, %d not robust\n", s.Robust, s.NotRobust)
	st := &s.Stats
	fmt.Fprintf(w, "Programs: %d with loops, %d with choose", st.WithLoops, st.WithChoose)
	if st.WithAtomics > 0 {
		fmt.Fprintf(w, ", %d with remote atomics (%d of them with RDMA and SC outcomes compared, machine against model)", st.WithAtomics, st.CheckedAtomics)
		if st.DecidedAtomics > 0 {
			fmt.Fprintf(w, "; the decider's experimental answer compared on %d of them (%d robust, %d with loops)", st.DecidedAtomics, st.DecidedAtomicsRobust, st.DecidedAtomicsLoops)
		}
		if st.DecidedAtomicsBounded > 0 {
			fmt.Fprintf(w, "; with loops, %d more found robust by the decider and by the enumerations within the loop bound", st.DecidedAtomicsBounded)
		}
	}
	fmt.Fprintln(w)
	var ins []string
	for k, n := range st.Instr {
		if (k == gen.KRCAS || k == gen.KRFAA) && st.WithAtomics == 0 || k == gen.KQuiet && n == 0 {
			continue // a run without atomics or quiet (no --atomics, --verbs) prints as before them
		}
		ins = append(ins, fmt.Sprintf("%s %d", KindNames[k], n))
	}
	ins = append(ins, fmt.Sprintf("choose %d", st.Choose), fmt.Sprintf("loop %d", st.Loop))
	fmt.Fprintf(w, "Instructions: %s\n", strings.Join(ins, ", "))
	if st.QuietAfter != [NumClasses]int{} {
		var q []string
		for a, n := range st.QuietAfter {
			q = append(q, fmt.Sprintf("%s %d", ClassNames[a], n))
		}
		fmt.Fprintf(w, "Quiet column (✓ from every class, any queue pair): programs with an event of the class before a quiet: %s\n", strings.Join(q, ", "))
	}
	st.Inline.render(w)
	fmt.Fprintln(w, "PPO table: programs with an event of the row's class before one of the column's in program order;")
	fmt.Fprintln(w, "entries as axiom.PPO gives them, those that depend on the queue pair as same queue pair/other:")
	cells := [NumClasses][NumClasses]string{}
	width := 4
	for a := range NumClasses {
		for b := range NumClasses {
			c := ppoCell(st, a, b)
			cells[a][b] = c
			width = max(width, len([]rune(c)))
		}
	}
	fmt.Fprintf(w, "  %-4s", "")
	for b := range NumClasses {
		fmt.Fprintf(w, "  %-*s", width, ClassNames[b])
	}
	fmt.Fprintln(w)
	for a := range NumClasses {
		fmt.Fprintf(w, "  %-4s", ClassNames[a])
		for b := range NumClasses {
			c := cells[a][b]
			fmt.Fprintf(w, "  %s%s", c, strings.Repeat(" ", width-len([]rune(c))))
		}
		fmt.Fprintln(w)
	}
}

// ppoCell prints one cell of the ppo coverage table.
func ppoCell(st *Stats, a, b int) string {
	entry := PPOEntry(ppoClass(a), ppoClass(b))
	c := st.PPO[a][b]
	if QPDependent(entry) {
		return fmt.Sprintf("%s %d/%d", entry, c.SameQP, c.OtherQP)
	}
	return fmt.Sprintf("%s %d", entry, c.SameQP+c.OtherQP)
}

// ppoClass converts a row or column index of Stats.PPO.
func ppoClass(i int) axiom.Class { return axiom.Class(i) }

// JSON returns the JSON form of s, a run with opt; spin is as for
// WriteSummary.
func (s *Summary) JSON(opt Options, spin string) SummaryJSON {
	out := SummaryJSON{Seed: s.Seed, Programs: s.Programs, Seconds: s.Elapsed.Seconds(), Rate: s.Rate(), Interrupted: s.Interrupted,
		Disagreements: []DisagreementJSON{}, Slow: []string{}, Stuck: []string{}, Compared: map[string]int{}, Skipped: s.Skipped,
		Robust: s.Robust, NotRobust: s.NotRobust, WithLoops: s.Stats.WithLoops, WithChoose: s.Stats.WithChoose,
		Instructions: map[string]int{}, Spin: spin, Workers: s.Workers,
		Options: map[string]string{
			"max-states": fmt.Sprint(opt.Differ.MaxStates), "max-inflight": fmt.Sprint(opt.Differ.MaxInflight), "timeout": opt.Timeout.String(),
			"max-model-cost": fmt.Sprint(opt.Differ.MaxModelCost),
		}}
	for _, c := range comparisons {
		if c == string(differ.Repair) && !opt.Repair {
			continue
		}
		out.Compared[c] = s.Compared[c]
	}
	for _, x := range s.Slow {
		out.Slow = append(out.Slow, fmt.Sprintf("%#x", x))
	}
	for _, x := range s.Stuck {
		out.Stuck = append(out.Stuck, fmt.Sprintf("%#x", x))
	}
	for k, n := range s.Stats.Instr {
		if (k == gen.KRCAS || k == gen.KRFAA) && s.Stats.WithAtomics == 0 || k == gen.KQuiet && n == 0 {
			continue
		}
		out.Instructions[KindNames[k]] = n
	}
	out.Instructions["choose"], out.Instructions["loop"] = s.Stats.Choose, s.Stats.Loop
	for a := range NumClasses {
		for b := range NumClasses {
			c := s.Stats.PPO[a][b]
			out.PPO = append(out.PPO, PPOEntryJSON{From: ClassNames[a], To: ClassNames[b],
				Entry: PPOEntry(ppoClass(a), ppoClass(b)), SameQP: c.SameQP, OtherQP: c.OtherQP})
		}
	}
	for _, d := range s.Disagreements {
		fd := DisagreementJSON{Index: d.Index, ProgramSeed: fmt.Sprintf("%#x", d.Seed), Kind: string(d.Kind), Config: d.Config,
			Program: d.Program.String(), Instructions: [2]int{d.Minimized.Before, d.Minimized.After}, File: d.File}
		for _, p := range d.Problems {
			fd.Problems = append(fd.Problems, p.Detail)
		}
		if d.Minimal != nil {
			fd.Minimal = d.Minimal.String()
		}
		if d.FileErr != nil {
			fd.FileError = d.FileErr.Error()
		}
		out.Disagreements = append(out.Disagreements, fd)
	}
	return out
}

// rerunFlags returns the flags beyond the program seed that draw d's
// program again and make its comparison: --verbs when it was drawn with
// the verbs statements (GenerateVerbs marks its configuration so),
// --atomics when it was drawn with
// remote atomics (GenerateWith marks its configuration so), --repair for
// a disagreement of the repair comparison.
func (d *Disagreement) rerunFlags() string {
	flags := ""
	if strings.Contains(d.Config, ", verbs") {
		flags += " --verbs"
	}
	if strings.HasSuffix(d.Config, ", atomics") {
		flags += " --atomics"
	}
	if d.Kind == differ.Repair {
		flags += " --repair"
	}
	if d.Kind == differ.RobustDecide && strings.HasSuffix(d.Config, ", atomics") || d.Kind == differ.DeciderError && strings.HasSuffix(d.Config, ", atomics") {
		flags += " --atomics-experimental" // only that option compares the decider on atomics
	}
	return flags
}
