package surface

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Generate draws a random protocol program from seed: the same seed gives
// the same text. Programs are small (two or three nodes, two or three
// threads, a few statements each, values 0..3) so that both semantics
// explore them in milliseconds, and use every construct of the language:
// registers with and without ranges, locations with and without ranges,
// arrays, families of nodes and threads with a param, stores of
// expressions, loads, puts and gets (with computed indices), rfence, poll,
// cas, if/else, while over registers and over memory, for, choose, loop,
// break, assert and assume; and the motifs of protocols as users write
// them: counters in local and remote memory, and spins on a polled get.
//
// They are built to lower: expressions read only the thread's own node, a
// put's source is a location, a cas works on the thread's node, polls are
// outside loops except a spin's, which polls what each iteration submits
// (so the unpolled counts stay bounded), and every while loop
// either counts a register or waits for memory that may never change (a run
// that spins for ever: both semantics must handle the cycle). They are not
// built to be free of errors: values leave their ranges, indices their
// arrays, and divisions meet zero, which is what error points are for.
func Generate(seed uint64) string {
	g := &generator{rng: rand.New(rand.NewPCG(seed, 0x7375_7266))} // "surf"
	return g.program(seed)
}

// ProgramSeed returns the seed of program i of a run with seed seed (a
// splitmix64 mix of both).
func ProgramSeed(seed uint64, i int) uint64 {
	z := seed*0x9e3779b97f4a7c15 + uint64(i) + 1
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// gnode is a node as the generator sees it: its name in statements and its
// locations (scalars and arrays, with their sizes).
type gnode struct {
	name   string   // as a statement names it: A, or m[i] in a family's thread
	scalar []string // location names, as written in the thread
	arrays []garray
}

type garray struct {
	name string
	size int
}

// gthread is the thread being generated.
type gthread struct {
	own     *gnode
	others  []*gnode
	regs    []string
	forVars []string
	put     map[string]bool // nodes put to or got from so far (a poll may follow)
	loops   int             // enclosing while loops and for loops
	inWhile bool
}

type generator struct {
	rng   *rand.Rand
	b     strings.Builder
	depth int
	th    *gthread
	n     int      // statements generated in the thread
	procs []string // procedures declared so far, each for the thread that calls it
}

func (g *generator) pct(p int) bool { return g.rng.IntN(100) < p }

func (g *generator) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

func (g *generator) line(format string, args ...any) {
	g.b.WriteString(strings.Repeat("  ", g.depth))
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

// program draws a whole program: a layout of plain nodes (each with a
// thread or two) or one with a family of nodes and threads.
func (g *generator) program(seed uint64) string {
	fmt.Fprintf(&g.b, "litmus surf-%016x\n", seed)
	if g.pct(25) {
		g.family()
	} else {
		g.plain()
	}
	for _, p := range g.procs {
		g.b.WriteString(p)
	}
	return g.b.String()
}

// locations declares the locations of a node body and returns them.
func (g *generator) locations(prefix string) ([]string, []garray, string) {
	var decl []string
	var scalars []string
	var arrays []garray
	n := 1 + g.rng.IntN(2)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s%d", prefix, i)
		d := name
		if g.pct(40) {
			hi := 1 + g.rng.IntN(3)
			d += fmt.Sprintf(" : 0..%d", hi)
			if g.pct(30) {
				d += fmt.Sprintf(" = %d", g.rng.IntN(hi+1))
			}
		} else {
			d += fmt.Sprintf(" = %d", g.rng.IntN(2))
		}
		decl = append(decl, d)
		scalars = append(scalars, name)
	}
	if g.pct(40) {
		a := garray{name: prefix + "b", size: 2}
		decl = append(decl, fmt.Sprintf("%s[2] = 0", a.name))
		arrays = append(arrays, a)
	}
	return scalars, arrays, strings.Join(decl, "; ")
}

func (g *generator) plain() {
	names := []string{"A", "B", "C"}[:2+g.rng.IntN(2)]
	var nodes []*gnode
	for _, n := range names {
		sc, ar, decl := g.locations(strings.ToLower(n))
		fmt.Fprintf(&g.b, "node %s { %s }\n", n, decl)
		nodes = append(nodes, &gnode{name: n, scalar: sc, arrays: ar})
	}
	threads := 2 + g.rng.IntN(2)
	for t := 0; t < threads; t++ {
		own := nodes[t%len(nodes)]
		if t >= len(nodes) {
			own = nodes[g.rng.IntN(len(nodes))]
		}
		var others []*gnode
		for _, n := range nodes {
			if n != own {
				others = append(others, n)
			}
		}
		fmt.Fprintf(&g.b, "thread T%d on %s {\n", t, own.name)
		g.thread(own, others)
		g.b.WriteString("}\n")
	}
}

// family: a server node S, a family of client nodes m[i] and client
// threads c[i] on them, i in 0..N-1.
//
// Half of them are families of identical clients (symmetric: the clients
// touch only their own node and the server, the server none of them, N is
// 2 or 3), for the comparison of searches with and without symmetry
// reduction; the others let a client touch another's node and the server
// the clients'.
func (g *generator) family() {
	n := 2
	ident := g.pct(50)
	if ident && g.pct(50) {
		n = 3
	}
	fmt.Fprintf(&g.b, "param N = %d\n", n)
	ssc, sar, sdecl := g.locations("s")
	fmt.Fprintf(&g.b, "node S { %s }\n", sdecl)
	hi := 1 + g.rng.IntN(2)
	fmt.Fprintf(&g.b, "node m[i] for i in 0..N-1 { f : 0..%d = 0; q = 0 }\n", hi)
	server := &gnode{name: "S", scalar: ssc, arrays: sar}
	// In a client, its own f and q are f[i] and q[i]; the server's are
	// plain; another client's are f[j] for j a constant.
	client := &gnode{name: "m[i]", scalar: []string{"f[i]", "q[i]"}}
	other := &gnode{name: "m[N-1-i]", scalar: []string{"f[N-1-i]", "q[N-1-i]"}}
	fmt.Fprintf(&g.b, "thread c[i] on m[i] for i in 0..N-1 {\n")
	if ident {
		g.thread(client, []*gnode{server})
	} else {
		g.thread(client, []*gnode{server, other})
	}
	g.b.WriteString("}\n")
	if ident {
		if g.pct(50) {
			fmt.Fprintf(&g.b, "thread srv on S {\n")
			g.thread(server, nil)
			g.b.WriteString("}\n")
		}
		return
	}
	var clients []*gnode
	for k := 0; k < n; k++ {
		clients = append(clients, &gnode{name: fmt.Sprintf("m[%d]", k), scalar: []string{fmt.Sprintf("f[%d]", k), fmt.Sprintf("q[%d]", k)}})
	}
	fmt.Fprintf(&g.b, "thread srv on S {\n")
	g.thread(server, clients)
	g.b.WriteString("}\n")
}

// thread generates a thread's body.
func (g *generator) thread(own *gnode, others []*gnode) {
	g.th = &gthread{own: own, others: others, put: map[string]bool{}}
	g.n = 0
	g.depth = 1
	nregs := 1 + g.rng.IntN(2)
	for r := 0; r < nregs; r++ {
		name := fmt.Sprintf("r%d", r)
		switch {
		case g.pct(70):
			g.line("reg %s : 0..%d = 0", name, 3+g.rng.IntN(2))
		case g.pct(50):
			g.line("reg %s : 1..3 = 1", name)
		default:
			g.line("reg %s", name)
		}
		g.th.regs = append(g.th.regs, name)
	}
	g.block(2 + g.rng.IntN(4))
}

// block generates up to n statements at the current depth.
func (g *generator) block(n int) {
	for i := 0; i < n && g.n < 9; i++ {
		g.stmt()
	}
}

func (g *generator) stmt() {
	if g.depth < 3 && g.pct(5) {
		g.call()
		return
	}
	g.n++
	th := g.th
	nested := g.depth < 3
	switch k := g.rng.IntN(100); {
	case k < 14:
		if g.pct(20) {
			// A counter kept in memory, with whatever range it has (the
			// default 0..255 unless declared).
			x := g.localLoc()
			g.line("%s := %s + 1", x, x)
			return
		}
		if g.pct(50) {
			g.line("%s := %s", g.localLoc(), g.expr(2))
		} else {
			g.line("%s := %s", g.localLoc(), g.atom())
		}
	case k < 26:
		r := g.pick(th.regs)
		if g.pct(30) {
			g.line("%s := %s", r, g.expr(2))
		} else {
			g.line("%s := (%s + %s) %% 3", r, r, g.atom())
		}
	case k < 38 && len(th.others) > 0:
		if nested && !th.inWhile && th.loops == 0 && g.pct(20) {
			g.remoteCounter()
			return
		}
		g.line("%s := %s", g.remoteLoc(), g.localLoc())
	case k < 48 && len(th.others) > 0:
		if nested && !th.inWhile && th.loops == 0 && g.pct(20) {
			g.spin()
			return
		}
		g.line("%s := %s", g.localLoc(), g.remoteLoc())
	case k < 51 && len(th.others) > 0:
		g.line("rfence(%s)", th.others[g.rng.IntN(len(th.others))].name)
	case k < 56 && len(th.put) > 0 && !th.inWhile && th.loops == 0:
		var ns []string
		for n := range th.put {
			ns = append(ns, n)
		}
		g.line("poll(%s)", g.pick(sorted(ns)))
	case k < 62:
		g.line("%s := cas(%s, %s, %s)", g.localLoc(), g.localLoc(), g.expr(1), g.expr(1))
	case k < 68:
		if g.pct(50) {
			g.line("assert(%s <= %d)", g.localRead(), 2+g.rng.IntN(2))
		} else {
			g.line("assert(%s)", g.cond())
		}
	case k < 72:
		g.line("assume(%s)", g.memCond())
	case k < 80 && nested:
		g.line("if (%s) {", g.cond())
		g.nest(1 + g.rng.IntN(2))
		if g.pct(50) {
			g.line("} else {")
			g.nest(1 + g.rng.IntN(2))
		}
		g.line("}")
	case k < 85 && nested:
		// A while over a register: counts up to its bound (or leaves its
		// range: an error point).
		r := g.pick(th.regs)
		g.line("while (%s < %d) {", r, 1+g.rng.IntN(3))
		th.loops++
		g.nest(g.rng.IntN(2))
		g.depth++
		if g.pct(20) {
			g.line("if (%s) { break }", g.cond())
		}
		g.line("%s := %s + 1", r, r)
		g.depth--
		th.loops--
		g.line("}")
	case k < 90 && nested:
		// A while over memory: waits for a value (for ever, if no
		// thread writes it), sometimes with a register bound.
		r := g.pick(th.regs)
		was := th.inWhile
		th.inWhile = true
		if g.pct(60) {
			g.line("while (%s == %d && %s < 2) {", g.localLoc(), g.rng.IntN(2), r)
			g.depth++
			g.line("%s := %s + 1", r, r)
			g.depth--
		} else {
			// Waits while some thread's write holds (locations start at
			// 0 or 1 mostly): for ever when no other write follows.
			g.line("while (%s == %d) {", g.localLoc(), 1+g.rng.IntN(2))
			g.depth++
			g.line("skip")
			g.depth--
		}
		th.inWhile = was
		g.line("}")
	case k < 95 && nested:
		v := fmt.Sprintf("k%d", g.depth)
		g.line("for %s in 0..%d {", v, g.rng.IntN(2))
		th.forVars = append(th.forVars, v)
		th.loops++
		g.nest(1 + g.rng.IntN(2))
		if g.pct(20) {
			g.depth++
			g.line("if (%s) { break }", g.cond())
			g.depth--
		}
		th.loops--
		th.forVars = th.forVars[:len(th.forVars)-1]
		g.line("}")
	case k < 97 && nested:
		g.line("choose {")
		g.nest(1)
		g.line("} or {")
		g.nest(1)
		g.line("}")
	case k < 98 && nested:
		// loop may run any number of times: a register bounds it.
		r := g.pick(th.regs)
		g.line("loop {")
		th.loops++
		g.nest(1)
		g.depth++
		g.line("%s := %s + 1", r, r)
		g.line("if (%s >= 2) { break }", r)
		g.depth--
		th.loops--
		g.line("}")
	default:
		g.line("%s := %s", g.pick(th.regs), g.localRead())
	}
}

// spin draws a loop as protocols write it: fetch a remote value with a
// polled get until it is the one awaited (for ever, if no thread writes it).
// Each iteration polls the get it submitted, so the loop leaves no more
// operations unpolled than it found.
func (g *generator) spin() {
	n := g.th.others[g.rng.IntN(len(g.th.others))]
	g.th.put[n.name] = true
	l, r, v := g.localLoc(), g.loc(n), g.rng.IntN(3)
	g.line("%s := %s", l, r)
	g.line("poll(%s)", n.name)
	g.line("while (%s != %d) {", l, v)
	g.depth++
	g.line("%s := %s", l, r)
	g.line("poll(%s)", n.name)
	g.depth--
	g.line("}")
}

// remoteCounter draws the increment of a counter in another node's memory:
// a polled get, a local increment and a polled put of it back.
func (g *generator) remoteCounter() {
	n := g.th.others[g.rng.IntN(len(g.th.others))]
	g.th.put[n.name] = true
	l, r := g.localLoc(), g.loc(n)
	g.line("%s := %s", l, r)
	g.line("poll(%s)", n.name)
	g.line("%s := %s + 1", l, l)
	g.line("%s := %s", r, l)
	g.line("poll(%s)", n.name)
}

func (g *generator) nest(n int) {
	g.depth++
	g.block(n)
	g.depth--
}

func sorted(xs []string) []string {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j-1] > xs[j]; j-- {
			xs[j-1], xs[j] = xs[j], xs[j-1]
		}
	}
	return xs
}

