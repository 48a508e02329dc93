package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The parts of rdmasim's JSON (robust --json, check --json) the table uses.
type expectOut struct {
	Semantics string `json:"semantics"`
	Status    string `json:"status"`
}

type robustOut struct {
	Robust   *bool      `json:"robust"` // null when unknown
	Complete bool       `json:"complete"`
	Bound    string     `json:"bound"`
	Method   string     `json:"method"`
	States   uint64     `json:"states"`
	Expect   *expectOut `json:"expect"`
	// Stopped (method auto): the method that ran besides the one that
	// answered (before it, or after it when its answer was uncertain),
	// and what cut it.
	Stopped []struct {
		Method string `json:"method"`
		Bound  string `json:"bound"`
	} `json:"stopped"`
}

type semOut struct {
	Allowed  *bool             `json:"allowed"` // null when cut before a witness
	Complete bool              `json:"complete"`
	Bound    string            `json:"bound"`
	States   uint64            `json:"states"`
	Outcomes []json.RawMessage `json:"outcomes"`
}

type checkOut struct {
	Query  string      `json:"query"`
	RDMA   *semOut     `json:"rdma"`
	SC     *semOut     `json:"sc"`
	Expect []expectOut `json:"expect"`
}

// answer is one rdmasim run reduced to the table's cells.
type answer struct {
	Verdict string // robust: yes, no, unknown (BOUND); check: rdma and sc verdicts
	Method  string // robust: the method that answered; check: empty
	States  string // robust: states; check: RDMA+SC configurations
	Expect  string // ok, FAIL SEM, unknown SEM, or - without expect lines
	Limited bool   // the run was stopped by the time limit (rdmasim's --timeout)
	Failed  bool   // an expect line failed
}

// timeoutBound is how rdmasim names the bound --timeout sets.
func limited(bound string) bool { return strings.Contains(bound, "timeout=") }

// expectCell sums up expect lines: "-" without any, else ok, or the first
// failed (FAIL) or undecided (unknown) one.
func expectCell(es []expectOut) (cell string, failed bool) {
	if len(es) == 0 {
		return "-", false
	}
	cell = "ok"
	for _, e := range es {
		switch e.Status {
		case "ok":
		case "fail", "vacuous":
			return "FAIL " + e.Semantics, true
		default:
			if cell == "ok" {
				cell = "unknown " + e.Semantics
			}
		}
	}
	return cell, false
}

// parseRobust reads the output of rdmasim robust --json on one file.
func parseRobust(out []byte) (answer, error) {
	var r robustOut
	if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
		return answer{}, fmt.Errorf("robust --json: %v", err)
	}
	a := answer{Method: r.Method, States: strconv.FormatUint(r.States, 10), Limited: limited(r.Bound)}
	switch {
	case r.Robust == nil || (*r.Robust && !r.Complete):
		// Unknown: what cut the method that answered, and what cut the
		// other one method auto ran.
		bounds := []string{}
		if r.Bound != "" {
			bounds = append(bounds, r.Bound)
		}
		for _, st := range r.Stopped {
			if st.Bound != "" {
				bounds = append(bounds, st.Method+": "+st.Bound)
				a.Limited = a.Limited || limited(st.Bound)
			}
		}
		a.Verdict = "unknown"
		if len(bounds) > 0 {
			a.Verdict += " (" + strings.Join(bounds, "; ") + ")"
		}
	case *r.Robust:
		a.Verdict = "yes"
	default:
		a.Verdict = "no"
	}
	var es []expectOut
	if r.Expect != nil {
		es = append(es, *r.Expect)
	}
	a.Expect, a.Failed = expectCell(es)
	return a, nil
}

// semCell is one semantics' answer: allowed or forbidden with a query,
// else the number of outcomes; marked with the bound that cut the search.
func semCell(query string, s *semOut) string {
	if s == nil {
		return "-"
	}
	var c string
	switch {
	case query == "":
		c = fmt.Sprintf("%d outcomes", len(s.Outcomes))
		if len(s.Outcomes) == 1 {
			c = "1 outcome"
		}
	case s.Allowed == nil:
		c = "?"
	case *s.Allowed:
		c = "allowed"
	default:
		c = "forbidden"
	}
	if !s.Complete && s.Bound != "" {
		c += " (" + s.Bound + ")"
	}
	return c
}

func states(s *semOut) uint64 {
	if s == nil {
		return 0
	}
	return s.States
}

// parseCheck reads the output of rdmasim check --json on one file. The
// robust expect line is left out: check's own robustness answer is bounded
// by --unroll on programs with loops; rdmasim robust decides it.
func parseCheck(out []byte) (answer, error) {
	var c checkOut
	if err := json.Unmarshal(bytes.TrimSpace(out), &c); err != nil {
		return answer{}, fmt.Errorf("check --json: %v", err)
	}
	a := answer{
		Verdict: "rdma " + semCell(c.Query, c.RDMA) + ", sc " + semCell(c.Query, c.SC),
		States:  fmt.Sprintf("%d+%d", states(c.RDMA), states(c.SC)),
	}
	for _, s := range []*semOut{c.RDMA, c.SC} {
		if s != nil && limited(s.Bound) {
			a.Limited = true
		}
	}
	var es []expectOut
	for _, e := range c.Expect {
		if e.Semantics != "robust" {
			es = append(es, e)
		}
	}
	a.Expect, a.Failed = expectCell(es)
	return a, nil
}

// medianDuration is the median of ds (the mean of the middle two for an
// even count; 0 for none).
func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// medianInt is the median of xs, as medianDuration.
func medianInt(xs []int64) int64 {
	ds := make([]time.Duration, len(xs))
	for i, x := range xs {
		ds[i] = time.Duration(x)
	}
	return int64(medianDuration(ds))
}

// medianIndex is the index in ds of the run whose time is the median (the
// lower middle one for an even count): its states and method are the ones
// the table shows.
func medianIndex(ds []time.Duration) int {
	idx := make([]int, len(ds))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return ds[idx[i]] < ds[idx[j]] })
	return idx[(len(idx)-1)/2]
}

// methods sums up the methods that answered over several runs: the one
// method, or each with its count when auto's answer came from both
// ("decide 2, enum-machine 1").
func methods(ms []string) string {
	count := map[string]int{}
	var order []string
	for _, m := range ms {
		if count[m] == 0 {
			order = append(order, m)
		}
		count[m]++
	}
	if len(order) <= 1 {
		return strings.Join(order, "")
	}
	parts := make([]string, len(order))
	for i, m := range order {
		parts[i] = fmt.Sprintf("%s %d", m, count[m])
	}
	return strings.Join(parts, ", ")
}

// parseRange reads a set of n such as "1-10", "3" or "1,3,5-7" (empty: none).
func parseRange(s string) ([]int, error) {
	var ns []int
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 {
			return nil, fmt.Errorf("bad range %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad range %q", s)
			}
		}
		for n := a; n <= b; n++ {
			ns = append(ns, n)
		}
	}
	return ns, nil
}

// mib formats a peak resident set in KiB (0: unknown).
func mib(kb int64) string {
	if kb <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.0f MiB", float64(kb)/1024)
}

// seconds formats a wall time.
func seconds(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// ratio formats after/before ("0.52×"; "-" when either is unknown).
func ratio(after, before float64) string {
	if before <= 0 || after <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", after/before)
}
