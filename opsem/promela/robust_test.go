package promela

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	rgen "rdmasim/corpus/gen"
	"rdmasim/corpus/surface"
	"rdmasim/explore"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

var (
	robustAll     = flag.Bool("promela.robust.all", false, "compare SPIN's robustness verdicts with the decider's on every corpus file (slow)")
	robustK       = flag.Int("promela.robust.k", DefaultMaxCounter, "max-counter of the robustness models")
	robustGenN    = flag.Int("promela.robust.gen", 0, "compare SPIN's robustness verdicts with the decider's on this many generated programs (-promela.loops, -promela.seed)")
	robustTimeout = flag.Duration("promela.robust.timeout", 0, "skip a program whose SPIN pipeline takes longer (0: no limit)")
	// The model is opsem/instr's machine without its partial-order
	// reduction and without the canonicalisation that forgets dead
	// bookkeeping (both only merge or drop states): with -o2 SPIN stores at
	// least as many states as instr's machine without reduction has. Up to
	// that canonicalisation (commit f6c935e) the counts were equal on every
	// corpus program. Counting every state is slow on larger programs: the
	// check runs on request.
	robustRegs   = flag.Int("promela.robust.regs", 40, "seeds of generated programs with registers kept at run time that TestRobustRegistersGenerated draws")
	robustStates = flag.Bool("promela.robust.states", false, "also check that SPIN (spin -a -o2, pan -c0) stores at least the states of opsem/instr's machine without reduction")
)

// robustFiles are small corpus programs, robust and not, with and without
// polls, fences, CAS and loops (polled without bound or not), on which
// SPIN's verdict on the exported instrumented program must equal the
// decider's.
var robustFiles = []string{
	"paper-5.1.rdma",                                    // no: a put's local read delayed
	"SB-PUT.rdma",                                       // no: store buffering through puts
	"PUT-PUT-MP.rdma",                                   // yes
	"GET-LR.rdma",                                       // yes
	"GET-POLL-LR.rdma",                                  // yes, with a poll
	"SB-PUT-PUTGET-POLL.rdma",                           // yes, polls on both sides
	"PUT-GET-OTHERQP-FLUSH.rdma",                        // no, polls
	"GET-RFENCE-PUT-WAR.rdma",                           // fence
	"CAS-VS-NICWRITE.rdma",                              // CAS
	"ppo-47-NLW-POLL-PUT-MP.rdma",                       // nlW polled before a put
	"ppo-33-LOOP-PUT-POLL.rdma",                         // a loop of puts and polls (counters bounded by max-counter)
	"paper-vass-loop.rdma",                              // yes, a loop with a poll
	"rule-loop-gets-reorder.rdma",                       // no, a loop of gets
	"../../opsem/promela/testdata/robust-loop-cut.rdma", // yes, but SPIN's counters are cut by max-counter
	"QUIET-SB.rdma",                                     // yes: quiet (robust_verbs.go)
	"QUIET-RFENCE-NOT-ENOUGH.rdma",                      // no: an rfence where quiet is needed
	"QUIET-GETS-INFLIGHT.rdma",                          // yes: quiet waits for gets in flight
	"FENCED-GET-PUT.rdma",                               // yes: the fence flag
	"FENCED-OTHERQP.rdma",                               // no: the flag orders one queue pair only
	"../regress/fenced-between.rdma",                    // no: held beyond the fenced operation
	"../regress/fenced-poll-earlier.rdma",               // no: a poll is not held
	"FENCED-HOLDS-LATER.rdma",                           // yes: held beyond the fenced operation
}

// TestRobustSpinMatchesDecider: SPIN finds an assertion violation in the
// exported instrumented program iff the decider finds the program not
// robust (where the counter bound cut SPIN's search, a violation SPIN finds
// must still be real). Under -promela.robust.states, where no bound cut
// its search, SPIN stores at least the states that opsem/explore finds in
// opsem/instr's machine without reduction (see robustStates).
func TestRobustSpinMatchesDecider(t *testing.T) {
	needSpin(t)
	files := robustFiles
	if *robustAll {
		all, _ := filepath.Glob(litmus + "*.rdma")
		files = nil
		for _, f := range all {
			files = append(files, filepath.Base(f))
		}
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			p, err := parse.File(litmus + file)
			if err != nil {
				t.Fatal(err)
			}
			got := compareRobust(t, p, *robustK)
			if strings.Contains(file, "cut") && got.Complete() {
				t.Errorf("no %s %s: the counters should reach the bound %d", CutPrefix, CutMaxCounter, *robustK)
			}
		})
	}
}

