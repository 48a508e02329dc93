// Package gen draws random, small, valid RDMA programs for differential
// testing: of the machines against each other (SC outcomes must be RDMA
// outcomes), of the machines against the declarative model, and of the
// parser and printer (every program prints to .rdma text that parses back to
// the same text).
//
// Programs are valid by construction: gets copy a remote location into a
// local one, puts a local location into a remote one, rfences and polls name
// another node, cas and assume work on the thread's own node. They are also
// built not to block trivially: most assumes and cas test values that some
// instruction can produce, and most polls follow a put or get on the same
// queue pair. The query is `exists` over a small condition on one to three
// locations, so that semantics can be compared on final outcomes.
//
// Programs are kept small: Config.Budget bounds an estimate of the RDMA
// machine's state count by limiting puts and gets. With DefaultConfig the RDMA
// machine explores about 600 states per program on average (about 2 ms),
// rarely more than 20,000.
//
// Generation is deterministic: the same rng state and Config give the same
// program.
package gen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"rdmasim/opsem/prog"
)

// Instruction kinds, the indices of Config.Weights.
const (
	KWrite    = iota // x := v
	KAssumeEq        // assume(x == v)
	KAssumeNe        // assume(x != v)
	KCAS             // x := cas(z, a, b)
	KGet             // x := y, y remote
	KPut             // y := x, y remote
	KRFence          // rfence(m)
	KPoll            // poll(m)
	KRCAS            // x := rcas(y, a, b), y remote (only with Config.Atomics)
	KRFAA            // x := rfaa(y, d), y remote (only with Config.Atomics)
	KQuiet           // quiet (only with Config.Verbs; SEMANTICS-VERBS.md 6)
	NumKinds
)

// AtomicWeights are the weights of the remote atomics that Config.Atomics
// gives KRCAS and KRFAA when their weights are zero.
var AtomicWeights = [NumKinds]int{KRCAS: 3, KRFAA: 3}

// VerbsWeights are the weights of the verbs statements that Config.Verbs
// gives them when their weights are zero: quiet as often as a poll.
var VerbsWeights = [NumKinds]int{KQuiet: 2}

// DefaultWeights is the instruction mix used when Config.Weights is all zero.
var DefaultWeights = [NumKinds]int{
	KWrite:    4,
	KAssumeEq: 2,
	KAssumeNe: 1,
	KCAS:      2,
	KGet:      4,
	KPut:      4,
	KRFence:   1,
	KPoll:     2,
}

// Config shapes the generated programs. Ranges are inclusive [min, max].
// Zero-valued ranges, a zero Values and all-zero Weights take the defaults of
// DefaultConfig; out-of-range values are clamped to the model's limits.
type Config struct {
	Nodes       [2]int // nodes (default 2..3)
	Threads     [2]int // threads (default 1..3)
	Instrs      [2]int // simple statements per thread, those inside choose and loop included (default 1..5)
	LocsPerNode [2]int // locations per node (default 1..3)
	Values      int    // values are 0..Values-1 (default 3)
	// MaxOps bounds the puts and gets of the whole program (default 4).
	MaxOps int
	// Budget bounds the estimated number of states of the program's RDMA
	// machine (default 1000; negative: no bound). The estimate, fitted on
	// generated programs, grows with the product of the threads' lengths
	// and about threefold with each put or get; a program over budget gets
	// no further put or get, so that short programs may have more of them
	// than long ones. Actual state counts scatter around the estimate by a
	// factor of about three.
	Budget int
	// Loops allows loop { } (DefaultConfig: false). The budget ignores
	// loops: a put or get in a loop can fill its queue pair up to
	// max-inflight, so explore such programs with machine.Options.Unroll or
	// a small MaxInflight.
	Loops  bool
	Choose bool // allow choose { } or { } (DefaultConfig: true)
	// Atomics allows the remote atomics rcas and rfaa (DefaultConfig:
	// false), with AtomicWeights unless Weights gives them a weight. They
	// count as puts and gets towards MaxOps and the budget.
	Atomics bool
	// Verbs allows the verbs features of issue 32 that are built
	// (SEMANTICS-VERBS.md): quiet, with VerbsWeights unless Weights gives
	// it a weight, and the fenced mark on a put, get or remote atomic (one
	// in fencedChance); DefaultConfig: false.
	Verbs bool
	// Contention makes remote operations favour the first node, and remote
	// atomics and CPU assumes one location per node (its first), so that atomics of several threads meet on one
	// target and CPU reads test what they leave there (with Atomics; the
	// shape of corpus/litmus/ATOM-PENDING-*: a get before an atomic in one
	// thread, another atomic on its target, a CPU assume on that target in
	// a third).
	Contention bool
	// Weights of the instruction kinds, indexed by KWrite..KPoll. All zero
	// means DefaultWeights; otherwise a zero weight disables its kind.
	Weights [NumKinds]int
}

