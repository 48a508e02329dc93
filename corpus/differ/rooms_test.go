package differ

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"rdmasim/corpus/gen"
	"rdmasim/corpus/surface"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/promela"
	"rdmasim/opsem/report"
	"rdmasim/opsem/stress"
	"rdmasim/opsem/verdict"
)

// opPrograms has, for every operation of the core (prog.Op), a program
// whose lowered code uses it and the final outcomes its condition's
// locations take (under RDMA and SC alike: these programs are too small to
// tell them apart), or the error point it stops at. TestEveryOpInEveryRoom
// fails when an operation has no entry: a new operation gets its program
// here before anything else.
var opPrograms = map[prog.Op]opProgram{
	prog.OpEnd:    {"node A { x = 0 }\nthread T on A { x := 1 }\nexists (x = 1)\n", []string{"x=1;"}, false, false, false},
	prog.OpSkip:   {"node A { x = 0 }\nthread T on A { skip; x := 1 }\nexists (x = 1)\n", []string{"x=1;"}, false, false, false},
	prog.OpBranch: {"node A { x = 0 }\nthread T on A { choose { x := 1 } or { x := 2 } }\nexists (x = 1)\n", []string{"x=1;", "x=2;"}, false, false, false},
	prog.OpWrite:  {"node A { x = 0 }\nthread T on A { x := 3 }\nexists (x = 3)\n", []string{"x=3;"}, false, false, false},
	prog.OpAssumeEq: {"node A { x = 0; y = 0 }\nthread T on A { x := 1 }\nthread U on A { assume(x == 1); y := 1 }\nexists (y = 1)\n",
		[]string{"y=1;"}, false, false, false},
	prog.OpAssumeNe: {"node A { x = 0; y = 0 }\nthread T on A { x := 1 }\nthread U on A { assume(x != 1); y := 2 }\nexists (y = 2)\n",
		[]string{"y=2;"}, false, false, false},
	prog.OpCAS: {"node A { z = 0; r = 9 }\nthread T on A { r := cas(z, 0, 1) }\nexists (z = 1 /\\ r = 0)\n", []string{"z=1; r=0;"}, false, false, false},
	prog.OpGet: {"node A { a = 0 }\nnode B { y = 2 }\nthread T on A { a := y }\nthread U on B { y := 3 }\nexists (a = 2)\n",
		[]string{"a=2;", "a=3;"}, false, false, false},
	prog.OpPut:    {"node A { a = 2 }\nnode B { y = 0 }\nthread T on A { a := 3; y := a }\nexists (y = 3)\n", []string{"y=3;"}, false, false, false},
	prog.OpRFence: {"node A { a = 1; b = 0 }\nnode B { x = 0 }\nthread T on A { x := a; rfence(B); b := 1 }\nexists (x = 1 /\\ b = 1)\n", []string{"x=1; b=1;"}, false, false, false},
	prog.OpPoll:   {"node A { a = 1; b = 0 }\nnode B { x = 0 }\nthread T on A { x := a; poll(B); b := 1 }\nexists (x = 1 /\\ b = 1)\n", []string{"x=1; b=1;"}, false, false, false},
	prog.OpFail:   {"node A { x = 0 }\nthread T on A {\n  reg r\n  x := 1\n  r := x\n  assert(r == 2)\n}\n", nil, true, false, false},
	prog.OpRCAS:   {"node A { r = 9 }\nnode B { L = 0 }\nthread T on A { r := rcas(L, 0, 1); poll(B) }\nexists (L = 1 /\\ r = 0)\n", []string{"L=1; r=0;"}, false, false, false},
	prog.OpRFAA:   {"node A { r = 9 }\nnode B { C = 4 }\nthread T on A { r := rfaa(C, 2); poll(B) }\nexists (C = 6 /\\ r = 4)\n", []string{"C=6; r=4;"}, false, false, false},
	prog.OpSwitch: {"node A { x = 0; y = 0 }\nthread T on A { x := 2 }\nthread U on A {\n  reg r\n  r := x\n  if (r == 2) { y := 1 } else { y := 2 }\n}\nexists (y = 1)\n",
		[]string{"y=1;", "y=2;"}, false, false, false},
	prog.OpLoad: {"node A { x = 0; y = 0 }\nthread T on A { x := 2 }\nthread U on A {\n  reg r\n  r := x\n  y := r + 1\n}\nexists (y = 3)\n",
		[]string{"y=1;", "y=3;"}, false, true, false},
	prog.OpEval: {"node A { x = 0; y = 0 }\nthread T on A { x := 2 }\nthread U on A {\n  reg r\n  r := x\n  r := r * 2\n  y := r\n}\nexists (y = 4)\n",
		[]string{"y=0;", "y=4;"}, false, true, false},
	// b := 1 runs after quiet, when the put's write is visible: x = 1 in
	// every final configuration (as after a poll, which waits less).
	prog.OpQuiet: {"node A { a = 1; b = 0 }\nnode B { x = 0 }\nthread T on A { x := a; quiet; b := 1 }\nexists (x = 1 /\\ b = 1)\n", []string{"x=1; b=1;"}, false, false, false},
	prog.OpIf: {"node A { x = 0; y = 0 }\nthread T on A { x := 2 }\nthread U on A {\n  reg r\n  r := x\n  if (r == 2) { y := 1 } else { y := 2 }\n}\nexists (y = 1)\n",
		[]string{"y=1;", "y=2;"}, false, true, false},
}

