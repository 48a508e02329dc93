package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"rdmasim/opsem/promela"
)

// robustBench compares, per file, the decider (rdmasim robust) with the
// paper's pipeline (rdmasim export --promela --robustness, spin -a, the C
// compiler, pan), both end to end.
type robustBench struct {
	bin        string
	rounds     int
	cflags     []string
	maxCounter int
}

// robustJSON is the part of rdmasim robust --json the benchmark reads.
type robustJSON struct {
	Robust   *bool  `json:"robust"`
	Complete bool   `json:"complete"`
	States   uint64 `json:"states"`
}

// robustRow is one file's line of the table.
type robustRow struct {
	file                 string
	decider              robustJSON
	spin                 *promela.RobustResult
	deciderT, spinT      time.Duration // medians, end to end
	export, gen, cc, pan time.Duration // medians of the SPIN phases
	verdict              string
	agree                bool
	spinCut              bool
}

// run benchmarks every file, prints the table and the totals, and reports
// whether every verdict agreed.
func (b *robustBench) run(files []string) (bool, error) {
	fmt.Printf("rdmasim robust (the decider) vs the SPIN pipeline (export --promela --robustness --max-counter %d, spin -a, cc, pan), end to end,\n", b.maxCounter)
	fmt.Printf("median of %d rounds; %s; pan compiled with %s\n\n", b.rounds, spinVersion(), strings.Join(append(promela.DefaultCFlags(), b.cflags...), " "))
	fmt.Printf("%-40s %-8s %9s %9s %7s  %-33s %9s %9s\n", "file", "robust", "decide s", "spin s", "ratio", "(export, spin -a, cc, pan) s", "dec. st.", "pan st.")
	var rows []robustRow
	for _, file := range files {
		r, err := b.file(file)
		if err != nil {
			return false, fmt.Errorf("%s: %w", file, err)
		}
		rows = append(rows, r)
		note := ""
		switch {
		case !r.agree:
			note = "  DISAGREE"
		case r.spinCut:
			note = "  (spin cut by max-counter)"
		}
		fmt.Printf("%-40s %-8s %9.3f %9.3f %6.1fx  (%.3f, %.3f, %.3f, %.3f) %9d %9d%s\n", trimName(file, 40), r.verdict,
			r.deciderT.Seconds(), r.spinT.Seconds(), r.spinT.Seconds()/r.deciderT.Seconds(),
			r.export.Seconds(), r.gen.Seconds(), r.cc.Seconds(), r.pan.Seconds(), r.decider.States, r.spin.States, note)
	}
	var dec, spin, exp, gen, cc, pan, ratios []time.Duration
	var sumDec, sumSpin, sumExp, sumGen, sumCC, sumPan time.Duration
	robust, agree := 0, 0
	var disagree, cut []string
	for _, r := range rows {
		dec, spin = append(dec, r.deciderT), append(spin, r.spinT)
		exp, gen, cc, pan = append(exp, r.export), append(gen, r.gen), append(cc, r.cc), append(pan, r.pan)
		ratios = append(ratios, time.Duration(float64(time.Second)*r.spinT.Seconds()/r.deciderT.Seconds()))
		sumDec += r.deciderT
		sumSpin += r.spinT
		sumExp, sumGen, sumCC, sumPan = sumExp+r.export, sumGen+r.gen, sumCC+r.cc, sumPan+r.pan
		if r.decider.Robust != nil && *r.decider.Robust {
			robust++
		}
		if r.agree {
			agree++
		} else {
			disagree = append(disagree, r.file)
		}
		if r.spinCut {
			cut = append(cut, r.file)
		}
	}
	fmt.Printf("\n%d files (%d robust, %d not): verdicts equal on %d", len(rows), robust, len(rows)-robust, agree)
	if len(cut) > 0 {
		fmt.Printf(" (SPIN cut by max-counter on %d: %s)", len(cut), strings.Join(cut, ", "))
	}
	fmt.Println()
	if len(disagree) > 0 {
		fmt.Printf("DISAGREE on %d: %s\n", len(disagree), strings.Join(disagree, ", "))
	}
	fmt.Printf("total   decider %8.2f s   spin %8.2f s (export %.2f, spin -a %.2f, cc %.2f, pan %.2f)   ratio %.1fx\n",
		sumDec.Seconds(), sumSpin.Seconds(), sumExp.Seconds(), sumGen.Seconds(), sumCC.Seconds(), sumPan.Seconds(), sumSpin.Seconds()/sumDec.Seconds())
	fmt.Printf("median  decider %8.3f s   spin %8.3f s (export %.3f, spin -a %.3f, cc %.3f, pan %.3f)   per-file ratio %.1fx\n",
		median(dec).Seconds(), median(spin).Seconds(), median(exp).Seconds(), median(gen).Seconds(), median(cc).Seconds(), median(pan).Seconds(),
		median(ratios).Seconds())
	return len(disagree) == 0, nil
}

