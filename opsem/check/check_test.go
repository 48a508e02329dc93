package check

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"rdmasim/opsem/expect"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/verdict"
)

// Programs of the tests.
const (
	putLW = "node A { x = 1 }\nnode B { z = 0 }\nthread T0 on A { z := x; x := 2 }\nexists (z = 2)\n" +
		"expect rdma allowed\nexpect sc forbidden\nexpect robust no\n"
	deadlock = "node A { x = 0 }\nnode B { y = 0 }\nthread T0 on A { y := x; poll(B); poll(B) }\nexists (y = 1)\nexpect rdma forbidden\n"
	// allFail overflows d's range in every run: no run ends.
	allFail = "param N = 3\nnode A { d : 0..2 = 0; x = 0 }\nthread T on A {\n  reg r\n  r := N\n  d := r\n  x := 1\n}\nexists (x = 1)\nexpect rdma forbidden\nexpect sc forbidden\n"
	reach   = "node A { x = 1 }\nnode B { z = 0 }\nthread T0 on A { z := x; x := 2 }\nreach T0@end\nexpect rdma allowed\n"
	// vac stops every run at an error point (line 9 writes 2 into x :
	// 0..1): its forbidden is vacuous under the machines and the model.
	vac = "litmus vac\nnode a { x : 0..1 = 0; y : 0..1 = 0 }\nnode b { z : 0..1 = 0 }\n" +
		"thread t on a {\n  x := 1\n  z := x\n  poll(b)\n  y := 1\n  x := y + 1\n}\nexists (z = 1)\nexpect rdma forbidden\nexpect sc forbidden\n"
	// reachMem: the CPU runs past its put, whose write is still in
	// flight, under RDMA only.
	reachMem = "node A { one = 1; x = 0 }\nnode B { z = 0 }\nthread T0 on A { z := one; x := 1 }\nreach (x = 1 /\\ z = 0)\nexpect rdma allowed\nexpect sc forbidden\n"
	// assertRDMA: the client's assertion fails under RDMA, never under SC.
	assertRDMA = "node L { val = 1; one = 1 }\nnode F { log : 0..1 = 0 }\nnode C { commit : 0..1 = 0; copy : 0..1 = 0 }\n" +
		"thread leader on L {\n  log := val\n  poll(F)\n  commit := one\n}\n" +
		"thread client on C {\n  reg c : 0..1\n  reg v : 0..1\n  c := commit\n  if (c == 1) {\n    copy := log\n    poll(F)\n    v := copy\n    assert(v == 1)\n  }\n}\n" +
		"expect rdma allowed\nexpect sc forbidden\n"
)

// tooLarge returns a program of n local writes and a put: more events than
// the declarative model holds when n is large.
func tooLarge(n int) string {
	var b strings.Builder
	b.WriteString("node A { x = 0 }\nnode B { z = 0 }\nthread T0 on A {\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  x := %d\n", i)
	}
	b.WriteString("  z := x\n}\nexists (z = 0)\nexpect rdma forbidden\n")
	return b.String()
}

