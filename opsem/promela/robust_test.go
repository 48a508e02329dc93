package promela

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	rgen "rdmasim/corpus/gen"
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
