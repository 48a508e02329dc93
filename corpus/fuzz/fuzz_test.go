package fuzz

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/corpus/gen"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

func TestProgramSeed(t *testing.T) {
	seen := map[uint64]string{}
	for _, s := range []uint64{0, 1, 2, 1 << 40} {
		for i := range 5000 {
			x := ProgramSeed(s, i)
			if x != ProgramSeed(s, i) {
				t.Fatal("not deterministic")
			}
			key := fmt.Sprintf("seed %d program %d", s, i)
			if prev, dup := seen[x]; dup {
				t.Fatalf("%s and %s share program seed %#x", key, prev, x)
			}
			seen[x] = key
		}
	}
}

// TestGenerate: programs are deterministic in their seed, parse back from
// their text, and the drawn configurations vary as DrawConfig says.
func TestGenerate(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 300
	}
	var loops, noChoose, weights, mp, oneNode, fourThreads, contended int
	var st, sta Stats
	for i := range n {
		seed := ProgramSeed(99, i)
		p, desc := Generate(seed)
		pa, desca := GenerateWith(seed, true)
		switch {
		case desca == desc+", atomics":
		case strings.HasPrefix(desca, desc+", atomics, contention"):
			contended++
		default:
			t.Fatalf("seed %#x: with atomics %q, without %q: not the same configuration", seed, desca, desc)
		}
		if _, err := parse.Parse("x.rdma", []byte(pa.String())); err != nil {
			t.Fatalf("seed %#x, atomics: %v\n%s", seed, err, pa)
		}
		sta.Add(pa)
		q, desc2 := Generate(seed)
		if p.String() != q.String() || desc != desc2 {
			t.Fatalf("seed %#x: not deterministic", seed)
		}
		if _, err := parse.Parse("x.rdma", []byte(p.String())); err != nil {
			t.Fatalf("seed %#x: %v\n%s", seed, err, p)
		}
		c, _ := DrawConfig(rand.New(rand.NewPCG(seed, 0x6675_7a7a)))
		if c.Loops {
			loops++
		}
		if !c.Choose {
			noChoose++
		}
		switch {
		case strings.Contains(desc, "message passing"):
			mp++
			if len(p.Threads) < 2 {
				t.Fatalf("message passing with %d thread", len(p.Threads))
			}
		case c.Weights != gen.DefaultWeights:
			weights++
		}
		if len(p.Nodes) == 1 {
			oneNode++
		}
		if len(p.Threads) == 4 {
			fourThreads++
		}
		if strings.Contains(desc, "loops") != c.Loops {
			t.Fatalf("description %q, loops %v", desc, c.Loops)
		}
		st.Add(p)
	}
	frac := func(k int) float64 { return float64(k) / float64(n) }
	for _, c := range []struct {
		name   string
		got    float64
		lo, hi float64
	}{
		{"loops", frac(loops), 0.18, 0.32},
		{"no choose", frac(noChoose), 0.14, 0.26},
		{"random weights", frac(weights), 0.32, 0.48},
		{"message passing", frac(mp), 0.13, 0.27},
		{"one node", frac(oneNode), 0.005, 0.2},
		{"four threads", frac(fourThreads), 0.01, 0.2},
		{"contention (with atomics)", frac(contended), 0.25, 0.42},
	} {
		if c.got < c.lo || c.got > c.hi {
			t.Errorf("%s in %.3f of the programs, want %.2f..%.2f", c.name, c.got, c.lo, c.hi)
		}
	}
	for k, x := range st.Instr[:gen.KRCAS] {
		if x < n/10 {
			t.Errorf("only %d %s instructions in %d programs", x, KindNames[k], n)
		}
	}
	if a := st.Instr[gen.KRCAS] + st.Instr[gen.KRFAA]; a > 0 {
		t.Errorf("%d remote atomics without GenerateWith's atomics", a)
	}
	for _, k := range []int{gen.KRCAS, gen.KRFAA} {
		if x := sta.Instr[k]; x < n/10 {
			t.Errorf("only %d %s instructions in %d programs with atomics", x, KindNames[k], n)
		}
	}
	if sta.WithAtomics < n/3 {
		t.Errorf("%d of %d programs drawn with atomics have one", sta.WithAtomics, n)
	}
	// The generator draws loops by chance where the configuration allows.
	if st.WithLoops > loops || st.WithLoops < loops/3 || st.Programs != n {
		t.Errorf("stats: %d programs with loops, %d configurations allowing them", st.WithLoops, loops)
	}
}

