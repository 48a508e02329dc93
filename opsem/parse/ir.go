package parse

import (
	"rdmasim/opsem/prog"
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
	s     *rawStmt
	next  int
	alts  []int
	env   map[string]int
	label string
}

// regDecl is a register of a thread: its range and initial value.
type regDecl struct {
	name string
	pos  prog.Pos
	rng  valRange
	init int
}

// irThread is one thread (one member of a family) before specialisation.
type irThread struct {
	name  string
	node  int
	pos   prog.Pos
	code  []irInstr
	entry int
	regs  []regDecl
	env   map[string]int
}

// irBuilder compiles one thread's statements to its surface graph, back to
// front as prog.Compile does.
type irBuilder struct {
	lw     *lowerer
	t      *irThread
	breaks []int               // the exits of the enclosing loops, innermost last
	labels map[string]*rawStmt // a label's statement (copied where a for loop unrolls it)
}

func (b *irBuilder) emit(in irInstr) int {
	b.t.code = append(b.t.code, in)
	return len(b.t.code) - 1
}

// block compiles stmts to continue at next, returning the entry.
func (b *irBuilder) block(stmts []*rawStmt, next int, env map[string]int) int {
	for i := len(stmts) - 1; i >= 0; i-- {
		next = b.stmt(stmts[i], next, env)
	}
	return next
}

func (b *irBuilder) stmt(s *rawStmt, next int, env map[string]int) int {
	lw := b.lw
	in := irInstr{s: s, next: next, env: env}
	if s.label != nil {
		if first, dup := b.labels[s.label.text]; dup && first != s {
			lw.errorf(s.label.pos, "label %s used twice in thread %s (first at %s)", s.label.text, b.t.name, first.label.pos)
		} else if s.label.text == "end" || s.label.text == "fail" {
			lw.errorf(s.label.pos, "%s cannot be a label: T@%s means the thread has %s", s.label.text, s.label.text,
				map[string]string{"end": "terminated", "fail": "stopped at an error"}[s.label.text])
		} else {
			b.labels[s.label.text] = s
			in.label = s.label.text
		}
	}
	switch s.kind {
	case rSkip:
		in.kind = iSkip
	case rReg:
		in.kind = iJump // declared for the whole thread (see registers)
	case rAssignValue, rAssignLoc, rAssignCAS, rAssignAtomic, rAssign, rAssume, rAssumeE, rAssert, rRFence, rPoll:
		in.kind = iStmt
	case rCall:
		in.kind, in.next = iJump, b.block(s.branches[0], next, env)
	case rBreak:
		if len(b.breaks) == 0 {
			lw.errorf(s.pos, "break outside a loop")
		} else {
			in.kind, in.next = iJump, b.breaks[len(b.breaks)-1]
		}
	case rChoose:
		in.kind = iChoose
		for _, br := range s.branches {
			in.alts = append(in.alts, b.block(br, next, env))
		}
	case rIf:
		in.kind = iIf
		in.alts = []int{b.block(s.branches[0], next, env), next}
		if len(s.branches) > 1 {
			in.alts[1] = b.block(s.branches[1], next, env)
		}
	case rLoop, rWhile:
		in.kind = iLoop
		if s.kind == rWhile {
			in.kind = iWhile
		}
		head := b.emit(in)
		b.breaks = append(b.breaks, next)
		body := b.block(s.branches[0], head, env)
		b.breaks = b.breaks[:len(b.breaks)-1]
		b.t.code[head].alts = []int{body, next}
		return head
	case rFor:
		lo, ok1 := lw.constant(s.regLo, env, "the range of for "+s.reg.text)
		hi, ok2 := lw.constant(s.regHi, env, "the range of for "+s.reg.text)
		if !ok1 || !ok2 {
			return next
		}
		if hi-lo > prog.MaxCode {
			lw.errorf(s.regLo.pos, "for %s in %d..%d: more than %d iterations", s.reg.text, lo, hi, prog.MaxCode)
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
			inner[s.reg.text] = k
			start = b.block(s.branches[0], start, inner)
		}
		b.breaks = b.breaks[:len(b.breaks)-1]
		in.kind, in.next = iJump, start
	default:
		lw.errorf(s.pos, "this statement is not part of the protocol language")
		return next
	}
	return b.emit(in)
}

// registers collects the thread's register declarations (anywhere in its
// body: a register is declared for the whole thread and starts at its
// initial value when the thread starts).
func (b *irBuilder) registers(stmts []*rawStmt, env map[string]int) {
	lw := b.lw
	for _, s := range stmts {
		if s.kind == rReg {
			lw.declareReg(b.t, s, env)
		}
		for _, br := range s.branches {
			b.registers(br, env)
		}
	}
}