// DefaultConfig returns the default configuration: small loop-free programs
// with choose.
func DefaultConfig() Config {
	return Config{
		Nodes:       [2]int{2, 3},
		Threads:     [2]int{1, 3},
		Instrs:      [2]int{1, 5},
		LocsPerNode: [2]int{1, 3},
		Values:      3,
		MaxOps:      4,
		Budget:      1000,
		Choose:      true,
		Weights:     DefaultWeights,
	}
}

// Contended returns c turned into the atomics' contention shape: remote
// atomics on, Contention on, three or four threads on two or three nodes of
// two locations each, short threads, gets, puts and atomics around
// assumes. It is the shape of the pending-atomic disagreement of issue 35
// (corpus/litmus/ATOM-PENDING-*), which the default mixes did not draw in
// 20,000 programs; rdmasim fuzz --atomics draws a third of its programs
// so, make agree ATOMICS=1 every third.
func (c Config) Contended() Config {
	c.Atomics, c.Contention = true, true
	c.Threads = [2]int{3, 4}
	c.Nodes = [2]int{2, 3}
	c.Instrs = [2]int{2, 3}
	c.LocsPerNode = [2]int{2, 2}
	c.MaxOps = max(c.MaxOps, 4)
	c.Budget = max(c.Budget, 3000)
	c.Weights = [NumKinds]int{KWrite: 2, KAssumeEq: 4, KAssumeNe: 1, KGet: 4, KPut: 3,
		KRFence: 1, KPoll: 2, KRCAS: 4, KRFAA: 4}
	return c
}

// normalize fills defaults and clamps to the model's limits.
func (c Config) normalize() Config {
	d := DefaultConfig()
	rng := func(r, def [2]int, lo, hi int) [2]int {
		if r == [2]int{} {
			r = def
		}
		r[0] = max(lo, min(hi, r[0]))
		r[1] = max(r[0], min(hi, r[1]))
		return r
	}
	c.Nodes = rng(c.Nodes, d.Nodes, 1, prog.MaxNodes)
	c.Threads = rng(c.Threads, d.Threads, 1, prog.MaxThreads)
	c.Instrs = rng(c.Instrs, d.Instrs, 1, prog.MaxCode/4)
	c.LocsPerNode = rng(c.LocsPerNode, d.LocsPerNode, 1, prog.MaxLocs)
	if c.Values <= 0 {
		c.Values = d.Values
	}
	c.Values = min(c.Values, prog.MaxValue+1)
	if c.MaxOps <= 0 {
		c.MaxOps = d.MaxOps
	}
	if c.Budget == 0 {
		c.Budget = d.Budget
	}
	if c.Weights == [NumKinds]int{} {
		c.Weights = DefaultWeights
	}
	for i, w := range c.Weights {
		c.Weights[i] = max(0, w)
	}
	if !c.Atomics {
		c.Weights[KRCAS], c.Weights[KRFAA] = 0, 0
	} else if c.Weights[KRCAS] == 0 && c.Weights[KRFAA] == 0 {
		c.Weights[KRCAS], c.Weights[KRFAA] = AtomicWeights[KRCAS], AtomicWeights[KRFAA]
	}
	if !c.Verbs {
		c.Weights[KQuiet] = 0
	} else if c.Weights[KQuiet] == 0 {
		c.Weights[KQuiet] = VerbsWeights[KQuiet]
	}
	return c
}

// Program returns a random valid program drawn from rng, named name, already
// compiled (prog.Compile), whose printed text parses back to the same text.
func Program(rng *rand.Rand, cfg Config, name string) *prog.Program {
	g := &generator{rng: rng, cfg: cfg.normalize()}
	p := g.program(name)
	if err := prog.Compile(p); err != nil {
		panic(fmt.Sprintf("gen: generated program does not compile: %v\n%s", err, p))
	}
	return p
}

