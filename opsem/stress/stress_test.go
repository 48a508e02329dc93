package stress

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

const litmus = "../../corpus/litmus/"

func load(t testing.TB, name string) *prog.Program {
	t.Helper()
	p, err := parse.File(litmus + name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCorpus stress-tests every bundled litmus test under both semantics,
// unbiased and biased, and checks each result against the exact verdict:
// every outcome sampled is a reachable outcome, marked as the verdict marks
// it, and the counts add up.
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob(litmus + "*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, file := range files {
		p, err := parse.File(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
			exact, err := verdict.Compute(context.Background(), p, sem, verdict.Options{Machine: machine.DefaultOptions()})
			if err != nil {
				t.Fatal(err)
			}
			reachable := map[string]bool{}
			for _, o := range exact.Outcomes {
				reachable[string(o.Values)] = o.Satisfies
			}
			for _, bias := range []float64{0, 0.7} {
				if sem == machine.SC && bias > 0 {
					continue // no NIC steps to delay: the same walks
				}
				r, err := Run(context.Background(), p, Options{Semantics: sem, Machine: machine.DefaultOptions(), Walks: 200, Bias: bias, Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				name := filepath.Base(file) + "/" + sem.String()
				checkCounts(t, name, p, r, 200)
				for _, o := range r.Outcomes {
					sat, ok := reachable[string(o.Values)]
					switch {
					case !ok && exact.Complete:
						t.Errorf("%s: sampled outcome %v, which the exact search does not reach", name, o.Values)
					case ok && p.Query.Kind != prog.QReach && o.Satisfies != sat:
						t.Errorf("%s: outcome %v marked %v, the verdict says %v", name, o.Values, o.Satisfies, sat)
					}
				}
				if exact.Complete && !exact.Allowed && p.Query.Kind != prog.QForall && r.Positive > 0 {
					t.Errorf("%s: %d walks satisfy a condition the exact search finds forbidden", name, r.Positive)
				}
			}
		}
	}
}

// checkCounts checks that the counts of r add up.
func checkCounts(t *testing.T, name string, p *prog.Program, r *Result, walks uint64) {
	t.Helper()
	if r.Walks != walks || r.Interrupted {
		t.Errorf("%s: %d walks (interrupted %v), want %d", name, r.Walks, r.Interrupted, walks)
	}
	if sum := r.Final + r.Blocked + r.CutDepth + r.CutBound + r.Stopped; sum != r.Walks {
		t.Errorf("%s: walks ended in %d ways, %d walks", name, sum, r.Walks)
	}
	var final uint64
	for _, o := range r.Outcomes {
		final += o.Count
	}
	if final != r.Final {
		t.Errorf("%s: histogram counts %d walks, %d final", name, final, r.Final)
	}
	switch p.Query.Kind {
	case prog.QNone:
		if r.Positive+r.Negative != 0 {
			t.Errorf("%s: positive %d, negative %d without a query", name, r.Positive, r.Negative)
		}
	case prog.QReach:
		if r.Positive+r.Negative != r.Walks {
			t.Errorf("%s: positive %d + negative %d != %d walks", name, r.Positive, r.Negative, r.Walks)
		}
	default:
		if r.Positive+r.Negative != r.Final {
			t.Errorf("%s: positive %d + negative %d != %d final walks", name, r.Positive, r.Negative, r.Final)
		}
	}
}

// TestEnds covers each way a walk ends.
func TestEnds(t *testing.T) {
	tests := []struct {
		file  string
		opt   Options
		check func(r *Result) bool
	}{
		{"paper-5.1.rdma", Options{}, func(r *Result) bool { return r.Final == r.Walks && r.Bound == "" }},
		{"paper-vass-dec-blocked.rdma", Options{}, func(r *Result) bool { return r.Blocked == r.Walks }},
		{"paper-5.1.rdma", Options{Depth: 5}, func(r *Result) bool { return r.CutDepth == r.Walks && r.Steps == 5*r.Walks }},
		{"paper-5.1.rdma", Options{Depth: 12}, func(r *Result) bool { return r.Final == r.Walks }}, // final at exactly the depth bound
		{"paper-5.1.rdma", Options{Machine: machine.Options{MaxInflight: 1}}, func(r *Result) bool { return r.Bound == "max-inflight=1" && r.Final == r.Walks }},
		{"ppo-31-LOOP-SPIN-REACH.rdma", Options{Machine: machine.Options{MaxInflight: 8, Unroll: 1}}, func(r *Result) bool { return r.Bound == "unroll=1" }},
		{"cut", Options{Machine: machine.Options{MaxInflight: 1}}, func(r *Result) bool { return r.CutBound == r.Walks && r.Bound == "max-inflight=1" }},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			var p *prog.Program
			if tc.file == "cut" {
				// The second put waits for a poll that only comes after it:
				// with max-inflight 1, every walk ends cut by the bound.
				var err error
				p, err = parse.Parse("cut.rdma", []byte("litmus cut\nnode A { x = 1 }\nnode B { z = 0 }\n"+
					"thread T0 on A { z := x; z := x; loop { poll(B) } }\nexists z = 1\n"))
				if err != nil {
					t.Fatal(err)
				}
			} else {
				p = load(t, tc.file)
			}
			if tc.opt.Machine.MaxInflight == 0 {
				tc.opt.Machine = machine.DefaultOptions()
			}
			tc.opt.Walks, tc.opt.Seed = 200, 9
			r, err := Run(context.Background(), p, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkCounts(t, tc.file, p, r, 200)
			if !tc.check(r) {
				t.Errorf("unexpected ends: %+v", *r)
			}
		})
	}
}

// TestFirst: Options.First stops at the first walk that decides the query,
// and its run replays to a configuration that does.
func TestFirst(t *testing.T) {
	tests := []struct {
		file string
		kind prog.QueryKind // replaces the file's query kind
		end  string
	}{
		{"paper-5.1.rdma", prog.QExists, "final"},
		{"paper-5.1.rdma", prog.QNotExists, "final"}, // ~exists z = 2: a walk reaching z = 2 refutes it
		{"ppo-35-REACH-MID-CAS.rdma", prog.QReach, "reach"},
		{"paper-vass-loop.rdma", prog.QReach, "reach"},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.kind.String(), func(t *testing.T) {
			p := load(t, tc.file)
			p.Query.Kind = tc.kind
			for seed := uint64(1); seed <= 5; seed++ {
				r, err := Run(context.Background(), p, Options{Machine: machine.DefaultOptions(), Walks: 100000, Seed: seed, First: true})
				if err != nil {
					t.Fatal(err)
				}
				f := r.First
				if f == nil {
					t.Logf("seed %d: no witness in %d walks", seed, r.Walks)
					continue
				}
				if f.Walk != r.Walks || f.End != tc.end || r.Walks == 100000 {
					t.Fatalf("seed %d: witness walk %d (%s) of %d walks", seed, f.Walk, f.End, r.Walks)
				}
				m, err := machine.NewRDMA(p, machine.Options{MaxInflight: 8, Dead: machine.DeadLocations(p, r.Locs)})
				if err != nil {
					t.Fatal(err)
				}
				last := f.Run.Initial
				if n := len(f.Run.Steps); n > 0 {
					last = f.Run.Steps[n-1].Post
				}
				st := m.NewState()
				m.Decode(last, st)
				if m.Format(last) != f.FinalText {
					t.Errorf("seed %d: final text %q, replay gives %q", seed, f.FinalText, m.Format(last))
				}
				if !p.Query.Cond.Eval(p, st) || tc.end == "final" && !m.Final(st) {
					t.Errorf("seed %d: the witness does not decide the query:\n%s", seed, f.FinalText)
				}
				return
			}
			t.Fatal("no witness with seeds 1..5")
		})
	}
}

// TestForallFirst: for forall, the first witness is a counterexample.
func TestForallFirst(t *testing.T) {
	p := load(t, "paper-5.1.rdma")
	p.Query.Kind = prog.QForall // forall z = 2: violated by z = 1
	r, err := Run(context.Background(), p, Options{Machine: machine.DefaultOptions(), Walks: 1000, Seed: 1, First: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.First == nil || r.Negative != 1 || r.Walks != r.First.Walk || !strings.Contains(r.First.FinalText, "z=1") {
		t.Fatalf("forall: first witness %+v, outcomes %+v", r.First, r.Outcomes)
	}
	if r.Validated() {
		t.Fatal("a violated forall validated")
	}
}

// TestReproducible: the same options give the same result, another seed
// another one.
func TestReproducible(t *testing.T) {
	p := load(t, "SB-PUT-POLL.rdma")
	run := func(seed uint64, first bool) *Result {
		r, err := Run(context.Background(), p, Options{Machine: machine.DefaultOptions(), Walks: 1000, Seed: seed, Bias: 0.3, First: first})
		if err != nil {
			t.Fatal(err)
		}
		r.Elapsed = 0
		return r
	}
	for _, first := range []bool{false, true} {
		a, b := run(4, first), run(4, first)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("first=%v: same seed, different results:\n%+v\n%+v", first, a, b)
		}
	}
	if a, c := run(4, false), run(5, false); reflect.DeepEqual(a, c) {
		t.Fatal("seeds 4 and 5 gave the same result")
	}
}

// TestBias: preferring CPU steps makes the put of paper 5.1 read the later
// local write (z = 2) more often.
func TestBias(t *testing.T) {
	p := load(t, "paper-5.1.rdma")
	freq := func(bias float64) float64 {
		r, err := Run(context.Background(), p, Options{Machine: machine.DefaultOptions(), Walks: 2000, Seed: 1, Bias: bias})
		if err != nil {
			t.Fatal(err)
		}
		return float64(r.Positive) / float64(r.Final)
	}
	f0, f9, f1 := freq(0), freq(0.9), freq(1)
	if !(f0 < f9 && f9 < f1 && f1 == 1) {
		t.Fatalf("frequency of z = 2: %.3f unbiased, %.3f at bias 0.9, %.3f at bias 1", f0, f9, f1)
	}
}

// TestIsCPU: IsCPU agrees with the machine's own account of every
// transition (rule "step" for CPU steps) on programs with CPU steps of
// every kind and every NIC rule.
func TestIsCPU(t *testing.T) {
	for _, file := range []string{"paper-5.1.rdma", "ppo-35-REACH-MID-CAS.rdma", "GET-RFENCE-PUT-WAR.rdma", "ppo-29-CHOOSE-MP.rdma", "SB-PUT-POLL.rdma"} {
		p := load(t, file)
		m, err := machine.NewRDMA(p, machine.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		_, err = explore.New(m, explore.Options{Visit: func(_ uint64, s []byte, _ int) bool {
			s = append([]byte(nil), s...)
			var labels []uint64
			m.Successors(s, func(l uint64, _ []byte) { labels = append(labels, l) })
			for _, l := range labels {
				if tr := m.Explain(s, l); IsCPU(l) != (tr.Rule == "step") {
					t.Errorf("%s: IsCPU(%#x) = %v for rule %s", file, l, IsCPU(l), tr.Rule)
				}
			}
			return true
		}}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestInterrupted: a cancelled context stops the run with what it has.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(ctx, load(t, "paper-5.1.rdma"), Options{Machine: machine.DefaultOptions(), Walks: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || r.Walks != 0 {
		t.Fatalf("interrupted %v after %d walks", r.Interrupted, r.Walks)
	}
}

func TestBadOptions(t *testing.T) {
	p := load(t, "paper-5.1.rdma")
	for _, opt := range []Options{
		{Machine: machine.DefaultOptions(), Bias: 1.5},
		{Machine: machine.DefaultOptions(), Bias: -0.1},
		{Machine: machine.Options{MaxInflight: 0}},
	} {
		if _, err := Run(context.Background(), p, opt); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
}

// TestAllocs: a run allocates the same whatever its number of walks, so
// walks and steps allocate nothing.
func TestAllocs(t *testing.T) {
	p := load(t, "paper-5.1.rdma")
	allocs := func(walks uint64) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := Run(context.Background(), p, Options{Machine: machine.DefaultOptions(), Walks: walks, Seed: 1, Bias: 0.5}); err != nil {
				t.Fatal(err)
			}
		})
	}
	if few, many := allocs(100), allocs(2000); many > few {
		t.Fatalf("%v allocations for 100 walks, %v for 2000", few, many)
	}
}
