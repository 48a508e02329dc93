package gen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

type variant struct {
	name string
	cfg  Config
}

func variants() []variant {
	loops := DefaultConfig()
	loops.Loops = true
	heavy := DefaultConfig()
	heavy.Weights = [NumKinds]int{KWrite: 1, KAssumeEq: 1, KAssumeNe: 1, KCAS: 6, KGet: 2, KPut: 2, KRFence: 1, KPoll: 6}
	return []variant{{"default", DefaultConfig()}, {"loops", loops}, {"cas-poll", heavy}}
}

// gen draws program i of a variant: seeds are (i, variant index).
func gen(cfg Config, v, i int) *prog.Program {
	return Program(rand.New(rand.NewPCG(uint64(i), uint64(v))), cfg, fmt.Sprintf("gen-%d-%d", v, i))
}

// shape collects what a program contains.
type shape struct {
	cas, poll, fence, choose, loop, assume, get, put, write bool
	simple                                                  int // simple statements of the longest thread
}

func shapeOf(p *prog.Program) shape {
	var sh shape
	var walk func([]*prog.Stmt) int
	walk = func(stmts []*prog.Stmt) int {
		n := 0
		for _, s := range stmts {
			switch s.Kind {
			case prog.SCAS:
				sh.cas = true
			case prog.SPoll:
				sh.poll = true
			case prog.SRFence:
				sh.fence = true
			case prog.SAssume:
				sh.assume = true
			case prog.SGet:
				sh.get = true
			case prog.SPut:
				sh.put = true
			case prog.SWrite:
				sh.write = true
			case prog.SChoose:
				sh.choose = true
			case prog.SLoop:
				sh.loop = true
			}
			if s.Kind == prog.SChoose || s.Kind == prog.SLoop {
				for _, b := range s.Branches {
					n += walk(b)
				}
			} else {
				n++
			}
		}
		return n
	}
	for i := range p.Threads {
		sh.simple = max(sh.simple, walk(p.Threads[i].Body))
	}
	return sh
}

func sameCode(a, b *prog.Program) error {
	if len(a.Threads) != len(b.Threads) || len(a.QPs) != len(b.QPs) {
		return fmt.Errorf("threads %d/%d, queue pairs %d/%d", len(a.Threads), len(b.Threads), len(a.QPs), len(b.QPs))
	}
	for t := range a.Threads {
		ca, cb := a.Threads[t].Code, b.Threads[t].Code
		if len(ca) != len(cb) || a.Threads[t].Entry != b.Threads[t].Entry {
			return fmt.Errorf("thread %d: %d/%d instructions", t, len(ca), len(cb))
		}
		for i := range ca {
			if ca[i].Op != cb[i].Op || ca[i].Next != cb[i].Next || ca[i].QP != cb[i].QP {
				return fmt.Errorf("thread %d instruction %d: %v/%v", t, i, ca[i].Op, cb[i].Op)
			}
		}
	}
	return nil
}

