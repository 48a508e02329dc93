package decide

import (
	"context"
	"path/filepath"
	"testing"

	"rdmasim/explore/cover"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

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
		ps = append(ps, p)
	}
	return ps
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