// Structural limits that keep programs readable and small.
const (
	maxDepth     = 2  // nesting of choose/loop
	maxCompound  = 4  // simple statements in one choose or loop
	chooseChance = 15 // percent, when the budget allows
	loopChance   = 12 // percent
	labelChance  = 10 // percent of statements that get a label
	// Chances (percent) of the "sensible" choice over a uniform one.
	sensibleValue = 95 // assume / cas / condition values that can occur
	sensiblePoll  = 90 // polls on a queue pair with an unpolled put/get
	avoidBlocking = 95 // when no poll can succeed, draw another kind
	fencedChance  = 25 // percent of puts, gets and atomics marked fenced, with Config.Verbs
	wordsChance   = 30 // percent of puts and gets of two words (if their nodes have two locations), with Config.Verbs
	unsigChance   = 25 // percent of puts, gets and atomics marked unsignaled, with Config.Verbs (signal.go)
	hotChance     = 70 // with Config.Contention: an atomic's target or an assume's location is its node's first
	motifChance   = 80 // with Config.Contention: a thread starts with a motif (generator.motif)
)

// locNames are the names of the first locations; later ones are v<i>.
var locNames = []string{"x", "y", "z", "w", "u", "v", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "m", "q", "r", "s"}

type generator struct {
	rng *rand.Rand
	cfg Config
	p   *prog.Program

	nodeLocs [][]int // locations of each node

	// Per thread, during generation.
	thread  int        // the thread being generated
	node    int        // its node
	pending []int      // per node: puts/gets issued on every path and not yet polled
	used    []int      // nodes the thread already has a queue pair to
	labels  int        // labels given so far
	own     []ownValue // per location: what the thread's own writes leave there
	script  []int      // kinds its next simple statements take (Config.Contention's motifs)
	inMotif bool       // the statement being drawn is a motif's: its locations are the hot node's

	ops  int     // puts and gets in the program so far
	cost float64 // estimated RDMA states (see Config.Budget)

	stmts    []*prog.Stmt // every simple statement, in order of generation
	threadOf []int        // the thread of each of stmts
	ownAt    []ownValue   // for assume and cas: own[x] (or own[z]) when they run
}

// ownValue is what a thread knows of a location of its node from its own
// statements: when known, the location holds one of set or a value another
// thread (or a NIC) wrote.
type ownValue struct {
	known bool
	set   valueSet
}

func (o *ownValue) join(p ownValue) {
	o.known = o.known && p.known
	for i := range o.set {
		o.set[i] |= p.set[i]
	}
}

func (g *generator) forget() {
	for i := range g.own {
		g.own[i].known = false
	}
}

func (g *generator) between(r [2]int) int { return r[0] + g.rng.IntN(r[1]-r[0]+1) }

func (g *generator) chance(percent int) bool { return g.rng.IntN(100) < percent }

func (g *generator) value() uint8 { return uint8(g.rng.IntN(g.cfg.Values)) }

func (g *generator) program(name string) *prog.Program {
	g.p = &prog.Program{Name: name}
	p := g.p
	nodes := g.between(g.cfg.Nodes)
	g.nodeLocs = make([][]int, nodes)
	for n := range nodes {
		p.Nodes = append(p.Nodes, prog.Node{Name: fmt.Sprintf("n%d", n+1)})
		k := g.between(g.cfg.LocsPerNode)
		for range k {
			if len(p.Locs) == prog.MaxLocs {
				break
			}
			l := prog.Loc{Node: n}
			if g.chance(20) {
				l.Init = g.value()
			}
			g.nodeLocs[n] = append(g.nodeLocs[n], len(p.Locs))
			p.Locs = append(p.Locs, l)
		}
	}
	// A node left without locations (the location limit) gets none; its
	// threads would have nothing to work on, so threads avoid it.
	var homes []int
	for n := range nodes {
		if len(g.nodeLocs[n]) > 0 {
			homes = append(homes, n)
		}
	}
	for i := range p.Locs {
		if i < len(locNames) && len(p.Locs) <= len(locNames) {
			p.Locs[i].Name = locNames[i]
		} else {
			p.Locs[i].Name = fmt.Sprintf("v%d", i)
		}
	}
	threads := g.between(g.cfg.Threads)
	sizes := make([]int, threads)
	g.cost = costBase
	for t := range sizes {
		sizes[t] = g.between(g.cfg.Instrs)
		g.cost *= math.Pow(float64(sizes[t]+1), costThread)
	}
	// Threads are spread over the nodes, starting at a random one, so that
	// most programs have threads on different nodes.
	first := g.rng.IntN(len(homes))
	if g.cfg.Contention && homes[0] == 0 {
		first = 0 // the first thread observes the hot node
	}
	for t := range threads {
		node := homes[(first+t)%len(homes)]
		if t >= len(homes) || g.chance(25) {
			node = homes[g.rng.IntN(len(homes))]
		}
		g.node, g.thread = node, t
		g.pending = make([]int, nodes)
		g.used = g.used[:0]
		g.labels = 0
		g.own = make([]ownValue, len(p.Locs))
		for i, l := range p.Locs {
			g.own[i].known = true
			g.own[i].set.add(l.Init)
		}
		g.script = g.motif()
		body := g.block(sizes[t], 0)
		p.Threads = append(p.Threads, prog.Thread{Name: fmt.Sprintf("t%d", t+1), Node: node, Body: body})
	}
	g.fillValues()
	p.Query = prog.Query{Kind: prog.QExists, Cond: g.cond()}
	return p
}