// TestRoundTrip checks, for 2,000 programs of each variant, that the printed
// text parses, prints back identically, compiles to the same code, is
// deterministic in the seed, and respects the configuration.
func TestRoundTrip(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 500
	}
	for vi, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			fails := 0
			var cas, poll, fence, choose, loop, assume, simple int
			for i := range n {
				p := gen(v.cfg, vi, i)
				text := p.String()
				fail := func(format string, args ...any) {
					t.Errorf("program %d: %s\n%s", i, fmt.Sprintf(format, args...), text)
					fails++
				}
				if fails > 5 {
					t.Fatal("too many failures")
				}
				q, err := parse.Parse(p.Name+".rdma", []byte(text))
				if err != nil {
					fail("does not parse: %v", err)
					continue
				}
				if back := q.String(); back != text {
					fail("prints back differently:\n%s", back)
					continue
				}
				if err := sameCode(p, q); err != nil {
					fail("compiled code differs from the parsed program's: %v", err)
				}
				if again := gen(v.cfg, vi, i).String(); again != text {
					fail("not deterministic:\n%s", again)
				}
				// Shape.
				if !strings.HasPrefix(text, "litmus "+p.Name+"\n") {
					fail("no litmus line")
				}
				if len(p.Expects) != 0 || p.Query.Kind != prog.QExists {
					fail("query %v with %d expects", p.Query.Kind, len(p.Expects))
				}
				if k := len(p.Query.Cond.Locs(nil)); k < 1 || k > 3 {
					fail("condition over %d locations", k)
				}
				c := v.cfg
				if len(p.Nodes) < c.Nodes[0] || len(p.Nodes) > c.Nodes[1] || len(p.Threads) < c.Threads[0] || len(p.Threads) > c.Threads[1] {
					fail("%d nodes, %d threads", len(p.Nodes), len(p.Threads))
				}
				sh := shapeOf(p)
				if sh.simple > c.Instrs[1] || (sh.loop && !c.Loops) || (sh.choose && !c.Choose) {
					fail("shape %+v", sh)
				}
				for _, c := range []struct {
					has bool
					n   *int
				}{{sh.cas, &cas}, {sh.poll, &poll}, {sh.fence, &fence}, {sh.choose, &choose}, {sh.loop, &loop}, {sh.assume, &assume}} {
					if c.has {
						*c.n++
					}
				}
				simple += sh.simple
				for ti := range p.Threads {
					if len(p.Threads[ti].Code) < 2 {
						fail("thread %d not compiled", ti)
					}
				}
			}
			t.Logf("%d programs: cas %d, poll %d, rfence %d, choose %d, loop %d, assume %d; longest thread %.2f statements on average",
				n, cas, poll, fence, choose, loop, assume, float64(simple)/float64(n))
		})
	}
}

// TestDeterministicStream checks that drawing several programs from one rng
// is deterministic too.
func TestDeterministicStream(t *testing.T) {
	draw := func() string {
		rng := rand.New(rand.NewPCG(42, 7))
		var b strings.Builder
		for i := range 50 {
			b.WriteString(Program(rng, DefaultConfig(), fmt.Sprint(i)).String())
		}
		return b.String()
	}
	first, second := draw(), draw()
	if first != second {
		t.Fatal("same rng state, different programs")
	}
}

