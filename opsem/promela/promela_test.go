package promela

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rgen "rdmasim/corpus/gen"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

var (
	allFiles  = flag.Bool("promela.all", false, "compare SPIN's outcomes with rdmasim's on every corpus file (slow)")
	allK      = flag.Int("promela.k", 2, "max-inflight for -promela.all")
	allUnroll = flag.Int("promela.unroll", 0, "unroll for -promela.all")
	genN      = flag.Int("promela.gen", 0, "compare SPIN and rdmasim on this many generated programs")
	genLoops  = flag.Bool("promela.loops", false, "generated programs with loops")
	genSeed   = flag.Int("promela.seed", 1, "seed of the generated programs")
)

const litmus = "../../corpus/litmus/"

// needSpin skips the test when SPIN or a C compiler is missing, and fails
// it under CI (CI set), where make tools installs them: a check that cannot
// run there must not pass unseen.
func needSpin(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not on PATH under CI (make tools installs it): %v", tool, err)
			}
			t.Skipf("%s is not on PATH (make tools installs it): %v", tool, err)
		}
	}
}

func model(t *testing.T, p *prog.Program, opt Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, p, opt); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var sems = []machine.Semantics{machine.RDMA, machine.SC}

// TestSpinParsesCorpus: spin -a accepts the model of every corpus file under
// both semantics (but a multi-word put marked inline, which the export
// refuses: TestInlineWordsRefused).
func TestSpinParsesCorpus(t *testing.T) {
	needSpin(t)
	files, err := filepath.Glob(litmus + "*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, file := range files {
		for _, sem := range sems {
			t.Run(filepath.Base(file)+"/"+sem.String(), func(t *testing.T) {
				t.Parallel()
				p, err := parse.File(file)
				if err != nil {
					t.Fatal(err)
				}
				if FirstInlineWords(p) != nil {
					return
				}
				dir := t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "model.pml"), model(t, p, Options{Semantics: sem}), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("spin", "-a", "model.pml")
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				if err != nil || bytes.Contains(out, []byte("Error")) {
					t.Fatalf("spin -a: %v\n%s", err, out)
				}
			})
		}
	}
}

// outcomeFiles are small corpus programs that exercise every rule, polls,
// fences, CAS, choose, switches, loops (with and without the max-inflight
// bound cutting) and dead locations.
var outcomeFiles = []outcomeCase{
	{"paper-5.1.rdma", 0, 0},
	{"PUT-LW.rdma", 0, 0},
	{"GET-GET-MP.rdma", 0, 0},
	{"GET-RFENCE-PUT-WAR.rdma", 0, 0},
	{"SB-PUT-PUTGET-POLL.rdma", 0, 0},
	{"CAS-VS-NICWRITE.rdma", 0, 0},
	{"rule-N6-gets-any-order.rdma", 0, 0},
	{"rule-N3-fence-waits-getr.rdma", 0, 0},
	{"rule-poll-oldest-only.rdma", 0, 0},
	{"rule-F1-rw-otherqp.rdma", 0, 0},
	{"ppo-29-CHOOSE-MP.rdma", 0, 0},
	{"ppo-47-NLW-POLL-PUT-MP.rdma", 0, 0},
	{"rule-loop-gets-reorder.rdma", 2, 0},
	{"rule-loop-gets-reorder.rdma", 2, 1},
	{"ppo-33-LOOP-PUT-POLL.rdma", 2, 0},
	{"paper-vass-loop.rdma", 0, 0},
	// Protocols: their reads are switches, with error points.
	{"../protocols/seqlock-get.rdma", 0, 0},
	{"../protocols/xprtrdma-reuse.rdma", 0, 0},
}

type outcomeCase struct {
	file                string
	maxInflight, unroll int
}

// TestOutcomesMatch: SPIN's search of the model reaches exactly the final
// outcomes rdmasim finds, with the same bound cutting or not, and stores
// exactly as many states as rdmasim explores configurations (the model's
// states are the machine's).
func TestOutcomesMatch(t *testing.T) {
	needSpin(t)
	cases := outcomeFiles
	if *allFiles {
		files, _ := filepath.Glob(litmus + "*.rdma")
		cases = nil
		for _, f := range files {
			cases = append(cases, outcomeCase{filepath.Base(f), *allK, *allUnroll})
		}
	}
	for _, c := range cases {
		for _, sem := range sems {
			name := fmt.Sprintf("%s/k=%d/unroll=%d/%s", c.file, c.maxInflight, c.unroll, sem)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				p, err := parse.File(litmus + c.file)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, p, sem, c.maxInflight, c.unroll)
			})
		}
	}
}

