package parse

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
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
	// Registers says where the registers are kept: specialised, or at
	// run time where specialising them passes the instruction limit
	// (RegistersAuto, the default; see runtime.go).
	Registers RegisterMode
	// NoHopBudget lowers with the domain fixpoint and its widening only,
	// as before the hop budget (budget.go): the budget's cross-check.
	NoHopBudget bool
}

// Lowerer expands and lowers one surface file. Its exported part is the
// expansion of the declarations (SetParams, Declare, EachThread, ProcMap,
// Inline, DeclareReg) and what it records (the program's nodes and locations
// in P, their names and ranges, the errors), which corpus/surface's SC
// interpreter shares with the lowering; the rest compiles the threads.
type Lowerer struct {
	File   string         // the file's name in messages
	Errs   ErrorList      // the mistakes found so far
	P      *prog.Program  // the program being built: nodes and locations first
	Params map[string]int // the params' values
	Locs   map[string]int // a location's full name (buf[1]) -> index
	Nodes  map[string]int // a node's full name (m[0]) -> index
	Arrays map[string]int // an array's (or a family's) base name -> number of indices
	Ranges []ValRange     // per location: its declared range

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
	budget     *hopBudget // specialiseAll's (budget.go)
	noBudget   bool       // Options.NoHopBudget

	// mode is where registers are kept (Options.Registers); regLocs[t][r]
	// the location of thread t's register r kept at run time, -1 for a
	// specialised one (nil: none is); overLimit records that a thread
	// passed the instruction limit.
	mode      RegisterMode
	regLocs   [][]int
	overLimit bool
}

// stop reports whether the lowering must stop because its context is done
// (testing the context every 256th call), recording where it stopped.
func (lw *Lowerer) stop() bool {
	if lw.interrupted != nil {
		return true
	}
	if lw.checks++; lw.checks&255 != 0 || lw.ctx == nil || lw.ctx.Err() == nil {
		return false
	}
	lw.interrupted = &InterruptedError{File: lw.File, Thread: lw.thread, Elapsed: time.Since(lw.start), Err: lw.ctx.Err()}
	return true
}

// NewLowerer returns a Lowerer of the file named file, with an empty
// program, ready for SetParams and Declare.
func NewLowerer(file string) *Lowerer {
	return &Lowerer{File: file, Params: map[string]int{}, Locs: map[string]int{}, Nodes: map[string]int{},
		Arrays: map[string]int{}, P: &prog.Program{File: file}}
}

// ValRange is a declared range of values lo..hi.
type ValRange struct{ Lo, Hi int }

// String prints r as it is written: lo..hi.
func (r ValRange) String() string { return fmt.Sprintf("%d..%d", r.Lo, r.Hi) }

// Has reports whether v is in r.
// Has reports whether v is in r.
func (r ValRange) Has(v int) bool { return r.Lo <= v && v <= r.Hi }

func (lw *Lowerer) errorf(pos prog.Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, e := range lw.Errs {
		if e.Pos == pos && e.Msg == msg {
			// A statement is specialised once per register valuation
			// (and again while the domains grow): say it once.
			return
		}
	}
	if len(lw.Errs) < 10 {
		lw.Errs = append(lw.Errs, &Error{File: lw.File, Pos: pos, Msg: msg})
	}
}

// constant evaluates e, an expression of numbers and constants (parameters,
// family indices, for variables in env).
func (lw *Lowerer) constant(e *syntax.Expr, env map[string]int, what string) (int, bool) {
	v, err := EvalConst(e, func(name string) (int, bool) {
		if v, ok := env[name]; ok {
			return v, true
		}
		v, ok := lw.Params[name]
		return v, ok
	})
	if err != nil {
		lw.errorf(err.Pos, "%s: %s", what, err.Msg)
		return 0, false
	}
	return v, true
}

// EvalError is an error of the evaluation of a constant expression, at the
// position of its cause.
type EvalError struct {
	Pos prog.Pos
	Msg string
}