// TestRobustGenerated compares SPIN's and the decider's verdicts on
// -promela.robust.gen random programs of corpus/gen (with loops under
// -promela.loops).
func TestRobustGenerated(t *testing.T) {
	if *robustGenN == 0 {
		t.Skip("no -promela.robust.gen N")
	}
	needSpin(t)
	cfg := rgen.DefaultConfig()
	cfg.Loops = *genLoops
	rng := rand.New(rand.NewPCG(uint64(*genSeed), 1))
	for i := 0; i < *robustGenN; i++ {
		p := rgen.Program(rng, cfg, fmt.Sprintf("gen-%d", i))
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			compareRobust(t, p, *robustK)
			if t.Failed() {
				t.Logf("program:\n%s", p)
			}
		})
	}
}

// compareRobust checks SPIN's verdict on p's robustness model against the
// decider (and, under -promela.robust.states, its state count against
// instr's machine), and returns SPIN's result.
func compareRobust(t *testing.T, p *prog.Program, k int) *RobustResult {
	t.Helper()
	ctx := context.Background()
	want, err := decide.Decide(ctx, p, decide.Options{NoWitness: true})
	if err != nil {
		t.Fatal(err)
	}
	if !want.Certain() {
		t.Fatalf("the decider is not certain: %s", want.Bound)
	}
	var b bytes.Buffer
	if err := WriteRobustness(&b, p, RobustOptions{MaxCounter: k}); err != nil {
		t.Fatal(err)
	}
	sctx := ctx
	if *robustTimeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, *robustTimeout)
		defer cancel()
	}
	// Counting every state (-c0, -o2) is for small state spaces only: SPIN
	// searches without reduction.
	got, err := RunRobustness(sctx, b.Bytes(), RobustRunOptions{
		RunOptions: RunOptions{CFlags: []string{"-O0"}, MaxDepth: 1000, HashBits: 18},
		AllStates:  *robustStates, KeepWriteOnly: *robustStates,
	})
	if err != nil && sctx.Err() != nil {
		t.Skipf("SPIN's search stopped after -promela.robust.timeout %v (the decider: robust %v, %d states)", *robustTimeout, want.Robust, want.Search.States)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("robust: decider %v (%d states), spin %v (%d states, cut %q); spin -a %v, cc %v, pan %v",
		want.Robust, want.Search.States, got.Robust(), got.States, got.Cut, got.Generate, got.Compile, got.Search)
	switch {
	case got.Violation && want.Robust:
		t.Errorf("SPIN finds a violation, the decider says robust")
	case !got.Violation && !want.Robust && got.Complete():
		t.Errorf("SPIN's complete search finds no violation, the decider says not robust")
	case !got.Violation && !want.Robust:
		t.Logf("SPIN finds no violation within max-counter %d (cut), the decider finds one", k)
	}
	if !got.Complete() || !*robustStates {
		return got
	}
	m, err := instr.New(p, instr.Options{NoReduction: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := explore.New(m, explore.Options{MaxStates: got.States}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != explore.Complete {
		t.Errorf("spin stored %d states, fewer than instr's machine (%s after %d states)", got.States, r.Stop, r.States)
	}
	t.Logf("spin stored %d states, instr's machine has %d", got.States, r.States)
	return got
}

// TestRobustModelText: bad bounds are errors; the header says whether a
// counter bound can cut, and the model of a program without possible
// SC-cycle edges has no target.
func TestRobustModelText(t *testing.T) {
	p, err := parse.File("testdata/robust-loop-cut.rdma")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{-1, 255} {
		if err := WriteRobustness(&bytes.Buffer{}, p, RobustOptions{MaxCounter: k}); err == nil {
			t.Errorf("max-counter %d: no error", k)
		}
	}
	var b bytes.Buffer
	if err := WriteRobustness(&b, p, RobustOptions{MaxCounter: 5}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "bounded by max-counter 5") || !strings.Contains(s, fmt.Sprintf("c2 >= 5 -> printf(\"%s %s", CutPrefix, CutMaxCounter)) {
		t.Errorf("loop model without the counter bound:\n%s", s)
	}
	p, err = parse.File(litmus + "paper-5.1.rdma")
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteRobustness(&b, p, RobustOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "the search is complete") || strings.Contains(s, CutPrefix+" "+CutMaxCounter+"\\n") {
		t.Errorf("poll-free model mentions a cut:\n%s", s)
	}
}

// maxModelBytes bounds the robustness models TestRobustRegistersGenerated
// runs SPIN on.
const maxModelBytes = 400 << 10

// robustStatesOf runs SPIN on p's robustness model counting every state
// (spin -a -o2, pan -c0) and explores opsem/instr's machine of p without
// reduction: SPIN's verdict, its states, and the machine's states and
// whether a target (a violation) is among them.
//
// With maxBytes > 0, a model over maxBytes is skipped: one guess option per
// value of a location's domain, and the domains of locations an eval (or a
// fetch-and-add) writes can span 0..255 (SPIN's parser runs out of memory
// on some).
func robustStatesOf(t *testing.T, p *prog.Program, maxBytes int, opt RobustOptions) (spin *RobustResult, states int, violation bool) {
	t.Helper()
	ctx := context.Background()
	var b bytes.Buffer
	if err := WriteRobustness(&b, p, opt); err != nil {
		t.Fatal(err)
	}
	if maxBytes > 0 && b.Len() > maxBytes {
		t.Skipf("the model has %d bytes, more than %d", b.Len(), maxBytes)
	}
	got, err := RunRobustness(ctx, b.Bytes(), RobustRunOptions{
		RunOptions: RunOptions{CFlags: []string{"-O0"}, MaxDepth: 10000, HashBits: 20},
		AllStates:  true, KeepWriteOnly: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := instr.New(p, instr.Options{NoReduction: true, AllowAtomics: opt.AllowAtomics})
	if err != nil {
		t.Fatal(err)
	}
	tm := m.Clone() // Target decodes into its machine's scratch
	r, err := explore.New(m, explore.Options{Visit: func(_ uint64, s []byte, _ int) bool {
		violation = violation || tm.Target(s)
		return true
	}}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != explore.Complete {
		t.Fatalf("instr's machine: the search stopped (%s)", r.Stop)
	}
	return got, int(r.States), violation
}

// robustRegisterPrograms keep registers at run time (a file's "registers
// runtime" line): loads, evals into registers and into locations, ifs,
// register-only loops, error points of a division by zero and of a load
// out of its register's range, robust or not.
var robustRegisterPrograms = []struct {
	name, src string
	robust    bool
}{
	{"load-eval", "registers runtime\nnode A { x = 0; y = 0 }\nthread T on A { x := 2 }\nthread U on A {\n  reg r\n  r := x\n  y := r + 1\n}\nexists (y = 3)\n", true},
	{"if", "registers runtime\nnode A { x = 0; y = 0 }\nthread T on A { x := 2 }\nthread U on A {\n  reg r\n  r := x\n  if (r == 2) { y := 1 } else { y := 2 }\n}\nexists (y = 1)\n", true},
	{"sb-regs", `registers runtime
node A { x : 0..1 = 0; one : 0..1 = 1; a : 0..1 = 0 }
node B { z : 0..1 = 0; two : 0..1 = 1; b : 0..1 = 0 }
thread T0 on A {
  reg r : 0..1
  z := one
  r := x
  a := r
}
thread T1 on B {
  reg s : 0..1
  x := two
  s := z
  if (s == 0) { b := 1 } else { b := 0 }
}
exists (a = 0 /\ b = 1)
`, false},
	{"put-regs", `registers runtime
node n1 { x : 0..3 = 1; y : 0..3 = 0 }
node n2 { z : 0..3 = 0; w : 0..3 = 1 }
thread p on n1 {
  reg r : 0..3
  y := w
  z := x
  r := x
  x := r + 1
}
exists (z = 2)
`, false},
	{"div-fail", `registers runtime
node A { x : 0..3 = 0; y : 0..7 = 0 }
thread T on A { x := 2 }
thread U on A {
  reg r : 0..3
  r := x
  y := 6 / r
}
exists (y = 3)
`, true},
	{"load-out-of-range", `registers runtime
node A { x : 0..3 = 0; y : 0..3 = 0 }
thread T on A { x := 2; y := 1 }
thread U on A {
  reg r : 0..1
  reg s : 0..3
  s := y
  r := x
  x := s
}
exists (x = 1)
`, true},
	{"register-loop", `registers runtime
node A { x : 0..3 = 0; y : 0..3 = 0 }
thread T on A { x := 1; y := 1 }
thread U on A {
  reg c : 0..3
  reg v : 0..3
  c := 0
  while (c < 2) {
    v := y
    c := c + 1
  }
  x := v + c - 2
}
exists (x = 1)
`, true},
}

// TestRobustRegisters: on programs that keep registers at run time, SPIN's
// verdict on the robustness model equals the decider's, the table's and
// that of opsem/instr's machine without reduction (a target among its
// states), SPIN's search is complete, and SPIN (spin -o2, pan -c0) stores
// at least the states of that machine (robustStatesOf): the model is the
// machine transition for transition, without the machine's
// canonicalisation of dead bookkeeping, which only merges states.
func TestRobustRegisters(t *testing.T) {
	needSpin(t)
	type program struct {
		p      *prog.Program
		robust bool
	}
	var programs []program
	for _, tc := range robustRegisterPrograms {
		p, err := parse.ParseOptions(tc.name+".rdma", []byte(tc.src), parse.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		programs = append(programs, program{p, tc.robust})
	}
	for _, m := range []int64{1, 2} {
		programs = append(programs, program{switchRegisterProgram(t, m), true})
	}
	if *robustStates {
		// SPIN stores 25,882,099 states (a minute and a half, 2.8 GB)
		// where instr's machine without reduction has 32,681: on request.
		p, err := parse.File("testdata/ticket-lock-regs-getput.rdma")
		if err != nil {
			t.Fatal(err)
		}
		programs = append(programs, program{p, true})
	}
	for _, pr := range programs {
		t.Run(pr.p.Name, func(t *testing.T) {
			t.Parallel()
			if !prog.HasRegisters(pr.p) {
				t.Fatalf("the program keeps no register at run time")
			}
			if robust := compareRegisters(t, pr.p, 0); robust != pr.robust {
				t.Errorf("robust %v, want %v", robust, pr.robust)
			}
		})
	}
}

// compareRegisters compares SPIN on p's robustness model with the decider
// and with opsem/instr's machine without reduction, as
// TestRobustRegisters says, and returns SPIN's verdict. With maxStates > 0
// it first explores instr's machine up to maxStates states and skips p
// when it has more (SPIN's search, without the machine's
// canonicalisation, would store far more).
func compareRegisters(t *testing.T, p *prog.Program, maxStates uint64) (robust bool) {
	t.Helper()
	q, _ := prog.WithoutRangeChecks(p) // as robust.Decide answers
	if maxStates > 0 {
		m, err := instr.New(q, instr.Options{NoReduction: true})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := explore.New(m, explore.Options{MaxStates: maxStates}).Run(context.Background()); err != nil {
			t.Fatal(err)
		} else if r.Stop != explore.Complete {
			t.Skipf("instr's machine without reduction has more than %d states", maxStates)
		}
	}
	small := 0
	if maxStates > 0 {
		small = maxModelBytes
	}
	spin, states, violation := robustStatesOf(t, q, small, RobustOptions{})
	d, err := decide.Decide(context.Background(), q, decide.Options{NoWitness: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("spin: violation %v, %d states; instr without reduction: violation %v, %d states; decider: robust %v", spin.Violation, spin.States, violation, states, d.Robust)
	switch {
	case !spin.Complete():
		t.Errorf("SPIN's search was cut (%q)", spin.Cut)
	case spin.Violation != violation:
		t.Errorf("SPIN finds a violation %v, instr's machine without reduction a target %v", spin.Violation, violation)
	case spin.Violation == d.Robust || !d.Certain():
		t.Errorf("SPIN finds a violation %v, the decider robust %v (certain %v)", spin.Violation, d.Robust, d.Certain())
	case spin.States < uint64(states):
		t.Errorf("SPIN stores %d states, fewer than instr's machine without reduction (%d)", spin.States, states)
	}
	return !spin.Violation
}

// TestRobustRegistersRefused: ticket-lock-regs (N = 2) keeps registers at
// run time and takes its tickets with a remote fetch-and-add: the
// robustness model runs its registers and refuses it for the atomic (as
// the decider does), naming the statement; and an assume on a register
// outside a switch, which the lowering never makes, is refused by name.
func TestRobustRegistersRefused(t *testing.T) {
	p, err := parse.File("../../corpus/protocols/ticket-lock-regs.rdma")
	if err != nil {
		t.Fatal(err)
	}
	if !prog.HasRegisters(p) {
		t.Fatalf("ticket-lock-regs keeps no register at run time")
	}
	q, _ := prog.WithoutRangeChecks(p)
	var ae *AtomicsError
	if err := WriteRobustness(&bytes.Buffer{}, q, RobustOptions{}); !errors.As(err, &ae) || !strings.Contains(err.Error(), "rfaa(next, 1)") {
		t.Errorf("ticket-lock-regs: %v, want the refusal of its rfaa (*AtomicsError)", err)
	}
	// T's switch on its register, its first alternative taken alone.
	p = switchRegisterProgram(t, 2)
	code := p.Threads[1].Code
	code[2] = code[3]
	var re *prog.RegistersError
	if err := WriteRobustness(&bytes.Buffer{}, p, RobustOptions{}); !errors.As(err, &re) || re.Construct == "" || re.Register != "T.r" {
		t.Errorf("an assume on a register: %v, want a *prog.RegistersError naming it", err)
	} else {
		t.Log(err)
	}
}

// TestRobustRegistersGenerated compares, as TestRobustRegisters, SPIN on
// the robustness model of generated protocol programs lowered with their
// registers kept at run time (corpus/surface, as opsem/decide's
// TestRegistersAgreement draws them) with the decider and instr's machine
// without reduction. Count-boxed: the programs of the first
// -promela.robust.regs seeds that keep registers, have no remote atomics,
// whose instr machine without reduction has at most 3,000 states and
// whose model at most maxModelBytes.
func TestRobustRegistersGenerated(t *testing.T) {
	needSpin(t)
	compared := 0
	for i := 0; i < *robustRegs; i++ {
		seed := surface.ProgramSeed(27, i)
		src := surface.Generate(seed)
		p, err := parse.ParseOptions("gen.rdma", []byte(src), parse.Options{Registers: parse.RegistersRuntime})
		if err != nil || !prog.HasRegisters(p) || prog.HasAtomics(p) {
			continue // over a lowering limit, nothing kept at run time, or atomics (refused)
		}
		p.Name = fmt.Sprintf("gen-%d", i)
		t.Run(p.Name, func(t *testing.T) {
			compareRegisters(t, p, 3000)
			if !t.Skipped() {
				compared++
			}
			if t.Failed() {
				t.Logf("program (seed %#x):\n%s", seed, src)
			}
		})
	}
	t.Logf("%d of %d generated programs compared", compared, *robustRegs)
	if compared < *robustRegs/10 {
		t.Errorf("only %d of %d programs compared: the test tests little", compared, *robustRegs)
	}
}

// switchRegisterProgram is a thread W that writes x := 1 and a thread T
// with a run-time register r, r := x; r := r * m; switch r { 2: y := r + 1
// | else: skip }, the switch on the register an OpSwitch that makes no
// event (as opsem/instr's registers_test builds it; the lowering makes
// ifs).
func switchRegisterProgram(t *testing.T, m int64) *prog.Program {
	t.Helper()
	const x, y, r = 0, 1, 2
	loc := func(l int64) prog.Term { return prog.Term{Kind: prog.TLoc, Val: l} }
	num := func(v int64) prog.Term { return prog.Term{Kind: prog.TConst, Val: v} }
	op := func(k prog.TermKind) prog.Term { return prog.Term{Kind: k} }
	in := func(i prog.Instr) prog.Instr {
		i.Loop, i.QP, i.Remote = -1, -1, -1
		return i
	}
	cases := make([]int16, prog.MaxValue+1)
	for v := range cases {
		cases[v] = 1
	}
	cases[2] = 0
	stmt := &prog.Stmt{Kind: prog.SSkip}
	fail := &prog.Stmt{Kind: prog.SFail, Src: &prog.Source{Text: "r left its range"}}
	p := &prog.Program{
		Name:  fmt.Sprintf("switch-register-m%d", m),
		Nodes: []prog.Node{{Name: "A"}},
		Locs:  []prog.Loc{{Name: "x", Node: 0}, {Name: "y", Node: 0}, {Name: "T.r", Node: 0, Reg: true, Owner: 1}},
		Threads: []prog.Thread{
			{Name: "W", Node: 0, Lowered: true, Code: []prog.Instr{
				in(prog.Instr{Op: prog.OpWrite, X: x, A: 1, Next: 1, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpEnd}),
			}},
			{Name: "T", Node: 0, Lowered: true, Code: []prog.Instr{
				in(prog.Instr{Op: prog.OpLoad, X: r, Y: x, Lo: 0, Hi: 3, Next: 1, Fail: 6, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpEval, X: r, E: prog.Expr{loc(r), num(m), op(prog.TMul)}, Lo: 0, Hi: 3, Next: 2, Fail: 6, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpSwitch, X: r, Alts: []int{3, 4}, Case: cases, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpAssumeEq, X: r, A: 2, Next: 5, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpAssumeNe, X: r, A: 2, Next: 7, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpEval, X: y, E: prog.Expr{loc(r), num(1), op(prog.TAdd)}, Lo: 0, Hi: prog.MaxValue, Next: 7, Fail: 6, Stmt: stmt}),
				in(prog.Instr{Op: prog.OpFail, Next: 6, Stmt: fail}),
				in(prog.Instr{Op: prog.OpEnd}),
			}},
		},
	}
	if err := prog.Compile(p); err != nil {
		t.Fatal(err)
	}
	return p
}