// TestZeroConfig checks that a zero Config takes the defaults (choose aside).
func TestZeroConfig(t *testing.T) {
	for i := range 200 {
		p := Program(rand.New(rand.NewPCG(uint64(i), 0)), Config{}, "zero")
		if n := len(p.Nodes); n < 2 || n > 3 {
			t.Fatalf("%d nodes", n)
		}
		if _, err := parse.Parse("zero.rdma", []byte(p.String())); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEdgeConfigs draws programs from unusual configurations: they must
// still be valid and print back identically.
func TestEdgeConfigs(t *testing.T) {
	big := DefaultConfig()
	big.Threads, big.Instrs, big.Loops, big.Budget, big.MaxOps = [2]int{4, 6}, [2]int{5, 12}, true, -1, 20
	many := DefaultConfig()
	many.Nodes, many.LocsPerNode, many.Values = [2]int{5, 64}, [2]int{1, 9}, 256
	for ci, c := range []Config{
		{Nodes: [2]int{1, 1}, Choose: true, Loops: true},
		{Values: 1, Choose: true},
		{Nodes: [2]int{3, 5}, LocsPerNode: [2]int{1, 1}},
		{Weights: [NumKinds]int{KPoll: 1}},
		{Weights: [NumKinds]int{KPoll: 1, KGet: 1}, Budget: -1, MaxOps: 100},
		{Weights: [NumKinds]int{KAssumeNe: 1, KCAS: 1}, Values: 2},
		{Nodes: [2]int{3, 1}, Threads: [2]int{-1, 0}, Instrs: [2]int{0, 0}},
		big,
		many,
	} {
		for i := range 300 {
			p := gen(c, 1000+ci, i)
			text := p.String()
			q, err := parse.Parse("edge.rdma", []byte(text))
			if err != nil {
				t.Fatalf("config %d program %d: %v\n%s", ci, i, err, text)
			}
			if q.String() != text {
				t.Fatalf("config %d program %d prints back differently:\n%s\n%s", ci, i, text, q)
			}
		}
	}
}

// allLocs returns a copy of p whose query shows every location.
func allLocs(p *prog.Program) *prog.Program {
	q := *p
	q.Query = prog.Query{Kind: prog.QExists, Cond: &prog.Cond{Op: prog.CTrue}}
	return &q
}

// sanity is the outcome of the machine sanity check on one program.
type sanity struct {
	sh                   shape
	rdmaStates, scStates uint64
	rdmaTime, scTime     time.Duration
	rdmaOut, scOut       int
	err                  string
}

func checkMachines(p *prog.Program) sanity {
	q := allLocs(p)
	opt := verdict.Options{Machine: machine.DefaultOptions()}
	s := sanity{sh: shapeOf(p)}
	start := time.Now()
	rd, err := verdict.Compute(context.Background(), q, machine.RDMA, opt)
	s.rdmaTime = time.Since(start)
	if err != nil {
		s.err = "rdma: " + err.Error()
		return s
	}
	start = time.Now()
	sc, err := verdict.Compute(context.Background(), q, machine.SC, opt)
	s.scTime = time.Since(start)
	if err != nil {
		s.err = "sc: " + err.Error()
		return s
	}
	s.rdmaStates, s.scStates = rd.Search.States, sc.Search.States
	s.rdmaOut, s.scOut = len(rd.Outcomes), len(sc.Outcomes)
	var msgs []string
	if !rd.Complete {
		msgs = append(msgs, fmt.Sprintf("RDMA search incomplete (%s)", rd.Bound))
	}
	if !sc.Complete {
		msgs = append(msgs, fmt.Sprintf("SC search incomplete (%s)", sc.Bound))
	}
	if len(rd.Locs) != len(p.Locs) || len(sc.Locs) != len(p.Locs) {
		msgs = append(msgs, fmt.Sprintf("shown locations %v / %v, want all %d", rd.Locs, sc.Locs, len(p.Locs)))
	}
	inRDMA := map[string]bool{}
	for _, o := range rd.Outcomes {
		inRDMA[string(o.Values)] = true
	}
	for _, o := range sc.Outcomes {
		if !inRDMA[string(o.Values)] {
			msgs = append(msgs, "SC outcome not reachable under RDMA: "+p.Outcome(sc.Locs, func(l int) uint8 { return o.Values[l] }))
		}
	}
	if len(msgs) > 0 {
		var b strings.Builder
		b.WriteString(strings.Join(msgs, "\n"))
		b.WriteString("\nRDMA outcomes:\n")
		for _, o := range rd.Outcomes {
			b.WriteString("  " + p.Outcome(rd.Locs, func(l int) uint8 { return o.Values[l] }) + "\n")
		}
		b.WriteString("SC outcomes:\n")
		for _, o := range sc.Outcomes {
			b.WriteString("  " + p.Outcome(sc.Locs, func(l int) uint8 { return o.Values[l] }) + "\n")
		}
		s.err = b.String()
	}
	return s
}

// TestSCOutcomesAreRDMAOutcomes explores generated loop-free programs under
// both machines, showing every location: every SC-consistent run is
// RDMA-consistent, so SC's final outcomes must be among RDMA's, and both
// searches must be complete. A failure is a bug in a machine.
func TestSCOutcomesAreRDMAOutcomes(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	const vi = 100 // seeds apart from TestRoundTrip's
	cfg := DefaultConfig()
	results := make([]sanity, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				results[i] = checkMachines(gen(cfg, vi, i))
			}
		})
	}
	start := time.Now()
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	wall := time.Since(start)

	var cas, poll, fence, choose, assume, get, put, failures, rdmaNone, scNone, weaker int
	var rs, ss uint64
	var rt, st, maxRT time.Duration
	maxRS := uint64(0)
	for i, r := range results {
		if r.err != "" {
			failures++
			if failures <= 5 {
				t.Errorf("program %d (seed %d,%d): %s\n%s", i, i, vi, r.err, gen(cfg, vi, i))
			}
		}
		sh := r.sh
		for _, c := range []struct {
			has bool
			n   *int
		}{{sh.cas, &cas}, {sh.poll, &poll}, {sh.fence, &fence}, {sh.choose, &choose}, {sh.assume, &assume}, {sh.get, &get}, {sh.put, &put}} {
			if c.has {
				*c.n++
			}
		}
		if r.rdmaOut == 0 {
			rdmaNone++
		}
		if r.scOut == 0 {
			scNone++
		}
		if r.rdmaOut > r.scOut {
			weaker++
		}
		rs += r.rdmaStates
		ss += r.scStates
		rt += r.rdmaTime
		st += r.scTime
		maxRT = max(maxRT, r.rdmaTime)
		maxRS = max(maxRS, r.rdmaStates)
	}
	if failures > 0 {
		t.Errorf("%d of %d programs failed", failures, n)
	}
	// Generator quality: few programs may block trivially.
	if scNone > n/6 {
		t.Errorf("%d of %d programs have no final outcome under SC", scNone, n)
	}
	t.Logf("%d programs: cas %d, poll %d, rfence %d, choose %d, assume %d, get %d, put %d",
		n, cas, poll, fence, choose, assume, get, put)
	t.Logf("no final outcome: %d under RDMA, %d under SC; RDMA has outcomes SC lacks: %d", rdmaNone, scNone, weaker)
	t.Logf("RDMA: %.0f states/program (max %d), %v/program (max %v); SC: %.0f states/program, %v/program; wall %v",
		float64(rs)/float64(n), maxRS, rt/time.Duration(n), maxRT, float64(ss)/float64(n), st/time.Duration(n), wall)
}

