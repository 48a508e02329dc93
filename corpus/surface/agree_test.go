package surface

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

var (
	agreeN      = flag.Int("surface.n", 300, "programs TestAgreement draws")
	agreeSeed   = flag.Uint64("surface.seed", 1, "seed of TestAgreement's programs")
	agreeDiffer = flag.Bool("surface.differ", false, "TestAgreement also runs every comparison of the fuzzer (corpus/differ: RDMA machine, model, decider) on each lowered program")
	agreeShow   = flag.Int("surface.show", 3, "disagreements TestAgreement prints in full")
	agreeRT     = flag.Bool("surface.runtime", false, "TestAgreement lowers every program with its registers kept at run time")
)

// number matches the numbers of a reason, so that reasons group.
var number = regexp.MustCompile(`[0-9]+`)

// TestAgreement draws programs (Generate) and compares the lowering with
// the interpreter on each (Compare): no disagreement is allowed. With
// -surface.differ, each lowered program also goes through every comparison
// the fuzzer makes (differ.Check). make agree-surface runs it on 10^4
// programs.
func TestAgreement(t *testing.T) {
	start := time.Now()
	var st stats
	n := *agreeN
	if raceEnabled && !agreeNSet() {
		n = min(n, 100)
	}
	for i := 0; i < n; i++ {
		seed := ProgramSeed(*agreeSeed, i)
		src := Generate(seed)
		rep, err := Compare(context.Background(), "gen.rdma", []byte(src), Options{MaxStates: 50000, Registers: registerMode(*agreeRT)})
		if err != nil {
			t.Fatalf("program %d (seed %#x): %v\n%s", i, seed, err, src)
		}
		st.add(rep)
		if len(rep.Problems) > 0 && st.failed <= *agreeShow {
			t.Errorf("program %d (seed %#x) disagrees:\n%s\n%s", i, seed, strings.Join(rep.Problems, "\n"), src)
		}
		if *agreeDiffer && rep.Program != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			d, err := differ.Check(ctx, rep.Program, differ.Options{MaxStates: 200000, MaxModelCost: 2000})
			cancel()
			switch {
			case err != nil:
				st.differErr++
				t.Logf("program %d (seed %#x): differ: %v", i, seed, err)
			case len(d.Problems) > 0:
				st.differFailed++
				t.Errorf("program %d (seed %#x): the semantics disagree on its lowering: %v\n%s", i, seed, d.Problems, src)
			default:
				st.differAgreed++
				st.differSkips += len(d.Skipped)
			}
		}
	}
	t.Logf("%d programs (seed %d) in %s: %d agree, %d disagree, %d skipped",
		n, *agreeSeed, time.Since(start).Round(time.Millisecond), st.agreed, st.failed, st.skipped)
	t.Log(st.String())
	if *agreeDiffer {
		t.Logf("differ on the lowered programs: %d agree (%d comparisons cut by a bound), %d disagree, %d failed or timed out",
			st.differAgreed, st.differSkips, st.differFailed, st.differErr)
	}
}

// stats describe what the compared programs did, so that a run shows the
// generator reaches every kind of behaviour.
type stats struct {
	agreed, failed, skipped         int
	withErrors, withDeadlock, noFin int
	manyFinals, cut                 int
	states, maxStates               int
	reasons                         map[string]int
	differAgreed, differFailed      int
	differErr, differSkips          int
}

func (s *stats) add(r *Report) {
	switch {
	case r.Skipped != "":
		s.skipped++
		if s.reasons == nil {
			s.reasons = map[string]int{}
		}
		s.reasons[number.ReplaceAllString(r.Skipped, "N")]++
		return
	case len(r.Problems) > 0:
		s.failed++
	default:
		s.agreed++
	}
	m := r.Machine
	if len(m.Errors) > 0 {
		s.withErrors++
	}
	if m.Deadlock {
		s.withDeadlock++
	}
	switch {
	case len(m.Finals) == 0:
		s.noFin++
	case len(m.Finals) > 1:
		s.manyFinals++
	}
	if !m.Complete || !r.Interp.Complete {
		s.cut++
	}
	s.states += m.States
	s.maxStates = max(s.maxStates, m.States)
}

func (s *stats) String() string {
	n := max(s.agreed+s.failed, 1)
	var b strings.Builder
	fmt.Fprintf(&b, "compared: %d with error points, %d deadlock, %d without final memory, %d with several, %d cut by the state limit; SC machine states: mean %d, max %d",
		s.withErrors, s.withDeadlock, s.noFin, s.manyFinals, s.cut, s.states/n, s.maxStates)
	var rs []string
	for r := range s.reasons {
		rs = append(rs, r)
	}
	sort.Strings(rs)
	for _, r := range rs {
		fmt.Fprintf(&b, "\nskipped %d: %s", s.reasons[r], r)
	}
	return b.String()
}

// agreeNSet reports whether -surface.n was given.
func agreeNSet() bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "surface.n" })
	return set
}

func registerMode(runtime bool) parse.RegisterMode {
	if runtime {
		return parse.RegistersRuntime
	}
	return parse.RegistersAuto
}

// TestAgreementRuntimeRegisters is TestAgreement's comparison with every
// register the lowering can keep at run time kept there (prog.OpLoad,
// OpEval, OpIf on register locations), on its own seed: the interpreter
// against the SC machine of that lowering.
func TestAgreementRuntimeRegisters(t *testing.T) {
	n := 200
	if raceEnabled {
		n = 60
	}
	var st stats
	runtimeSeen := 0
	for i := 0; i < n; i++ {
		seed := ProgramSeed(2027, i)
		src := Generate(seed)
		rep, err := Compare(context.Background(), "gen.rdma", []byte(src), Options{MaxStates: 50000, Registers: parse.RegistersRuntime})
		if err != nil {
			t.Fatalf("program %d (seed %#x): %v\n%s", i, seed, err, src)
		}
		st.add(rep)
		if rep.Program != nil && prog.HasRegisters(rep.Program) {
			runtimeSeen++
		}
		if len(rep.Problems) > 0 && st.failed <= 3 {
			t.Errorf("program %d (seed %#x) disagrees:\n%s\n%s", i, seed, strings.Join(rep.Problems, "\n"), src)
		}
	}
	t.Logf("%d programs: %d agree, %d disagree, %d skipped; %d kept registers at run time", n, st.agreed, st.failed, st.skipped, runtimeSeen)
	if runtimeSeen < n/4 {
		t.Errorf("only %d of %d programs kept a register at run time: the comparison tests little", runtimeSeen, n)
	}
}
