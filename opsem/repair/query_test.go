package repair

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/opsem/check"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// queryAnswer checks text's own query under RDMA and SC with a search of
// every outcome (no first-witness stop), as check --all-outcomes does.
func queryAnswer(t *testing.T, file string, text []byte) *check.Result {
	t.Helper()
	p, err := parse.Parse(file, text)
	if err != nil {
		t.Fatalf("%s: the text does not parse: %v\n%s", file, err, text)
	}
	opt := verdict.Options{Machine: machine.DefaultOptions()}
	r, err := check.Answer(context.Background(), p, check.Options{Verdict: opt})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// broken reports whether an answer shows the outcome the query goal rules
// out: the condition of exists, ~exists or reach satisfied, forall's
// violated.
func broken(r *verdict.Result) bool {
	if r.Query.Kind == prog.QForall {
		return r.Negative > 0
	}
	return r.Allowed
}

// TestRepairQuery repairs litmus tests and protocols for their query (or
// assertions) under RDMA: the repaired text's query holds by a complete
// search of the RDMA machine, with final runs left (not vacuously), and
// without any one insertion the outcome is reachable again (or the
// program deadlocks); where SC reaches the outcome too, or the only
// reordering is inside a remote atomic, repair says why not.
func TestRepairQuery(t *testing.T) {
	tests := []struct {
		file string
		want string // the kinds inserted, in order; "" when no repair exists
		why  string // part of the reason when there is none
	}{
		{"litmus/GET-GET-MP", "poll", ""},
		{"litmus/PUT-LW", "poll", ""},
		{"litmus/ATOM-GET-SAMEQP", "rfence", ""},
		{"litmus/SB-PUT", "readback readback", ""},
		{"litmus/rule-N7-reach-label", "readback", ""},             // reach T0@L: the read-back goes before the label
		{"litmus/rule-F1-put-inflight-at-end", "readback", ""},     // reach T0@end: after the last statement, inside the braces
		{"xprtrdma-reuse", "poll", ""},                             // an assertion, the file's only query
		{"seqlock-get", "rfence rfence", ""},                       // the polls after each get would leave the program's own polls waiting
		{"commit-other-qp", "readback", ""},                        // a polled put is not visible
		{"litmus/PUT-PUT-2THR-MP", "", "fails under SC as well"},   // SC reaches it too
		{"litmus/ATOM-PUT-OTHERQP", "", "through a remote atomic"}, // a put between an atomic's read and write
		{"litmus/ppo-33-LOOP-PUT-POLL", "", "piling up"},           // puts in a loop, polled once
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			file := filepath.Join(protocols, tc.file+".rdma")
			if dir, name, ok := strings.Cut(tc.file, "/"); ok {
				file = filepath.Join(protocols, "..", dir, name+".rdma")
			}
			r := repairFile(t, file, Options{Goal: GoalQuery})
			if tc.want == "" {
				if r.Found() || !strings.Contains(r.Why, tc.why) {
					t.Fatalf("found %v, why %q; want no repair, because %q", r.Found(), r.Why, tc.why)
				}
				return
			}
			if !r.Found() {
				t.Fatalf("no repair: why %q, cut %q", r.Why, r.Cut)
			}
			var kinds []string
			for _, in := range r.Insertions {
				kinds = append(kinds, in.Kind)
			}
			if got := strings.Join(kinds, " "); got != tc.want {
				t.Errorf("inserted %q, want %q", got, tc.want)
			}
			a := queryAnswer(t, file, r.Text)
			if rdma := a.Results[0]; broken(rdma) || !rdma.Complete || rdma.Vacuous() {
				t.Errorf("the repaired text's query does not hold by a complete RDMA search (allowed %v, complete %v, vacuous %v):\n%s", rdma.Allowed, rdma.Complete, rdma.Vacuous(), r.Text)
			}
			if !strings.Contains(string(r.Text), "expect rdma forbidden") {
				t.Errorf("the expect rdma line is not updated:\n%s", r.Text)
			}
			for i, in := range r.Insertions {
				w := queryAnswer(t, file, r.Without(i)).Results[0]
				if !broken(w) && w.Deadlocks == 0 {
					t.Errorf("without %q at line %d the query still holds: the repair is redundant", in.Stmt, in.Line)
				}
			}
		})
	}
}

// rdmaOnly turns a generated program (exists true: every outcome) into one
// whose exists condition is a final outcome RDMA reaches and SC does not:
// the first such, every location named. It returns "" when RDMA reaches no
// outcome SC does not (assumes may filter every run).
func rdmaOnly(t *testing.T, src string) string {
	t.Helper()
	a := queryAnswer(t, "gen.rdma", []byte(src))
	rdma, sc := a.Results[0], a.Results[1]
	inSC := map[string]bool{}
	for _, o := range sc.Outcomes {
		inSC[string(o.Values)] = true
	}
	for _, o := range rdma.Outcomes {
		if inSC[string(o.Values)] {
			continue
		}
		var eqs []string
		for i, l := range rdma.Locs {
			eqs = append(eqs, fmt.Sprintf("%s = %d", a.Program.Locs[l].Name, o.Values[i]))
		}
		return strings.Replace(src, "exists true", "exists ("+strings.Join(eqs, " /\\ ")+")", 1)
	}
	return ""
}