func (lw *lowerer) declareReg(t *irThread, s *rawStmt, env map[string]int) {
	name := s.reg.text
	for _, r := range t.regs {
		if r.name == name && r.pos == s.reg.pos {
			return // a procedure's register, declared by each of its calls
		}
		if r.name == name {
			lw.errorf(s.reg.pos, "register %s declared twice in thread %s (first at %s)", name, t.name, r.pos)
			return
		}
	}
	if _, ok := lw.arrays[name]; ok {
		lw.errorf(s.reg.pos, "register %s has the name of a location", name)
		return
	}
	if _, ok := lw.params[name]; ok {
		lw.errorf(s.reg.pos, "register %s has the name of a param", name)
		return
	}
	if _, ok := env[name]; ok {
		lw.errorf(s.reg.pos, "register %s has the name of the family's index", name)
		return
	}
	d := regDecl{name: name, pos: s.reg.pos, rng: valRange{0, prog.MaxValue}}
	if s.regLo != nil {
		lo, ok1 := lw.constant(s.regLo, env, "the range of register "+name)
		hi, ok2 := lw.constant(s.regHi, env, "the range of register "+name)
		if !ok1 || !ok2 {
			return
		}
		if lo < 0 || hi > prog.MaxValue || hi < lo {
			lw.errorf(s.regLo.pos, "the range %d..%d of register %s is not within 0..%d", lo, hi, name, prog.MaxValue)
			return
		}
		d.rng = valRange{lo, hi}
	}
	d.init = d.rng.lo
	if s.regInit != nil {
		v, ok := lw.constant(s.regInit, env, "the initial value of register "+name)
		if !ok {
			return
		}
		if v < d.rng.lo || v > d.rng.hi {
			lw.errorf(s.regInit.pos, "the initial value %d of register %s is outside its range %s", v, name, d.rng)
			return
		}
		d.init = v
	}
	t.regs = append(t.regs, d)
}

// threads expands the thread declarations (families into members) and
// builds each member's surface graph, then specialises them all.
func (lw *lowerer) threads(f *rawFile) {
	var ts []*irThread
	procs := lw.procMap(f)
	fams := map[*rawThread]int{}
	n := lw.eachThread(f, func(rt *rawThread, name string, node int, env map[string]int) bool {
		if rt.family != nil {
			fi, ok := fams[rt]
			if !ok {
				fi = len(lw.p.Families)
				fams[rt] = fi
				lw.p.Families = append(lw.p.Families, prog.Family{Name: rt.name.text})
			}
			fam := &lw.p.Families[fi]
			fam.Threads = append(fam.Threads, len(ts))
			fam.Index = append(fam.Index, env[rt.family.index.text])
		}
		t := &irThread{name: name, node: node, pos: rt.name.pos, env: env}
		body := substStmts(rt.body, nil) // each member inlines its own calls
		lw.inline(body, procs, 0)
		if lw.errs != nil {
			return false
		}
		b := &irBuilder{lw: lw, t: t, labels: map[string]*rawStmt{}}
		b.registers(body, env)
		end := b.emit(irInstr{kind: iEnd, next: -1})
		t.entry = b.block(body, end, env)
		ts = append(ts, t)
		return true
	})
	if lw.errs != nil || n == 0 {
		return
	}
	lw.specialiseAll(ts, f)
}

// nodeOf resolves a node reference (m, or m[i] in a family) with constant
// indices.
func (lw *lowerer) nodeOf(e *rawExpr, env map[string]int) (int, bool) {
	idx := make([]int, len(e.idx))
	for i, x := range e.idx {
		v, ok := lw.constant(x, env, "the index of node "+e.name.text)
		if !ok {
			return 0, false
		}
		idx[i] = v
	}
	name := indexed(e.name.text, idx...)
	n, ok := lw.nodes[name]
	if !ok {
		lw.errorf(e.pos, "unknown node %s (declare it with node %s { ... })", name, e.name.text)
	}
	return n, ok
}

// eachThread expands the thread declarations of f, families into members
// (named client[k], with the family's index in env), and calls do for each
// with its node, until do returns false. It reports duplicate names, too
// many threads and none, and returns how many it expanded.
func (lw *lowerer) eachThread(f *rawFile, do func(rt *rawThread, name string, node int, env map[string]int) bool) int {
	seen := map[string]bool{}
	n := 0
	for _, rt := range f.threads {
		members := []int{-1}
		if rt.family != nil {
			members = lw.familyRange(rt.family, "thread "+rt.name.text)
		}
		for _, k := range members {
			env := map[string]int{}
			name := rt.name.text
			if k >= 0 {
				env[rt.family.index.text] = k
				name = indexed(name, k)
			}
			if seen[name] {
				lw.errorf(rt.name.pos, "thread %s declared twice", name)
				continue
			}
			seen[name] = true
			node, ok := lw.nodeOf(rt.nodeE, env)
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
		lw.errorf(f.threads[0].name.pos, "too many threads (the limit is %d)", prog.MaxThreads)
	}
	if n == 0 && lw.errs == nil {
		lw.errorf(f.end, "no thread: a program needs at least one thread (thread T on N { ... })")
	}
	return n
}
