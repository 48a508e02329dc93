package expect

import (
	"testing"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// program returns a program with the given expect lines and no query
// beyond exists.
func program(expects ...prog.Expect) *prog.Program {
	return &prog.Program{Name: "t", Query: prog.Query{Kind: prog.QExists}, Expects: expects}
}

// TestCheck: each rdma/sc line gets the status its answer gives it, and a
// robust line is listed unchecked.
func TestCheck(t *testing.T) {
	allowed := prog.Expect{Sem: prog.RDMA, Yes: true}
	forbidden := prog.Expect{Sem: prog.SC}
	for _, tc := range []struct {
		name   string
		line   prog.Expect
		result verdict.Result
		status Status
		why    string
	}{
		{"confirmed", allowed, verdict.Result{Allowed: true}, OK, ""},
		{"contradicted", allowed, verdict.Result{Complete: true}, Fail, "computed forbidden"},
		{"forbidden confirmed", forbidden, verdict.Result{Complete: true, Finals: 1}, OK, ""},
		{"cut", forbidden, verdict.Result{Bound: "max-states=5"}, Unknown, "no configuration found, but the search was cut by max-states=5"},
		{"model limit", allowed, verdict.Result{Bound: "model limit: 70 events > 64", Limit: &axiom.LimitError{}}, Unknown, "model limit: 70 events > 64"},
		{"vacuous", forbidden, verdict.Result{Complete: true, Deadlocks: 1}, Vacuous, "no run of the program ends: 1 deadlocked configuration, 0 filtered configurations"},
		{"vacuous by errors", forbidden, verdict.Result{Complete: true, Failed: 2, Filtered: 1, ErrorAt: "T at line 7: the value 3 leaves the range 0..2 of d"}, Vacuous,
			"no run of the program ends: T at line 7: the value 3 leaves the range 0..2 of d (2 configurations at an error point, 0 deadlocked, 1 filtered)"},
		{"errors and a final", forbidden, verdict.Result{Complete: true, Failed: 2, Finals: 1, ErrorAt: "T at line 7: assertion r == 1 failed"}, OK, ""},
		{"filtered only", forbidden, verdict.Result{Complete: true, Filtered: 3}, OK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := program(tc.line, prog.Expect{Sem: prog.Robust})
			r := tc.result
			got := Check(p, [2]*verdict.Result{&r, &r})
			if len(got) != 2 || got[0].Status != tc.status || got[0].Why != tc.why || got[1].Status != "" {
				t.Errorf("got %+v, want status %q why %q, then an unchecked robust line", got, tc.status, tc.why)
			}
		})
	}
}

// TestRobust: the robust line against an answer on robustness, and
// SetRobust puts it in place of the unchecked line.
func TestRobust(t *testing.T) {
	yes := prog.Expect{Sem: prog.Robust, Yes: true}
	for _, tc := range []struct {
		name   string
		answer Answer
		status Status
		why    string
	}{
		{"confirmed", Answer{Robust: true, Certain: true}, OK, ""},
		{"violation", Answer{Certain: true}, Fail, "computed no"},
		{"cut", Answer{Robust: true, Bound: "timeout=1s"}, Unknown, "no violation found, but the search was cut by timeout=1s"},
		{"limited", Answer{Robust: true, Limited: true, Bound: "model limit: 70 events > 64"}, Unknown, "model limit: 70 events > 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := program(prog.Expect{Sem: prog.RDMA, Yes: true}, yes)
			x := Robust(p, tc.answer)
			if x == nil || x.Status != tc.status || x.Why != tc.why || x.Expected != "yes" {
				t.Fatalf("Robust = %+v, want status %q why %q", x, tc.status, tc.why)
			}
			exps := Check(p, [2]*verdict.Result{{Allowed: true}, {Allowed: true}})
			SetRobust(exps, x)
			if exps[1] != *x {
				t.Errorf("SetRobust: %+v", exps)
			}
		})
	}
	if x := Robust(program(), Answer{}); x != nil {
		t.Errorf("Robust without a robust line = %+v", x)
	}
}

// TestAllOK: the summary of a file's lines.
func TestAllOK(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name     string
		statuses []Status
		want     *bool
	}{
		{"none", nil, nil},
		{"all ok", []Status{OK, OK}, &yes},
		{"one fails", []Status{OK, Fail, Unknown}, &no},
		{"vacuous", []Status{Vacuous}, &no},
		{"ok and unknown", []Status{OK, Unknown}, nil},
		{"only unknown", []Status{Unknown}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var exps []Expectation
			for _, s := range tc.statuses {
				exps = append(exps, Expectation{Status: s})
			}
			got := AllOK(exps)
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("AllOK = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestString: a line prints as the reports print it.
func TestString(t *testing.T) {
	for _, tc := range []struct {
		x    Expectation
		want string
	}{
		{Expectation{Sem: "rdma", Expected: "allowed", Status: OK}, "Expect rdma allowed: ok"},
		{Expectation{Sem: "robust", Expected: "no", Status: Fail, Why: "computed yes"}, "Expect robust no: fail (computed yes)"},
	} {
		if got := tc.x.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.x, got, tc.want)
		}
	}
}
