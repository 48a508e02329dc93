package surface

import (
	"bytes"
	"fmt"
	"sort"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
)

// The SC interpreter of the protocol language: a reference semantics that
// checks the lowering (opsem/parse: lower.go, special.go, eval.go) from
// outside. It shares with the lowering only the parser (opsem/syntax) and
// the expansion of the declarations (parse.Lowerer: params, nodes and
// locations of families and arrays, the members of thread families,
// register declarations); it executes the
// statements of the syntax tree directly, with registers and memory as
// values at run time: no specialisation, no domains, no decision trees.
//
// Its steps are the SC machine's, so that a lowered program and its
// interpretation reach the same final memories, the same error points and
// the same deadlocks:
//
//   - every memory read of a statement is a step of its own (the lowering's
//     assume), left to right, each location once, when the evaluation first
//     needs it; && and || do not read what they do not need;
//   - a store is one step; a put or a get two (the read of its source, then
//     the write of its destination, as the SC machine does them), after
//     which one more operation of its queue pair is unpolled; a cas two (the
//     read-modify-write of z, then the write of the old value to x); an
//     rfence one (it does nothing under SC), as is a quiet; a poll one, which takes one
//     unpolled operation and waits while there is none;
//   - what touches no memory (registers, tests on registers, skip, choose,
//     loop, for, break) is done at once with the step before it: moving such
//     steps around changes no reachable memory, error point or deadlock;
//   - an assume that does not hold stops the thread for ever (the run is
//     filtered out); an assertion that fails, a value leaving its range, an
//     index out of its array or a division by zero stops it at an error
//     point, named as the lowering names it.
//
// A write the lowering cannot check (a put's or a get's write, a cas's
// landing) of a value outside its location's range stops the whole run
// (prog.Range): the interpreter checks every configuration's memory
// against the declared ranges, as the machines check the locations the
// lowering marks. (It still checks every read against the range too, which
// can then never fail.)

// ErrorPoint is an error point a run reaches: the thread, the position of
// the expression or statement that failed, and the message, as the
// lowering's prog.OpFail instruction says them (Stmt.Pos, Stmt.Src.Text).
type ErrorPoint struct {
	Thread string
	Pos    prog.Pos
	Msg    string
}

func (e ErrorPoint) String() string {
	if e.Thread == "" {
		return e.Msg // a write out of a location's range: the run's
	}
	return fmt.Sprintf("%s at line %d: %s", e.Thread, e.Pos.Line, e.Msg)
}

// Interp is the result of InterpretSC: every behaviour of the program under
// SC that the search reached.
type Interp struct {
	Locs    []string // location names, in the lowered program's order (p.Locs)
	Threads []string // thread names, in the lowered program's order
	// Finals are the distinct final memories (every thread ended), one
	// value per location of Locs, sorted.
	Finals [][]uint8
	// Errors are the distinct error points reached, sorted.
	Errors []ErrorPoint
	// Deadlock: some reachable configuration is a deadlock: no thread can
	// move, none failed or waits at an assume that does not hold, and the
	// threads that have not ended wait at polls with nothing to complete.
	Deadlock bool
	// Complete: the search covered every reachable configuration (no state
	// limit, no bound on unpolled operations cut it).
	Complete bool
	// States counts the distinct configurations explored.
	States int
}

// maxUnpolled bounds the unpolled operations of a queue pair whose thread
// polls it in a loop (an unbounded number of polls ahead), as the machines'
// default max-inflight does; an operation beyond it is not taken and the
// search is incomplete.
const maxUnpolled = 8