// opProgram is a program of opPrograms (or of fencedPrograms) and what
// every room must find in it.
type opProgram struct {
	src      string
	outcomes []string // sorted, as report.Outcome prints them
	failure  bool     // every run stops at an error point
	runtime  bool     // lowered with its registers kept at run time
	// promelaRefuses: the Promela machines refuse the program with an
	// error, which the room then checks instead of SPIN: a multi-word put
	// marked inline (promela.InlineWordsError).
	promelaRefuses bool
}

// opEvents are the events an operation makes, which every room that runs
// it must produce (a room that skipped the operation silently could still
// reach the right memory).
var opEvents = map[prog.Op][]prog.EventKind{
	prog.OpWrite:    {prog.EvLW},
	prog.OpAssumeEq: {prog.EvLR},
	prog.OpAssumeNe: {prog.EvLR},
	prog.OpCAS:      {prog.EvCAS},
	prog.OpGet:      {prog.EvNRR, prog.EvNLW},
	prog.OpPut:      {prog.EvNLR, prog.EvNRW},
	prog.OpRFence:   {prog.EvNF},
	prog.OpPoll:     {prog.EvPoll},
	prog.OpRCAS:     {prog.EvNAR, prog.EvNAW, prog.EvNLW},
	prog.OpRFAA:     {prog.EvNAR, prog.EvNAW, prog.EvNLW},
	prog.OpSwitch:   {prog.EvLR},
	prog.OpLoad:     {prog.EvLR},
	prog.OpEval:     {prog.EvLW},
	prog.OpQuiet:    {prog.EvQuiet},
}

var kindNames = map[prog.EventKind]string{
	prog.EvLW: "lW", prog.EvLR: "lR", prog.EvCAS: "CAS", prog.EvNLR: "nlR", prog.EvNRW: "nrW", prog.EvNRR: "nrR",
	prog.EvNLW: "nlW", prog.EvNF: "nF", prog.EvPoll: "poll", prog.EvNAR: "naR", prog.EvNAW: "naW",
	prog.EvQuiet: "quiet",
}

// missing returns the kinds of want that are not in got.
func missing(want []prog.EventKind, got map[prog.EventKind]bool) []string {
	var out []string
	for _, k := range want {
		if !got[k] {
			out = append(out, kindNames[k])
		}
	}
	return out
}

