package robust

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/expect"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// TestAutoCorpus: on every litmus test, Auto's answer is each complete
// method's own answer (the decider's; enumeration's on loop-free
// programs), whichever method gave it, and the result says who answered
// and who was stopped.
func TestAutoCorpus(t *testing.T) {
	files, err := filepath.Glob("../../corpus/litmus/*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	ctx := context.Background()
	opt := verdict.Options{Machine: machine.DefaultOptions(), Settings: explore.Settings{Workers: 2}}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := parse.File(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decide(ctx, p, Options{Method: Auto, Verdict: opt})
			if err != nil {
				t.Fatal(err)
			}
			if !got.Certain() {
				t.Fatalf("%s answered, uncertain", got.Method)
			}
			if prog.HasVerbs(p) {
				// The decider refuses multi-word operations: enumeration
				// answers alone, agrees with the model's, and the
				// headline says why.
				feature := prog.VerbsFeature(prog.FirstVerbs(p))
				var refused *instr.FeatureError
				if _, err := decide.Decide(ctx, p, decide.Options{NoWitness: true}); !errors.As(err, &refused) || refused.Feature != feature {
					t.Errorf("the decider on %s: %v, want an *instr.FeatureError naming it", feature, err)
				}
				if got.Method != EnumMachine || got.Alone != AloneVerbs || len(got.Stopped) != 0 {
					t.Errorf("with %s: method %s, alone %q, stopped %v; want enum-machine alone", feature, got.Method, got.Alone, got.Stopped)
				}
				if a, err := Decide(ctx, p, Options{Method: EnumAxiom, Verdict: opt}); err != nil || a.Robust != got.Robust {
					t.Errorf("enum-axiom: %v, robust=%v; enum-machine robust=%v", err, a != nil && a.Robust, got.Robust)
				}
				var out strings.Builder
				WriteText(&out, got)
				if !strings.Contains(out.String(), "the decider does not cover "+feature+": answered by enumeration") {
					t.Errorf("the headline does not say why enumeration answered:\n%s", out.String())
				}
				if j := got.JSON(f); j.Refused != feature {
					t.Errorf("JSON decider_refused %q, want %s", j.Refused, feature)
				}
				return
			}
			if prog.HasAtomics(p) {
				// The decider refuses atomics: enumeration answers alone,
				// and agrees with the model's enumeration.
				var refused *instr.AtomicsError
				if _, err := decide.Decide(ctx, p, decide.Options{NoWitness: true}); !errors.As(err, &refused) {
					t.Errorf("the decider on atomics: %v, want an *instr.AtomicsError", err)
				}
				if got.Method != EnumMachine || got.Alone != AloneAtomics || len(got.Stopped) != 0 {
					t.Errorf("with atomics: method %s, alone %q, stopped %v; want enum-machine alone", got.Method, got.Alone, got.Stopped)
				}
				if a, err := Decide(ctx, p, Options{Method: EnumAxiom, Verdict: opt}); err != nil || a.Robust != got.Robust {
					t.Errorf("enum-axiom: %v, robust=%v; enum-machine robust=%v", err, a != nil && a.Robust, got.Robust)
				}
				var out strings.Builder
				WriteText(&out, got)
				if !strings.Contains(out.String(), "the decider does not cover remote atomics: answered by enumeration") {
					t.Errorf("the headline does not say why enumeration answered:\n%s", out.String())
				}
				return
			}
			d, err := decide.Decide(ctx, p, decide.Options{NoWitness: true})
			if err != nil {
				t.Fatal(err)
			}
			if got.Robust != d.Robust {
				t.Errorf("auto (%s) robust=%v, the decider robust=%v", got.Method, got.Robust, d.Robust)
			}
			if verdict.HasLoops(p) {
				if got.Method != Decider || got.Alone != AloneLoops || len(got.Stopped) != 0 {
					t.Errorf("with loops: method %s, alone %q, stopped %v; want the decider alone", got.Method, got.Alone, got.Stopped)
				}
				return
			}
			m, err := verdict.RobustMachine(ctx, p, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !m.Certain() || m.Robust != got.Robust {
				t.Errorf("auto (%s) robust=%v, enumeration robust=%v (certain %v)", got.Method, got.Robust, m.Robust, m.Certain())
			}
			// Every litmus test is within enumeration's budget.
			if got.Method != EnumMachine || got.Alone != "" || len(got.Stopped) != 0 {
				t.Errorf("staged: method %s, alone %q, stopped %v; want enum-machine within its budget", got.Method, got.Alone, got.Stopped)
			}
		})
	}
}