// BenchmarkRDMA explores generated default-config programs under RDMA with
// their own query (the cost of a check) and reports states per program.
func BenchmarkRDMA(b *testing.B) {
	benchmark(b, DefaultConfig(), false)
}

// BenchmarkRDMAAllLocs is BenchmarkRDMA with every location shown, as the
// sanity test explores.
func BenchmarkRDMAAllLocs(b *testing.B) {
	benchmark(b, DefaultConfig(), true)
}

func benchmark(b *testing.B, cfg Config, all bool) {
	const programs = 256
	ps := make([]*prog.Program, programs)
	for i := range ps {
		ps[i] = gen(cfg, 200, i)
		if all {
			ps[i] = allLocs(ps[i])
		}
	}
	opt := verdict.Options{Machine: machine.DefaultOptions()}
	var states uint64
	i := 0
	for b.Loop() {
		r, err := verdict.Compute(context.Background(), ps[i%programs], machine.RDMA, opt)
		if err != nil {
			b.Fatal(err)
		}
		states += r.Search.States
		i++
	}
	b.ReportMetric(float64(states)/float64(i), "states/program")
}

// TestContendedShape: Config.Contended draws the shape of issue 35
// (corpus/litmus/ATOM-PENDING-*) in a fair share of its programs: a thread
// with a get followed by a remote atomic on location y, an atomic on y in
// another thread, and a CPU assume of y followed by a write (the observer).
func TestContendedShape(t *testing.T) {
	const n = 1000
	cfg := DefaultConfig().Contended()
	shape := 0
	for i := range n {
		p := Program(rand.New(rand.NewPCG(uint64(i), 35)), cfg, "c")
		getAtomic, observed := map[int]bool{}, map[int]bool{}
		atomicThreads := map[int]int{} // location -> bitset of threads with an atomic on it
		for th := range p.Threads {
			b := p.Threads[th].Body
			for k, s := range b {
				atomic := s.Kind == prog.SRCAS || s.Kind == prog.SRFAA
				if atomic {
					atomicThreads[s.Y] |= 1 << th
				}
				if k > 0 && atomic && b[k-1].Kind == prog.SGet {
					getAtomic[s.Y] = true
				}
				if k > 0 && s.Kind == prog.SWrite && b[k-1].Kind == prog.SAssume {
					observed[b[k-1].X] = true
				}
			}
		}
		for y := range getAtomic {
			if ts := atomicThreads[y]; observed[y] && ts&(ts-1) != 0 {
				shape++
				break
			}
		}
	}
	if shape < n/50 {
		t.Errorf("the pending-atomic shape in %d of %d contended programs, want at least %d", shape, n, n/50)
	}
	t.Logf("the pending-atomic shape in %d of %d contended programs", shape, n)
}
