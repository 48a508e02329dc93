package parse

import (
	"rdmasim/opsem/prog"
	"rdmasim/opsem/syntax"
)

// irKind is the kind of a statement of a thread's surface graph.
type irKind uint8

const (
	iJump   irKind = iota // silent: go to next (compiled away)
	iSkip                 // the user's skip: a core skip
	iStmt                 // an assignment, assume, assert, rfence or poll (s says which)
	iChoose               // choose: alts
	iLoop                 // loop { }: alts[0] the body, alts[1] the exit
	iIf                   // if (s.cond): alts[0] then, alts[1] else
	iWhile                // while (s.cond): alts[0] the body, alts[1] the exit
	iEnd                  // the thread's end
)

// irInstr is a statement of a thread's surface graph: the thread's
// statements with for loops unrolled (each copy with its index in env),
// break resolved to a jump, and the constants in scope in env.
type irInstr struct {
	kind  irKind
	s     *syntax.Stmt
	next  int
	alts  []int
	env   map[string]int
	label string
}

// RegDecl is a register of a thread: its range and initial value.
type RegDecl struct {
	Name string
	pos  prog.Pos
	Rng  ValRange
	Init int
}

// IRThread is one thread (one member of a family) before specialisation.
type IRThread struct {
	Name  string
	node  int
	pos   prog.Pos
	code  []irInstr
	entry int
	Regs  []RegDecl
	env   map[string]int
}

// irBuilder compiles one thread's statements to its surface graph, back to
// front as prog.Compile does.
type irBuilder struct {
	lw     *Lowerer
	t      *IRThread
	breaks []int                   // the exits of the enclosing loops, innermost last
	labels map[string]*syntax.Stmt // a label's statement (copied where a for loop unrolls it)
}

func (b *irBuilder) emit(in irInstr) int {
	b.t.code = append(b.t.code, in)
	return len(b.t.code) - 1
}

// block compiles stmts to continue at next, returning the entry.
func (b *irBuilder) block(stmts []*syntax.Stmt, next int, env map[string]int) int {
	for i := len(stmts) - 1; i >= 0; i-- {
		next = b.stmt(stmts[i], next, env)
	}
	return next
}

func (b *irBuilder) stmt(s *syntax.Stmt, next int, env map[string]int) int {
	lw := b.lw
	in := irInstr{s: s, next: next, env: env}
	if s.Label != nil {
		if first, dup := b.labels[s.Label.Text]; dup && first != s {
			lw.errorf(s.Label.Pos, "label %s used twice in thread %s (first at %s)", s.Label.Text, b.t.Name, first.Label.Pos)
		} else if s.Label.Text == "end" || s.Label.Text == "fail" {
			lw.errorf(s.Label.Pos, "%s cannot be a label: T@%s means the thread has %s", s.Label.Text, s.Label.Text,
				map[string]string{"end": "terminated", "fail": "stopped at an error"}[s.Label.Text])
		} else {
			b.labels[s.Label.Text] = s
			in.label = s.Label.Text
		}
	}
	switch s.Kind {
	case syntax.StmtSkip:
		in.kind = iSkip
	case syntax.StmtReg:
		in.kind = iJump // declared for the whole thread (see registers)
	case syntax.StmtAssignValue, syntax.StmtAssignLoc, syntax.StmtAssignCAS, syntax.StmtAssignAtomic, syntax.StmtAssign, syntax.StmtAssume, syntax.StmtAssumeE, syntax.StmtAssert, syntax.StmtRFence, syntax.StmtPoll, syntax.StmtQuiet:
		in.kind = iStmt
	case syntax.StmtCall:
		in.kind, in.next = iJump, b.block(s.Branches[0], next, env)
	case syntax.StmtBreak:
		if len(b.breaks) == 0 {
			lw.errorf(s.Pos, "break outside a loop")
		} else {
			in.kind, in.next = iJump, b.breaks[len(b.breaks)-1]
		}
	case syntax.StmtChoose:
		in.kind = iChoose
		for _, br := range s.Branches {
			in.alts = append(in.alts, b.block(br, next, env))
		}
	case syntax.StmtIf:
		in.kind = iIf
		in.alts = []int{b.block(s.Branches[0], next, env), next}
		if len(s.Branches) > 1 {
			in.alts[1] = b.block(s.Branches[1], next, env)
		}
	case syntax.StmtLoop, syntax.StmtWhile:
		in.kind = iLoop
		if s.Kind == syntax.StmtWhile {
			in.kind = iWhile
		}
		head := b.emit(in)
		b.breaks = append(b.breaks, next)
		body := b.block(s.Branches[0], head, env)
		b.breaks = b.breaks[:len(b.breaks)-1]
		b.t.code[head].alts = []int{body, next}
		return head
	case syntax.StmtFor:
		lo, ok1 := lw.constant(s.RegLo, env, "the range of for "+s.Reg.Text)
		hi, ok2 := lw.constant(s.RegHi, env, "the range of for "+s.Reg.Text)
		if !ok1 || !ok2 {
			return next
		}
		if hi-lo > prog.MaxCode {
			lw.errorf(s.RegLo.Pos, "for %s in %d..%d: more than %d iterations", s.Reg.Text, lo, hi, prog.MaxCode)
			return next
		}
		// Unrolled: one copy of the body per value, its index a constant.
		b.breaks = append(b.breaks, next)
		start := next
		for k := hi; k >= lo; k-- {
			inner := make(map[string]int, len(env)+1)
			for n, v := range env {
				inner[n] = v
			}
			inner[s.Reg.Text] = k
			start = b.block(s.Branches[0], start, inner)
		}
		b.breaks = b.breaks[:len(b.breaks)-1]
		in.kind, in.next = iJump, start
	default:
		lw.errorf(s.Pos, "this statement is not part of the protocol language")
		return next
	}
	return b.emit(in)
}