// racing returns the program of src with a store-buffering pair added
// after the operation: thread th (the one that runs the operation) goes on
// with zp := 1; assume(zq == 0), and a new thread W on A does zq := 1;
// assume(zp == 0).
// The instrumented machine prunes every state from which no SC cycle can
// follow, which in the one-thread programs of opPrograms is every state;
// with the pair it must run th past the operation, making its events.
func racing(src, th string) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "node A { ") {
			lines[i] = "node A { zp = 0; zq = 0; " + strings.TrimPrefix(l, "node A { ")
		}
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "thread "+th+" on A {") {
			continue
		}
		if strings.HasSuffix(l, "}") {
			lines[i] = strings.TrimSuffix(l, "}") + "; zp := 1; assume(zq == 0) }"
			break
		}
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == "}" {
				lines[j] = "  zp := 1\n  assume(zq == 0)\n}"
				break
			}
		}
		break
	}
	return strings.Join(lines, "\n") + "thread W on A { zq := 1; assume(zp == 0) }\n"
}

// instrEvents collects the kinds of the events the instrumented machine's
// transitions make, over its whole state space (these are finite).
func instrEvents(t *testing.T, p *prog.Program, atomics bool) map[prog.EventKind]bool {
	t.Helper()
	m, err := instr.New(p, instr.Options{NoReduction: true, AllowAtomics: atomics})
	if err != nil {
		t.Fatalf("decider: %v", err)
	}
	got := map[prog.EventKind]bool{}
	seen := map[string]bool{}
	queue := [][]byte{m.Initial(nil)}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if seen[string(s)] {
			continue
		}
		seen[string(s)] = true
		var labels []uint64
		m.Successors(s, func(l uint64, next []byte) {
			labels = append(labels, l)
			queue = append(queue, append([]byte(nil), next...))
		})
		for _, l := range labels {
			st, err := m.Transition(s, l)
			if err != nil {
				t.Fatalf("decider: %v", err)
			}
			got[st.Event.Kind] = true
		}
	}
	return got
}

// outcomeSet renders a result's final outcomes.
func outcomeSet(p *prog.Program, r *verdict.Result) []string {
	var out []string
	for _, o := range r.Outcomes {
		out = append(out, report.Outcome(p, r.Locs, o.Values))
	}
	slices.Sort(out)
	return out
}

// TestEveryOpInEveryRoom walks every operation of the core through every
// room that must handle it, and fails naming the room that forgot it: the
// RDMA machine (with and without its partial-order reduction), the SC
// machine, the declarative model, the decider (which answers, or refuses
// remote atomics with its typed error), robustness by enumeration, the
// Promela export (run by SPIN where it is installed), the Promela robustness model (robustnessModel), a random
// walk (stress), the model's cost estimate, the operation's name and the lowering (the program really uses the op).
func TestEveryOpInEveryRoom(t *testing.T) {
	// SPIN runs the Promela export where it is installed, and must be
	// under CI (make tools installs it).
	spin := true
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not on PATH under CI (make tools installs it): %v", tool, err)
			}
			spin = false
		}
	}
	for op := prog.Op(0); ; op++ {
		if strings.HasPrefix(op.String(), "op(") {
			// Past the last operation: it has no name.
			if _, ok := opPrograms[op]; ok {
				t.Errorf("%v has a program but no name", op)
			}
			break
		}
		tc, ok := opPrograms[op]
		if !ok {
			t.Errorf("operation %q has no program in opPrograms: add one, and run it through every room", op)
			continue
		}
		t.Run(op.String()+fmt.Sprint(int(op)), func(t *testing.T) { everyRoom(t, op, tc, spin) })
	}
}

