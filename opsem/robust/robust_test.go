package robust

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
			other := map[Method]Method{Decider: EnumMachine, EnumMachine: Decider}[got.Method]
			if got.Alone != "" || !slices.Equal(got.Stopped, []Stopped{{Method: other}}) {
				t.Errorf("raced: method %s, alone %q, stopped %v", got.Method, got.Alone, got.Stopped)
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
	s := explore.Settings{Checkpoint: func() *explore.Checkpoint { return nil }}
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

// Answers of the fake racers of TestRace.
var (
	violation    = Result{Method: EnumMachine}
	proof        = Result{Method: Decider, Robust: true, Complete: true}
	cutDecide    = Result{Method: Decider, Robust: true, Bound: "max-states=5", Search: explore.Result{Stop: explore.StateLimit}}
	cutMachine   = Result{Method: EnumMachine, Robust: true, Bound: "timeout=1s", Search: explore.Result{Stop: explore.TimeLimit}}
	withinBounds = Result{Method: EnumMachine, Robust: true, Bound: "max-inflight=8", Search: explore.Result{Stop: explore.Complete}}
	errBroken    = errors.New("broken")
)

// fake is a racer that answers a after delay (or, if block, once its
// context is cancelled), and records whether it was cancelled.
type fake struct {
	a         Result
	err       error
	delay     time.Duration
	block     bool
	cancelled bool
}

func (f *fake) racer(method Method) racer {
	return racer{method, func(ctx context.Context, _ explore.Settings) (*Result, error) {
		if f.block {
			<-ctx.Done()
		} else {
			select {
			case <-time.After(f.delay):
			case <-ctx.Done():
			}
		}
		f.cancelled = ctx.Err() != nil
		if f.err != nil {
			return nil, f.err
		}
		a := f.a
		return &a, nil
	}}
}

// TestRace runs races of fake methods whose order is fixed: the first
// certain answer wins and the others are cancelled; without one, the
// answer that covered everything within bounds, else the first.
func TestRace(t *testing.T) {
	const long = time.Hour // a racer that must be cancelled
	tests := []struct {
		name        string
		first, next fake
		want        Method // the winner's method, or "error"
		stopped     []Stopped
		cancelled   [2]bool
	}{
		{"first certain", fake{a: proof}, fake{a: violation, delay: long}, Decider,
			[]Stopped{{Method: EnumMachine}}, [2]bool{false, true}},
		{"second certain", fake{a: proof, block: true}, fake{a: violation}, EnumMachine,
			[]Stopped{{Method: Decider}}, [2]bool{true, false}},
		{"certain after an uncertain one", fake{a: cutDecide}, fake{a: violation, delay: 10 * time.Millisecond}, EnumMachine,
			[]Stopped{{Method: Decider}}, [2]bool{false, false}},
		{"neither certain", fake{a: cutDecide}, fake{a: cutMachine}, Decider,
			[]Stopped{{Method: EnumMachine, Bound: "timeout=1s"}}, [2]bool{false, false}},
		{"within bounds", fake{a: cutDecide}, fake{a: withinBounds}, EnumMachine,
			[]Stopped{{Method: Decider, Bound: "max-states=5"}}, [2]bool{false, false}},
		{"an error", fake{a: proof, delay: long}, fake{err: errBroken}, "error", nil, [2]bool{true, false}},
		{"an error after the answer", fake{a: proof}, fake{err: errBroken, block: true}, Decider,
			[]Stopped{{Method: EnumMachine}}, [2]bool{false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, next := tt.first, tt.next
			start := time.Now()
			r, err := race(context.Background(), explore.Settings{}, []racer{first.racer(Decider), next.racer(EnumMachine)})
			if time.Since(start) > time.Minute {
				t.Fatal("a racer was not cancelled")
			}
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
			if got := [2]bool{first.cancelled, next.cancelled}; got != tt.cancelled {
				t.Errorf("cancelled %v, want %v", got, tt.cancelled)
			}
		})
	}
}

// TestShare: the workers are split among the searches of a race, and
// their progress reports add up, about once a second.
func TestShare(t *testing.T) {
	for _, tt := range []struct {
		workers int
		want    []int
	}{{0, []int{0, 0}}, {1, []int{1, 1}}, {2, []int{1, 1}}, {3, []int{2, 1}}, {8, []int{4, 4}}} {
		var got []int
		for _, s := range share(explore.Settings{Workers: tt.workers}, 2) {
			got = append(got, s.Workers)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%d workers: shares %v, want %v", tt.workers, got, tt.want)
		}
	}
	var reports []explore.Stats
	s := share(explore.Settings{Progress: func(st explore.Stats) { reports = append(reports, st) }}, 2)
	s[0].Progress(explore.Stats{States: 10, MaxDepth: 3, Elapsed: time.Second})
	s[1].Progress(explore.Stats{States: 5, MaxDepth: 7, Elapsed: 2 * time.Second})
	s[0].Progress(explore.Stats{States: 20, MaxDepth: 4, Elapsed: 3 * time.Second})
	s[1].Progress(explore.Stats{States: 6, MaxDepth: 7, Elapsed: 3100 * time.Millisecond}) // too soon after the last
	want := []explore.Stats{
		{States: 10, MaxDepth: 3, Elapsed: time.Second},
		{States: 15, MaxDepth: 7, Elapsed: 2 * time.Second},
		{States: 25, MaxDepth: 7, Elapsed: 3 * time.Second},
	}
	if !slices.Equal(reports, want) {
		t.Errorf("progress %+v, want %+v", reports, want)
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