// registers collects the thread's register declarations (anywhere in its
// body: a register is declared for the whole thread and starts at its
// initial value when the thread starts).
func (b *irBuilder) registers(stmts []*syntax.Stmt, env map[string]int) {
	lw := b.lw
	for _, s := range stmts {
		if s.Kind == syntax.StmtReg {
			lw.DeclareReg(b.t, s, env)
		}
		for _, br := range s.Branches {
			b.registers(br, env)
		}
	}
}

// DeclareReg declares the register of the statement s (a StmtReg) in t,
// with its range and initial value evaluated in env, reporting a name
// declared twice or taken by a location, a param or the family's index.
func (lw *Lowerer) DeclareReg(t *IRThread, s *syntax.Stmt, env map[string]int) {
	name := s.Reg.Text
	for _, r := range t.Regs {
		if r.Name == name && r.pos == s.Reg.Pos {
			return // a procedure's register, declared by each of its calls
		}
		if r.Name == name {
			lw.errorf(s.Reg.Pos, "register %s declared twice in thread %s (first at %s)", name, t.Name, r.pos)
			return
		}
	}
	if _, ok := lw.Arrays[name]; ok {
		lw.errorf(s.Reg.Pos, "register %s has the name of a location", name)
		return
	}
	if _, ok := lw.Params[name]; ok {
		lw.errorf(s.Reg.Pos, "register %s has the name of a param", name)
		return
	}
	if _, ok := env[name]; ok {
		lw.errorf(s.Reg.Pos, "register %s has the name of the family's index", name)
		return
	}
	d := RegDecl{Name: name, pos: s.Reg.Pos, Rng: ValRange{0, prog.MaxValue}}
	if s.RegLo != nil {
		lo, ok1 := lw.constant(s.RegLo, env, "the range of register "+name)
		hi, ok2 := lw.constant(s.RegHi, env, "the range of register "+name)
		if !ok1 || !ok2 {
			return
		}
		if lo < 0 || hi > prog.MaxValue || hi < lo {
			lw.errorf(s.RegLo.Pos, "the range %d..%d of register %s is not within 0..%d", lo, hi, name, prog.MaxValue)
			return
		}
		d.Rng = ValRange{lo, hi}
	}
	d.Init = d.Rng.Lo
	if s.RegInit != nil {
		v, ok := lw.constant(s.RegInit, env, "the initial value of register "+name)
		if !ok {
			return
		}
		if v < d.Rng.Lo || v > d.Rng.Hi {
			lw.errorf(s.RegInit.Pos, "the initial value %d of register %s is outside its range %s", v, name, d.Rng)
			return
		}
		d.Init = v
	}
	t.Regs = append(t.Regs, d)
}

