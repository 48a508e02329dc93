package parse

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"rdmasim/opsem/prog"
)

// The protocol language (FORMAT.md, "Protocols") is lowered to the core:
// families and arrays are expanded into plain nodes, locations and threads;
// each thread's statements are compiled to a small graph of surface
// statements (irInstr, with for loops unrolled and break resolved), and that
// graph is specialised for the register valuations the thread can reach
// (special.go), giving a core control-flow graph that every semantics runs
// unchanged. Registers thus live in a thread's control point: they make no
// events and no other thread sees them.

// Options are a parse's settings.
type Options struct {
	// Params overrides the file's `param` declarations: --param N=4. A
	// name the file does not declare is an error.
	Params map[string]int
}

// lowerer expands and lowers one surface file.
type lowerer struct {
	file   string
	errs   ErrorList
	p      *prog.Program
	params map[string]int
	locs   map[string]int // a location's full name (buf[1]) -> index
	nodes  map[string]int // a node's full name (m[0]) -> index
	arrays map[string]int // an array's (or a family's) base name -> number of indices
	ranges []valRange     // per location: its declared range

	// ctx is checked as the lowering goes (done, see stop); start is
	// when it began, thread the name of the thread being specialised,
	// interrupted set once ctx was found done.
	ctx         context.Context
	start       time.Time
	thread      string
	checks      int
	interrupted *InterruptedError

	// widenAfter is the number of consecutive rounds a location's domain
	// may grow before it is widened to its declared range (see
	// domains.widen; 0 never widens); rounds counts the specialisation
	// rounds done.
	widenAfter int
	rounds     int
}

// stop reports whether the lowering must stop because its context is done
// (testing the context every 256th call), recording where it stopped.
func (lw *lowerer) stop() bool {
	if lw.interrupted != nil {
		return true
	}
	if lw.checks++; lw.checks&255 != 0 || lw.ctx == nil || lw.ctx.Err() == nil {
		return false
	}
	lw.interrupted = &InterruptedError{File: lw.file, Thread: lw.thread, Elapsed: time.Since(lw.start), Err: lw.ctx.Err()}
	return true
}

// valRange is a declared range of values lo..hi.
type valRange struct{ lo, hi int }

func (r valRange) String() string { return fmt.Sprintf("%d..%d", r.lo, r.hi) }

// has reports whether v is in r.
func (r valRange) has(v int) bool { return r.lo <= v && v <= r.hi }

func (lw *lowerer) errorf(pos prog.Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, e := range lw.errs {
		if e.Pos == pos && e.Msg == msg {
			// A statement is specialised once per register valuation
			// (and again while the domains grow): say it once.
			return
		}
	}
	if len(lw.errs) < 10 {
		lw.errs = append(lw.errs, &Error{File: lw.file, Pos: pos, Msg: msg})
	}
}

// constant evaluates e, an expression of numbers and constants (parameters,
// family indices, for variables in env).
func (lw *lowerer) constant(e *rawExpr, env map[string]int, what string) (int, bool) {
	v, err := evalConst(e, func(name string) (int, bool) {
		if v, ok := env[name]; ok {
			return v, true
		}
		v, ok := lw.params[name]
		return v, ok
	})
	if err != nil {
		lw.errorf(err.pos, "%s: %s", what, err.msg)
		return 0, false
	}
	return v, true
}

// evalError is an error of an evaluation, at the position of its cause.
type evalError struct {
	pos prog.Pos
	msg string
}

// evalConst evaluates e with names looked up by lookup; indices are not
// allowed.
func evalConst(e *rawExpr, lookup func(string) (int, bool)) (int, *evalError) {
	switch e.kind {
	case eInt:
		v, ok := intValue(e)
		if !ok {
			return 0, &evalError{e.pos, "number " + e.name.text + " is too large"}
		}
		return v, nil
	case eBool:
		if e.name.text == "true" {
			return 1, nil
		}
		return 0, nil
	case eName:
		if len(e.idx) == 0 {
			if v, ok := lookup(e.name.text); ok {
				return v, nil
			}
		}
		return 0, &evalError{e.pos, fmt.Sprintf("%s is not a constant (a number, a param, or a family's or for loop's index)", e)}
	case eUnary:
		v, err := evalConst(e.l, lookup)
		if err != nil {
			return 0, err
		}
		return unary(e.op, v), nil
	}
	l, err := evalConst(e.l, lookup)
	if err != nil {
		return 0, err
	}
	r, err := evalConst(e.r, lookup)
	if err != nil {
		return 0, err
	}
	v, msg := binary(e.op, l, r)
	if msg != "" {
		return 0, &evalError{e.pos, msg}
	}
	return v, nil
}

