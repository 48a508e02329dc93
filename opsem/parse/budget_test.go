package parse_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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
	instrs := codeSize
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

// TestHopBudgetGenerated is TestHopBudget on counter protocols drawn from
// a menu of the statements the budget is about, written as users write
// them (default ranges, rfaa tickets, gets and puts of a shared counter,
// increments off and on loops, spins): where the two lowerings differ,
// both machines must reach the same outcomes, errors and deadlocks.
func TestHopBudgetGenerated(t *testing.T) {
	menu := []string{
		"t[i] := rfaa(C, 1)", "t[i] := rfaa(C, 2)", "poll(S)", "d[i] := D", "v[i] := d[i] + 1",
		"v[i] := t[i] * 2 % 5", "D := v[i]", "s[i] := C", "D := t[i]",
		"while (s[i] != t[i]) { s[i] := C; poll(S) }",
		"if (d[i] == 1) { v[i] := d[i] + t[i] }",
		"while (d[i] == 0) { d[i] := D; poll(S) }",
	}
	rng := rand.New(rand.NewPCG(29, 32))
	n, differ := 150, 0
	for k := 0; k < n; k++ {
		src := "param N = 2\nnode S { C = 0; D = 0 }\nnode c[i] for i in 0..N-1 { t = 0; s = 0; d = 0; v = 0 }\nthread client[i] on c[i] for i in 0..N-1 {\n"
		for j := 0; j < 3+rng.IntN(4); j++ {
			src += "  " + menu[rng.IntN(len(menu))] + "\n"
		}
		// A query over every location, so that both lowerings show the
		// same outcomes whatever error points each has.
		src += "  poll(S)\n  poll(S)\n}\nexists (C = 99 \\/ D = 99 \\/ t[0] = 99 \\/ t[1] = 99 \\/ s[0] = 99 \\/ s[1] = 99 \\/ d[0] = 99 \\/ d[1] = 99 \\/ v[0] = 99 \\/ v[1] = 99)\n"
		with, err := parse.ParseOptions("gen.rdma", []byte(src), parse.Options{})
		if err != nil {
			continue
		}
		without, err := parse.ParseOptions("gen.rdma", []byte(src), parse.Options{NoHopBudget: true})
		if err != nil {
			t.Fatalf("lowers with the budget, not without it: %v\n%s", err, src)
		}
		if codeSize(with) == codeSize(without) {
			continue
		}
		for _, sem := range []machine.Semantics{machine.SC, machine.RDMA} {
			ra, rb := outcomes(t, with, sem), outcomes(t, without, sem)
			if ra != rb {
				t.Fatalf("under %v:\nwith the budget:\n%s\nwithout:\n%s\n%s", sem, ra, rb, src)
			}
		}
		differ++
	}
	if differ < n/10 {
		t.Errorf("only %d of %d programs lower differently with the budget: the menu no longer exercises it", differ, n)
	}
	t.Logf("%d of %d programs lowered differently, same outcomes", differ, n)
}

// codeSize is the number of core instructions of p's threads.
func codeSize(p *prog.Program) (n int) {
	for _, th := range p.Threads {
		n += len(th.Code)
	}
	return n
}
