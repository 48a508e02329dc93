package robust

import (
	"fmt"
	"io"
	"strings"

	"rdmasim/opsem/expect"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// WriteText prints r as the robust command does: a headline with the
// answer, the method, what it searched and how completely ("Robust
// paper-5.1: no (enum-machine, 12 configurations)"), the violation (its sc
// cycle, with τ1 and τ2 and the replayed run for the decider, the trace for
// enum-axiom, the run to it for enum-machine), the expect robust line, and
// where the program deadlocks.
func WriteText(w io.Writer, r *Result) {
	p := r.Program
	counted := report.Plural(int(r.Search.States), r.Unit())
	switch {
	case r.Limit != nil:
		fmt.Fprintf(w, "Robust %s: unknown (%s, %s)\n", p.Name, r.Method, r.Bound)
	case !r.Robust:
		fmt.Fprintf(w, "Robust %s: no (%s, %s%s)\n", p.Name, r.Method, counted, autoNote(r))
		writeViolation(w, r)
	case r.Complete:
		fmt.Fprintf(w, "Robust %s: yes (%s, %s, complete%s)\n", p.Name, r.Method, counted, autoNote(r))
	case r.Coverage() == verdict.WithinBounds:
		fmt.Fprintf(w, "Robust %s: yes within bounds (%s, %s, cut by %s%s)\n", p.Name, r.Method, report.Plural(int(r.Search.States), r.Unit()), r.Bound, autoNote(r))
	default:
		fmt.Fprintf(w, "Robust %s: unknown (%s, %s, stopped by %s%s)\n", p.Name, r.Method, report.Plural(int(r.Search.States), r.Unit()), r.Bound, autoNote(r))
	}
	if r.Symmetry != "" {
		fmt.Fprintf(w, "symmetry: %s\n", r.Symmetry)
	}
	if r.Blocks != "" {
		fmt.Fprintf(w, "searched: %s\n", r.Blocks)
	}
	for _, why := range r.Asymmetric {
		fmt.Fprintf(w, "no symmetry for %s\n", why)
	}
	if r.Unchecked != "" {
		fmt.Fprintf(w, "ranges: robustness is answered without stopping where a write leaves %s, as check does\n", r.Unchecked)
	}
	if r.Expect != nil {
		fmt.Fprintln(w, r.Expect)
	}
	if dl := r.Deadlock; dl != nil {
		where := "under SC (a program that is not robust may deadlock under RDMA elsewhere too)"
		if r.Certain() && r.Robust {
			where = "under SC and, the program being robust, under RDMA alike"
		}
		fmt.Fprintf(w, "Deadlock %s: waits for ever %s; robustness covers the runs up to it\n", dl.DeadlockAt, where)
	}
}

// writeViolation prints the violation of r, as its method found it.
func writeViolation(w io.Writer, r *Result) {
	cycle := report.CycleLines(r.Cycle)
	switch r.Method {
	case Decider:
		if r.WitnessCut != "" {
			fmt.Fprintf(w, "Violation: the Karp–Miller search reaches the instrumentation's target, so a violating trace exists; the search for a concrete run to it was cut by %s, so none is shown\n", r.WitnessCut)
			return
		}
		fmt.Fprintln(w, "Violation: τ = τ1 τ2, an RDMA-consistent trace (every ob edge forward in τ) whose sc = po ∪ rf ∪ rb ∪ mo has a cycle:")
		fmt.Fprintf(w, "  τ1:%s\n", events(r.Tau1))
		fmt.Fprintf(w, "  τ2:%s\n", events(r.Tau2))
		fmt.Fprintln(w, "  sc cycle:")
		writeLines(w, "    ", cycle)
		if r.Run != nil {
			fmt.Fprintf(w, "Replayed on the RDMA machine (%s):\n", report.Plural(len(r.Run.Steps), "step"))
			report.WriteRun(w, "", machine.RDMA, r.Run)
		}
	case EnumAxiom:
		fmt.Fprintln(w, "Violation: an RDMA-consistent trace (ob acyclic) whose sc = po ∪ rf ∪ rb ∪ mo has a cycle:")
		writeLines(w, "  ", cycle)
		fmt.Fprintln(w, "Trace:")
		writeLines(w, "  ", traceLines(r))
	default:
		fmt.Fprintln(w, "Violation: an RDMA execution whose sc = po ∪ rf ∪ rb ∪ mo has a cycle:")
		writeLines(w, "  ", cycle)
		fmt.Fprintf(w, "Run to the violation (%s):\n", report.Plural(len(r.Run.Steps), "step"))
		report.WriteRun(w, "", machine.RDMA, r.Run)
	}
}

// events prints events, each after a space.
func events(evs []string) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(" " + e)
	}
	return b.String()
}

