package decide

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/explore"
	"rdmasim/explore/cover"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// corpus returns the litmus corpus the decider covers: every program but
// those with remote atomics or quiet, which it refuses (TestRefusesAtomics,
// TestRefusesQuiet).
func corpus(t *testing.T) []*prog.Program {
	t.Helper()
	files, err := filepath.Glob("../../corpus/litmus/*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var ps []*prog.Program
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		if !prog.HasAtomics(p) && !prog.HasVerbs(p) {
			ps = append(ps, p)
		}
	}
	return ps
}

// TestRefusesAtomics: the decider refuses every corpus program with remote
// atomics, with an error that names the first atomic and its position.
func TestRefusesAtomics(t *testing.T) {
	files, _ := filepath.Glob("../../corpus/litmus/ATOM-*.rdma")
	if len(files) == 0 {
		t.Fatal("no atomic litmus tests")
	}
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Decide(context.Background(), p, Options{})
		var refused *instr.AtomicsError
		if !errors.As(err, &refused) {
			t.Fatalf("%s: %v, want an *instr.AtomicsError", f, err)
		}
		if s := prog.FirstAtomic(p); refused.Pos != s.Pos || !strings.Contains(err.Error(), "does not cover remote atomics") {
			t.Errorf("%s: %v (first atomic at %s)", f, err, s.Pos)
		}
	}
}

