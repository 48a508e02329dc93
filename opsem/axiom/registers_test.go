package axiom_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"rdmasim/corpus/surface"
	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/check"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/prog/progtest"
	"rdmasim/opsem/verdict"
)

var (
	regsN    = flag.Int("axiom.regs.n", 150, "programs TestRegistersAgree draws")
	regsSeed = flag.Uint64("axiom.regs.seed", 2027, "seed of TestRegistersAgree's programs")
	regsCost = flag.Float64("axiom.regs.cost", 1500, "largest product of the threads' trie sizes (axiom.PrefixProduct) TestRegistersAgree compares")
)

// regsTally counts what TestRegistersAgree did with the programs it drew.
type regsTally struct {
	drawn, kept, costly                  int
	compared, cut, limited, disagreed    int
	staticCompared, staticSkipped, stDis int
}

// TestRegistersAgree draws protocol programs (corpus/surface), lowers them
// with their registers kept at run time (parse.RegistersRuntime), keeps
// those that keep one, and compares the declarative model with the
// machines as `rdmasim check --semantics both` does (outcome sets, reach
// answers, error points, under RDMA and SC), and the model of the program
// with the model of the same program lowered with its registers
// specialised (parse.RegistersStatic), on the locations both have, when
// neither bound cut. Count-boxed (-axiom.regs.n programs from
// -axiom.regs.seed); programs whose model searches too many event sets
// (axiom.PrefixProduct past -axiom.regs.cost, for either lowering) are left
// out, by a count, never by time. No disagreement is allowed, and a
// real share of the programs must be compared.
func TestRegistersAgree(t *testing.T) {
	n := *regsN
	if testing.Short() || axiom.RaceEnabled {
		n = min(n, 40) // under the race detector (CI): make test's race-free pass draws all
	}
	var c regsTally
	ctx := context.Background()
	for i := 0; i < n; i++ {
		seed := surface.ProgramSeed(*regsSeed, i)
		src := surface.Generate(seed)
		c.drawn++
		p, err := parse.ParseOptions("gen.rdma", []byte(src), parse.Options{Registers: parse.RegistersRuntime})
		if err != nil || !prog.HasRegisters(p) {
			continue
		}
		c.kept++
		switch n, err := axiom.PrefixProduct(p, verdict.LoopBound(p, 0)); {
		case errors.Is(err, axiom.ErrTooLarge):
			c.limited++
			continue
		case err != nil:
			t.Errorf("program %d (seed %#x): the model: %v\n%s", i, seed, err, src)
			continue
		case n > *regsCost:
			c.costly++
			continue
		}
		if why := agreeWithMachines(ctx, p, &c); why != "" {
			t.Errorf("program %d (seed %#x): %s\n%s", i, seed, why, src)
		}
		if why := agreeWithStatic(ctx, p, src, &c); why != "" {
			t.Errorf("program %d (seed %#x): %s\n%s", i, seed, why, src)
		}
	}
	t.Logf("%d programs drawn, %d keep registers at run time, %d left out by cost; machines: %d compared, %d cut, %d over the model's limits, %d disagree; static lowering: %d compared, %d skipped, %d disagree",
		c.drawn, c.kept, c.costly, c.compared, c.cut, c.limited, c.disagreed, c.staticCompared, c.staticSkipped, c.stDis)
	if c.compared < c.kept/3 || c.staticCompared < c.kept/10 {
		t.Errorf("only %d (machines) and %d (static lowering) of %d programs with registers compared: the test compares little", c.compared, c.staticCompared, c.kept)
	}
}

// agreeWithMachines answers p's query as `rdmasim check --semantics both`
// does and returns why the model and the machines disagree, or "".
func agreeWithMachines(ctx context.Context, p *prog.Program, c *regsTally) string {
	vopt := verdict.Options{Machine: machine.DefaultOptions(), Settings: explore.Settings{MaxStates: 200000}}
	r, err := check.Answer(ctx, p, check.Options{Semantics: check.Both, Verdict: vopt})
	if err != nil {
		return fmt.Sprintf("check --semantics both: %v", err)
	}
	switch {
	case r.Disagree:
		c.disagreed++
		return "the model disagrees with the machines: " + strings.Join(r.Agreement, "; ")
	case r.Limited:
		c.limited++
	case len(r.Agreement) == 2 && strings.Contains(r.Agreement[0], "agrees") && strings.Contains(r.Agreement[1], "agrees"):
		c.compared++
	default:
		c.cut++
	}
	return ""
}