// everyRoom runs the program tc, which uses operation op, through every
// room (TestEveryOpInEveryRoom's list), failing with the room's name.
func everyRoom(t *testing.T, op prog.Op, tc opProgram, spin bool) {
	popt := parse.Options{}
	if tc.runtime {
		popt.Registers = parse.RegistersRuntime
	}
	p, err := parse.ParseOptions(op.String()+".rdma", []byte(tc.src), popt)
	if err != nil {
		t.Fatalf("lowering: %v", err)
	}
	uses := false
	for _, th := range p.Threads {
		for _, in := range th.Code {
			uses = uses || in.Op == op
		}
	}
	if !uses {
		t.Fatalf("lowering: the program does not use %s", op)
	}
	ctx := context.Background()
	opt := verdict.Options{Machine: machine.DefaultOptions(), Witness: true}
	check := func(room string, r *verdict.Result) {
		t.Helper()
		if !r.Complete {
			t.Errorf("%s: search not complete (%s)", room, r.Bound)
		}
		if got := outcomeSet(p, r); !slices.Equal(got, tc.outcomes) {
			t.Errorf("%s: outcomes %q, want %q", room, got, tc.outcomes)
		}
		if failed := r.Failed > 0; failed != tc.failure {
			t.Errorf("%s: %d configurations at an error point, want error points %v", room, r.Failed, tc.failure)
		}
		if r.Witness == nil {
			t.Errorf("%s: no witness run", room)
			return
		}
		got := map[prog.EventKind]bool{}
		for _, st := range r.Witness.Steps {
			got[st.Step.Event.Kind] = true
			for _, w := range st.Step.Words {
				got[w.Kind] = true // a multi-word operation's other events
			}
		}
		if r.Semantics == machine.SC && op.IsAtomic() {
			// Under SC a remote atomic reads and writes its
			// target in one step, reported as its naR.
			got[prog.EvNAW] = true
		}
		if m := missing(opEvents[op], got); len(m) > 0 {
			t.Errorf("%s: the witness run makes no %s event", room, strings.Join(m, ", "))
		}
	}
	var rdma *verdict.Result // the RDMA machine's, for SPIN below
	for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
		r, err := verdict.Compute(ctx, p, sem, opt)
		if sem == machine.RDMA {
			rdma = r
		}
		if err != nil {
			t.Fatalf("%s machine: %v", sem, err)
		}
		check(sem.String()+" machine", r)
	}
	red := opt
	red.Machine.Reduce = true
	if r, err := verdict.Compute(ctx, p, machine.RDMA, red); err != nil {
		t.Errorf("reduced RDMA machine: %v", err)
	} else {
		check("reduced RDMA machine", r)
	}
	// The declarative model runs registers kept at run time.
	if !tc.failure {
		got := map[prog.EventKind]bool{}
		if _, err := axiom.Enumerate(ctx, p, axiom.Options{Unroll: 1}, false, func(tr *axiom.Trace, _, _ bool) bool {
			for _, e := range tr.Events {
				got[e.Kind] = true
			}
			return true
		}); err != nil {
			t.Errorf("declarative model: %v", err)
		}
		if m := missing(opEvents[op], got); len(m) > 0 {
			t.Errorf("declarative model: no trace has a %s event", strings.Join(m, ", "))
		}
		mr, ms, err := verdict.ComputeModel(ctx, p, opt)
		if err != nil {
			t.Errorf("declarative model: %v", err)
		} else {
			if got := outcomeSet(p, mr); !slices.Equal(got, tc.outcomes) {
				t.Errorf("declarative model (rdma): outcomes %q, want %q", got, tc.outcomes)
			}
			if got := outcomeSet(p, ms); !slices.Equal(got, tc.outcomes) {
				t.Errorf("declarative model (sc): outcomes %q, want %q", got, tc.outcomes)
			}
		}
	}
	q, _ := prog.WithoutRangeChecks(p)
	d, err := decide.Decide(ctx, q, decide.Options{})
	var ae *instr.AtomicsError
	var fe *instr.FeatureError
	switch {
	case prog.HasVerbs(q):
		// A verbs feature the decider does not cover
		// (SEMANTICS-VERBS.md): refused, naming it (before atomics).
		if feature := prog.VerbsFeature(prog.FirstVerbs(q)); !errors.As(err, &fe) || fe.Feature != feature {
			t.Errorf("decider: %v, want its refusal naming %s (*instr.FeatureError)", err, feature)
		}
	case op.IsAtomic():
		if !errors.As(err, &ae) {
			t.Errorf("decider: %v, want its refusal of remote atomics (*instr.AtomicsError)", err)
		}
		experimentalAtomics(t, ctx, op, q, tc.src, popt)
	case err != nil:
		t.Errorf("decider: %v", err)
	case !d.Robust || !d.Complete:
		t.Errorf("decider: robust %v complete %v, want a complete yes (one thread, or no race)", d.Robust, d.Complete)
	case len(opEvents[op]) > 0:
		th := "T"
		if op == prog.OpAssumeEq || op == prog.OpAssumeNe || op == prog.OpSwitch {
			th = "U"
		}
		rp, err := parse.ParseOptions("racing.rdma", []byte(racing(tc.src, th)), popt)
		if err != nil {
			t.Fatalf("decider: the racing program: %v", err)
		}
		if m := missing(opEvents[op], instrEvents(t, rp, false)); len(m) > 0 {
			t.Errorf("decider: the instrumented machine makes no %s event", strings.Join(m, ", "))
		}
	}
	if rr, err := verdict.RobustMachine(ctx, q, opt); err != nil {
		t.Errorf("robustness by enumeration: %v", err)
	} else if !rr.Robust || !rr.Complete {
		t.Errorf("robustness by enumeration: robust %v complete %v, want a complete yes", rr.Robust, rr.Complete)
	}
	var buf bytes.Buffer
	// The Promela export runs registers kept at run time.
	if err := promela.Write(&buf, p, promela.Options{Semantics: machine.RDMA}); tc.promelaRefuses {
		if err == nil {
			t.Errorf("Promela export: no error, want its refusal")
		}
	} else if err != nil {
		t.Errorf("Promela export: %v", err)
	} else if spin {
		res, err := promela.Run(ctx, buf.Bytes(), promela.RunOptions{HashBits: 16})
		switch {
		case err != nil:
			t.Errorf("Promela export run by SPIN: %v", err)
		case !slices.Equal(res.Outcomes, promela.VerdictOutcomes(p, rdma)):
			t.Errorf("Promela export run by SPIN: outcomes %q, the RDMA machine's %q", res.Outcomes, promela.VerdictOutcomes(p, rdma))
		}
	}
	robustnessModel(t, ctx, op, q, tc.src, popt, spin)
	run, err := stress.Walk(ctx, p, stress.WalkOptions{Semantics: machine.RDMA, Machine: machine.DefaultOptions(), Seed: 1, MaxSteps: 1000})
	if err != nil {
		t.Errorf("random walk: %v", err)
	} else if ended := run.End == "final" || strings.HasPrefix(run.End, "filtered"); tc.failure != strings.HasPrefix(run.End, "error point") || !tc.failure && !ended {
		t.Errorf("random walk ended %q, want an error point %v", run.End, tc.failure)
	}
	// The cost counts reads of locations with a write besides the
	// initial one: every program here that reads memory has one.
	reads := map[prog.Op]bool{prog.OpAssumeEq: true, prog.OpAssumeNe: true, prog.OpCAS: true, prog.OpGet: true,
		prog.OpPut: true, prog.OpRCAS: true, prog.OpRFAA: true, prog.OpSwitch: true, prog.OpLoad: true}
	if c := ModelCost(p, verdict.LoopBound(p, 0)); c < 0 || c > 1e9 || reads[op] && c == 0 {
		t.Errorf("model cost %g, want a finite estimate, positive for an operation that reads", c)
	}
}