// EvalConst evaluates e with names looked up by lookup; indices are not
// allowed.
func EvalConst(e *syntax.Expr, lookup func(string) (int, bool)) (int, *EvalError) {
	switch e.Kind {
	case syntax.ExprInt:
		v, ok := syntax.IntValue(e)
		if !ok {
			return 0, &EvalError{e.Pos, "number " + e.Name.Text + " is too large"}
		}
		return v, nil
	case syntax.ExprBool:
		if e.Name.Text == "true" {
			return 1, nil
		}
		return 0, nil
	case syntax.ExprName:
		if len(e.Idx) == 0 {
			if v, ok := lookup(e.Name.Text); ok {
				return v, nil
			}
		}
		return 0, &EvalError{e.Pos, fmt.Sprintf("%s is not a constant (a number, a param, or a family's or for loop's index)", e)}
	case syntax.ExprUnary:
		v, err := EvalConst(e.L, lookup)
		if err != nil {
			return 0, err
		}
		return unary(e.Op, v), nil
	}
	l, err := EvalConst(e.L, lookup)
	if err != nil {
		return 0, err
	}
	r, err := EvalConst(e.R, lookup)
	if err != nil {
		return 0, err
	}
	v, msg := binary(e.Op, l, r)
	if msg != "" {
		return 0, &EvalError{e.Pos, msg}
	}
	return v, nil
}