// index draws an array index: a constant, a for variable, or computed from
// a register (which may fall outside the array).
func (g *generator) index(size int) string {
	switch {
	case len(g.th.forVars) > 0 && g.pct(30):
		return g.pick(g.th.forVars)
	case g.pct(40):
		return fmt.Sprint(g.rng.IntN(size))
	case g.pct(60):
		return fmt.Sprintf("%s %% %d", g.pick(g.th.regs), size)
	}
	return g.pick(g.th.regs)
}

// localLoc draws a location of the thread's node.
func (g *generator) localLoc() string { return g.loc(g.th.own) }

func (g *generator) loc(n *gnode) string {
	if len(n.arrays) > 0 && g.pct(35) {
		a := n.arrays[g.rng.IntN(len(n.arrays))]
		return fmt.Sprintf("%s[%s]", a.name, g.index(a.size))
	}
	return g.pick(n.scalar)
}

// remoteLoc draws a location of another node and notes the queue pair.
func (g *generator) remoteLoc() string {
	n := g.th.others[g.rng.IntN(len(g.th.others))]
	g.th.put[n.name] = true
	return g.loc(n)
}

// localRead draws a read of the thread's own memory.
func (g *generator) localRead() string { return g.localLoc() }

// atom draws a number, a register, a for variable or a local location.
func (g *generator) atom() string {
	switch k := g.rng.IntN(10); {
	case k < 3:
		return fmt.Sprint(g.rng.IntN(4))
	case k < 6:
		return g.pick(g.th.regs)
	case k < 7 && len(g.th.forVars) > 0:
		return g.pick(g.th.forVars)
	}
	return g.localRead()
}

