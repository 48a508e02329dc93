package promela

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"rdmasim/corpus/surface"
	"rdmasim/opsem/machine"
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

// registerCompared is how many programs of the surface generator
// TestRegistersGeneratedMatch compares, the first that keep a register at
// run time and have no range check (which the export refuses) of those
// seed 2027 draws (as corpus/surface.TestAgreementRuntimeRegisters);
// registerSeq how many of them TestRegistersSeqMatch compares. Each
// comparison compiles a pan: they are few, for a busy host.
// -promela.regs compares more.
const (
	registerCompared = 8
	registerSeq      = 3
)

var regsN = flag.Int("promela.regs", registerCompared, "programs TestRegistersGeneratedMatch compares")

// registerPrograms returns the first n programs of the surface generator
// (seed 2027) that keep a register at run time and have no range check.
func registerPrograms(t *testing.T, n int) []*prog.Program {
	t.Helper()
	var out []*prog.Program
	for i := 0; len(out) < n; i++ {
		if i == 50*n {
			t.Fatalf("only %d of %d programs keep a register at run time without range checks", len(out), i)
		}
		src := surface.Generate(surface.ProgramSeed(2027, i))
		p, err := parse.ParseOptions(fmt.Sprintf("gen-%d.rdma", i), []byte(src), parse.Options{Registers: parse.RegistersRuntime})
		if err == nil && prog.HasRegisters(p) && !prog.HasRangeChecks(p) {
			out = append(out, p)
		}
	}
	return out
}

// TestRegistersGeneratedMatch compares SPIN and rdmasim, under both
// semantics (max-inflight 2, unroll 2), on programs of corpus/surface's
// generator lowered with every register kept at run time: loads, evals,
// ifs, switches on registers and their error points.
func TestRegistersGeneratedMatch(t *testing.T) {
	needSpin(t)
	for _, p := range registerPrograms(t, *regsN) {
		for _, sem := range sems {
			t.Run(p.Name+"/"+sem.String(), func(t *testing.T) {
				t.Parallel()
				compare(t, p, sem, 2, 2)
			})
		}
	}
}

// TestRegistersSeqMatch is TestRegistersGeneratedMatch (SC) with every
// register-only run written one statement per instruction (localSeq), as
// runs too long for nested ifs are.
func TestRegistersSeqMatch(t *testing.T) {
	needSpin(t)
	models := map[*prog.Program][]byte{}
	var ps []*prog.Program
	for _, p := range registerPrograms(t, 3*registerCompared) {
		if len(ps) == registerSeq {
			break
		}
		g, err := newGen(p, Options{Semantics: machine.SC, MaxInflight: 2, Unroll: 2})
		if err != nil {
			t.Fatal(err)
		}
		g.treeMax = 0
		g.model()
		if strings.Contains(g.b.String(), ":: else fi; if ::") { // a run reached by a step
			ps = append(ps, p)
			models[p] = []byte(g.b.String())
		}
	}
	if len(ps) < registerSeq {
		t.Fatalf("only %d programs with a register-only run after a step", len(ps))
	}
	for _, p := range ps {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			compareModel(t, p, machine.SC, 2, 2, models[p])
		})
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
	for _, want := range []string{"r_T_s == 0", "(r_T_r / r_T_s)", "(r_T_r % r_T_s)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("model lacks %q:\n%s", want, b.String())
		}
	}
	g := &gen{p: p}
	r := prog.Term{Kind: prog.TLoc, Val: 0}
	mul := prog.Term{Kind: prog.TMul}
	// r*r*r*r is safe: an operand past 2^20 fails before the product.
	if _, err := g.expr(prog.Expr{r, r, mul, r, mul, r, mul}); err != nil {
		t.Errorf("r*r*r*r: %v", err)
	}
	c16 := prog.Term{Kind: prog.TConst, Val: 16}
	if _, err := g.expr(prog.Expr{r, r, mul, c16, mul, r, r, mul, c16, mul, mul}); err == nil {
		t.Error("(r*r*16) * (r*r*16): no error, yet it may pass 32 bits")
	}
	x, err := g.expr(prog.Expr{r, {Kind: prog.TConst, Val: -3}, {Kind: prog.TMod}})
	if err != nil || x.val != "("+g.loc(0)+" % (-3))" || len(x.fails) != 0 {
		t.Errorf("r %% -3: %+v, %v", x, err)
	}
}