// threads expands the thread declarations (families into members) and
// builds each member's surface graph, then specialises them all.
func (lw *Lowerer) threads(f *syntax.File) {
	var ts []*IRThread
	procs := lw.ProcMap(f)
	fams := map[*syntax.Thread]int{}
	n := lw.EachThread(f, func(rt *syntax.Thread, name string, node int, env map[string]int) bool {
		if rt.Family != nil {
			fi, ok := fams[rt]
			if !ok {
				fi = len(lw.P.Families)
				fams[rt] = fi
				lw.P.Families = append(lw.P.Families, prog.Family{Name: rt.Name.Text})
			}
			fam := &lw.P.Families[fi]
			fam.Threads = append(fam.Threads, len(ts))
			fam.Index = append(fam.Index, env[rt.Family.Index.Text])
		}
		t := &IRThread{Name: name, node: node, pos: rt.Name.Pos, env: env}
		body := SubstStmts(rt.Body, nil) // each member inlines its own calls
		lw.Inline(body, procs, 0)
		if lw.Errs != nil {
			return false
		}
		b := &irBuilder{lw: lw, t: t, labels: map[string]*syntax.Stmt{}}
		b.registers(body, env)
		end := b.emit(irInstr{kind: iEnd, next: -1})
		t.entry = b.block(body, end, env)
		ts = append(ts, t)
		return true
	})
	if lw.Errs != nil || n == 0 {
		return
	}
	lw.specialiseAll(ts, f)
}

// nodeOf resolves a node reference (m, or m[i] in a family) with constant
// indices.
func (lw *Lowerer) nodeOf(e *syntax.Expr, env map[string]int) (int, bool) {
	idx := make([]int, len(e.Idx))
	for i, x := range e.Idx {
		v, ok := lw.constant(x, env, "the index of node "+e.Name.Text)
		if !ok {
			return 0, false
		}
		idx[i] = v
	}
	name := Indexed(e.Name.Text, idx...)
	n, ok := lw.Nodes[name]
	if !ok {
		lw.errorf(e.Pos, "unknown node %s (declare it with node %s { ... })", name, e.Name.Text)
	}
	return n, ok
}

// EachThread expands the thread declarations of f, families into members
// (named client[k], with the family's index in env), and calls do for each
// with its node, until do returns false. It reports duplicate names, too
// many threads and none, and returns how many it expanded.
func (lw *Lowerer) EachThread(f *syntax.File, do func(rt *syntax.Thread, name string, node int, env map[string]int) bool) int {
	seen := map[string]bool{}
	n := 0
	for _, rt := range f.Threads {
		members := []int{-1}
		if rt.Family != nil {
			members = lw.familyRange(rt.Family, "thread "+rt.Name.Text)
		}
		for _, k := range members {
			env := map[string]int{}
			name := rt.Name.Text
			if k >= 0 {
				env[rt.Family.Index.Text] = k
				name = Indexed(name, k)
			}
			if seen[name] {
				lw.errorf(rt.Name.Pos, "thread %s declared twice", name)
				continue
			}
			seen[name] = true
			node, ok := lw.nodeOf(rt.NodeE, env)
			if !ok {
				continue
			}
			n++
			if !do(rt, name, node, env) {
				return n
			}
		}
	}
	if n > prog.MaxThreads {
		lw.errorf(f.Threads[0].Name.Pos, "too many threads (the limit is %d)", prog.MaxThreads)
	}
	if n == 0 && lw.Errs == nil {
		lw.errorf(f.End, "no thread: a program needs at least one thread (thread T on N { ... })")
	}
	return n
}