func writeLines(w io.Writer, indent string, lines []string) {
	for _, l := range lines {
		fmt.Fprintf(w, "%s%s\n", indent, l)
	}
}

// traceLines prints the violating trace of r, one line per part (nil
// without one).
func traceLines(r *Result) []string {
	if r.Trace == nil {
		return nil
	}
	return strings.Split(strings.TrimSuffix(r.Trace.Format(r.Program), "\n"), "\n")
}

// autoNote is what the headline of an answer of method Auto says about the
// other method it ran and what cut it ("; enum-machine stopped by auto's
// budget of 500,000 configurations"), and why enumeration answered alone
// on remote atomics. Empty otherwise.
func autoNote(r *Result) string {
	var b strings.Builder
	for _, st := range r.Stopped {
		b.WriteString("; " + string(st.Method) + " stopped")
		if st.Bound != "" {
			b.WriteString(" by " + st.Bound)
		}
	}
	switch r.Alone {
	case AloneAtomics:
		b.WriteString("; the decider does not cover remote atomics: answered by enumeration")
	case AloneVerbs:
		if s := prog.FirstVerbs(r.Program); s != nil {
			b.WriteString("; the decider does not cover " + prog.VerbsFeature(s) + ": answered by enumeration")
		}
	case AloneInflight:
		b.WriteString("; enum-machine not tried: a queue pair has more operations than max-inflight lets be in flight")
	}
	switch {
	case r.AtomicsExperimental && r.Method == Decider && !r.Robust:
		b.WriteString("; found by the decider's experimental instrumentation of remote atomics, and certain: its witness is an RDMA-consistent trace with an sc cycle, replayed on the RDMA machine")
	case r.AtomicsExperimental && r.Method == Decider:
		b.WriteString("; EXPERIMENTAL: the decider's instrumentation of remote atomics, whose normal form is not proved (SEMANTICS-ATOMICS.md section 5)")
	case r.Hunt != nil:
		b.WriteString("; " + r.Hunt.String())
	}
	return b.String()
}

// JSON is the JSON form of an answer (robust --json).
type JSON struct {
	File     string           `json:"file,omitempty"`
	Name     string           `json:"name,omitempty"`
	Robust   *bool            `json:"robust"`   // null when unknown
	Complete bool             `json:"complete"` // the answer is certain: a violation, or a complete search
	Coverage verdict.Coverage `json:"coverage"`
	Bound    string           `json:"bound"`
	Method   Method           `json:"method"` // the method that answered (with auto: decide or enum-machine)
	// Stopped (method auto): the method that ran besides the one that
	// answered, and what cut it.
	Stopped []Stopped `json:"stopped,omitempty"`
	// Refused (method auto) names the instructions the decider refuses
	// when the program has some, so that enumeration answered alone:
	// "remote atomics".
	Refused string `json:"decider_refused,omitempty"`
	// Alone (method auto) says why one method ran alone: "loops",
	// "checkpoint", "symmetry", "max-inflight" (the decider), "atomics"
	// (enumeration); absent when enumeration ran first within its budget.
	Alone  string `json:"alone,omitempty"`
	States uint64 `json:"states"`
	// Symmetry describes the group the search reduced by ("4 instances
	// of client (24 permutations)"); absent without.
	Symmetry string `json:"symmetry,omitempty"`
	// Blocks (decide): the blocks of threads that can share an SC cycle,
	// when the decider searched once per block; absent for one search.
	Blocks string `json:"blocks,omitempty"`
	// Asymmetric: the families of the program that are no group of
	// symmetries, and why (with symmetry reduction on, when the search
	// reduced by none).
	Asymmetric []string            `json:"asymmetric,omitempty"`
	Witness    *WitnessJSON        `json:"witness"`
	Expect     *expect.Expectation `json:"expect"`
	// Error is why the method gave no answer (with several methods).
	Error *report.ErrorJSON `json:"error,omitempty"`
	// Deadlocks counts the SC machine's deadlocked configurations, and
	// DeadlockAt says where the first waits (Result.Deadlock).
	Deadlocks  uint64 `json:"deadlocks"`
	DeadlockAt string `json:"deadlock_at,omitempty"`
	// RangesUnchecked names the ranges that NIC writes may leave, which
	// the answer does not stop at (Result.Unchecked); absent when none.
	RangesUnchecked string `json:"ranges_unchecked,omitempty"`
	// AtomicsExperimental: the decider answered on remote atomics with its
	// experimental instrumentation (robust --atomics-experimental).
	AtomicsExperimental bool `json:"atomics_experimental,omitempty"`
	// AtomicsHunt (method auto, enumeration on remote atomics): what the
	// decider's experimental instrumentation said after enumeration gave no
	// certain answer, when it found no violation (Result.Hunt).
	AtomicsHunt *Hunt `json:"atomics_decider,omitempty"`
	// Workers, for a search on a cluster, is the number of worker
	// processes that took part (explore.Result.Workers); absent
	// otherwise. It is the one field in which a cluster's report differs
	// from one process's.
	Workers int `json:"workers,omitempty"`
}