// TestCorpus: the decider confirms every expect robust line, always
// completes, and every violation comes with a checked, replayed witness;
// on loop-free programs it equals enumeration on the machine.
func TestCorpus(t *testing.T) {
	ctx := context.Background()
	for _, p := range corpus(t) {
		t.Run(p.Name, func(t *testing.T) {
			r, err := Decide(ctx, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Certain() {
				t.Fatalf("not certain: %s", r.Bound)
			}
			if e, ok := p.Expectation(prog.Robust); ok && e.Yes != r.Robust {
				t.Errorf("decider says robust=%v, expect line says %s", r.Robust, e.Word())
			}
			if !r.Robust {
				w := r.Witness
				if w == nil || w.Replay == nil || len(w.Cycle) == 0 || len(w.Tau) == 0 {
					t.Fatalf("violation without a full witness: %+v", w)
				}
				if w.Replay.Graph.Cycle == nil {
					t.Errorf("the replayed run's event graph has no sc cycle")
				}
				// The depth-first replay, which follows τ, finds a run
				// too (replay falls back to it on large programs).
				pos := make([]int, len(w.Trace.Events))
				for i := range pos {
					pos[i] = -1
				}
				for i, e := range w.Tau {
					pos[e] = i
				}
				if rp, err := replayWith(p, w.Trace, pos, 0); err != nil {
					t.Errorf("depth-first replay: %v", err)
				} else if rp.Graph.Cycle == nil || len(rp.Path) < 2 {
					t.Errorf("depth-first replay: a run of %d steps without an sc cycle", len(rp.Path)-1)
				}
			}
			if verdict.HasLoops(p) {
				return
			}
			rm, err := verdict.RobustMachine(ctx, p, verdict.Options{Machine: machine.DefaultOptions()})
			if err != nil {
				t.Fatal(err)
			}
			if rm.Certain() && rm.Robust != r.Robust {
				t.Errorf("decider robust=%v, enumeration on the machine robust=%v", r.Robust, rm.Robust)
			}
		})
	}
}

// TestOptionsAgree: the partial-order reduction and lazy guessing change
// the state count, never the answer.
func TestOptionsAgree(t *testing.T) {
	ctx := context.Background()
	var lazy, eager uint64
	for _, p := range corpus(t) {
		base, err := run(ctx, p, instr.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts := []instr.Options{{NoReduction: true}}
		if base.States < 3000 {
			opts = append(opts, instr.Options{EagerGuess: true})
		}
		for _, o := range opts {
			r, err := run(ctx, p, o)
			if err != nil {
				t.Fatal(err)
			}
			if (r.Found < 0) != (base.Found < 0) {
				t.Errorf("%s: %+v finds a violation: %v, default: %v", p.Name, o, r.Found >= 0, base.Found >= 0)
			}
			if o.EagerGuess && base.Found < 0 {
				lazy += base.States
				eager += r.States
			}
		}
	}
	t.Logf("robust programs: %d states with lazy guessing, %d with eager guessing", lazy, eager)
	if eager <= lazy {
		t.Errorf("lazy guessing should explore fewer states: %d vs %d", lazy, eager)
	}
}

func run(ctx context.Context, p *prog.Program, o instr.Options) (cover.Result, error) {
	m, err := instr.New(p, o)
	if err != nil {
		return cover.Result{}, err
	}
	return cover.New(m, cover.Options{}).Run(ctx, m.Target)
}

// TestSearchesAgree: on finite instrumented machines, explore's search
// (sequential, and with two workers) and the Karp–Miller search give the
// same answer; without accelerations they visit the same states in the
// same order, so the counts and the witnesses' τ are equal too. Programs
// with a poll on a loop go to explore's search too when no reachable state
// has a counter above the ceiling, which the Karp–Miller search then
// accelerates nowhere; else to the Karp–Miller search.
func TestSearchesAgree(t *testing.T) {
	ctx := context.Background()
	finite, same, loops := 0, 0, 0
	for _, p := range corpus(t) {
		t.Run(p.Name, func(t *testing.T) {
			km, err := Decide(ctx, p, Options{KarpMiller: true})
			if err != nil {
				t.Fatal(err)
			}
			if !km.KarpMiller {
				t.Fatal("Options.KarpMiller ignored")
			}
			m, err := instr.New(p, instr.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 2} {
				r, err := Decide(ctx, p, Options{Settings: explore.Settings{Workers: workers}})
				if err != nil {
					t.Fatal(err)
				}
				if r.KarpMiller && m.Finite() {
					t.Fatalf("finite machine, Karp–Miller search")
				}
				if r.KarpMiller {
					if km.Search.Accelerations == 0 {
						t.Errorf("Karp–Miller search without accelerations: explore's search should have decided")
					}
					if r.Robust != km.Robust {
						t.Fatalf("robust %v; Karp–Miller alone: %v", r.Robust, km.Robust)
					}
					return
				}
				if !m.Finite() {
					loops++
				}
				if workers == 1 {
					finite++
				}
				if r.Workers != workers {
					t.Errorf("%d workers expanded states, want %d", r.Workers, workers)
				}
				if r.Robust != km.Robust || r.Complete != km.Complete {
					t.Fatalf("workers %d: robust %v complete %v; Karp–Miller: robust %v complete %v",
						workers, r.Robust, r.Complete, km.Robust, km.Complete)
				}
				if km.Search.Accelerations > 0 {
					continue
				}
				same++
				if r.Search.States != km.Search.States || r.Search.Found != km.Search.Found {
					t.Errorf("workers %d: %d states, target %d; Karp–Miller: %d states, target %d",
						workers, r.Search.States, r.Search.Found, km.Search.States, km.Search.Found)
				}
				if !r.Robust && fmt.Sprint(r.Witness.Tau) != fmt.Sprint(km.Witness.Tau) {
					t.Errorf("workers %d: witness τ %v; Karp–Miller: %v", workers, r.Witness.Tau, km.Witness.Tau)
				}
			}
		})
	}
	if finite == 0 || same == 0 {
		t.Errorf("%d finite instrumented machines in the corpus, %d searched without accelerations", finite, same)
	}
	if loops == 0 {
		t.Errorf("no infinite instrumented machine decided by explore's search (counters under the ceiling)")
	}
	t.Logf("%d programs decided by both searches, %d of them without accelerations (counts compared), %d with a poll on a loop", finite, same/2, loops/2)
}