// TestRepairQueryGenerated is the property test of the query goal on
// generated programs (genProgram: two threads, puts, gets, local accesses,
// assumes; count-boxed at 150 programs from seed 2), each given as its
// exists condition a final outcome that RDMA reaches and SC does not
// (rdmaOnly): on each, repair either says why not
// or gives a text whose condition a complete RDMA search forbids, and
// without any one of whose insertions the condition is allowed again (or
// the program deadlocks).
func TestRepairQueryGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	parseText := textParser("gen.rdma")
	repaired, refused, weak := 0, 0, 0
	for n := 0; n < 150; n++ {
		src := rdmaOnly(t, genProgram(rng, n))
		if src == "" {
			continue
		}
		weak++
		res, err := Repair(context.Background(), []byte(src), Options{Parse: parseText, Costs: DefaultCosts, Goal: GoalQuery})
		if err != nil {
			t.Fatalf("program %d: %v\n%s", n, err, src)
		}
		if !res.Found() {
			refused++
			if res.Why == "" {
				t.Errorf("program %d: no repair and no reason (cut %q)\n%s", n, res.Cut, src)
			}
			continue
		}
		repaired++
		if rdma := queryAnswer(t, "gen.rdma", res.Text).Results[0]; rdma.Allowed || !rdma.Complete || rdma.Deadlocks > 0 {
			t.Errorf("program %d: the repair is not proven (allowed %v, complete %v, deadlocks %d):\n%s", n, rdma.Allowed, rdma.Complete, rdma.Deadlocks, res.Text)
		}
		for i, in := range res.Insertions {
			if w := queryAnswer(t, "gen.rdma", res.Without(i)).Results[0]; !w.Allowed && w.Deadlocks == 0 {
				t.Errorf("program %d: without %q the condition is still forbidden:\n%s", n, in.Stmt, res.Text)
			}
		}
	}
	t.Logf("%d programs with an RDMA-only outcome: %d repaired, %d refused with a reason", weak, repaired, refused)
	if repaired == 0 {
		t.Error("no generated program needed a repair: the generator is too tame")
	}
}

// TestRepairQuerySymmetry: a family of threads whose search is reduced by
// symmetry (one configuration per orbit): the witness read back is a real
// run, the repair goes into the family's one text, and a search without
// the reduction proves it.
func TestRepairQuerySymmetry(t *testing.T) {
	src := `litmus family-putlw
param N = 2
node S { slot[N] : 0..2 = 0 }
node m[i] for i in 0..N-1 { v : 0..2 = 1 }
thread client[i] on m[i] for i in 0..N-1 {
  slot[i] := v[i]
  v[i] := 2
}
exists (slot[0] = 2 /\ slot[1] = 2)
expect rdma allowed
expect sc forbidden
`
	parseText := textParser("family.rdma")
	opt := Options{Parse: parseText, Costs: DefaultCosts, Goal: GoalQuery}
	opt.Robust.Verdict.Symmetry = true
	r, err := Repair(context.Background(), []byte(src), opt)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Found() || len(r.Insertions) != 1 || r.Insertions[0].Stmt != "poll(S)" {
		t.Fatalf("want one poll(S): found %v, why %q, insertions %+v", r.Found(), r.Why, r.Insertions)
	}
	if r.Checked[0].Results[0].Symmetry == "" {
		t.Error("the final check was not reduced by symmetry: the test does not test it")
	}
	if rdma := queryAnswer(t, "family.rdma", r.Text).Results[0]; rdma.Allowed || !rdma.Complete {
		t.Errorf("without the reduction the repaired text's condition is allowed %v (complete %v):\n%s", rdma.Allowed, rdma.Complete, r.Text)
	}
}

// TestRunCycleFromLook pins where a run's cycle that goes through the
// reach condition's look is read from: the look, whatever the cycle's
// length (two nodes in rule-N7-reach-label, three in
// reach-put-inflight-memory).
func TestRunCycleFromLook(t *testing.T) {
	for file, want := range map[string]string{
		"litmus/rule-N7-reach-label":       "the condition's look → T0 nrW(z) in flight line 11",
		"litmus/reach-put-inflight-memory": "the condition's look → T0 nrW(z) in flight line 11 → T0 lW(x,1) line 11",
	} {
		t.Run(file, func(t *testing.T) {
			r := repairFile(t, filepath.Join("../../corpus", file+".rdma"), Options{Goal: GoalQuery})
			if !r.Found() {
				t.Fatalf("no repair: why %q, cut %q", r.Why, r.Cut)
			}
			if got := r.Insertions[0].Breaks; got != want {
				t.Errorf("breaks %q, want %q", got, want)
			}
		})
	}
}