// experimentalAtomics is the decider's room for a remote atomic under its
// experimental instrumentation (decide.Options.AllowAtomics,
// SEMANTICS-ATOMICS.md 5.4), which the default refuses: q (the entry's
// program, src lowered under popt, without range checks) decided robust and
// complete, and the instrumented machine of the racing program making the
// atomic's events.
func experimentalAtomics(t *testing.T, ctx context.Context, op prog.Op, q *prog.Program, src string, popt parse.Options) {
	t.Helper()
	d, err := decide.Decide(ctx, q, decide.Options{AllowAtomics: true})
	switch {
	case err != nil:
		t.Errorf("decider (experimental atomics): %v", err)
		return
	case !d.Robust || !d.Complete:
		t.Errorf("decider (experimental atomics): robust %v complete %v, want a complete yes (one thread, or no race)", d.Robust, d.Complete)
	}
	rp, err := parse.ParseOptions("racing.rdma", []byte(racing(src, "T")), popt)
	if err != nil {
		t.Fatalf("decider (experimental atomics): the racing program: %v", err)
	}
	if m := missing(atomicStepEvents(op), instrEvents(t, rp, true)); len(m) > 0 {
		t.Errorf("decider (experimental atomics): the instrumented machine makes no %s event", strings.Join(m, ", "))
	}
}

