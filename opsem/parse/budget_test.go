package parse_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// TestHopBudget lowers every protocol of corpus/protocols and corpus/bench
// with the hop budget (budget.go) and without it (the domain fixpoint and
// its widening): where the code differs, both machines must reach the
// same final outcomes, the same error points and the same deadlocks from
// both, and the budget's code must be smaller. The memory-counter locks
// must be among those that differ and lower to a few dozen instructions a
// client. Count-boxed: searches stop at 300,000 configurations, and a
// file whose searches do not finish is not compared.
func TestHopBudget(t *testing.T) {
	var files []string
	for _, dir := range []string{"../../corpus/protocols", "../../corpus/bench"} {
		fs, _ := filepath.Glob(filepath.Join(dir, "*.rdma"))
		files = append(files, fs...)
	}
	instrs := func(p *prog.Program) (n int) {
		for _, th := range p.Threads {
			n += len(th.Code)
		}
		return n
	}
	compared := map[string]bool{}
	for _, f := range files {
		with, err := parse.FileOptions(f, parse.Options{})
		if err != nil {
			continue // a file that needs a param set, or a core file with errors: not this test's
		}
		without, err := parse.FileOptions(f, parse.Options{NoHopBudget: true})
		if err != nil {
			t.Fatalf("%s: lowers with the budget, not without it: %v", f, err)
		}
		a, b := instrs(with), instrs(without)
		if a == b {
			continue
		}
		if a > b {
			t.Errorf("%s: %d instructions with the budget, %d without", f, a, b)
		}
		same := true
		for _, sem := range []machine.Semantics{machine.SC, machine.RDMA} {
			ra, rb := outcomes(t, with, sem), outcomes(t, without, sem)
			if ra == "" || rb == "" {
				t.Logf("%s under %v: a search was cut", filepath.Base(f), sem)
				same = false
				break
			}
			if ra != rb {
				same = false
				t.Errorf("%s under %v:\nwith the budget:\n%s\nwithout:\n%s", f, sem, ra, rb)
			}
		}
		if same {
			compared[filepath.Base(f)] = true // compared, and equal
			t.Logf("%s: %d instructions with the budget, %d without, same outcomes", filepath.Base(f), a, b)
		}
	}
	for _, want := range []string{"atomics-ticket-spin.rdma", "atomics-tas-spin.rdma", "atomics-rw-lock.rdma", "user-spinlock.rdma"} {
		if !compared[want] {
			t.Errorf("%s was not compared (the same code both ways, or a search cut)", want)
		}
	}
	p, err := parse.FileOptions("../../corpus/protocols/atomics-ticket-spin.rdma", parse.Options{Params: map[string]int{"N": 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range p.Threads {
		if len(th.Code) > 200 {
			t.Errorf("atomics-ticket-spin at N = 3: %s has %d instructions with the budget, want at most 200", th.Name, len(th.Code))
		}
	}
}

// outcomes renders what a complete search of p under sem reaches: final
// outcomes, error points, deadlocks; "" when the search was cut.
func outcomes(t *testing.T, p *prog.Program, sem machine.Semantics) string {
	t.Helper()
	res, err := verdict.Compute(context.Background(), p, sem, verdict.Options{
		Machine:  machine.Options{MaxInflight: 8, Reduce: true},
		Settings: explore.Settings{MaxStates: 300_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete {
		return ""
	}
	var out []string
	for _, o := range res.Outcomes {
		out = append(out, fmt.Sprint(o.Values))
	}
	slices.Sort(out)
	return fmt.Sprintf("outcomes %v\nerrors %v\ndeadlocks %d", out, res.Errors, res.Deadlocks)
}
