// Command bench measures rdmasim on every protocol of corpus/protocols: for
// each file, rdmasim robust (default method) and rdmasim check, each run
// under /usr/bin/time -v, and prints one row per file: the verdicts, the
// wall time, the states each search explored (from --json) and the peak
// resident memory. It is what make bench-protocols runs; the table of
// corpus/protocols/README.md is its output. Not a test: times depend on the
// machine.
//
//	go run ./corpus/protocols/bench -rdmasim bin/rdmasim corpus/protocols/*.rdma
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// robustOut and checkOut are the parts of rdmasim's JSON the table uses.
type expectOut struct {
	Semantics string `json:"semantics"`
	Status    string `json:"status"`
}

type robustOut struct {
	Expect   expectOut `json:"expect"`
	Robust   bool      `json:"robust"`
	Complete bool      `json:"complete"`
	Method   string    `json:"method"`
	States   uint64    `json:"states"`
}

type semOut struct {
	Allowed  bool   `json:"allowed"`
	Complete bool   `json:"complete"`
	States   uint64 `json:"states"`
}

type checkOut struct {
	RDMA   semOut      `json:"rdma"`
	SC     semOut      `json:"sc"`
	Expect []expectOut `json:"expect"`
}

// run is one measured command: its standard output, wall time and peak
// resident set in KiB (from /usr/bin/time -v, when present).
type run struct {
	out    []byte
	wall   time.Duration
	peakKB int
}

var maxRSS = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)

func measure(args ...string) (run, error) {
	timeV := "/usr/bin/time"
	if _, err := os.Stat(timeV); err == nil {
		args = append([]string{timeV, "-v"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := run{out: stdout.Bytes(), wall: time.Since(start)}
	if m := maxRSS.FindSubmatch(stderr.Bytes()); m != nil {
		r.peakKB, _ = strconv.Atoi(string(m[1]))
	}
	// check exits 1 when a verdict disagrees with an expect line; the JSON
	// says so, and the table shows it.
	if _, ok := err.(*exec.ExitError); ok && len(r.out) > 0 {
		err = nil
	}
	return r, err
}

func word(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

func mib(kb int) string {
	if kb == 0 {
		return "?"
	}
	return fmt.Sprintf("%.0f MiB", float64(kb)/1024)
}

func main() {
	bin := flag.String("rdmasim", "bin/rdmasim", "the rdmasim binary")
	timeout := flag.String("timeout", "60s", "--timeout of each rdmasim run")
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "usage: bench [-rdmasim BIN] FILE.rdma...")
		os.Exit(2)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "FILE\tRDMA\tSC\tROBUST\tMETHOD\tROBUST-TIME\tROBUST-STATES\tROBUST-PEAK\tCHECK-TIME\tCHECK-STATES\tCHECK-PEAK\tEXPECT")
	failed := false
	for _, f := range files {
		r, err := measure(*bin, "robust", "--json", "--timeout", *timeout, f)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: robust: %v\n", f, err)
			failed = true
			continue
		}
		var ro robustOut
		if err := json.Unmarshal(bytes.TrimSpace(r.out), &ro); err != nil {
			fmt.Fprintf(os.Stderr, "%s: robust --json: %v\n", f, err)
			failed = true
			continue
		}
		c, err := measure(*bin, "check", "--json", "--timeout", *timeout, f)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: check: %v\n", f, err)
			failed = true
			continue
		}
		var co checkOut
		if err := json.Unmarshal(bytes.TrimSpace(c.out), &co); err != nil {
			fmt.Fprintf(os.Stderr, "%s: check --json: %v\n", f, err)
			failed = true
			continue
		}
		robust := word(ro.Robust, "yes", "no")
		if ro.Robust && !ro.Complete {
			robust = "unknown"
		}
		// The expect lines: rdma and sc as check decides them, robust as
		// robust decides it (check's own robustness answer is bounded by
		// --unroll on programs with loops, where it says unknown).
		expect := "ok"
		for _, e := range append(co.Expect, ro.Expect) {
			if e.Status != "ok" && (e.Semantics != "robust" || e == ro.Expect) {
				expect = "FAIL " + e.Semantics
			}
		}
		if expect != "ok" {
			failed = true
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%.2fs\t%d\t%s\t%.2fs\t%d+%d\t%s\t%s\n",
			strings.TrimSuffix(filepath.Base(f), ".rdma"),
			word(co.RDMA.Allowed, "allowed", "forbidden"), word(co.SC.Allowed, "allowed", "forbidden"),
			robust, ro.Method,
			r.wall.Seconds(), ro.States, mib(r.peakKB),
			c.wall.Seconds(), co.RDMA.States, co.SC.States, mib(c.peakKB),
			expect)
	}
	w.Flush()
	if failed {
		os.Exit(1)
	}
}