// flag returns, under Config.Contention and mostly, the hot node's second
// location when node n is the hot node and has one: the flag its observer
// writes after seeing an atomic's value, and gets read.
func (g *generator) flag(n int) (int, bool) {
	if !g.hot() || n != 0 || len(g.nodeLocs[0]) < 2 {
		return 0, false
	}
	return g.nodeLocs[0][1], true
}

// hot reports whether the statement being drawn goes to the hot node's
// locations (Config.Contention): always in a motif, else mostly.
func (g *generator) hot() bool {
	return g.cfg.Contention && (g.inMotif || g.chance(hotChance))
}

// motif returns the kinds a thread's first statements take under
// Config.Contention, nil otherwise: on the hot node (the first), an
// assume (of its hot location, mostly) and a write; elsewhere a remote
// atomic, after a get half of the time. With remote operations and
// atomics favouring the hot node and its first location, they make the
// shape of corpus/litmus/ATOM-PENDING-* likely: an observer that sees an
// atomic's value and writes what a get before another atomic reads.
func (g *generator) motif() []int {
	if !g.cfg.Contention || !g.chance(motifChance) {
		return nil
	}
	if g.node == 0 {
		return []int{KAssumeEq, KWrite}
	}
	atomic := KRCAS
	if g.chance(50) {
		atomic = KRFAA
	}
	if g.chance(50) {
		return []int{KGet, atomic}
	}
	return []int{atomic}
}

// block generates a sequence of statements holding n simple statements.
func (g *generator) block(n, depth int) []*prog.Stmt {
	var out []*prog.Stmt
	for n > 0 {
		var s *prog.Stmt
		switch {
		case g.cfg.Choose && depth < maxDepth && n >= 2 && g.chance(chooseChance):
			s = g.choose(n, depth)
			n -= countSimple(s)
		case g.cfg.Loops && depth < maxDepth && g.chance(loopChance):
			size := 1 + g.rng.IntN(min(n, maxCompound-1))
			before := append([]int(nil), g.pending...)
			g.forget()
			body := g.block(size, depth+1)
			g.forget()
			// The body may run zero times.
			minInto(g.pending, before)
			s = &prog.Stmt{Kind: prog.SLoop, Branches: [][]*prog.Stmt{body}}
			n -= size
		default:
			s = g.simple()
			n--
		}
		if g.chance(labelChance) {
			g.labels++
			s.Label = fmt.Sprintf("L%d", g.labels)
		}
		out = append(out, s)
	}
	return out
}