// agreeWithStatic compares the model's outcomes of p (registers at run
// time) with those of src lowered with its registers specialised, on the
// ordinary locations, and returns why they differ, or "".
func agreeWithStatic(ctx context.Context, p *prog.Program, src string, c *regsTally) string {
	s, err := parse.ParseOptions("gen.rdma", []byte(src), parse.Options{Registers: parse.RegistersStatic})
	if err != nil || prog.HasRegisters(s) {
		c.staticSkipped++
		return ""
	}
	if n, err := axiom.PrefixProduct(s, verdict.LoopBound(s, 0)); err == nil && n > *regsCost {
		c.staticSkipped++
		return ""
	}
	opt := verdict.Options{Machine: machine.DefaultOptions()}
	rr, rs, err := verdict.ComputeModel(ctx, p, opt)
	if errors.Is(err, axiom.ErrTooLarge) {
		c.staticSkipped++
		return ""
	}
	if err != nil {
		return fmt.Sprintf("model: %v", err)
	}
	sr, ss, err := verdict.ComputeModel(ctx, s, opt)
	if errors.Is(err, axiom.ErrTooLarge) || err == nil && (!rr.Complete || !sr.Complete) {
		c.staticSkipped++
		return ""
	}
	if err != nil {
		return fmt.Sprintf("model of the static lowering: %v", err)
	}
	if !slices.Equal(ordinaryNames(p, rr.Locs), ordinaryNames(s, sr.Locs)) {
		// The lowerings chose different queries: the static one found an
		// error point unreachable, which the other keeps.
		c.staticSkipped++
		return ""
	}
	c.staticCompared++
	for i, pair := range [][2]*verdict.Result{{rr, sr}, {rs, ss}} {
		a, b := ordinaryOutcomes(p, pair[0]), ordinaryOutcomes(s, pair[1])
		if !slices.Equal(a, b) {
			c.stDis++
			return fmt.Sprintf("%s: the model's outcomes are %q with registers at run time, %q specialised", []string{"rdma", "sc"}[i], a, b)
		}
		if p.Query.Kind == s.Query.Kind && pair[0].Allowed != pair[1].Allowed {
			c.stDis++
			return fmt.Sprintf("%s: the model's query answer is %v with registers at run time, %v specialised", []string{"rdma", "sc"}[i], pair[0].Allowed, pair[1].Allowed)
		}
	}
	return ""
}

