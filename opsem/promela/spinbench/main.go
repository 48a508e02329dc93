// Command spinbench compares rdmasim with the SPIN model checker end to end
// on the given programs (make bench-spin): `rdmasim check FILE` (RDMA and
// SC) against, for each semantics, `rdmasim export --promela`, spin -a, the
// C compiler and pan's exhaustive search (package opsem/promela). It checks
// that both find the same final outcomes, that `rdmasim check
// --reduce=false` (every interleaving) stores as many states as SPIN, and
// prints the median times over the rounds and the ratios of SPIN's time to
// rdmasim's, as users run it (with its partial-order reduction) and with
// --reduce=false.
//
// With -robustness (make bench-spin-robust) it compares the robustness
// decider, `rdmasim robust FILE`, with the seed paper's own pipeline:
// `rdmasim export --promela --robustness`, spin -a, the C compiler and
// pan's search for an assertion violation. It checks that the verdicts are
// equal and prints a table of the median times per file, with totals and
// medians over the files; it exits 1 if a verdict differs.
//
// Usage:
//
//	go run ./opsem/promela/spinbench [-rdmasim bin/rdmasim] [-rounds 3] [-cflags ...] FILE...
//	go run ./opsem/promela/spinbench -robustness [-max-counter 3] [-rdmasim ...] [-rounds ...] [-cflags ...] FILE...
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"rdmasim/opsem/promela"
)

func main() {
	bin := flag.String("rdmasim", "bin/rdmasim", "the rdmasim binary")
	rounds := flag.Int("rounds", 3, "runs of each pipeline; medians are reported")
	cflags := flag.String("cflags", "", "extra C compiler flags for pan (after "+strings.Join(promela.DefaultCFlags(), " ")+")")
	robustness := flag.Bool("robustness", false, "compare robustness verdicts: rdmasim robust against export --promela --robustness with SPIN")
	maxCounter := flag.Int("max-counter", promela.DefaultMaxCounter, "with -robustness: the counter bound of the exported models")
	flag.Parse()
	if flag.NArg() == 0 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "usage: spinbench [-robustness [-max-counter K]] [-rdmasim BIN] [-rounds N] [-cflags FLAGS] FILE...")
		os.Exit(2)
	}
	if *robustness {
		rb := robustBench{bin: *bin, rounds: *rounds, cflags: strings.Fields(*cflags), maxCounter: *maxCounter}
		ok, err := rb.run(flag.Args())
		if err != nil {
			fmt.Fprintf(os.Stderr, "spinbench: %v\n", err)
			os.Exit(1)
		}
		if !ok {
			os.Exit(1)
		}
		return
	}
	b := bench{bin: *bin, rounds: *rounds, cflags: strings.Fields(*cflags)}
	fmt.Printf("rdmasim vs SPIN %s, end to end, median of %d rounds; pan compiled with %s\n",
		spinVersion(), b.rounds, strings.Join(append(promela.DefaultCFlags(), b.cflags...), " "))
	for _, file := range flag.Args() {
		if err := b.file(file); err != nil {
			fmt.Fprintf(os.Stderr, "spinbench: %s: %v\n", file, err)
			os.Exit(1)
		}
	}
}

type bench struct {
	bin    string
	rounds int
	cflags []string
}

// semResult is what one tool found under one semantics.
type semResult struct {
	States   uint64              `json:"states"`
	Outcomes []map[string]uint64 `json:"outcomes"`
}

// exploreJSON is the part of rdmasim explore --json the benchmark reads.
type exploreJSON struct {
	Seconds    float64 `json:"seconds"`
	PeakMemory uint64  `json:"peak_memory_bytes"`
}

type checkJSON struct {
	RDMA semResult `json:"rdma"`
	SC   semResult `json:"sc"`
}

// spinTimes are the phases of one SPIN pipeline.
type spinTimes struct{ export, spin, cc, pan time.Duration }

func (s spinTimes) total() time.Duration { return s.export + s.spin + s.cc + s.pan }