// choose generates a choose using at most n simple statements (n >= 2).
func (g *generator) choose(n, depth int) *prog.Stmt {
	k := 2
	if n >= 3 && g.chance(20) {
		k = 3
	}
	size := k + g.rng.IntN(min(n, maxCompound)-k+1)
	// Split size into k positive parts.
	parts := make([]int, k)
	for i := range parts {
		parts[i] = 1
	}
	for range size - k {
		parts[g.rng.IntN(k)]++
	}
	before := append([]int(nil), g.pending...)
	ownBefore := append([]ownValue(nil), g.own...)
	var after []int
	var ownAfter []ownValue
	s := &prog.Stmt{Kind: prog.SChoose}
	for _, part := range parts {
		copy(g.pending, before)
		copy(g.own, ownBefore)
		s.Branches = append(s.Branches, g.block(part, depth+1))
		if after == nil {
			after = append([]int(nil), g.pending...)
			ownAfter = append([]ownValue(nil), g.own...)
		} else {
			minInto(after, g.pending)
			for i := range ownAfter {
				ownAfter[i].join(g.own[i])
			}
		}
	}
	copy(g.pending, after)
	copy(g.own, ownAfter)
	return s
}

func minInto(dst, src []int) {
	for i := range dst {
		dst[i] = min(dst[i], src[i])
	}
}

func countSimple(s *prog.Stmt) int {
	if s.Kind != prog.SChoose && s.Kind != prog.SLoop {
		return 1
	}
	n := 0
	for _, b := range s.Branches {
		for _, c := range b {
			n += countSimple(c)
		}
	}
	return n
}

// kind draws the kind of the next simple statement, among those the
// configuration and the program so far allow.
func (g *generator) kind(noPoll bool) int {
	g.inMotif = false
	if len(g.script) > 0 {
		k := g.script[0]
		g.script = g.script[1:]
		remote := k == KGet || k == KPut || k == KRCAS || k == KRFAA
		if !remote || g.opAllowed() && len(g.nodeLocs[0]) > 0 {
			g.inMotif = true
			return k
		}
	}
	w := g.cfg.Weights
	if len(g.p.Locs) == len(g.nodeLocs[g.node]) {
		// No remote location: no queue pair at all.
		w[KGet], w[KPut], w[KRFence], w[KPoll], w[KRCAS], w[KRFAA] = 0, 0, 0, 0, 0, 0
	}
	if !g.opAllowed() {
		w[KGet], w[KPut], w[KRCAS], w[KRFAA] = 0, 0, 0, 0
	}
	if noPoll {
		w[KPoll] = 0
	}
	total := 0
	for _, x := range w {
		total += x
	}
	if total == 0 {
		return KWrite
	}
	r := g.rng.IntN(total)
	for k, x := range w {
		if r < x {
			return k
		}
		r -= x
	}
	panic("unreachable")
}

// The cost model: log(RDMA states) fitted by least squares on 3,000
// default-config programs with up to six puts and gets, every location shown.
// Polls divide the count (by about 1.8 each), which the estimate ignores.
const (
	costBase   = 0.87
	costThread = 1.1  // per thread: (simple statements + 1)^costThread
	costOp     = 2.75 // per put or get
	costCAS    = 1.31
	costFence  = 1.18
)

// opAllowed reports whether one more put or get fits MaxOps and the budget.
func (g *generator) opAllowed() bool {
	return g.ops < g.cfg.MaxOps && (g.cfg.Budget < 0 || g.cost*costOp <= float64(g.cfg.Budget))
}

func (g *generator) localLoc() int {
	ls := g.nodeLocs[g.node]
	return ls[g.rng.IntN(len(ls))]
}

// remote picks another node that owns locations, preferring the nodes the
// thread already talks to.
func (g *generator) remote() int {
	if g.node != 0 && len(g.nodeLocs[0]) > 0 && g.hot() {
		g.use(0) // the hot node
		return 0
	}
	if len(g.used) > 0 && g.chance(50) {
		return g.used[g.rng.IntN(len(g.used))]
	}
	var cand []int
	for n, ls := range g.nodeLocs {
		if n != g.node && len(ls) > 0 {
			cand = append(cand, n)
		}
	}
	m := cand[g.rng.IntN(len(cand))]
	g.use(m)
	return m
}

func (g *generator) use(m int) {
	for _, u := range g.used {
		if u == m {
			return
		}
	}
	g.used = append(g.used, m)
}

func (g *generator) remoteLoc(m int) int {
	ls := g.nodeLocs[m]
	return ls[g.rng.IntN(len(ls))]
}