// atomicStepEvents is opEvents[op] for a remote atomic as the experimental
// instrumentation makes them: a whole atomic is one step whose naR event
// carries its write (SEMANTICS-ATOMICS.md 5.4), so no naW event of its own.
func atomicStepEvents(op prog.Op) []prog.EventKind {
	var out []prog.EventKind
	for _, k := range opEvents[op] {
		if k != prog.EvNAW {
			out = append(out, k)
		}
	}
	return out
}

// robustnessModel is TestEveryOpInEveryRoom's room of the Promela robustness model (the instrumented
// program of opsem/instr as Promela) on q, the program of op's entry without range checks (src, lowered
// under popt): it refuses the verbs features and remote atomics with its typed errors, as the decider
// does; otherwise, and for remote atomics under the experimental options of both, it writes an option
// for each event op makes, and where SPIN is installed SPIN's complete search finds the program with a
// store-buffering pair after the operation (racing) robust or not as the decider does.
func robustnessModel(t *testing.T, ctx context.Context, op prog.Op, q *prog.Program, src string, popt parse.Options, spin bool) {
	t.Helper()
	var buf bytes.Buffer
	err := promela.WriteRobustness(&buf, q, promela.RobustOptions{})
	var ae *promela.AtomicsError
	var fe *promela.FeatureError
	switch {
	case prog.HasVerbs(q):
		if feature := prog.VerbsFeature(prog.FirstVerbs(q)); !errors.As(err, &fe) || fe.Feature != feature {
			t.Errorf("Promela robustness model: %v, want its refusal naming %s (*promela.FeatureError)", err, feature)
		}
		return
	case op.IsAtomic():
		if !errors.As(err, &ae) {
			t.Errorf("Promela robustness model: %v, want its refusal of remote atomics (*promela.AtomicsError)", err)
		}
		// Its experimental instrumentation of them, as the decider's.
		robustnessModelOf(t, ctx, op, q, src, popt, spin, true)
		return
	case err != nil:
		t.Errorf("Promela robustness model: %v", err)
		return
	}
	robustnessModelOf(t, ctx, op, q, src, popt, spin, false)
}

