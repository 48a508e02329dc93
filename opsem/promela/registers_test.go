package promela

import (
	"fmt"
	"strings"
	"testing"

	"rdmasim/corpus/surface"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestRegistersOutcomesMatch is TestOutcomesMatch on the ticket lock
// written with registers, which the lowering keeps at run time: SPIN finds
// rdmasim's outcomes and stores as many states, under both semantics.
func TestRegistersOutcomesMatch(t *testing.T) {
	needSpin(t)
	p, err := parse.File("../../corpus/protocols/ticket-lock-regs.rdma")
	if err != nil {
		t.Fatal(err)
	}
	if !prog.HasRegisters(p) {
		t.Fatal("ticket-lock-regs.rdma keeps no register at run time: the test tests nothing")
	}
	for _, sem := range sems {
		t.Run(sem.String(), func(t *testing.T) {
			t.Parallel()
			compare(t, p, sem, 0, 0)
		})
	}
}

// registerPrograms is how many programs of the surface generator
// TestRegistersGeneratedMatch draws (seed 2027, as
// corpus/surface.TestAgreementRuntimeRegisters), and registerWant how many
// of them it must compare at least.
const (
	registerPrograms = 60
	registerWant     = 15
)

// TestRegistersGeneratedMatch compares SPIN and rdmasim, under both
// semantics, on the programs of corpus/surface's generator lowered with
// every register kept at run time (those that keep one: loads, evals,
// ifs, switches on registers and their error points). Programs with range
// checks, which the Promela export refuses, are left out.
func TestRegistersGeneratedMatch(t *testing.T) {
	needSpin(t)
	compared := 0
	for i := 0; i < registerPrograms; i++ {
		seed := surface.ProgramSeed(2027, i)
		src := surface.Generate(seed)
		p, err := parse.ParseOptions(fmt.Sprintf("gen-%d.rdma", i), []byte(src), parse.Options{Registers: parse.RegistersRuntime})
		if err != nil || !prog.HasRegisters(p) || prog.HasRangeChecks(p) {
			continue
		}
		compared++
		for _, sem := range sems {
			t.Run(fmt.Sprintf("%d/%s", i, sem), func(t *testing.T) {
				t.Parallel()
				compare(t, p, sem, 2, 2)
				if t.Failed() {
					t.Logf("seed %#x:\n%s", seed, src)
				}
			})
		}
	}
	if compared < registerWant {
		t.Errorf("only %d of %d programs compared, want %d", compared, registerPrograms, registerWant)
	}
}

// TestRegisterExprs checks the translation of expressions: operators and
// their failures, the refusal of values past 32 bits, and the run of
// register-only instructions written one statement each (localSeq).
func TestRegisterExprs(t *testing.T) {
	p, err := parse.ParseOptions("e.rdma", []byte("node A { x = 0; y = 0 }\nthread T on A {\n reg r\n reg s\n r := x\n s := y\n"+
		" if (r / s > 1) { x := r % s } else { x := -r * 2 }\n}\n"), parse.Options{Registers: parse.RegistersRuntime})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Write(&b, p, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"r_s == 0", "(r_r / r_s)", "(r_r % r_s)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("model lacks %q:\n%s", want, b.String())
		}
	}
	g := &gen{p: p}
	r := prog.Term{Kind: prog.TLoc, Val: 0}
	mul := prog.Term{Kind: prog.TMul}
	if _, err := g.expr(prog.Expr{r, r, mul, r, mul, r, mul}); err == nil {
		t.Error("r*r*r*r: no error, yet it may pass 32 bits")
	}
	x, err := g.expr(prog.Expr{r, {Kind: prog.TConst, Val: -3}, {Kind: prog.TMod}})
	if err != nil || x.val != "("+g.loc(0)+" % (-3))" || len(x.fails) != 0 {
		t.Errorf("r %% -3: %+v, %v", x, err)
	}
}