// TestAutoAlone: a checkpointed search runs the decider alone.
func TestAutoAlone(t *testing.T) {
	p, err := parse.File("../../corpus/litmus/paper-5.1.rdma")
	if err != nil {
		t.Fatal(err)
	}
	s := explore.Settings{Checkpoint: func(string) *explore.Checkpoint { return nil }}
	if got := Alone(p, s); got != AloneCheckpoint {
		t.Errorf("Alone = %q, want %q", got, AloneCheckpoint)
	}
	r, err := Decide(context.Background(), p, Options{Verdict: verdict.Options{Machine: machine.DefaultOptions(), Settings: s}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != Decider || r.Alone != AloneCheckpoint || len(r.Stopped) != 0 || r.Robust {
		t.Errorf("got method %s, alone %q, stopped %v, robust %v", r.Method, r.Alone, r.Stopped, r.Robust)
	}
}

// Answers of the fake methods of TestStaged.
var (
	violation    = Result{Method: EnumMachine}
	proof        = Result{Method: Decider, Robust: true, Complete: true}
	cutDecide    = Result{Method: Decider, Robust: true, Bound: "max-states=5", Search: explore.Result{Stop: explore.StateLimit}}
	budgetCut    = Result{Method: EnumMachine, Robust: true, Bound: "max-states=100", Search: explore.Result{Stop: explore.StateLimit}}
	cutMachine   = Result{Method: EnumMachine, Robust: true, Bound: "timeout=1s", Search: explore.Result{Stop: explore.TimeLimit}}
	withinBounds = Result{Method: EnumMachine, Robust: true, Bound: "max-inflight=8", Search: explore.Result{Stop: explore.Complete}}
	errBroken    = errors.New("broken")
)

// fake is a method that answers a, and records the settings it was given.
type fake struct {
	a    Result
	err  error
	ran  bool
	got  explore.Settings
	wait bool // answer once the context is cancelled
}

func (f *fake) stage(method Method) stage {
	return stage{method, func(ctx context.Context, s explore.Settings) (*Result, error) {
		f.ran, f.got = true, s
		if f.wait {
			<-ctx.Done()
		}
		if f.err != nil {
			return nil, f.err
		}
		a := f.a
		return &a, nil
	}}
}

// TestStaged: the first method answers alone within its budget when it is
// certain; otherwise the second runs with the caller's settings and its
// certain answer is taken, the first listed as stopped by what cut it;
// without a certain answer, the one that covered everything within bounds,
// else the second's.
func TestStaged(t *testing.T) {
	const budget = 100
	tests := []struct {
		name          string
		first, second fake
		settings      explore.Settings
		want          Method // the answer's method, or "error"
		stopped       []Stopped
		secondRan     bool
	}{
		{"first certain", fake{a: violation}, fake{a: proof}, explore.Settings{}, EnumMachine, nil, false},
		{"budget cut, second certain", fake{a: budgetCut}, fake{a: proof}, explore.Settings{}, Decider,
			[]Stopped{{Method: EnumMachine, Bound: "auto's budget of 100 configurations"}}, true},
		{"the caller's limit cut the first", fake{a: budgetCut}, fake{a: proof}, explore.Settings{MaxStates: 100}, Decider,
			[]Stopped{{Method: EnumMachine, Bound: "max-states=100"}}, true},
		{"neither certain", fake{a: cutMachine}, fake{a: cutDecide}, explore.Settings{}, Decider,
			[]Stopped{{Method: EnumMachine, Bound: "timeout=1s"}}, true},
		{"within bounds", fake{a: withinBounds}, fake{a: cutDecide}, explore.Settings{}, EnumMachine,
			[]Stopped{{Method: Decider, Bound: "max-states=5"}}, true},
		{"within bounds, then certain", fake{a: withinBounds}, fake{a: proof}, explore.Settings{}, Decider,
			[]Stopped{{Method: EnumMachine, Bound: "max-inflight=8"}}, true},
		{"an error of the first", fake{err: errBroken}, fake{a: proof}, explore.Settings{}, "error", nil, false},
		{"an error of the second", fake{a: budgetCut}, fake{err: errBroken}, explore.Settings{}, "error", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, second := tt.first, tt.second
			tt.settings.Workers = 2
			r, err := staged(context.Background(), tt.settings, first.stage(EnumMachine), second.stage(Decider), budget)
			if tt.want == "error" {
				if !errors.Is(err, errBroken) {
					t.Fatalf("got %v, %v; want the error", r, err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if r.Method != tt.want || !slices.Equal(r.Stopped, tt.stopped) {
					t.Errorf("got %s, stopped %v; want %s, stopped %v", r.Method, r.Stopped, tt.want, tt.stopped)
				}
			}
			if first.got.MaxStates != budget || first.got.Workers != 2 {
				t.Errorf("the first ran with %+v, want every worker and the budget", first.got)
			}
			if second.ran != tt.secondRan {
				t.Errorf("the second ran: %v, want %v", second.ran, tt.secondRan)
			}
			if second.ran && (second.got.MaxStates != tt.settings.MaxStates || second.got.Workers != 2) {
				t.Errorf("the second ran with %+v, want the caller's settings", second.got)
			}
		})
	}
	// A cancelled first method ends the run: the second does not start.
	ctx, cancel := context.WithCancel(context.Background())
	first, second := fake{a: budgetCut, wait: true}, fake{a: proof}
	go cancel()
	if r, err := staged(ctx, explore.Settings{}, first.stage(EnumMachine), second.stage(Decider), budget); err != nil || r.Method != EnumMachine || second.ran {
		t.Errorf("cancelled: %v, %v, second ran %v", r, err, second.ran)
	}
}

// TestCompare: the answer of several methods is their certain answer when
// they agree, none when none is certain or they disagree, and the expect
// line is checked against it.
func TestCompare(t *testing.T) {
	p, err := parse.File("../../corpus/litmus/PUT-LW.rdma") // expect robust no
	if err != nil {
		t.Fatal(err)
	}
	answer := func(r Result) *Result {
		r.Program = p
		r.Expect = expect.Robust(p, expect.Answer{Robust: r.Robust, Certain: r.Certain(), Bound: r.Bound})
		return &r
	}
	violation, proof, cut := answer(violation), answer(proof), answer(cutDecide)
	for _, tt := range []struct {
		name     string
		answers  []*Result
		agree    bool
		robust   *bool
		complete bool
		status   expect.Status
	}{
		{"agree", []*Result{violation, violation}, true, new(false), true, expect.OK},
		{"one certain", []*Result{cut, violation}, true, new(false), true, expect.OK},
		{"none certain", []*Result{cut, cut}, true, nil, false, expect.Unknown},
		{"disagree", []*Result{proof, violation}, false, nil, false, expect.Fail},
		{"an error", []*Result{nil, violation}, true, new(false), true, expect.OK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := &All{Program: p, Methods: make([]Method, len(tt.answers)), Results: tt.answers, Errs: make([]error, len(tt.answers))}
			for i, r := range tt.answers {
				if r == nil {
					a.Methods[i], a.Errs[i] = EnumAxiom, errBroken
				} else {
					a.Methods[i] = r.Method
				}
			}
			a.compare()
			got := a.JSON("f")
			if (got.Robust == nil) != (tt.robust == nil) || got.Robust != nil && *got.Robust != *tt.robust ||
				got.Complete != tt.complete || got.Agree != tt.agree || got.Expect == nil || got.Expect.Status != tt.status {
				t.Errorf("got robust %v, complete %v, agree %v, expect %+v", got.Robust, got.Complete, got.Agree, got.Expect)
			}
			if len(got.Methods) != len(tt.answers) {
				t.Fatalf("%d methods in JSON", len(got.Methods))
			}
			for i, m := range got.Methods {
				if m.File != "" || m.Name != "" || (m.Error != nil) != (tt.answers[i] == nil) {
					t.Errorf("method %d: %+v", i, m)
				}
			}
		})
	}
}

// TestDecideAll: every method answers a loop-free program, with its
// witness, and they agree; the SC machine's deadlocks are searched once.
func TestDecideAll(t *testing.T) {
	p, err := parse.File("../../corpus/litmus/paper-5.1.rdma")
	if err != nil {
		t.Fatal(err)
	}
	methods, ok := Methods("all")
	if !ok {
		t.Fatal("no methods for all")
	}
	a := DecideAll(context.Background(), p, methods, Options{Verdict: verdict.Options{Machine: machine.DefaultOptions()}, Deadlocks: true})
	if robust, certain := a.Answer(); robust || !certain || !a.Agree() || a.Expect == nil || a.Expect.Status != expect.OK {
		t.Fatalf("answer %v, certain %v, agree %v, expect %+v", robust, certain, a.Agree(), a.Expect)
	}
	for i, r := range a.Results {
		if a.Errs[i] != nil {
			t.Fatalf("%s: %v", methods[i], a.Errs[i])
		}
		if r.Method != methods[i] || r.Robust || len(r.Cycle) == 0 || r.Dot() == nil || r.Deadlock != nil {
			t.Errorf("%s: method %s, robust %v, cycle %v, deadlock %v", methods[i], r.Method, r.Robust, r.Cycle, r.Deadlock)
		}
		if (r.Trace != nil) != (r.Method != EnumMachine) || (r.Run != nil) != (r.Method != EnumAxiom) || (r.Tau1 != nil) != (r.Method == Decider) {
			t.Errorf("%s: trace %v, run %v, τ1 %v", r.Method, r.Trace != nil, r.Run != nil, r.Tau1)
		}
	}
	if _, ok := Methods("some"); ok {
		t.Error("Methods accepted an unknown name")
	}
}

// TestInflightMayCut: auto leaves enumeration out when a queue pair has
// more operations than max-inflight lets be in flight (n puts need n+1).
func TestInflightMayCut(t *testing.T) {
	for _, tt := range []struct {
		file        string
		maxInflight int
		want        bool
	}{
		{"../../cmd/rdmasim/testdata/checkpoint-decide.rdma", 0, true}, // MP(4): 8 puts on one queue pair
		{"../../cmd/rdmasim/testdata/checkpoint-decide.rdma", 8, true},
		{"../../cmd/rdmasim/testdata/checkpoint-decide.rdma", 9, false},
		{"../../corpus/bench/f5.rdma", 0, false}, // one put per queue pair
		{"../../corpus/litmus/SB-PUT.rdma", 2, false},
		{"../../corpus/litmus/SB-PUT.rdma", 1, true},
	} {
		p, err := parse.File(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := inflightMayCut(p, tt.maxInflight); got != tt.want {
			t.Errorf("%s, max-inflight %d: %v, want %v", tt.file, tt.maxInflight, got, tt.want)
		}
	}
}

// TestAutoAtomicsHunt: on a program with remote atomics whose enumeration
// is cut (a loop beyond the unroll bound), Auto runs the decider's
// experimental instrumentation: a violation it finds is the answer, with
// its checked witness; a complete search without one leaves enumeration's
// answer, with the hunt, unless the user opted in.
func TestAutoAtomicsHunt(t *testing.T) {
	const loop = `
node n1 { x = 0; n = 0 }
node n2 { y = 0; r = 0 }
thread p on n1 {
  while (n != 2) {
    n := n + 1
  }
  x := rfaa(y, 1)
}
`
	tests := []struct {
		name, src  string
		optIn      bool
		method     Method
		robust     bool
		certain    bool
		huntFinish bool // a Hunt that searched to the end
	}{
		// The violation (a CPU write between the fetch-and-add's read and
		// write) lies after two iterations: unroll=1 hides it.
		{"violation", "litmus hunt-no" + loop + "thread c on n2 { y := 5 }\n", false, Decider, false, true, false},
		{"violation-opted-in", "litmus hunt-no" + loop + "thread c on n2 { y := 5 }\n", true, Decider, false, true, false},
		{"robust", "litmus hunt-yes" + loop + "thread c on n2 { r := y }\n", false, EnumMachine, true, false, true},
		{"robust-opted-in", "litmus hunt-yes" + loop + "thread c on n2 { r := y }\n", true, Decider, true, true, false},
	}
	opt := verdict.Options{Machine: machine.DefaultOptions(), Settings: explore.Settings{Workers: 2}}
	opt.Machine.Unroll = 1
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parse.Parse(tt.name+".rdma", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Decide(context.Background(), p, Options{Method: Auto, Verdict: opt, AtomicsExperimental: tt.optIn})
			if err != nil {
				t.Fatal(err)
			}
			if r.Method != tt.method || r.Robust != tt.robust || r.Certain() != tt.certain {
				t.Fatalf("method %s robust %v certain %v; want %s %v %v", r.Method, r.Robust, r.Certain(), tt.method, tt.robust, tt.certain)
			}
			if r.Method == Decider && (len(r.Stopped) != 1 || r.Stopped[0].Method != EnumMachine || r.Stopped[0].Bound != "unroll=1") {
				t.Errorf("stopped %v, want enum-machine by unroll=1", r.Stopped)
			}
			if !r.Robust && (r.Trace == nil || r.Run == nil) {
				t.Errorf("a violation without its checked witness")
			}
			if got := r.Hunt != nil && r.Hunt.Complete; got != tt.huntFinish {
				t.Errorf("hunt %+v, want complete=%v", r.Hunt, tt.huntFinish)
			}
			var out strings.Builder
			WriteText(&out, r)
			if tt.huntFinish && !strings.Contains(out.String(), "finds no violation") {
				t.Errorf("the headline does not report the hunt:\n%s", out.String())
			}
		})
	}
}
