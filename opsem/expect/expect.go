// Package expect checks a program's expect lines against what rdmasim
// computed. A line `expect rdma allowed` (or sc, forbidden) is checked
// against the answer to the program's query under that semantics (a
// verdict.Result of a machine or of the declarative model), and `expect
// robust yes` (or no) against an answer on robustness. Each line gets a
// Status:
//
//   - OK: a certain answer confirms it;
//   - Fail: a certain answer contradicts it;
//   - Vacuous: the line is about final configurations and no run of the
//     program ends (each deadlocks, stops at an error point or is filtered
//     out, and some deadlocks or stops at an error point), so "forbidden"
//     would hold only because nothing is allowed; it fails like Fail;
//   - Unknown: a bound cut the search (or the model's size limit kept it
//     from answering) before it could tell;
//   - Skipped: the user asked not to check it (check --skip-robust); it
//     neither holds nor fails, and a strict check does not count it.
//
// Every front-end (check, robust, corpus) checks lines here, so that a line
// means the same everywhere.
package expect

import (
	"fmt"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/report"
	"rdmasim/opsem/verdict"
)

// Status is the outcome of checking one expect line.
type Status string

// Statuses.
const (
	OK      Status = "ok"
	Fail    Status = "fail"
	Unknown Status = "unknown"
	Vacuous Status = "vacuous"
	Skipped Status = "skipped"
)

// Failed reports whether s is a failure: Fail or Vacuous.
func (s Status) Failed() bool { return s == Fail || s == Vacuous }

// Expectation is one checked expect line.
type Expectation struct {
	Sem      string `json:"semantics"` // rdma, sc or robust
	Expected string `json:"expected"`  // the word of the line: allowed, forbidden, yes, no
	Status   Status `json:"status"`    // empty for a robust line not checked yet
	Why      string `json:"why,omitempty"`
}

// String prints the line as the reports do: "Expect rdma allowed: ok", with
// why in parentheses when there is one.
func (x Expectation) String() string {
	s := fmt.Sprintf("Expect %s %s: %s", x.Sem, x.Expected, x.Status)
	if x.Why != "" {
		s += " (" + x.Why + ")"
	}
	return s
}

// Check checks p's rdma and sc expect lines against results (the RDMA
// and SC answers, of the machines or of the model), in the order of the
// lines. A robust line is listed with an empty Status: SetRobust fills
// it in.
func Check(p *prog.Program, results [2]*verdict.Result) []Expectation {
	var out []Expectation
	for _, x := range p.Expects {
		ex := Expectation{Sem: x.Sem.String(), Expected: x.Word()}
		if x.Sem == prog.Robust {
			out = append(out, ex)
			continue
		}
		r := results[0]
		if x.Sem == prog.SC {
			r = results[1]
		}
		switch {
		case r.Limit != nil:
			ex.Status, ex.Why = Unknown, r.Bound
		case !r.Certain():
			ex.Status, ex.Why = Unknown, "no configuration found, but the search was cut by "+r.Bound
		case r.Vacuous():
			ex.Status, ex.Why = Vacuous, "no run of the program ends: "+stuck(r)
		case r.Allowed == x.Yes:
			ex.Status = OK
		default:
			ex.Status, ex.Why = Fail, "computed "+allowed(r.Allowed)
		}
		out = append(out, ex)
	}
	return out
}

// Answer is what an answer on robustness says to an expect robust line.
type Answer struct {
	Robust  bool
	Certain bool // a violation, or a complete search
	// Limited: the declarative model's size limit kept the method from
	// answering; Bound says so.
	Limited bool
	Bound   string // what cut the search
}

// Robust checks p's expect robust line against a; nil when p has none.
func Robust(p *prog.Program, a Answer) *Expectation {
	x, ok := p.Expectation(prog.Robust)
	if !ok {
		return nil
	}
	ex := &Expectation{Sem: prog.Robust.String(), Expected: x.Word()}
	switch {
	case a.Limited:
		ex.Status, ex.Why = Unknown, a.Bound
	case !a.Certain:
		ex.Status, ex.Why = Unknown, "no violation found, but the search was cut by "+a.Bound
	case a.Robust == x.Yes:
		ex.Status = OK
	default:
		ex.Status, ex.Why = Fail, "computed "+YesNo(a.Robust)
	}
	return ex
}

// SetRobust replaces the robust line of exps (as Check lists it) by x.
func SetRobust(exps []Expectation, x *Expectation) {
	for i := range exps {
		if exps[i].Sem == prog.Robust.String() && x != nil {
			exps[i] = *x
		}
	}
}

// AllOK summarises exps: nil when no line could be decided, or when every
// decided line holds but some stayed unknown; false when a line failed;
// true when every line holds.
func AllOK(exps []Expectation) *bool {
	decided, ok, unknown := false, true, false
	for _, x := range exps {
		switch {
		case x.Status == OK:
			decided = true
		case x.Status.Failed():
			decided, ok = true, false
		case x.Status == Unknown:
			unknown = true
		}
	}
	if decided && (!ok || !unknown) {
		return &ok
	}
	return nil
}

// YesNo is the word of a robustness answer.
func YesNo(robust bool) string {
	if robust {
		return "yes"
	}
	return "no"
}

func allowed(b bool) string {
	if b {
		return "allowed"
	}
	return "forbidden"
}

// stuck summarises the stuck configurations of r, leading with the first
// error point reached when a run stopped at one: "T at line 7: the value 3
// leaves the range 0..2 of d (1 configuration at an error point, 0
// deadlocked, 0 filtered)".
func stuck(r *verdict.Result) string {
	if r.Model {
		// The model counts error points and deadlocked memories, not
		// configurations.
		if r.Failed == 0 {
			return report.Plural(int(r.Deadlocks), "deadlocked trace") + " (declarative model)"
		}
		return fmt.Sprintf("%s (%s, %s; declarative model)", r.ErrorAt, report.Plural(int(r.Failed), "error point"), report.Plural(int(r.Deadlocks), "deadlocked trace"))
	}
	if r.Failed == 0 {
		return fmt.Sprintf("%s, %s", report.Plural(int(r.Deadlocks), "deadlocked configuration"), report.Plural(int(r.Filtered), "filtered configuration"))
	}
	return fmt.Sprintf("%s (%s at an error point, %s deadlocked, %s filtered)", r.ErrorAt, report.Plural(int(r.Failed), "configuration"), report.Count(r.Deadlocks), report.Count(r.Filtered))
}