// WitnessJSON is the JSON form of a violation.
type WitnessJSON struct {
	Cycle []string    `json:"cycle"`           // events of the sc cycle, each followed by the edge to the next
	Tau1  []string    `json:"tau1,omitempty"`  // decide: the events of τ1, in order
	Tau2  []string    `json:"tau2,omitempty"`  // decide: the events of τ2, in order
	Run   *report.Run `json:"run,omitempty"`   // the run to the violation (decide: replayed on the RDMA machine)
	Trace []string    `json:"trace,omitempty"` // enum-axiom and decide: the violating trace
	// Cut (decide): the bound that cut the search for a concrete run
	// behind an accelerated violation, which then has no witness.
	Cut string `json:"cut,omitempty"`
}

// JSON returns the JSON form of r, for the program in file.
func (r *Result) JSON(file string) JSON {
	p := r.Program
	out := JSON{File: file, Name: p.Name, Complete: r.Certain(), Coverage: r.Coverage(), Bound: r.Bound,
		Method: r.Method, Stopped: r.Stopped, Alone: r.Alone, States: r.Search.States, Expect: r.Expect, Symmetry: r.Symmetry,
		Blocks: r.Blocks, Asymmetric: r.Asymmetric, RangesUnchecked: r.Unchecked, AtomicsExperimental: r.AtomicsExperimental && r.Method == Decider, AtomicsHunt: r.Hunt}
	switch r.Alone {
	case AloneAtomics:
		out.Refused = "remote atomics"
	case AloneVerbs:
		if s := prog.FirstVerbs(p); s != nil {
			out.Refused = prog.VerbsFeature(s)
		}
	}
	if r.Certain() {
		robust := r.Robust
		out.Robust = &robust
	}
	if !r.Robust {
		out.Witness = &WitnessJSON{Cycle: report.CycleLines(r.Cycle), Tau1: r.Tau1, Tau2: r.Tau2,
			Run: report.NewRun(r.Run, p.ThreadName), Trace: traceLines(r), Cut: r.WitnessCut}
	}
	if dl := r.Deadlock; dl != nil {
		out.Deadlocks, out.DeadlockAt = dl.Deadlocks, dl.DeadlockAt
	}
	return out
}

// AllJSON is the JSON form of the answers of several methods (robust
// --method both or all): one object per file.
type AllJSON struct {
	File string `json:"file"`
	Name string `json:"name"`
	// Robust is the methods' certain answer: null when none is certain,
	// or when they disagree.
	Robust *bool `json:"robust"`
	// Complete: Robust is certain.
	Complete bool `json:"complete"`
	// Agree: no two certain answers differ.
	Agree bool `json:"agree"`
	// Methods holds each method's answer, in the order they ran, as JSON
	// without file and name, or the method and its error.
	Methods []JSON `json:"methods"`
	// Expect is the expect robust line checked against Robust: fail when
	// the methods disagree.
	Expect *expect.Expectation `json:"expect"`
}

// JSON returns the JSON form of a, for the program in file.
func (a *All) JSON(file string) AllJSON {
	out := AllJSON{File: file, Name: a.Program.Name, Agree: a.Agree(), Expect: a.Expect}
	if robust, certain := a.Answer(); certain {
		out.Robust, out.Complete = &robust, true
	}
	for i, m := range a.Methods {
		if a.Errs[i] != nil {
			out.Methods = append(out.Methods, JSON{Method: m, Error: &report.ErrorJSON{Message: a.Errs[i].Error()}})
			continue
		}
		j := a.Results[i].JSON("")
		j.Name = ""
		out.Methods = append(out.Methods, j)
	}
	return out
}