// expr draws an arithmetic expression of the given depth: mostly atoms
// and sums, sometimes a difference (which may go negative), a product, or a
// division or remainder (by a constant, or by an atom that may be 0).
func (g *generator) expr(depth int) string {
	if depth == 0 || g.pct(45) {
		return g.atom()
	}
	l := g.expr(depth - 1)
	var op, r string
	switch k := g.rng.IntN(20); {
	case k < 9:
		op, r = "+", g.expr(depth-1)
	case k < 12:
		op, r = "-", g.expr(depth-1)
	case k < 14:
		op, r = "*", g.expr(depth-1)
	case k < 19:
		op, r = g.pick([]string{"/", "%"}), fmt.Sprint(1+g.rng.IntN(3))
	default:
		op, r = g.pick([]string{"/", "%"}), g.atom()
	}
	if g.pct(50) {
		return fmt.Sprintf("(%s %s %s)", l, op, r)
	}
	return fmt.Sprintf("%s %s %s", l, op, r)
}

// cond draws a test: comparisons joined by && and ||, sometimes negated.
func (g *generator) cond() string {
	cmp := func() string {
		ops := []string{"==", "!=", "<", "<=", ">", ">="}
		return fmt.Sprintf("%s %s %s", g.expr(1), g.pick(ops), g.atom())
	}
	c := cmp()
	switch k := g.rng.IntN(10); {
	case k < 3:
		c = fmt.Sprintf("%s && %s", c, cmp())
	case k < 5:
		c = fmt.Sprintf("%s || %s", c, cmp())
	case k < 6:
		c = fmt.Sprintf("!(%s)", c)
	}
	return c
}