// file runs both pipelines rounds times on one file.
func (b *robustBench) file(file string) (robustRow, error) {
	row := robustRow{file: file}
	var dec, spin, exp, gen, cc, pan []time.Duration
	for r := 0; r < b.rounds; r++ {
		start := time.Now()
		d, err := b.decide(file)
		if err != nil {
			return row, err
		}
		dec = append(dec, time.Since(start))
		row.decider = d
		res, e, err := b.spin(file)
		if err != nil {
			return row, err
		}
		row.spin = res
		exp, gen, cc, pan = append(exp, e), append(gen, res.Generate), append(cc, res.Compile), append(pan, res.Search)
		spin = append(spin, e+res.Generate+res.Compile+res.Search)
	}
	row.deciderT, row.spinT = median(dec), median(spin)
	row.export, row.gen, row.cc, row.pan = median(exp), median(gen), median(cc), median(pan)
	d, s := row.decider, row.spin
	row.spinCut = !s.Complete()
	switch {
	case d.Robust == nil:
		row.verdict = "?"
	case *d.Robust:
		row.verdict = "yes"
	default:
		row.verdict = "no"
	}
	// Equal verdicts; where SPIN's counters were cut, a "no" of the
	// decider that SPIN misses is the bound's doing, not a disagreement.
	row.agree = d.Robust != nil && (*d.Robust == s.Robust() || !*d.Robust && s.Robust() && row.spinCut)
	return row, nil
}

// decide runs rdmasim robust --method decide --json on file: the decider
// alone (the default method races it against enumeration).
func (b *robustBench) decide(file string) (robustJSON, error) {
	var out robustJSON
	stdout, err := exec.Command(b.bin, "robust", "--method", "decide", "--json", file).Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) { // 1: an expect line contradicted, still a verdict
		return out, fmt.Errorf("rdmasim robust: %w", err)
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return out, fmt.Errorf("rdmasim robust --json: %w", err)
	}
	return out, nil
}

// spin runs the SPIN pipeline once and returns its result and the time of
// the export.
func (b *robustBench) spin(file string) (*promela.RobustResult, time.Duration, error) {
	dir, err := os.MkdirTemp("", "spinbench-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	model := filepath.Join(dir, "export.pml")
	start := time.Now()
	if out, err := exec.Command(b.bin, "export", "--promela", "--robustness", "--max-counter", strconv.Itoa(b.maxCounter), "-o", model, file).CombinedOutput(); err != nil {
		return nil, 0, fmt.Errorf("rdmasim export: %v\n%s", err, out)
	}
	export := time.Since(start)
	text, err := os.ReadFile(model)
	if err != nil {
		return nil, 0, err
	}
	res, err := promela.RunRobustness(context.Background(), text, promela.RobustRunOptions{RunOptions: promela.RunOptions{Dir: dir, CFlags: b.cflags}})
	if err != nil {
		return nil, 0, fmt.Errorf("spin: %w", err)
	}
	return res, export, nil
}

func trimName(file string, n int) string {
	s := filepath.Base(file)
	if len(s) > n {
		s = s[:n-1] + "~"
	}
	return s
}