// simple generates one simple statement. Values of assumes and of the
// expected value of cas are filled in later by fillValues.
func (g *generator) simple() *prog.Stmt {
	k := g.kind(false)
	if k == KPoll {
		var ready []int
		for m, n := range g.pending {
			if n > 0 {
				ready = append(ready, m)
			}
		}
		switch {
		case len(ready) > 0 && g.chance(sensiblePoll):
			m := ready[g.rng.IntN(len(ready))]
			g.pending[m]--
			return g.add(&prog.Stmt{Kind: prog.SPoll, Remote: m})
		case len(ready) == 0 && g.chance(avoidBlocking):
			// Nothing to poll: issue an operation to poll later if the
			// configuration allows one, or do something else.
			get, put := g.cfg.Weights[KGet] > 0, g.cfg.Weights[KPut] > 0
			switch {
			case g.opAllowed() && get && (!put || g.chance(50)):
				k = KGet
			case g.opAllowed() && put:
				k = KPut
			default:
				k = g.kind(true)
			}
		}
	}
	s := &prog.Stmt{Kind: prog.SSkip}
	switch k {
	case KWrite:
		s.Kind, s.X, s.A = prog.SWrite, g.localLoc(), g.value()
		if f, ok := g.flag(g.node); ok {
			s.X = f
		}
		g.own[s.X] = ownValue{known: true}
		g.own[s.X].set.add(s.A)
	case KAssumeEq, KAssumeNe:
		s.Kind, s.X, s.Ne = prog.SAssume, g.localLoc(), k == KAssumeNe
		if g.hot() {
			s.X = g.nodeLocs[g.node][0]
		}
		return g.addAt(s, g.own[s.X])
	case KCAS:
		s.Kind, s.X, s.Z, s.B = prog.SCAS, g.localLoc(), g.localLoc(), g.value()
		g.cost *= costCAS
		at := g.own[s.Z]
		g.own[s.Z].set.add(s.B)
		g.own[s.X].known = false
		return g.addAt(s, at)
	case KGet:
		m := g.remote()
		s.Kind, s.X, s.Y, s.Remote = prog.SGet, g.localLoc(), g.remoteLoc(m), m
		if f, ok := g.flag(m); ok {
			s.Y = f
		}
		g.own[s.X].known = false
		g.pending[m]++
		g.ops++
		g.cost *= costOp
	case KPut:
		m := g.remote()
		s.Kind, s.Y, s.X, s.Remote = prog.SPut, g.remoteLoc(m), g.localLoc(), m
		g.pending[m]++
		g.ops++
		g.cost *= costOp
	case KRCAS, KRFAA:
		m := g.remote()
		s.Kind, s.X, s.Y, s.Remote = prog.SRCAS, g.localLoc(), g.remoteLoc(m), m
		if g.hot() {
			s.Y = g.nodeLocs[m][0]
		}
		if k == KRFAA {
			s.Kind, s.A = prog.SRFAA, 1+uint8(g.rng.IntN(max(1, g.cfg.Values-1)))
		} else {
			s.B = g.value()
		}
		g.own[s.X].known = false
		g.pending[m]++
		g.ops++
		g.cost *= costOp
	case KRFence:
		s.Kind, s.Remote = prog.SRFence, g.remote()
		g.cost *= costFence
	case KQuiet:
		// Waits for every operation of the thread, consumes no
		// completion: pending polls stay as they are.
		s.Kind = prog.SQuiet
	case KPoll:
		// A poll that may block: nothing (or nothing chosen) to wait for.
		s.Kind, s.Remote = prog.SPoll, g.remote()
		g.pending[s.Remote] = max(0, g.pending[s.Remote]-1)
	}
	switch s.Kind {
	case prog.SGet, prog.SPut, prog.SRCAS, prog.SRFAA:
		// Without Verbs no draw: the programs of a seed stay as they were.
		s.Fenced = g.cfg.Verbs && g.chance(fencedChance)
		g.unsignaled(s)
	}
	if (s.Kind == prog.SGet || s.Kind == prog.SPut) && g.cfg.Verbs && g.chance(wordsChance) {
		g.words(s)
	}
	g.inline(s)
	return g.add(s)
}

func (g *generator) add(s *prog.Stmt) *prog.Stmt { return g.addAt(s, ownValue{}) }

// addAt adds s, an assume or cas, with what the thread's own statements left
// in the location it tests.
func (g *generator) addAt(s *prog.Stmt, own ownValue) *prog.Stmt {
	g.stmts = append(g.stmts, s)
	g.threadOf = append(g.threadOf, g.thread)
	g.ownAt = append(g.ownAt, own)
	return s
}