// memCond draws a test that reads memory (an assume on registers alone
// that fails is rejected by the lowering), one that holds more often than
// not, so that most runs are not filtered out.
func (g *generator) memCond() string {
	var c string
	switch k := g.rng.IntN(10); {
	case k < 3:
		c = fmt.Sprintf("%s != %d", g.localRead(), 2+g.rng.IntN(2))
	case k < 6:
		c = fmt.Sprintf("%s <= %d", g.localRead(), 1+g.rng.IntN(2))
	default:
		c = fmt.Sprintf("%s == %d", g.localRead(), g.rng.IntN(2))
	}
	if g.pct(30) {
		c = fmt.Sprintf("%s || %s == %d", c, g.localRead(), g.rng.IntN(3))
	}
	return c
}

// call declares a procedure of the current thread (its body uses the
// thread's node and registers) with a value parameter pv, and calls it once
// or twice with expressions.
func (g *generator) call() {
	name := fmt.Sprintf("p%d", len(g.procs))
	body := &generator{rng: g.rng, th: g.th, depth: 1, n: g.n + 1}
	body.line("%s := pv", g.localLoc())
	body.stmt()
	g.n = body.n
	g.procs = append(g.procs, fmt.Sprintf("proc %s(pv) {\n%s}\n", name, body.b.String()))
	for i := 0; i < 1+g.rng.IntN(2); i++ {
		g.line("%s(%s)", name, g.expr(1))
	}
}