// TestAnswer: each semantics answers, the expect lines are checked, and
// the report and its JSON say so.
func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, src   string
		sem         Semantics
		statuses    []expect.Status
		agreement   string // a line of Agreement, or ""
		limited     bool
		failed      bool // without strict
		strictFails bool
		text        string // in WriteText's report
	}{
		{"machines", putLW, Machine, []expect.Status{expect.OK, expect.OK, expect.OK}, "", false, false, false, "Observation PUT-LW Sometimes 1 1"},
		{"model", putLW, Axiom, []expect.Status{expect.OK, expect.OK, expect.OK}, "", false, false, false, "Enumerated "},
		{"both", putLW, Both, []expect.Status{expect.OK, expect.OK, expect.OK}, "Model rdma: agrees (2 outcomes)", false, false, false, "Model sc: agrees (1 outcome)"},
		{"both reach", reach, Both, []expect.Status{expect.OK}, "Model rdma: agrees (1 outcome, reach allowed)", false, false, false, "Test PUT-LW Reachable"},
		{"model reach", reachMem, Axiom, []expect.Status{expect.OK, expect.OK}, "", false, false, false, "Observation PUT-LW Never 0 3"},
		{"both reach memory", reachMem, Both, []expect.Status{expect.OK, expect.OK}, "Model rdma: agrees (1 outcome, reach allowed)", false, false, false, "Model sc: agrees (1 outcome, reach forbidden)"},
		{"model vacuous", vac, Axiom, []expect.Status{expect.Vacuous, expect.Vacuous}, "", false, true, true,
			"Vacuous: no trace of the program completes and some trace prefix stops at an error point"},
		{"both vacuous", vac, Both, []expect.Status{expect.Vacuous, expect.Vacuous}, "Model rdma: agrees (0 outcomes, 1 error point)", false, true, true,
			"Error t at line 9: the value 2 leaves the range 0..1 of x"},
		{"model assert", assertRDMA, Axiom, []expect.Status{expect.OK, expect.OK}, "", false, false, false, "Error client at line 17: assertion v == 1 failed"},
		{"both assert", assertRDMA, Both, []expect.Status{expect.OK, expect.OK}, "Model rdma: agrees (1 outcome, reach allowed, 1 error point)", false, false, false,
			"Model sc: agrees (1 outcome, reach forbidden, 0 error points)"},
		{"model deadlock", deadlock, Axiom, []expect.Status{expect.Vacuous}, "", false, true, true, "some trace deadlocks"},
		{"deadlock", deadlock, Machine, []expect.Status{expect.Vacuous}, "", false, true, true, "Vacuous: no run of the program ends"},
		{"all fail", allFail, Machine, []expect.Status{expect.Vacuous, expect.Vacuous}, "", false, true, true,
			"Semantics rdma\nError T at line 6: the value 3 leaves the range 0..2 of d\n"},
		{"model limit", tooLarge(70), Axiom, []expect.Status{expect.Unknown}, "", true, false, true, "Unknown (model limit: "},
		{"both limit", tooLarge(70), Both, []expect.Status{expect.OK}, "Model: unknown (model limit: ", true, false, false, "Semantics rdma"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parse.Parse("PUT-LW.rdma", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			opt := verdict.Options{Machine: machine.DefaultOptions()}
			r, err := Answer(context.Background(), p, Options{Semantics: tc.sem, Verdict: opt})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.CheckExpect(context.Background(), opt); err != nil {
				t.Fatal(err)
			}
			var got []expect.Status
			for _, x := range r.Expect {
				got = append(got, x.Status)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.statuses) {
				t.Errorf("statuses %v, want %v: %v", got, tc.statuses, r.Expect)
			}
			if tc.agreement != "" && (len(r.Agreement) == 0 || !strings.HasPrefix(r.Agreement[0], tc.agreement)) {
				t.Errorf("agreement %q, want %q first", r.Agreement, tc.agreement)
			}
			if r.Limited != tc.limited || r.Disagree || r.Failed(false) != tc.failed || r.Failed(true) != tc.strictFails {
				t.Errorf("limited %v, disagree %v, failed %v, strict %v", r.Limited, r.Disagree, r.Failed(false), r.Failed(true))
			}
			var b bytes.Buffer
			WriteText(&b, r, true)
			if !strings.Contains(b.String(), tc.text) || !strings.HasSuffix(b.String(), "\n\n") {
				t.Errorf("report without %q:\n%s", tc.text, b.String())
			}
			j := r.JSON("f.rdma")
			if j.File != "f.rdma" || j.RDMA == nil || j.SC == nil || len(j.Expect) != len(tc.statuses) {
				t.Errorf("JSON %+v", j)
			} else if want := r.Results[0].Vacuous(); j.RDMA.Vacuous != want || j.RDMA.Failed != r.Results[0].Failed {
				t.Errorf("JSON vacuous %v failed %d, want %v and %d", j.RDMA.Vacuous, j.RDMA.Failed, want, r.Results[0].Failed)
			}
		})
	}
}

// TestDifferences: a reach answer or an error point that only one side
// has is a difference; equal answers are none.
func TestDifferences(t *testing.T) {
	p, err := parse.Parse("vac.rdma", []byte(vac))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := parse.Parse("reach.rdma", []byte(reachMem))
	if err != nil {
		t.Fatal(err)
	}
	res := func(allowed bool, errs ...string) *verdict.Result {
		return &verdict.Result{Allowed: allowed, Errors: errs}
	}
	e := "t at line 9: the value 2 leaves the range 0..1 of x"
	for _, tc := range []struct {
		name          string
		src           string
		mach, model   *verdict.Result
		diffs, agreed string
	}{
		{"same errors", vac, res(false, e), res(false, e), "[]", "0 outcomes, 1 error point"},
		{"only machine", vac, res(false, e), res(false), "[error point only machine: " + e + "]", ""},
		{"only model", vac, res(false), res(false, e), "[error point only model: " + e + "]", ""},
		{"reach differs", reachMem, res(true), res(false), "[reach: machine allowed, model forbidden]", ""},
		{"reach agrees", reachMem, res(false), res(false), "[]", "0 outcomes, reach forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := p
			if tc.src == reachMem {
				q = pr
			}
			diffs, agreed := Differences(q, tc.mach, tc.model)
			if fmt.Sprint(diffs) != tc.diffs || len(diffs) == 0 && agreed != tc.agreed {
				t.Errorf("Differences: %q, %q; want %s, %q", diffs, agreed, tc.diffs, tc.agreed)
			}
		})
	}
}