func unary(op syntax.Tok, v int) int {
	if op == syntax.TokMinus {
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
func binary(op syntax.Tok, l, r int) (int, string) {
	switch op {
	case syntax.TokPlus:
		return l + r, ""
	case syntax.TokMinus:
		return l - r, ""
	case syntax.TokStar:
		if l > 1<<20 || r > 1<<20 || l < -(1<<20) || r < -(1<<20) {
			return 0, "a product too large"
		}
		return l * r, ""
	case syntax.TokSlash, syntax.TokPercent:
		if r == 0 {
			return 0, "division by zero"
		}
		if op == syntax.TokSlash {
			return l / r, ""
		}
		return l % r, ""
	case syntax.TokEqEq:
		return b2i(l == r), ""
	case syntax.TokNe:
		return b2i(l != r), ""
	case syntax.TokLt:
		return b2i(l < r), ""
	case syntax.TokLe:
		return b2i(l <= r), ""
	case syntax.TokGt:
		return b2i(l > r), ""
	case syntax.TokGe:
		return b2i(l >= r), ""
	case syntax.TokAndAnd:
		return b2i(l != 0 && r != 0), ""
	case syntax.TokOrOr:
		return b2i(l != 0 || r != 0), ""
	}
	return 0, "unknown operator"
}

// Indexed names the element of base at indices: buf[1][2].
func Indexed(base string, idx ...int) string {
	var b strings.Builder
	b.WriteString(base)
	for _, i := range idx {
		b.WriteString("[" + strconv.Itoa(i) + "]")
	}
	return b.String()
}

// familyRange evaluates a family's lo..hi.
func (lw *Lowerer) familyRange(f *syntax.Family, what string) []int {
	lo, ok1 := lw.constant(f.Lo, nil, "the range of "+what)
	hi, ok2 := lw.constant(f.Hi, nil, "the range of "+what)
	if !ok1 || !ok2 {
		return nil
	}
	if hi < lo {
		lw.errorf(f.Lo.Pos, "the range %d..%d of %s is empty", lo, hi, what)
		return nil
	}
	if hi-lo >= prog.MaxThreads {
		lw.errorf(f.Lo.Pos, "the range %d..%d of %s has more than %d members", lo, hi, what, prog.MaxThreads)
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
func lowerFile(ctx context.Context, file string, f *syntax.File, opt Options) (*prog.Program, ErrorList, *InterruptedError) {
	if opt.Registers == RegistersAuto && f.Registers != nil {
		// The file's registers line, unless the caller forces a mode.
		opt.Registers = map[string]RegisterMode{"auto": RegistersAuto, "static": RegistersStatic, "runtime": RegistersRuntime}[f.Registers.Text]
	}
	mode := opt.Registers
	if mode == RegistersAuto {
		mode = RegistersStatic
	}
	for {
		lw := &Lowerer{File: file, Params: map[string]int{}, Locs: map[string]int{}, Nodes: map[string]int{},
			Arrays: map[string]int{}, ctx: ctx, start: time.Now(), widenAfter: widenAfter, mode: mode, noBudget: opt.NoHopBudget}
		p, errs := lw.lower(f, opt)
		if lw.interrupted != nil {
			return nil, nil, lw.interrupted
		}
		if lw.overLimit && opt.Registers == RegistersAuto && mode == RegistersStatic {
			// Specialised, a thread passes the limit: keep the
			// registers at run time instead.
			mode = RegistersRuntime
			continue
		}
		return p, errs, nil
	}
}

func (lw *Lowerer) lower(f *syntax.File, opt Options) (*prog.Program, ErrorList) {
	file := lw.File
	p := &prog.Program{File: file}
	lw.P = p
	if f.Name != nil {
		p.Name = f.Name.Text
	}
	if f.Doc != nil {
		p.Doc = f.Doc.Text
	}
	p.InOrder = f.Placement != nil && f.Placement.Text == "in-order"
	lw.SetParams(f, opt)
	lw.Declare(f)
	if lw.Errs != nil {
		return nil, lw.Errs
	}
	lw.threads(f)
	if lw.Errs != nil {
		return nil, lw.Errs
	}
	return p, nil
}

// Declare expands the nodes and their locations.
func (lw *Lowerer) Declare(f *syntax.File) {
	p := lw.P
	for _, n := range f.Nodes {
		members := []int{-1}
		if n.Family != nil {
			members = lw.familyRange(n.Family, "node "+n.Name.Text)
			lw.Arrays[n.Name.Text] = 1
		}
		for _, k := range members {
			env := map[string]int{}
			name := n.Name.Text
			if k >= 0 {
				env[n.Family.Index.Text] = k
				name = Indexed(name, k)
			}
			if _, dup := lw.Nodes[name]; dup {
				lw.errorf(n.Name.Pos, "node %s declared twice", name)
				continue
			}
			if len(p.Nodes) == prog.MaxNodes {
				lw.errorf(n.Name.Pos, "too many nodes (the limit is %d)", prog.MaxNodes)
				return
			}
			lw.Nodes[name] = len(p.Nodes)
			p.Nodes = append(p.Nodes, prog.Node{Name: name, Pos: n.Name.Pos})
			for _, d := range n.Locs {
				lw.declareLoc(d, env, k)
			}
		}
	}
}

// declareLoc declares location d (an array of them, with its size) on the
// last node; k is the node's index in its family, or -1.
func (lw *Lowerer) declareLoc(d syntax.LocDecl, env map[string]int, k int) {
	p := lw.P
	rng := ValRange{0, prog.MaxValue}
	if d.Lo != nil {
		lo, ok1 := lw.constant(d.Lo, env, "the range of "+d.Name.Text)
		hi, ok2 := lw.constant(d.Hi, env, "the range of "+d.Name.Text)
		if !ok1 || !ok2 {
			return
		}
		if lo < 0 || hi > prog.MaxValue || hi < lo {
			lw.errorf(d.Lo.Pos, "the range %d..%d of %s is not within 0..%d", lo, hi, d.Name.Text, prog.MaxValue)
			return
		}
		rng = ValRange{lo, hi}
	}
	init := rng.Lo
	if d.Init != nil {
		v, ok := lw.constant(d.Init, env, "the initial value of "+d.Name.Text)
		if !ok {
			return
		}
		if v < rng.Lo || v > rng.Hi {
			lw.errorf(d.Init.Pos, "the initial value %d of %s is outside its range %s", v, d.Name.Text, rng)
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
	if d.Size != nil {
		n, ok := lw.constant(d.Size, env, "the size of "+d.Name.Text)
		if !ok {
			return
		}
		if n < 1 || n > prog.MaxLocs {
			lw.errorf(d.Size.Pos, "the size %d of array %s is not within 1..%d", n, d.Name.Text, prog.MaxLocs)
			return
		}
		elems = elems[:0]
		for j := 0; j < n; j++ {
			elems = append(elems, append(append([]int(nil), prefix...), j))
		}
		dims++
	}
	if old, ok := lw.Arrays[d.Name.Text]; ok && old != dims {
		lw.errorf(d.Name.Pos, "location %s declared with %d indices here and %d elsewhere", d.Name.Text, dims, old)
		return
	}
	lw.Arrays[d.Name.Text] = dims
	for _, idx := range elems {
		name := Indexed(d.Name.Text, idx...)
		if _, dup := lw.Locs[name]; dup {
			lw.errorf(d.Name.Pos, "location %s declared twice; location names are global", name)
			return
		}
		if len(p.Locs) == prog.MaxLocs {
			lw.errorf(d.Name.Pos, "too many locations (the limit is %d)", prog.MaxLocs)
			return
		}
		lw.Locs[name] = len(p.Locs)
		p.Locs = append(p.Locs, prog.Loc{Name: name, Node: len(p.Nodes) - 1, Init: uint8(init), Pos: d.Name.Pos})
		lw.Ranges = append(lw.Ranges, rng)
	}
}

// finish resolves the query and the expect lines. Names with indices in the
// query (buf[1] = 2, client[0]@end) are resolved with the params. A file with
// error points and no query asks whether one can be reached: reach
// T@fail \/ ... over the threads that have one.
func (lw *Lowerer) finish(f *syntax.File) {
	p := lw.P
	r := &resolver{file: lw.File, p: p}
	if f.Query != nil {
		lw.nameIndices(f.Query.Cond)
	}
	if lw.Errs != nil {
		return
	}
	if f.Query == nil {
		if c := p.FailCond(); c != nil {
			p.Query = prog.Query{Kind: prog.QReach, Cond: c, Pos: prog.Pos{Line: 1, Col: 1}}
		}
	}
	r.queryAndExpects(f)
	lw.Errs = append(lw.Errs, r.errs...)
}

// nameIndices rewrites the names with indices of a query condition to the
// full names of the locations and threads they denote.
func (lw *Lowerer) nameIndices(c *syntax.Cond) {
	if c == nil {
		return
	}
	full := func(t *syntax.Token, idx []*syntax.Expr) {
		vals := make([]int, len(idx))
		for i, x := range idx {
			v, ok := lw.constant(x, nil, "the index of "+t.Text)
			if !ok {
				return
			}
			vals[i] = v
		}
		t.Text = Indexed(t.Text, vals...)
	}
	switch c.Op {
	case prog.CEq, prog.CNe:
		full(&c.Loc, c.LocIdx)
		if c.ValE != nil {
			if v, ok := lw.constant(c.ValE, nil, "the value compared with "+c.Loc.Text); ok {
				c.Val = syntax.Token{Kind: syntax.TokInt, Pos: c.ValE.Pos, Text: strconv.Itoa(v)}
			}
		}
	case prog.CAt, prog.CEnd, prog.CFail:
		full(&c.Thread, c.ThrIdx)
	}
	lw.nameIndices(c.L)
	lw.nameIndices(c.R)
}

// SetParams evaluates the file's params, overridden by opt. A param of opt
// that the file does not declare is an error naming the file's params:
// --param n=2 on a file that declares N would otherwise run with the file's
// N, silently.
func (lw *Lowerer) SetParams(f *syntax.File, opt Options) {
	var declared []string
	for _, pr := range f.Params {
		declared = append(declared, pr.Name.Text)
		if _, dup := lw.Params[pr.Name.Text]; dup {
			lw.errorf(pr.Name.Pos, "param %s declared twice", pr.Name.Text)
			continue
		}
		v, ok := lw.constant(pr.Val, nil, "param "+pr.Name.Text)
		if ov, set := opt.Params[pr.Name.Text]; set {
			v, ok = ov, true
		}
		if ok {
			lw.Params[pr.Name.Text] = v
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
		if len(f.Params) > 0 {
			pos = f.Params[0].Name.Pos
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