// InterpretSC interprets the protocol program src under SC and explores
// every interleaving of its threads, breadth first, up to limit distinct
// configurations (0: no limit). A program the parser rejects, or in which
// a run meets a mistake the lowering rejects at compile time (a read of
// another node's memory, a put of an expression, an unknown name), is an
// error.
func InterpretSC(filename string, src []byte, opt parse.Options, limit int) (*Interp, error) {
	f, errs := syntax.ParseFile(filename, src)
	if errs != nil {
		return nil, errs
	}
	bodies := make([][]*syntax.Stmt, 0, len(f.Threads)+len(f.Procs))
	for _, t := range f.Threads {
		bodies = append(bodies, t.Body)
	}
	for _, pr := range f.Procs {
		bodies = append(bodies, pr.Body)
	}
	for _, b := range bodies {
		if pos, ok := findAtomic(b); ok {
			return nil, syntax.ErrorList{{File: filename, Pos: pos, Msg: "the interpreter does not cover remote atomics (rcas, rfaa)"}}
		}
	}
	in := &interp{file: filename, lw: parse.NewLowerer(filename),
		blocks: map[blockKey]int{}, errIdx: map[ErrorPoint]int{}}
	in.lw.SetParams(f, opt)
	if in.lw.Errs == nil {
		in.lw.Declare(f)
	}
	if in.lw.Errs == nil {
		in.expandThreads(f)
	}
	if in.lw.Errs != nil {
		in.lw.Errs.Sort()
		return nil, in.lw.Errs
	}
	res, err := in.search(limit)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// interp is one interpretation: the declarations, expanded, and the search.
type interp struct {
	file    string
	lw      *parse.Lowerer // the declarations only: params, nodes, locations, ranges
	threads []*ithread
	blocks  map[blockKey]int
	blkList []blockInfo
	errs    []ErrorPoint
	errIdx  map[ErrorPoint]int
	pruned  bool // an operation beyond maxUnpolled was not taken
}

// ithread is one thread (one member of a family).
type ithread struct {
	name   string
	node   int
	env    map[string]int // the family's index
	body   int            // the block of its body
	regs   []parse.RegDecl
	regIdx map[string]int
	// pollCap[n] bounds the polls the thread can make on its queue pair
	// to node n (the unpolled count is kept at most that); -1: unbounded.
	pollCap []int
}

// staticError is a mistake of the program that the lowering reports when it
// compiles the statement: the interpretation fails with it.
func (in *interp) staticError(pos prog.Pos, format string, args ...any) error {
	return syntax.ErrorList{&syntax.Error{File: in.file, Pos: pos, Msg: fmt.Sprintf(format, args...)}}
}

// expandThreads makes one ithread per thread and member of a family, with
// its registers.
func (in *interp) expandThreads(f *syntax.File) {
	// Calls of procedures are inlined as the lowering inlines them (a
	// declaration-level expansion, like families); their bodies run as
	// blocks of the caller.
	procs := in.lw.ProcMap(f)
	type decl struct {
		stmts []*syntax.Stmt
		body  int
	}
	bodies := map[*syntax.Thread]decl{} // a declaration's body, compiled once for its members
	in.lw.EachThread(f, func(rt *syntax.Thread, name string, node int, env map[string]int) bool {
		d, ok := bodies[rt]
		if !ok {
			d.stmts = parse.SubstStmts(rt.Body, nil)
			if in.lw.Inline(d.stmts, procs, 0); in.lw.Errs != nil {
				return false
			}
			d.body = in.block(d.stmts, nil, 0)
			bodies[rt] = d
		}
		body := d.body
		decls := &parse.IRThread{Name: name}
		in.registers(decls, d.stmts, env)
		th := &ithread{name: name, node: node, env: env, body: body, regs: decls.Regs, regIdx: map[string]int{}}
		for i, r := range th.regs {
			th.regIdx[r.Name] = i
		}
		th.pollCap = in.pollCaps(th, d.stmts)
		in.threads = append(in.threads, th)
		return true
	})
}

// registers declares the registers of a thread: those of every reg
// statement of its body, wherever it is.
func (in *interp) registers(t *parse.IRThread, stmts []*syntax.Stmt, env map[string]int) {
	for _, s := range stmts {
		if s.Kind == syntax.StmtReg {
			in.lw.DeclareReg(t, s, env)
		}
		for _, br := range s.Branches {
			in.registers(t, br, env)
		}
	}
}

// blockKey names a block of statements: the statement it is a branch of
// (nil for a thread's body, told apart by the body's first statement) and
// the branch.
type blockKey struct {
	owner  *syntax.Stmt
	branch int
	first  *syntax.Stmt
}

// blockInfo is a block of statements and the statement it belongs to.
type blockInfo struct {
	stmts []*syntax.Stmt
	owner *syntax.Stmt // nil: a thread's body
}

// block numbers stmts, a branch of owner, and the blocks nested in it.
func (in *interp) block(stmts []*syntax.Stmt, owner *syntax.Stmt, branch int) int {
	key := blockKey{owner: owner, branch: branch}
	if owner == nil && len(stmts) > 0 {
		key.first = stmts[0]
	}
	if id, ok := in.blocks[key]; ok && owner != nil {
		return id
	}
	id := len(in.blkList)
	in.blocks[key] = id
	in.blkList = append(in.blkList, blockInfo{stmts: stmts, owner: owner})
	for _, s := range stmts {
		for b, br := range s.Branches {
			in.block(br, s, b)
		}
	}
	return id
}

// branchBlock returns the block of branch b of s.
func (in *interp) branchBlock(s *syntax.Stmt, b int) int {
	return in.blocks[blockKey{owner: s, branch: b}]
}

// constants looks names up among the constants of env and the params.
func (in *interp) constants(env map[string]int) func(string) (int, bool) {
	return func(name string) (int, bool) {
		if v, ok := env[name]; ok {
			return v, true
		}
		v, ok := in.lw.Params[name]
		return v, ok
	}
}

func copyEnv(env map[string]int) map[string]int {
	out := make(map[string]int, len(env)+1)
	for k, v := range env {
		out[k] = v
	}
	return out
}

// errorPoint returns the index of error point e, interning it.
func (in *interp) errorPoint(e ErrorPoint) int {
	if i, ok := in.errIdx[e]; ok {
		return i
	}
	in.errIdx[e] = len(in.errs)
	in.errs = append(in.errs, e)
	return len(in.errs) - 1
}

// search explores the configurations breadth first.
func (in *interp) search(limit int) (*Interp, error) {
	p := in.lw.P
	res := &Interp{Complete: true}
	for _, l := range p.Locs {
		res.Locs = append(res.Locs, l.Name)
	}
	for _, t := range in.threads {
		res.Threads = append(res.Threads, t.name)
	}
	init := &config{mem: make([]uint8, len(p.Locs)), th: make([]tstate, len(in.threads)),
		npend: make([]uint8, len(in.threads)*len(p.Nodes))}
	for l := range p.Locs {
		init.mem[l] = p.Locs[l].Init
	}
	starts := []*config{init}
	for t, th := range in.threads {
		st := tstate{frames: []frame{{blk: th.body}}, regs: make([]uint8, len(th.regs))}
		for i, r := range th.regs {
			st.regs[i] = uint8(r.Init)
		}
		settled, err := in.settle(t, st)
		if err != nil {
			return nil, err
		}
		var next []*config
		for _, c := range starts {
			for _, s := range settled {
				d := c.clone()
				d.th[t] = s
				next = append(next, d)
			}
		}
		starts = next
	}
	seen := map[string]bool{}
	finals := map[string]bool{}
	errSeen := map[int]bool{}
	var queue []*config
	var key []byte
	push := func(c *config) bool {
		key = c.encode(key[:0])
		if seen[string(key)] {
			return true
		}
		if limit > 0 && len(seen) >= limit {
			res.Complete = false
			return false
		}
		seen[string(key)] = true
		queue = append(queue, c)
		return true
	}
	for _, c := range starts {
		if !push(c) {
			break
		}
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		final := true
		for t := range c.th {
			switch c.th[t].status {
			case sFailed:
				errSeen[c.th[t].err] = true
				final = false
			case sEnded:
			default:
				final = false
			}
		}
		if e, ok := in.outOfRange(c); ok {
			// A write left a location's range: the run stops there.
			errSeen[in.errorPoint(e)] = true
			continue
		}
		if final {
			finals[string(c.mem)] = true
			continue
		}
		succ, stuck, err := in.successors(c)
		if err != nil {
			return nil, err
		}
		if stuck && in.deadlocked(c) {
			res.Deadlock = true
		}
		full := false
		for _, d := range succ {
			if !push(d) {
				full = true
				break
			}
		}
		if full {
			break
		}
	}
	res.States = len(seen)
	if in.pruned {
		res.Complete = false
	}
	for m := range finals {
		res.Finals = append(res.Finals, []uint8(m))
	}
	sort.Slice(res.Finals, func(i, j int) bool { return bytes.Compare(res.Finals[i], res.Finals[j]) < 0 })
	for i := range errSeen {
		res.Errors = append(res.Errors, in.errs[i])
	}
	SortErrorPoints(res.Errors)
	return res, nil
}

// outOfRange returns the error point of c when a location of c holds a value
// outside its declared range: a NIC write or a cas's landing wrote it (a
// store is checked before it writes), and the run stops there, as every
// semantics stops it (prog.Range). The error point has no thread and no
// position: the lowering's checks name the statements that may write it.
func (in *interp) outOfRange(c *config) (ErrorPoint, bool) {
	for l, v := range c.mem {
		if rng := in.lw.Ranges[l]; !rng.Has(int(v)) {
			return ErrorPoint{Msg: prog.RangeMsg(in.lw.P.Locs[l].Name, v, uint8(rng.Lo), uint8(rng.Hi))}, true
		}
	}
	return ErrorPoint{}, false
}

// SortErrorPoints sorts error points by thread, position and message.
func SortErrorPoints(es []ErrorPoint) {
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Thread != b.Thread {
			return a.Thread < b.Thread
		}
		if a.Pos != b.Pos {
			return a.Pos.Line < b.Pos.Line || a.Pos.Line == b.Pos.Line && a.Pos.Col < b.Pos.Col
		}
		return a.Msg < b.Msg
	})
}

// deadlocked reports whether c, in which no thread can move, is a
// deadlock: no thread failed, none waits at an assume, none spins, and at
// least one waits at a poll (the others ended).
func (in *interp) deadlocked(c *config) bool {
	waiting := false
	for t := range c.th {
		switch c.th[t].status {
		case sEnded:
		case sRunning:
			waiting = true // at a poll: every other running thread can move
		default:
			return false
		}
	}
	return waiting
}

// findAtomic returns the position of the first remote atomic in stmts.
func findAtomic(stmts []*syntax.Stmt) (prog.Pos, bool) {
	for _, s := range stmts {
		if s.Atomic != "" {
			return s.Pos, true
		}
		for _, b := range s.Branches {
			if pos, ok := findAtomic(b); ok {
				return pos, true
			}
		}
	}
	return prog.Pos{}, false
}