// TestPPOEntry: the entries PPOEntry reads off axiom.PPO are the paper's
// table (figure ippo-oppo).
func TestPPOEntry(t *testing.T) {
	want := [NumClasses]string{
		"✓ ✓ ✓ ✓ ✓ ✓",
		"× sqp sqp sqp sqp sqp",
		"× × sqp sqp sqp ippo:sqp",
		"× × × × sqp sqp",
		"× × × × sqp ippo:sqp",
		"× sqp sqp sqp sqp sqp",
	}
	for a := range NumClasses {
		var row []string
		for b := range NumClasses {
			row = append(row, PPOEntry(axiom.Class(a), axiom.Class(b)))
		}
		if got := strings.Join(row, " "); got != want[a] {
			t.Errorf("row %s: %s, want %s", axiom.Class(a), got, want[a])
		}
	}
	if !QPDependent("sqp") || !QPDependent("ippo:sqp") || QPDependent("✓") || QPDependent("×") {
		t.Error("QPDependent")
	}
}

// TestStats counts instructions and program-order pairs of known
// programs.
func TestStats(t *testing.T) {
	type cell struct {
		a, b        axiom.Class
		same, other int
	}
	tests := []struct {
		name  string
		src   string
		instr map[int]int
		cells []cell // cells that must be set; every other cell is 0
	}{
		{"two puts, one queue pair", "node A { x; y }\nnode B { d; f }\nthread T on A { d := x; f := y }\n",
			map[int]int{gen.KPut: 2},
			[]cell{{axiom.ClassNLR, axiom.ClassNRW, 1, 0}, {axiom.ClassNLR, axiom.ClassNLR, 1, 0}, {axiom.ClassNRW, axiom.ClassNLR, 1, 0}, {axiom.ClassNRW, axiom.ClassNRW, 1, 0}}},
		{"get then put on two queue pairs", "node A { x }\nnode B { y }\nnode C { z }\nthread T on A { x := y; z := x }\n",
			map[int]int{gen.KGet: 1, gen.KPut: 1},
			[]cell{{axiom.ClassNRR, axiom.ClassNLW, 1, 0}, {axiom.ClassNLR, axiom.ClassNRW, 1, 0},
				{axiom.ClassNRR, axiom.ClassNLR, 0, 1}, {axiom.ClassNRR, axiom.ClassNRW, 0, 1}, {axiom.ClassNLW, axiom.ClassNLR, 0, 1}, {axiom.ClassNLW, axiom.ClassNRW, 0, 1}}},
		{"cpu and a loop", "node A { x }\nnode B { y }\nthread T on A { loop { x := 1; rfence(B) }; assume(x == 1); x := cas(x, 1, 2) }\n",
			map[int]int{gen.KWrite: 1, gen.KRFence: 1, gen.KAssumeEq: 1, gen.KCAS: 1},
			[]cell{{axiom.ClassCPU, axiom.ClassCPU, 1, 0}, {axiom.ClassCPU, axiom.ClassNF, 1, 0}, {axiom.ClassNF, axiom.ClassCPU, 1, 0}, {axiom.ClassNF, axiom.ClassNF, 1, 0}}},
		{"a protocol's lowered code", "litmus s\nnode A { x = 0 }\nnode B { y = 0 }\nthread T on A {\n  reg r\n  r := 1\n  x := r\n  y := x\n}\n",
			map[int]int{gen.KWrite: 1, gen.KPut: 1},
			[]cell{{axiom.ClassCPU, axiom.ClassNLR, 1, 0}, {axiom.ClassCPU, axiom.ClassNRW, 1, 0}, {axiom.ClassNLR, axiom.ClassNRW, 1, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parse.Parse("x.rdma", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var st Stats
			st.Add(p)
			st.Add(p)
			for k := range st.Instr {
				if st.Instr[k] != 2*tc.instr[k] {
					t.Errorf("%s: %d, want %d", KindNames[k], st.Instr[k], 2*tc.instr[k])
				}
			}
			var want [NumClasses][NumClasses]PPOCount
			for _, c := range tc.cells {
				want[c.a][c.b] = PPOCount{2 * c.same, 2 * c.other}
			}
			if st.PPO != want {
				t.Errorf("ppo cells\n%v\nwant\n%v", st.PPO, want)
			}
			var sum Stats
			sum.Merge(&st)
			sum.Merge(&st)
			if sum.Programs != 4 || sum.PPO[tc.cells[0].a][tc.cells[0].b].SameQP+sum.PPO[tc.cells[0].a][tc.cells[0].b].OtherQP != 4*(tc.cells[0].same+tc.cells[0].other) {
				t.Errorf("merge: %+v", sum)
			}
		})
	}
}

// TestRun: a short run finds no disagreement, counts what it compared, and
// gives the same summary for any number of workers.
func TestRun(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 6
	}
	var sums []*Summary
	for _, workers := range []int{1, 2} {
		sum, err := Run(context.Background(), Options{Seed: 5, Count: n, Workers: workers, Differ: differ.Options{MaxStates: 50000}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Programs != n || sum.Interrupted || len(sum.Disagreements) > 0 || len(sum.Slow) > 0 {
			t.Fatalf("workers %d: %d programs, interrupted %v, disagreements %v, slow %v", workers, sum.Programs, sum.Interrupted, sum.Disagreements, sum.Slow)
		}
		if sum.Compared[string(differ.OutcomesRDMA)] == 0 || sum.Compared["decider"] == 0 || sum.Robust+sum.NotRobust == 0 || sum.Rate() <= 0 {
			t.Errorf("workers %d: compared %v, robust %d/%d", workers, sum.Compared, sum.Robust, sum.NotRobust)
		}
		sums = append(sums, sum)
	}
	a, b := sums[0], sums[1]
	if !reflect.DeepEqual(a.Stats, b.Stats) || !reflect.DeepEqual(a.Compared, b.Compared) || !reflect.DeepEqual(a.Skipped, b.Skipped) || a.Robust != b.Robust {
		t.Errorf("summaries differ with 1 and 2 workers:\n%+v\n%+v", a, b)
	}
}

// TestRunStops: a run ends when its context is cancelled (interrupted) or
// its duration is over (not interrupted), and checks exactly the program
// seeds it is given.
func TestRunStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err := Run(ctx, Options{Seed: 1, Count: 10})
	if err != nil || !sum.Interrupted || sum.Programs != 0 {
		t.Fatalf("cancelled: %+v, %v", sum, err)
	}
	// How many programs 300 ms covers depends on the machine's load (none,
	// on a busy one): only that the duration ended the run is checked.
	sum, err = Run(context.Background(), Options{Seed: 1, Duration: 300 * time.Millisecond})
	if err != nil || sum.Interrupted || sum.Elapsed < 300*time.Millisecond {
		t.Fatalf("duration: %+v, %v", sum, err)
	}
	seeds := []uint64{ProgramSeed(3, 1), ProgramSeed(3, 2)}
	sum, err = Run(context.Background(), Options{ProgramSeeds: seeds, Progress: func(Progress) {}})
	if err != nil || sum.Programs != 2 {
		t.Fatalf("program seeds: %+v, %v", sum, err)
	}
	if _, err := Run(context.Background(), Options{Count: -1}); err == nil {
		t.Error("negative count accepted")
	}
}

// TestRegression writes regression files for disagreements of each kind
// (made up: the semantics agree on these programs) and checks that they
// parse back, name the kind and seed, and carry the reference verdicts.
func TestRegression(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		file    string
		kind    differ.Kind
		expects string // the expect lines written
	}{
		{"paper-5.1.rdma", differ.RobustEnum, "expect robust no\n"},
		{"PUT-PUT-MP.rdma", differ.RobustDecide, "expect robust yes\n"},
		{"paper-vass-loop.rdma", differ.DeciderError, "expect robust yes\n"},
		// No disputed outcome: exists true, allowed everywhere.
		{"PUT-LW.rdma", differ.OutcomesRDMA, "exists true\nexpect rdma allowed\nexpect sc allowed\nexpect robust no\n"},
		{"GET-LR.rdma", KindError, ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			p, err := parse.File(litmus + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			d := &Disagreement{Index: 3, Seed: 0xabc, Kind: tc.kind, Program: p,
				Problems: []differ.Problem{{Kind: tc.kind, Detail: "made up\nsecond line"}}}
			path, err := WriteRegression(context.Background(), dir, d, RegressionInfo{RunSeed: 9})
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(dir, "fuzz-"+string(tc.kind)+"-0000000000000abc.rdma"); path != want {
				t.Errorf("path %s, want %s", path, want)
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s := string(text)
			q, err := parse.Parse(path, text)
			if err != nil {
				t.Fatalf("%v\n%s", err, s)
			}
			for _, want := range []string{"# Found by rdmasim fuzz --seed 9 (program 3); rerun: rdmasim fuzz --program-seed 0xabc\n",
				"# Disagreement (" + string(tc.kind) + "): made up ...\n"} {
				if !strings.Contains(s, want) {
					t.Errorf("missing %q in\n%s", want, s)
				}
			}
			body := s[strings.Index(s, "\nlitmus ")+1:]
			if !strings.HasSuffix(body, "}\n"+tc.expects) {
				t.Errorf("expect lines: got\n%s\nwant ...\n%s", body, tc.expects)
			}
			if q.Name != "fuzz-"+string(tc.kind)+"-0000000000000abc" || q.String() != body {
				t.Errorf("does not print back:\n%s\n---\n%s", q.String(), body)
			}
		})
	}
	if _, err := WriteRegression(context.Background(), filepath.Join(dir, "fuzz-robust-enum-0000000000000abc.rdma", "sub"), &Disagreement{Kind: differ.RobustEnum,
		Program: mustParse(t, "node n { x }\nthread t on n { }\n")}, RegressionInfo{}); err == nil {
		t.Error("writing under a file: no error")
	}
}

// TestRegressionOutcome: a disputed outcome becomes the query, and the
// model's verdicts the expect lines.
func TestRegressionOutcome(t *testing.T) {
	p := mustParse(t, "node A { x = 1 }\nnode B { z = 0 }\nthread T0 on A { z := x; x := 2 }\n")
	rep, err := differ.Check(context.Background(), p, differ.Options{Checks: differ.CheckOutcomes | differ.CheckRobust | differ.CheckDecide})
	if err != nil {
		t.Fatal(err)
	}
	// Pretend the model lacks the outcome x=2 z=2: expectations() takes
	// the disputed outcome from the comparison of the report's results.
	model := *rep.Model[0]
	model.Outcomes = nil
	for _, o := range rep.Model[0].Outcomes {
		if string(o.Values) != "\x02\x02" {
			model.Outcomes = append(model.Outcomes, o)
		}
	}
	rep.Model[0] = &model
	q := start(p)
	var notes []string
	err = expectations(context.Background(), q, rep, differ.OutcomesRDMA, differ.Options{}, func(f string, a ...any) {
		notes = append(notes, f)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := q.CondString(q.Query.Cond); got != "(x = 2 /\\ z = 2)" {
		t.Errorf("query %s", got)
	}
	var ex []string
	for _, e := range q.Expects {
		ex = append(ex, e.Sem.String()+" "+e.Word())
	}
	// The real model allows it under RDMA, not under SC; the program is
	// not robust.
	if got := strings.Join(ex, ", "); got != "rdma allowed, sc forbidden, robust no" {
		t.Errorf("expects %s", got)
	}
	if len(notes) < 2 {
		t.Errorf("notes %q", notes)
	}
}

func TestKeeps(t *testing.T) {
	p := mustParse(t, "node A { x = 1 }\nnode B { z = 0 }\nthread T0 on A { z := x; x := 2 }\n")
	for _, k := range append([]differ.Kind{KindError}, differ.Kinds[:5]...) {
		if Keeps(k, differ.Options{}, time.Minute)(context.Background(), p) {
			t.Errorf("%s: a program on which the semantics agree keeps", k)
		}
	}
}

// TestRunStuck: a program whose check ignores its deadline (and Ctrl-C) is
// given up on StuckAfter past it, and the run goes on without it; when ctx
// is done, or more programs than workers are stuck, the run ends there.
func TestRunStuck(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	stuckSeeds := map[uint64]bool{ProgramSeed(1, 2): true, ProgramSeed(1, 3): true, ProgramSeed(1, 4): true}
	hook := func(ctx context.Context, p *prog.Program, o differ.Options) (*differ.Report, error) {
		for s := range stuckSeeds {
			if p.Name == fmt.Sprintf("fuzz-%016x", s) {
				<-release // ignores ctx
			}
		}
		return &differ.Report{Program: p}, nil
	}
	tests := []struct {
		name     string
		workers  int
		timeout  time.Duration
		cancel   bool
		programs int // checked
		stuck    int
		ended    bool
	}{
		{"go on", 3, 100 * time.Millisecond, false, 7, 3, false},
		{"too many stuck", 2, 100 * time.Millisecond, false, -1, 3, true},
		{"ctrl-c", 1, 0, true, 2, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				time.AfterFunc(300*time.Millisecond, cancel)
			}
			start := time.Now()
			sum, err := Run(ctx, Options{Seed: 1, Count: 10, Workers: tc.workers, Timeout: tc.timeout, StuckAfter: 300 * time.Millisecond, check: hook})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sum.Stuck {
				if !stuckSeeds[s] {
					t.Errorf("program seed %#x stuck", s)
				}
			}
			if len(sum.Stuck) != tc.stuck || sum.Ended != tc.ended || sum.Interrupted != tc.cancel ||
				tc.programs >= 0 && sum.Programs != tc.programs {
				t.Fatalf("%d programs, stuck %x, ended %v, interrupted %v, %s", sum.Programs, sum.Stuck, sum.Ended, sum.Interrupted, time.Since(start))
			}
		})
	}
}

// TestSurfaceRun checks a short run on programs of the protocol language:
// every comparison is made on their lowering, with no disagreement.
func TestSurfaceRun(t *testing.T) {
	// Count-boxed, not time-boxed: no per-program timeout, which on a busy
	// machine made a program slow and the count short (24 programs, want
	// 25); MaxStates and MaxModelCost bound each program's work instead.
	sum, err := Run(context.Background(), Options{Seed: 3, Count: 25, Surface: true,
		Differ: differ.Options{MaxStates: 20000, MaxInflight: 4, MaxModelCost: 20}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Disagreements) > 0 {
		d := sum.Disagreements[0]
		t.Fatalf("%d disagreements; the first, program seed %#x: %v\n%s", len(sum.Disagreements), d.Seed, d.Problems, d.Source)
	}
	if sum.Programs != 25 || len(sum.Slow) > 0 || len(sum.Stuck) > 0 || sum.Compared["outcomes-sc"] == 0 || sum.Compared["decider"] == 0 {
		t.Errorf("%d programs (slow %x, stuck %x), compared %v: want 25 and the SC outcomes and the decider compared", sum.Programs, sum.Slow, sum.Stuck, sum.Compared)
	}
}