// robustnessModelOf is robustnessModel's check of a program the model
// instruments: with atomics, under the experimental options of both the
// model and the decider (promela.RobustOptions.AllowAtomics,
// decide.Options.AllowAtomics).
func robustnessModelOf(t *testing.T, ctx context.Context, op prog.Op, q *prog.Program, src string, popt parse.Options, spin, atomics bool) {
	t.Helper()
	ropt := promela.RobustOptions{AllowAtomics: atomics}
	var buf bytes.Buffer
	if err := promela.WriteRobustness(&buf, q, ropt); err != nil {
		t.Errorf("Promela robustness model: %v", err)
		return
	}
	kinds := opEvents[op]
	if atomics {
		kinds = atomicStepEvents(op)
	}
	for _, k := range kinds {
		if !strings.Contains(buf.String(), ": "+kindNames[k]) {
			t.Errorf("Promela robustness model: no option makes a %s event", kindNames[k])
		}
	}
	if !spin {
		return
	}
	th := "T"
	if op == prog.OpAssumeEq || op == prog.OpAssumeNe || op == prog.OpSwitch {
		th = "U"
	}
	rp, err := parse.ParseOptions("racing.rdma", []byte(racing(src, th)), popt)
	if err != nil {
		t.Fatalf("Promela robustness model: the racing program: %v", err)
	}
	rq, _ := prog.WithoutRangeChecks(rp)
	d, err := decide.Decide(ctx, rq, decide.Options{NoWitness: true, AllowAtomics: atomics})
	if err != nil {
		t.Fatalf("Promela robustness model: the decider on the racing program: %v", err)
	}
	buf.Reset()
	if err := promela.WriteRobustness(&buf, rq, ropt); err != nil {
		t.Fatalf("Promela robustness model of the racing program: %v", err)
	}
	res, err := promela.RunRobustness(ctx, buf.Bytes(), promela.RobustRunOptions{RunOptions: promela.RunOptions{HashBits: 16, CFlags: []string{"-O0"}}})
	switch {
	case err != nil:
		t.Errorf("Promela robustness model of the racing program run by SPIN: %v", err)
	case res.Robust() != d.Robust || !res.Complete():
		t.Errorf("Promela robustness model of the racing program run by SPIN: robust %v complete %v, the decider's robust %v", res.Robust(), res.Complete(), d.Robust)
	}
}

// TestEveryOpGenerated: the generators that feed the fuzzer and the
// agreement suites make every operation of the core, so that a new
// operation the generators forget is never compared on random programs
// (the cross-check would pass without ever seeing it). Core programs come
// from corpus/gen in each of the fuzzer's shapes (default, loops, remote
// atomics, contended, verbs), protocol programs from corpus/surface, lowered;
// count-boxed at 300 programs of each (100 under the race detector).
func TestEveryOpGenerated(t *testing.T) {
	made := map[prog.Op][]string{}
	record := func(p *prog.Program, by string) {
		for _, th := range p.Threads {
			for _, in := range th.Code {
				if !slices.Contains(made[in.Op], by) {
					made[in.Op] = append(made[in.Op], by)
				}
			}
		}
	}
	n := 300
	if raceOn {
		n = 100
	}
	loops, atomics, verbs := gen.DefaultConfig(), gen.DefaultConfig(), gen.DefaultConfig()
	loops.Loops = true
	atomics.Atomics = true
	verbs.Verbs = true
	for _, shape := range []struct {
		name string
		cfg  gen.Config
	}{{"gen", gen.DefaultConfig()}, {"gen loops", loops}, {"gen atomics", atomics}, {"gen contended", gen.DefaultConfig().Contended()}, {"gen verbs", verbs}} {
		for i := 0; i < n; i++ {
			record(gen.Program(rand.New(rand.NewPCG(uint64(i), 0)), shape.cfg, fmt.Sprintf("g%d", i)), shape.name)
		}
	}
	for i := 0; i < n; i++ {
		src := surface.Generate(surface.ProgramSeed(27, i))
		p, err := parse.Parse("surface.rdma", []byte(src))
		if err != nil {
			continue // over a lowering limit: the fuzzer skips it too
		}
		record(p, "surface")
		// The same programs with their registers kept at run time, as
		// corpus/surface's TestAgreementRuntimeRegisters compares them.
		if p, err = parse.ParseOptions("surface.rdma", []byte(src), parse.Options{Registers: parse.RegistersRuntime}); err == nil {
			record(p, "surface runtime")
		}
	}
	for op := range opPrograms {
		if len(made[op]) == 0 {
			t.Errorf("no generator makes %v: add it to corpus/gen or corpus/surface, so that the fuzzer compares it", op)
		}
	}
	t.Logf("made by: %v", made)
}