// ordinaryOutcomes returns r's outcomes over the locations that are no
// registers, each "name=value ...", sorted and without duplicates.
func ordinaryOutcomes(p *prog.Program, r *verdict.Result) []string {
	var out []string
	for _, o := range r.Outcomes {
		var b strings.Builder
		for i, l := range r.Locs {
			if !p.Locs[l].Reg {
				fmt.Fprintf(&b, "%s=%d ", p.Locs[l].Name, o.Values[i])
			}
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ordinaryNames returns the names of the locations of locs that are no
// registers, in order.
func ordinaryNames(p *prog.Program, locs []int) []string {
	var out []string
	for _, l := range locs {
		if !p.Locs[l].Reg {
			out = append(out, p.Locs[l].Name)
		}
	}
	return out
}

// TestRegistersFinalValues: registers make no events, yet a program with
// no condition shows them in its final memories; the model takes their
// values from the valuations each thread's label sequence ends with
// (tnode.finals), as the machines keep them in memory. The final memories
// (x, y, r) and the error points of progtest.Registers are those worked out
// by hand, under RDMA and SC, and the machines agree.
func TestRegistersFinalValues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		m      int64
		hi     uint8
		finals [][]byte // x, y, r
		fails  int      // error points reached
	}{
		{"not taken", 1, 3, [][]byte{{1, 0, 0}, {1, 0, 1}}, 0},
		{"taken", 2, 3, [][]byte{{1, 0, 0}, {1, 3, 2}}, 0},
		{"out of range", 2, 1, [][]byte{{1, 0, 0}}, 1},
	} {
		p := progtest.Registers(t, tc.m, tc.hi)
		if why := modelFinals(p, tc.finals); why != "" {
			t.Errorf("%s: %s", tc.name, why)
		}
		ra, rs, _, err := axiom.Reach(context.Background(), p, axiom.Options{}, axiom.ReachQuery{Errors: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(ra.Errors) != tc.fails || len(rs.Errors) != tc.fails {
			t.Errorf("%s: error points %v (rdma), %v (sc), want %d", tc.name, ra.Errors, rs.Errors, tc.fails)
		}
		if _, why := bothAgree(p, 0); why != "" {
			t.Errorf("%s: %s", tc.name, why)
		}
	}
}

// modelFinals returns why the model's final memories of p, under RDMA and
// under SC, are not finals, or "".
func modelFinals(p *prog.Program, finals [][]byte) string {
	rdma, sc, _, err := axiom.Outcomes(context.Background(), p, axiom.Options{})
	if err != nil {
		return err.Error()
	}
	for i, got := range [][][]byte{rdma, sc} {
		if !slices.EqualFunc(got, finals, slices.Equal) {
			return fmt.Sprintf("%s: final memories %v, want %v", []string{"rdma", "sc"}[i], got, finals)
		}
	}
	return ""
}

// bothAgree answers p's query as `rdmasim check --semantics both
// --unroll unroll` does and returns the answer and why the model and the
// machines do not agree on it, or "".
func bothAgree(p *prog.Program, unroll int) (*check.Result, string) {
	vopt := verdict.Options{Machine: machine.DefaultOptions()}
	vopt.Machine.Unroll = unroll
	r, err := check.Answer(context.Background(), p, check.Options{Semantics: check.Both, Verdict: vopt})
	if err != nil {
		return nil, fmt.Sprintf("check --semantics both: %v", err)
	}
	if r.Disagree || len(r.Agreement) != 2 || !strings.Contains(r.Agreement[0], "agrees") || !strings.Contains(r.Agreement[1], "agrees") {
		return r, fmt.Sprintf("the model and the machines: %q", r.Agreement)
	}
	return r, ""
}

// TestRegistersNoInitialWrites: a register kept at run time is thread
// state, not memory: it has no initial write (nor any other event), so a
// trace's events are one initial write per memory location and the
// threads' label sequences. ticket-lock-regs (13 memory locations, 6
// registers; 21 events a client at unroll 1, 25 at unroll 2) fits the model's 64 events
// with them left out (63), not with them counted (69). Each program is
// then run under a MaxEvents of exactly its count: every trace is well
// formed with one initial write per memory location, the outcomes are
// those of the default limit, and the model agrees with the machines as
// `rdmasim check --semantics both` compares them.
func TestRegistersNoInitialWrites(t *testing.T) {
	ticket, err := parse.File("../../corpus/protocols/ticket-lock-regs.rdma")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		p       *prog.Program
		unroll  int
		events  int  // the most events of a trace
		compare bool // run the model at that limit and against the machines
		traces  bool // check the enumerated traces (too slow on ticket-lock-regs)
	}{
		{"registers", progtest.Registers(t, 2, 3), 0, 5, true, true},    // lW(x), lR(x), lW(y) and x's and y's initial writes
		{"out of range", progtest.Registers(t, 2, 1), 0, 4, true, true}, // T stops at its error point after lR(x)
		{"switch", progtest.SwitchRegister(t, 2, true), 0, 5, true, true},
		{"ticket-lock-regs unroll 1", ticket, 1, 13 + 2*21, true, false},
		{"ticket-lock-regs unroll 2", ticket, 2, 13 + 2*25, false, false}, // the machines take 40 s
	} {
		n, err := axiom.TraceEvents(tc.p, tc.unroll)
		if err != nil || n != tc.events {
			t.Errorf("%s: %d events (%v), want %d", tc.name, n, err, tc.events)
			continue
		}
		if !tc.compare {
			continue
		}
		if why := modelAtLimit(tc.p, tc.unroll, tc.events, tc.traces); why != "" {
			t.Errorf("%s: %s", tc.name, why)
		}
		if _, why := bothAgree(tc.p, tc.unroll); why != "" {
			t.Errorf("%s: %s", tc.name, why)
		}
	}
}

// modelAtLimit runs the model of p with MaxEvents max and returns why it
// is not as with the default limit, or "": with traces, a trace that is
// not well formed or whose initial writes are not one per memory location
// (checkTraces); outcomes that differ.
func modelAtLimit(p *prog.Program, unroll, max int, traces bool) string {
	ctx := context.Background()
	opt := axiom.Options{Unroll: unroll, MaxEvents: max}
	if traces {
		if why := checkTraces(p, opt); why != "" {
			return why
		}
	}
	rt, st, _, err := axiom.Outcomes(ctx, p, opt)
	if err != nil {
		return fmt.Sprintf("outcomes at MaxEvents %d: %v", max, err)
	}
	opt.MaxEvents = 0
	r0, s0, _, err := axiom.Outcomes(ctx, p, opt)
	if err != nil {
		return fmt.Sprintf("outcomes: %v", err)
	}
	if !slices.EqualFunc(rt, r0, slices.Equal) || !slices.EqualFunc(st, s0, slices.Equal) {
		return fmt.Sprintf("outcomes at MaxEvents %d %v, %v; at the default %v, %v", max, rt, st, r0, s0)
	}
	return ""
}

// checkTraces enumerates the traces of p (the first 200) and returns why
// one is not well formed or has initial writes other than one per memory
// location, in location order, or "".
func checkTraces(p *prog.Program, opt axiom.Options) string {
	var mem []int
	for l := range p.Locs {
		if !p.Locs[l].Reg {
			mem = append(mem, l)
		}
	}
	const maxTraces = 200
	var bad string
	seen := 0
	_, err := axiom.Enumerate(context.Background(), p, opt, false, func(tr *axiom.Trace, _, _ bool) bool {
		var inits []int
		for _, e := range tr.Events {
			if e.Thread < 0 {
				inits = append(inits, e.Loc)
			}
		}
		switch err := tr.WellFormed(); {
		case err != nil:
			bad = fmt.Sprintf("a trace is not well formed: %v", err)
		case !slices.Equal(inits, mem):
			bad = fmt.Sprintf("a trace has initial writes of %v, want the memory locations %v", inits, mem)
		}
		seen++
		return bad == "" && seen < maxTraces
	})
	if err != nil {
		return fmt.Sprintf("enumeration at MaxEvents %d: %v", opt.MaxEvents, err)
	}
	if seen == 0 {
		return "no trace"
	}
	return bad
}

// TestSwitchOnRegister: a switch on a run-time register
// (progtest.SwitchRegister, which the lowering never emits) makes no
// event and reads no memory in the model, as in the machines and the
// decider: its trie paths evaluate it on the register valuation, and it
// is a control point of the thread only where no alternative holds for
// the register's value (the thread waits there for ever); elsewhere the
// thread runs through it within the step that reached it. The final
// memories are those worked out by hand, and the model agrees with the
// machines (`rdmasim check --semantics both`) on them and on the reach
// query "T is at the switch", with and without an else alternative.
func TestSwitchOnRegister(t *testing.T) {
	for _, tc := range []struct {
		name   string
		m      int64
		orElse bool
		finals [][]byte // x, y, r
		waits  bool     // T may be at the switch (reach T@switch)
	}{
		{"taken", 2, true, [][]byte{{1, 0, 0}, {1, 3, 2}}, false},
		{"not taken", 1, true, [][]byte{{1, 0, 0}, {1, 0, 1}}, false},
		{"no else, taken", 2, false, [][]byte{{1, 3, 2}}, true}, // T read 0: r = 0 has no alternative
		{"no else, never taken", 1, false, nil, true},
	} {
		p := progtest.SwitchRegister(t, tc.m, tc.orElse)
		if why := modelFinals(p, tc.finals); why != "" {
			t.Errorf("%s: %s", tc.name, why)
		}
		at := &prog.Cond{Op: prog.CAt, Thread: 1, Label: "switch", PCs: []int{2}}
		for _, q := range []prog.Query{{}, {Kind: prog.QReach, Cond: at}} {
			p.Query = q
			r, why := bothAgree(p, 0)
			switch {
			case r == nil:
				t.Fatalf("%s: %s", tc.name, why)
			case why != "":
				t.Errorf("%s, query %v: %s", tc.name, q.Kind, why)
			}
			if q.Cond != nil && (r.Results[0].Allowed != tc.waits || r.Results[1].Allowed != tc.waits) {
				t.Errorf("%s: reach T@switch: %v (rdma), %v (sc), want %v", tc.name, r.Results[0].Allowed, r.Results[1].Allowed, tc.waits)
			}
		}
	}
}