func unary(op tok, v int) int {
	if op == tMinus {
		return -v
	}
	return b2i(v == 0)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// binary applies op; division and remainder by zero are errors.
func binary(op tok, l, r int) (int, string) {
	switch op {
	case tPlus:
		return l + r, ""
	case tMinus:
		return l - r, ""
	case tStar:
		if l > 1<<20 || r > 1<<20 || l < -(1<<20) || r < -(1<<20) {
			return 0, "a product too large"
		}
		return l * r, ""
	case tSlash, tPercent:
		if r == 0 {
			return 0, "division by zero"
		}
		if op == tSlash {
			return l / r, ""
		}
		return l % r, ""
	case tEqEq:
		return b2i(l == r), ""
	case tNe:
		return b2i(l != r), ""
	case tLt:
		return b2i(l < r), ""
	case tLe:
		return b2i(l <= r), ""
	case tGt:
		return b2i(l > r), ""
	case tGe:
		return b2i(l >= r), ""
	case tAndAnd:
		return b2i(l != 0 && r != 0), ""
	case tOrOr:
		return b2i(l != 0 || r != 0), ""
	}
	return 0, "unknown operator"
}

// indexed names the element of base at indices: buf[1][2].
func indexed(base string, idx ...int) string {
	var b strings.Builder
	b.WriteString(base)
	for _, i := range idx {
		b.WriteString("[" + strconv.Itoa(i) + "]")
	}
	return b.String()
}

// familyRange evaluates a family's lo..hi.
func (lw *lowerer) familyRange(f *rawFamily, what string) []int {
	lo, ok1 := lw.constant(f.lo, nil, "the range of "+what)
	hi, ok2 := lw.constant(f.hi, nil, "the range of "+what)
	if !ok1 || !ok2 {
		return nil
	}
	if hi < lo {
		lw.errorf(f.lo.pos, "the range %d..%d of %s is empty", lo, hi, what)
		return nil
	}
	if hi-lo >= prog.MaxThreads {
		lw.errorf(f.lo.pos, "the range %d..%d of %s has more than %d members", lo, hi, what, prog.MaxThreads)
		return nil
	}
	var out []int
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

// InterruptedError is the error of a lowering stopped because its context
// was done: where it was and for how long it ran.
type InterruptedError struct {
	File    string
	Thread  string // the thread being specialised, "" before the first
	Elapsed time.Duration
	Err     error // the context's error
}

func (e *InterruptedError) Error() string {
	at := ""
	if e.Thread != "" {
		at = " (specialising thread " + e.Thread + ")"
	}
	return fmt.Sprintf("%s: interrupted while lowering the protocol%s after %.1fs: nothing was explored", e.File, at, e.Elapsed.Seconds())
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// lower expands and lowers f, checking ctx as it goes: once ctx is done it
// returns an *InterruptedError.
func lowerFile(ctx context.Context, file string, f *rawFile, opt Options) (*prog.Program, ErrorList, *InterruptedError) {
	lw := &lowerer{file: file, params: map[string]int{}, locs: map[string]int{}, nodes: map[string]int{},
		arrays: map[string]int{}, ctx: ctx, start: time.Now(), widenAfter: widenAfter}
	p, errs := lw.lower(f, opt)
	if lw.interrupted != nil {
		return nil, nil, lw.interrupted
	}
	return p, errs, nil
}

func (lw *lowerer) lower(f *rawFile, opt Options) (*prog.Program, ErrorList) {
	file := lw.file
	p := &prog.Program{File: file}
	lw.p = p
	if f.name != nil {
		p.Name = f.name.text
	}
	if f.doc != nil {
		p.Doc = f.doc.text
	}
	lw.setParams(f, opt)
	lw.declare(f)
	if lw.errs != nil {
		return nil, lw.errs
	}
	lw.threads(f)
	if lw.errs != nil {
		return nil, lw.errs
	}
	return p, nil
}

// declare expands the nodes and their locations.
func (lw *lowerer) declare(f *rawFile) {
	p := lw.p
	for _, n := range f.nodes {
		members := []int{-1}
		if n.family != nil {
			members = lw.familyRange(n.family, "node "+n.name.text)
			lw.arrays[n.name.text] = 1
		}
		for _, k := range members {
			env := map[string]int{}
			name := n.name.text
			if k >= 0 {
				env[n.family.index.text] = k
				name = indexed(name, k)
			}
			if _, dup := lw.nodes[name]; dup {
				lw.errorf(n.name.pos, "node %s declared twice", name)
				continue
			}
			if len(p.Nodes) == prog.MaxNodes {
				lw.errorf(n.name.pos, "too many nodes (the limit is %d)", prog.MaxNodes)
				return
			}
			lw.nodes[name] = len(p.Nodes)
			p.Nodes = append(p.Nodes, prog.Node{Name: name, Pos: n.name.pos})
			for _, d := range n.locs {
				lw.declareLoc(d, env, k)
			}
		}
	}
}

// declareLoc declares location d (an array of them, with its size) on the
// last node; k is the node's index in its family, or -1.
func (lw *lowerer) declareLoc(d rawLocDecl, env map[string]int, k int) {
	p := lw.p
	rng := valRange{0, prog.MaxValue}
	if d.lo != nil {
		lo, ok1 := lw.constant(d.lo, env, "the range of "+d.name.text)
		hi, ok2 := lw.constant(d.hi, env, "the range of "+d.name.text)
		if !ok1 || !ok2 {
			return
		}
		if lo < 0 || hi > prog.MaxValue || hi < lo {
			lw.errorf(d.lo.pos, "the range %d..%d of %s is not within 0..%d", lo, hi, d.name.text, prog.MaxValue)
			return
		}
		rng = valRange{lo, hi}
	}
	init := rng.lo
	if d.init != nil {
		v, ok := lw.constant(d.init, env, "the initial value of "+d.name.text)
		if !ok {
			return
		}
		if v < rng.lo || v > rng.hi {
			lw.errorf(d.init.pos, "the initial value %d of %s is outside its range %s", v, d.name.text, rng)
			return
		}
		init = v
	}
	var prefix []int
	if k >= 0 {
		prefix = []int{k}
	}
	dims := len(prefix)
	elems := [][]int{prefix}
	if d.size != nil {
		n, ok := lw.constant(d.size, env, "the size of "+d.name.text)
		if !ok {
			return
		}
		if n < 1 || n > prog.MaxLocs {
			lw.errorf(d.size.pos, "the size %d of array %s is not within 1..%d", n, d.name.text, prog.MaxLocs)
			return
		}
		elems = elems[:0]
		for j := 0; j < n; j++ {
			elems = append(elems, append(append([]int(nil), prefix...), j))
		}
		dims++
	}
	if old, ok := lw.arrays[d.name.text]; ok && old != dims {
		lw.errorf(d.name.pos, "location %s declared with %d indices here and %d elsewhere", d.name.text, dims, old)
		return
	}
	lw.arrays[d.name.text] = dims
	for _, idx := range elems {
		name := indexed(d.name.text, idx...)
		if _, dup := lw.locs[name]; dup {
			lw.errorf(d.name.pos, "location %s declared twice; location names are global", name)
			return
		}
		if len(p.Locs) == prog.MaxLocs {
			lw.errorf(d.name.pos, "too many locations (the limit is %d)", prog.MaxLocs)
			return
		}
		lw.locs[name] = len(p.Locs)
		p.Locs = append(p.Locs, prog.Loc{Name: name, Node: len(p.Nodes) - 1, Init: uint8(init), Pos: d.name.pos})
		lw.ranges = append(lw.ranges, rng)
	}
}

// finish resolves the query and the expect lines. Names with indices in the
// query (buf[1] = 2, client[0]@end) are resolved with the params. A file with
// error points and no query asks whether one can be reached: reach
// T@fail \/ ... over the threads that have one.
func (lw *lowerer) finish(f *rawFile) {
	p := lw.p
	r := &resolver{file: lw.file, p: p}
	if f.query != nil {
		lw.nameIndices(f.query.cond)
	}
	if lw.errs != nil {
		return
	}
	if f.query == nil {
		var c *prog.Cond
		for t := range p.Threads {
			if !hasFail(p.Threads[t].Code) && !p.RangeWriter(t) {
				continue
			}
			at := &prog.Cond{Op: prog.CFail, Thread: t}
			if c == nil {
				c = at
			} else {
				c = &prog.Cond{Op: prog.COr, L: c, R: at}
			}
		}
		if c != nil {
			p.Query = prog.Query{Kind: prog.QReach, Cond: c, Pos: prog.Pos{Line: 1, Col: 1}}
		}
	}
	r.queryAndExpects(f)
	lw.errs = append(lw.errs, r.errs...)
}

func hasFail(code []prog.Instr) bool {
	for _, in := range code {
		if in.Op == prog.OpFail {
			return true
		}
	}
	return false
}

// nameIndices rewrites the names with indices of a query condition to the
// full names of the locations and threads they denote.
func (lw *lowerer) nameIndices(c *rawCond) {
	if c == nil {
		return
	}
	full := func(t *token, idx []*rawExpr) {
		vals := make([]int, len(idx))
		for i, x := range idx {
			v, ok := lw.constant(x, nil, "the index of "+t.text)
			if !ok {
				return
			}
			vals[i] = v
		}
		t.text = indexed(t.text, vals...)
	}
	switch c.op {
	case prog.CEq, prog.CNe:
		full(&c.loc, c.locIdx)
		if c.valE != nil {
			if v, ok := lw.constant(c.valE, nil, "the value compared with "+c.loc.text); ok {
				c.val = token{kind: tInt, pos: c.valE.pos, text: strconv.Itoa(v)}
			}
		}
	case prog.CAt, prog.CEnd, prog.CFail:
		full(&c.thread, c.thrIdx)
	}
	lw.nameIndices(c.l)
	lw.nameIndices(c.r)
}

// setParams evaluates the file's params, overridden by opt. A param of opt
// that the file does not declare is an error naming the file's params:
// --param n=2 on a file that declares N would otherwise run with the file's
// N, silently.
func (lw *lowerer) setParams(f *rawFile, opt Options) {
	var declared []string
	for _, pr := range f.params {
		declared = append(declared, pr.name.text)
		if _, dup := lw.params[pr.name.text]; dup {
			lw.errorf(pr.name.pos, "param %s declared twice", pr.name.text)
			continue
		}
		v, ok := lw.constant(pr.val, nil, "param "+pr.name.text)
		if ov, set := opt.Params[pr.name.text]; set {
			v, ok = ov, true
		}
		if ok {
			lw.params[pr.name.text] = v
		}
	}
	names := make([]string, 0, len(opt.Params))
	for name := range opt.Params {
		if !slices.Contains(declared, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		pos := prog.Pos{Line: 1, Col: 1}
		if len(f.params) > 0 {
			pos = f.params[0].name.pos
		}
		msg := fmt.Sprintf("--param %s=%d: the file declares no param %s", name, opt.Params[name], name)
		switch {
		case len(declared) == 0:
			msg += fmt.Sprintf("; it declares none (drop --param, or declare it: param %s = %d)", name, opt.Params[name])
		default:
			msg += "; its params: " + strings.Join(declared, ", ")
			for _, d := range declared {
				if strings.EqualFold(d, name) {
					msg += " (did you mean " + d + "?)"
				}
			}
		}
		lw.errorf(pos, "%s", msg)
	}
}