func (b *bench) file(file string) error {
	var checkT, fullT, exploreT, spinT, spinRDMA, spinSC []time.Duration
	var explore exploreJSON
	var phases [2][]spinTimes
	var check, full checkJSON
	var spinRes [2]*promela.Result
	for r := 0; r < b.rounds; r++ {
		// check as users run it (with the partial-order reduction), and
		// with --reduce=false, whose state counts must equal SPIN's.
		for _, c := range []struct {
			flags []string
			times *[]time.Duration
			res   *checkJSON
		}{{nil, &checkT, &check}, {[]string{"--reduce=false"}, &fullT, &full}} {
			// One worker: pan runs on one core.
			start := time.Now()
			out, err := exec.Command(b.bin, append(append([]string{"check", "--json", "--workers", "1"}, c.flags...), file)...).Output()
			if err != nil {
				return fmt.Errorf("rdmasim check %v: %w", c.flags, err)
			}
			*c.times = append(*c.times, time.Since(start))
			if err := json.Unmarshal(out, c.res); err != nil {
				return fmt.Errorf("rdmasim check --json: %w", err)
			}
		}
		out, err := exec.Command(b.bin, "explore", "--json", "--reduce=false", "--workers", "1", "--semantics", "rdma", file).Output()
		if err != nil {
			return fmt.Errorf("rdmasim explore: %w", err)
		}
		if err := json.Unmarshal(out, &explore); err != nil {
			return fmt.Errorf("rdmasim explore --json: %w", err)
		}
		exploreT = append(exploreT, time.Duration(explore.Seconds*float64(time.Second)))
		var sum time.Duration
		for i, sem := range []string{"rdma", "sc"} {
			res, t, err := b.spin(file, sem)
			if err != nil {
				return err
			}
			spinRes[i] = res
			phases[i] = append(phases[i], t)
			sum += t.total()
			if i == 0 {
				spinRDMA = append(spinRDMA, t.total())
			} else {
				spinSC = append(spinSC, t.total())
			}
		}
		spinT = append(spinT, sum)
	}
	for i, want := range []semResult{full.RDMA, full.SC} {
		sem := []string{"rdma", "sc"}[i]
		w := normalize(want.Outcomes)
		got := spinOutcomes(spinRes[i].Outcomes)
		if !slices.Equal(got, w) {
			return fmt.Errorf("%s outcomes differ:\nspin    %q\nrdmasim %q", sem, got, w)
		}
		if red := normalize([]semResult{check.RDMA, check.SC}[i].Outcomes); !slices.Equal(red, w) {
			return fmt.Errorf("%s outcomes differ:\nrdmasim --reduce=false %q\nrdmasim                %q", sem, w, red)
		}
		if spinRes[i].States != want.States {
			return fmt.Errorf("%s: spin stored %d states, rdmasim explored %d", sem, spinRes[i].States, want.States)
		}
		if len(spinRes[i].Cut) > 0 {
			fmt.Printf("  note: %s search cut by %s\n", sem, strings.Join(spinRes[i].Cut, ", "))
		}
	}
	c, f, s := median(checkT), median(fullT), median(spinT)
	fmt.Printf("\n%s: %d RDMA + %d SC states (%d RDMA with the reduction), outcomes equal (%d rdma, %d sc), state counts equal\n",
		file, full.RDMA.States, full.SC.States, check.RDMA.States, len(check.RDMA.Outcomes), len(check.SC.Outcomes))
	fmt.Printf("  rdmasim check (rdma + sc)      %8.2f s\n", c.Seconds())
	fmt.Printf("  rdmasim check --reduce=false   %8.2f s\n", f.Seconds())
	for i, sem := range []string{"rdma", "sc"} {
		p := phases[i]
		pick := func(f func(spinTimes) time.Duration) float64 {
			var d []time.Duration
			for _, t := range p {
				d = append(d, f(t))
			}
			return median(d).Seconds()
		}
		fmt.Printf("  spin %-4s                      %8.2f s  (export %.2f, spin -a %.2f, cc %.2f, pan %.2f)\n", sem,
			median([][]time.Duration{spinRDMA, spinSC}[i]).Seconds(),
			pick(func(t spinTimes) time.Duration { return t.export }), pick(func(t spinTimes) time.Duration { return t.spin }),
			pick(func(t spinTimes) time.Duration { return t.cc }), pick(func(t spinTimes) time.Duration { return t.pan }))
	}
	fmt.Printf("  spin total (rdma + sc)         %8.2f s\n", s.Seconds())
	fmt.Printf("  ratio spin / rdmasim           %8.2fx  (%.2fx with --reduce=false)\n", s.Seconds()/c.Seconds(), s.Seconds()/f.Seconds())
	var pan []time.Duration
	for _, t := range phases[0] {
		pan = append(pan, t.pan)
	}
	e, ps := median(exploreT), median(pan)
	fmt.Printf("  search only, rdma: rdmasim explore %.2f s (peak %.0f MiB), pan %.2f s (%.0f MiB): ratio %.2fx\n",
		e.Seconds(), float64(explore.PeakMemory)/(1<<20), ps.Seconds(), spinRes[0].MemoryMiB, ps.Seconds()/e.Seconds())
	return nil
}

// spin runs the SPIN pipeline once for one semantics.
func (b *bench) spin(file, sem string) (*promela.Result, spinTimes, error) {
	var t spinTimes
	dir, err := os.MkdirTemp("", "spinbench-")
	if err != nil {
		return nil, t, err
	}
	defer os.RemoveAll(dir)
	model := filepath.Join(dir, "export.pml")
	start := time.Now()
	if out, err := exec.Command(b.bin, "export", "--promela", "--semantics", sem, "-o", model, file).CombinedOutput(); err != nil {
		return nil, t, fmt.Errorf("rdmasim export: %v\n%s", err, out)
	}
	t.export = time.Since(start)
	text, err := os.ReadFile(model)
	if err != nil {
		return nil, t, err
	}
	res, err := promela.Run(context.Background(), text, promela.RunOptions{Dir: dir, CFlags: b.cflags})
	if err != nil {
		return nil, t, fmt.Errorf("spin (%s): %w", sem, err)
	}
	t.spin, t.cc, t.pan = res.Generate, res.Compile, res.Search
	return res, t, nil
}

// normalize turns rdmasim's JSON outcomes into sorted "loc=v" lists.
func normalize(outs []map[string]uint64) []string {
	var r []string
	for _, o := range outs {
		var f []string
		for k, v := range o {
			f = append(f, fmt.Sprintf("%s=%d", k, v))
		}
		sort.Strings(f)
		r = append(r, strings.Join(f, " "))
	}
	sort.Strings(r)
	return r
}

// spinOutcomes sorts the fields of SPIN's outcomes as normalize does.
func spinOutcomes(outs []string) []string {
	var r []string
	for _, o := range outs {
		f := strings.Fields(o)
		sort.Strings(f)
		r = append(r, strings.Join(f, " "))
	}
	sort.Strings(r)
	return r
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func spinVersion() string {
	out, err := exec.Command("spin", "-V").Output()
	if err != nil {
		return "(spin -V failed)"
	}
	return string(bytes.TrimSpace(out))
}