// compare checks that SPIN's search of p's model and rdmasim's exploration
// find the same outcomes, are cut by a bound alike, and count the same
// states.
func compare(t *testing.T, p *prog.Program, sem machine.Semantics, k, unroll int) {
	t.Helper()
	if k == 0 {
		k = machine.DefaultOptions().MaxInflight
	}
	compareModel(t, p, sem, k, unroll, model(t, p, Options{Semantics: sem, MaxInflight: k, Unroll: unroll}))
}

// compareModel is compare on the model m of p (under sem, k and unroll).
func compareModel(t *testing.T, p *prog.Program, sem machine.Semantics, k, unroll int, m []byte) {
	t.Helper()
	if k == 0 {
		k = machine.DefaultOptions().MaxInflight
	}
	want, err := verdict.Compute(context.Background(), p, sem, verdict.Options{Machine: machine.Options{MaxInflight: k, Unroll: unroll}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(context.Background(), m, RunOptions{CFlags: []string{"-O0"}, MaxDepth: 1000, HashBits: 18})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("spin -a %v, cc %v, pan %v", got.Generate, got.Compile, got.Search)
	if wantOut := VerdictOutcomes(p, want); !slices.Equal(got.Outcomes, wantOut) {
		t.Errorf("outcomes differ:\nspin    %q\nrdmasim %q", got.Outcomes, wantOut)
	}
	if cut := len(got.Cut) > 0; cut == want.Complete {
		t.Errorf("spin cut by %q, rdmasim complete=%v (bound %q)", got.Cut, want.Complete, want.Bound)
	}
	if got.States != want.Search.States {
		t.Errorf("spin stored %d states, rdmasim explored %d", got.States, want.Search.States)
	}
	if t.Failed() {
		t.Logf("program:\n%s", p)
	}
}

// TestGeneratedMatch compares SPIN and rdmasim on -promela.gen random
// programs of corpus/gen (with loops under -promela.loops, explored with
// max-inflight 2 and unroll 2).
func TestGeneratedMatch(t *testing.T) {
	if *genN == 0 {
		t.Skip("no -promela.gen N")
	}
	needSpin(t)
	cfg := rgen.DefaultConfig()
	k, unroll := 0, 0
	if *genLoops {
		cfg.Loops, k, unroll = true, 2, 2
	}
	rng := rand.New(rand.NewPCG(uint64(*genSeed), 1))
	for i := 0; i < *genN; i++ {
		p := rgen.Program(rng, cfg, fmt.Sprintf("gen-%d", i))
		for _, sem := range sems {
			t.Run(fmt.Sprintf("%s/%s", p.Name, sem), func(t *testing.T) {
				t.Parallel()
				compare(t, p, sem, k, unroll)
			})
		}
	}
}

func TestVerdictOutcomesFormat(t *testing.T) {
	p, err := parse.File(litmus + "SB-PUT.rdma")
	if err != nil {
		t.Fatal(err)
	}
	r := &verdict.Result{Locs: []int{0, 1}, Outcomes: []verdict.Outcome{{Values: []uint8{1, 0}}, {Values: []uint8{0, 2}}}}
	got := VerdictOutcomes(p, r)
	want := []string{p.Locs[0].Name + "=0 " + p.Locs[1].Name + "=2", p.Locs[0].Name + "=1 " + p.Locs[1].Name + "=0"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestWriteOptions: bad bounds are errors, and the header names the
// machine.
func TestWriteOptions(t *testing.T) {
	p, err := parse.File(litmus + "PUT-LW.rdma")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{MaxInflight: 251}, {MaxInflight: -1}, {Unroll: 255}, {Semantics: 7}} {
		if err := Write(&bytes.Buffer{}, p, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if s := string(model(t, p, Options{Semantics: machine.SC})); !strings.Contains(s, "the SC machine") || strings.Contains(s, "proctype nic") {
		t.Errorf("SC model:\n%s", s)
	}
}

// TestAtomicOutcomesMatch is TestOutcomesMatch on the remote atomics'
// litmus tests (corpus/litmus/ATOM-*.rdma), under both semantics.
func TestAtomicOutcomesMatch(t *testing.T) {
	needSpin(t)
	files, err := filepath.Glob(litmus + "ATOM-*.rdma")
	if err != nil || len(files) < 12 {
		t.Fatalf("atomic litmus tests: %d, %v", len(files), err)
	}
	for _, f := range files {
		for _, sem := range sems {
			t.Run(filepath.Base(f)+"/"+sem.String(), func(t *testing.T) {
				t.Parallel()
				p, err := parse.File(f)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, p, sem, 0, 0)
			})
		}
	}
}
