package prog

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Symmetry reduction (issue 20). A family of threads declared once
// (thread client[k] on m[k] for k in 0..N-1) is a candidate for a group of
// symmetries: the permutations of its instances, each moving an instance's
// thread with its nodes, its locations and its queue pairs. The declaration
// is only a hint: FindSymmetry builds, on the lowered program, the renaming
// of a transposition of two instances and checks that the program is
// invariant under it (each instance's code is the other's renamed, initial
// values are equal, every other thread's code is unchanged by the
// renaming). Transpositions of instance 0 with each other instance generate
// the whole symmetric group, so the program is invariant under every
// permutation of the instances. Values are plain data: a client that writes
// its own index k writes different values than its sibling, and is not
// symmetric.

// Group is a verified symmetric group: every permutation of its instances
// maps the program to itself.
type Group struct {
	Family  string  // the family's name
	Threads []int   // per instance, its thread
	Nodes   [][]int // per instance, the nodes that move with it (aligned: Nodes[i][j] ~ Nodes[k][j])
	Locs    [][]int // per instance, the locations that move with it (aligned)
	QPs     [][]int // per instance, its thread's queue pairs, by their local index (aligned)
}

// Instances returns the number of instances.
func (g *Group) Instances() int { return len(g.Threads) }

// Order returns the number of permutations of the group (n!), saturated at
// 1<<62.
func (g *Group) Order() uint64 {
	o := uint64(1)
	for k := 2; k <= len(g.Threads); k++ {
		if o > 1<<62/uint64(k) {
			return 1 << 62
		}
		o *= uint64(k)
	}
	return o
}

// Symmetry is the product of a program's verified groups (they move
// disjoint threads, nodes and locations).
type Symmetry struct {
	Groups []Group
}

// Order returns the number of permutations of the product group, saturated
// at 1<<62.
func (s *Symmetry) Order() uint64 {
	o := uint64(1)
	for i := range s.Groups {
		g := s.Groups[i].Order()
		if g > 0 && o > 1<<62/g {
			return 1 << 62
		}
		o *= g
	}
	return o
}

// String describes the groups: "4 instances of client (24 permutations)".
func (s *Symmetry) String() string {
	if s == nil || len(s.Groups) == 0 {
		return "none"
	}
	var parts []string
	for i := range s.Groups {
		g := &s.Groups[i]
		parts = append(parts, fmt.Sprintf("%d instances of %s", g.Instances(), g.Family))
	}
	return fmt.Sprintf("%s (%d permutations)", strings.Join(parts, ", "), s.Order())
}

// Renaming is a permutation of a program's threads, nodes, locations and
// queue pairs: Thread[t] is the thread t becomes, and so on.
type Renaming struct {
	Thread, Node, Loc, QP []int
}

// Identity returns the renaming that moves nothing.
func Identity(p *Program) Renaming {
	id := func(n int) []int {
		r := make([]int, n)
		for i := range r {
			r[i] = i
		}
		return r
	}
	return Renaming{Thread: id(len(p.Threads)), Node: id(len(p.Nodes)), Loc: id(len(p.Locs)), QP: id(len(p.QPs))}
}

// Renaming returns the renaming that sends, in every group g, instance i to
// instance perms[g][i]. A nil perms[g] leaves group g in place.
func (s *Symmetry) Renaming(p *Program, perms [][]int) Renaming {
	r := Identity(p)
	s.RenamingInto(p, perms, &r)
	return r
}

// RenamingInto is Renaming into r, whose slices it reuses (r must have
// been made by Identity for p); it allocates nothing.
func (s *Symmetry) RenamingInto(p *Program, perms [][]int, r *Renaming) {
	for i := range r.Thread {
		r.Thread[i] = i
	}
	for i := range r.Node {
		r.Node[i] = i
	}
	for i := range r.Loc {
		r.Loc[i] = i
	}
	for gi := range s.Groups {
		if gi >= len(perms) || perms[gi] == nil {
			continue
		}
		s.Groups[gi].move(r, perms[gi])
	}
	r.derive(p) // cannot fail on a verified group
}

// move makes r send instance i of g to perm[i].
func (g *Group) move(r *Renaming, perm []int) {
	for i, j := range perm {
		r.Thread[g.Threads[i]] = g.Threads[j]
		for k := range g.Nodes[i] {
			r.Node[g.Nodes[i][k]] = g.Nodes[j][k]
		}
		for k := range g.Locs[i] {
			r.Loc[g.Locs[i][k]] = g.Locs[j][k]
		}
		for k := range g.QPs[i] {
			if g.QPs[i][k] >= 0 {
				r.QP[g.QPs[i][k]] = g.QPs[j][k]
			}
		}
	}
}

// FindSymmetry returns the verified groups of p (nil when there is none)
// and, for each declared family that is not one, why.
func FindSymmetry(p *Program) (*Symmetry, []string) {
	var sym Symmetry
	var why []string
	if HasAtomics(p) {
		for _, f := range p.Families {
			if len(f.Threads) > 1 {
				why = append(why, f.Name+": remote atomics (no symmetry reduction with rcas, rfaa)")
			}
		}
		return nil, why
	}
	used := map[int]bool{} // threads already in a group
	for _, f := range p.Families {
		if len(f.Threads) < 2 {
			continue
		}
		var err, first error
		var g *Group
		// The candidate moves the locations whose first index is the
		// family's (slot[k] on a server, x[k] on m[k]); failing that, the
		// locations on the instances' own nodes only.
		for _, byName := range []bool{true, false} {
			if g, err = candidate(p, f, byName); err == nil {
				err = g.verify(p, used)
			}
			if err == nil {
				break
			}
			if first == nil {
				first = err
			}
		}
		if err != nil {
			why = append(why, f.Name+": "+first.Error())
			continue
		}
		for _, t := range g.Threads {
			used[t] = true
		}
		sym.Groups = append(sym.Groups, *g)
	}
	if len(sym.Groups) == 0 {
		return nil, why
	}
	return &sym, why
}

// firstIndex splits a name base[k]rest at its first index: base, k, rest.
func firstIndex(name string) (base string, k int, rest string, ok bool) {
	i := strings.IndexByte(name, '[')
	if i < 0 {
		return "", 0, "", false
	}
	j := strings.IndexByte(name[i:], ']')
	if j < 0 {
		return "", 0, "", false
	}
	k, err := strconv.Atoi(name[i+1 : i+j])
	if err != nil {
		return "", 0, "", false
	}
	return name[:i], k, name[i+j+1:], true
}

// candidate builds the group a family would be: per instance its thread,
// its nodes (its thread's node when no other instance shares it, and the
// nodes named base[k] for its index k), its locations (those on its nodes,
// and, when byName, those named base[k]...), aligned by name with the index
// replaced, and its queue pairs by local index.
func candidate(p *Program, f Family, byName bool) (*Group, error) {
	n := len(f.Threads)
	inst := map[int]int{} // family index -> instance
	for i, k := range f.Index {
		inst[k] = i
	}
	g := &Group{Family: f.Name, Threads: slices.Clone(f.Threads), Nodes: make([][]int, n), Locs: make([][]int, n),
		QPs: make([][]int, n)}
	nodeInst := map[int]int{} // node -> instance
	shared := map[int]int{}
	for _, t := range f.Threads {
		shared[p.Threads[t].Node]++
	}
	nodeKeys := make([]map[string]int, n)
	for i := range nodeKeys {
		nodeKeys[i] = map[string]int{}
	}
	for i, t := range f.Threads {
		if nd := p.Threads[t].Node; shared[nd] == 1 {
			nodeKeys[i]["\x00thread"] = nd
		}
	}
	for nd := range p.Nodes {
		if base, k, rest, ok := firstIndex(p.Nodes[nd].Name); ok {
			if i, ok := inst[k]; ok {
				key := base + "[#]" + rest
				if old, dup := nodeKeys[i][key]; dup && old != nd {
					return nil, fmt.Errorf("node %s moves twice", p.Nodes[nd].Name)
				}
				if cur, ok := nodeKeys[i]["\x00thread"]; !ok || cur != nd {
					nodeKeys[i][key] = nd
				}
			}
		}
	}
	for i := range nodeKeys {
		for _, nd := range nodeKeys[i] {
			if j, dup := nodeInst[nd]; dup && j != i {
				return nil, fmt.Errorf("node %s belongs to two instances", p.Nodes[nd].Name)
			}
			nodeInst[nd] = i
		}
	}
	var err error
	if g.Nodes, err = align(nodeKeys, func(x int) string { return p.Nodes[x].Name }); err != nil {
		return nil, err
	}
	locKeys := make([]map[string]int, n)
	for i := range locKeys {
		locKeys[i] = map[string]int{}
	}
	for l := range p.Locs {
		name := p.Locs[l].Name
		base, k, rest, indexed := firstIndex(name)
		i, onInst := nodeInst[p.Locs[l].Node]
		switch {
		case indexed && (onInst || byName):
			j, ok := inst[k]
			if !ok || onInst && j != i {
				if onInst {
					return nil, fmt.Errorf("location %s on %s is not indexed by its instance", name, p.Nodes[p.Locs[l].Node].Name)
				}
				continue
			}
			locKeys[j][base+"[#]"+rest] = l
		case onInst:
			locKeys[i][name+"@"+strconv.Itoa(slices.Index(g.Nodes[i], p.Locs[l].Node))] = l
		}
	}
	if g.Locs, err = align(locKeys, func(x int) string { return p.Locs[x].Name }); err != nil {
		return nil, err
	}
	for i, t := range f.Threads {
		var qps []int
		for q := range p.QPs {
			if p.QPs[q].Thread == t {
				for len(qps) <= p.QPs[q].Local {
					qps = append(qps, -1)
				}
				qps[p.QPs[q].Local] = q
			}
		}
		g.QPs[i] = qps
	}
	for i := 1; i < n; i++ {
		if len(g.QPs[i]) != len(g.QPs[0]) {
			return nil, fmt.Errorf("%s and %s use different numbers of queue pairs", p.Threads[g.Threads[0]].Name, p.Threads[g.Threads[i]].Name)
		}
	}
	return g, nil
}

// align turns per-instance maps key -> element into aligned lists (sorted
// by key); every instance must have the same keys.
func align(keys []map[string]int, name func(int) string) ([][]int, error) {
	var ks []string
	for k := range keys[0] {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := make([][]int, len(keys))
	for i := range keys {
		if len(keys[i]) != len(ks) {
			return nil, fmt.Errorf("the instances do not have the same locations and nodes (%d and %d)", len(ks), len(keys[i]))
		}
		for _, k := range ks {
			x, ok := keys[i][k]
			if !ok {
				return nil, fmt.Errorf("instance %d has no counterpart of %s", i, name(keys[0][k]))
			}
			out[i] = append(out[i], x)
		}
	}
	return out, nil
}

// verify checks that p is invariant under the transpositions of instance 0
// with each other instance, which generate every permutation of the
// instances.
func (g *Group) verify(p *Program, used map[int]bool) error {
	for _, t := range g.Threads {
		if used[t] {
			return fmt.Errorf("thread %s is in another group", p.Threads[t].Name)
		}
	}
	for j := 1; j < g.Instances(); j++ {
		perm := make([]int, g.Instances())
		for i := range perm {
			perm[i] = i
		}
		perm[0], perm[j] = j, 0
		r := Identity(p)
		g.move(&r, perm)
		if err := r.derive(p); err != nil {
			return err
		}
		if err := r.Invariant(p); err != nil {
			return fmt.Errorf("not symmetric under %s <-> %s: %w", p.Threads[g.Threads[0]].Name, p.Threads[g.Threads[j]].Name, err)
		}
	}
	return nil
}

// derive completes r's queue pairs from its threads and nodes: the queue
// pair of thread t towards node n goes to that of r.Thread[t] towards
// r.Node[n].
func (r *Renaming) derive(p *Program) error {
	for q, qp := range p.QPs {
		t2, n2 := r.Thread[qp.Thread], r.Node[qp.Remote]
		q2 := p.Threads[t2].QPs[n2]
		if q2 < 0 {
			return fmt.Errorf("thread %s has no queue pair towards %s", p.Threads[t2].Name, p.Nodes[n2].Name)
		}
		r.QP[q] = q2
	}
	return nil
}

// Invariant reports, with an error saying where, whether p is mapped to
// itself by r: nodes and locations keep their owners and initial values,
// queue pairs their local index, and each thread's code renamed is the code
// of the thread it becomes, instruction by instruction.
func (r *Renaming) Invariant(p *Program) error {
	for l := range p.Locs {
		l2 := r.Loc[l]
		if p.Locs[l2].Node != r.Node[p.Locs[l].Node] {
			return fmt.Errorf("location %s goes to %s, on another node", p.Locs[l].Name, p.Locs[l2].Name)
		}
		if p.Locs[l2].Init != p.Locs[l].Init {
			return fmt.Errorf("initial values differ: %s = %d, %s = %d", p.Locs[l].Name, p.Locs[l].Init, p.Locs[l2].Name, p.Locs[l2].Init)
		}
	}
	for q, qp := range p.QPs {
		q2 := p.QPs[r.QP[q]]
		if q2.Thread != r.Thread[qp.Thread] || q2.Remote != r.Node[qp.Remote] || q2.Local != qp.Local {
			if q2.Thread == qp.Thread {
				// A thread outside the family (a server) with a queue
				// pair towards each instance's node.
				a, b := min(qp.Remote, q2.Remote), max(qp.Remote, q2.Remote)
				return fmt.Errorf("%s has a queue pair towards %s and one towards %s, which this permutation exchanges (the reduction permutes the instances' own queue pairs only)",
					p.Threads[qp.Thread].Name, p.Nodes[a].Name, p.Nodes[b].Name)
			}
			return fmt.Errorf("the queue pairs of %s and %s are numbered differently", p.Threads[qp.Thread].Name, p.Threads[q2.Thread].Name)
		}
	}
	for t := range p.Threads {
		a, b := &p.Threads[t], &p.Threads[r.Thread[t]]
		if b.Node != r.Node[a.Node] {
			return fmt.Errorf("%s and %s run on nodes that do not correspond", a.Name, b.Name)
		}
		for pc := range min(len(a.Code), len(b.Code)) {
			if msg := r.sameInstr(p, &a.Code[pc], &b.Code[pc]); msg != "" {
				return fmt.Errorf("%s and %s differ at instruction %d (%s): %s", a.Name, b.Name, pc, instrText(&a.Code[pc]), msg)
			}
		}
		if a.Entry != b.Entry || a.Loops != b.Loops || len(a.Code) != len(b.Code) || a.Lowered != b.Lowered {
			return fmt.Errorf("%s and %s have different code (%d and %d instructions, entries %d and %d)", a.Name, b.Name, len(a.Code), len(b.Code), a.Entry, b.Entry)
		}
		if !slices.Equal(a.Labels, b.Labels) {
			return fmt.Errorf("%s and %s have different labels", a.Name, b.Name)
		}
	}
	return nil
}

// instrText names an instruction for a message: its source statement and
// line, "line 7: d := D", or its operation.
func instrText(in *Instr) string {
	if in.Stmt != nil && in.Stmt.Src != nil && in.Stmt.Src.Text != "" {
		if in.Stmt.Pos.Line > 0 {
			return fmt.Sprintf("line %d: %s", in.Stmt.Pos.Line, in.Stmt.Src.Text)
		}
		return in.Stmt.Src.Text
	}
	if in.Stmt != nil && in.Stmt.Pos.Line > 0 {
		return fmt.Sprintf("line %d: %s", in.Stmt.Pos.Line, in.Op)
	}
	return in.Op.String()
}

// sameInstr compares in renamed by r with out; it says how they differ, or
// "" when they do not.
func (r *Renaming) sameInstr(p *Program, in, out *Instr) string {
	if in.Op != out.Op || in.Next != out.Next || in.Loop != out.Loop || !slices.Equal(in.Alts, out.Alts) || !slices.Equal(in.Case, out.Case) ||
		!slices.Equal(in.PollsLeft, out.PollsLeft) {
		return "different control flow"
	}
	if in.Unsignaled != out.Unsignaled {
		return "different signal marks"
	}
	if in.Fenced != out.Fenced {
		return "different fence marks"
	}
	if in.Inline != out.Inline {
		return "different inline marks"
	}
	if in.Words > 1 || out.Words > 1 {
		// The machines' buffers hold a multi-word operation's words by
		// consecutive location numbers, which a renaming need not keep.
		return "a multi-word put or get (not compared)"
	}
	if in.A != out.A || in.B != out.B {
		return fmt.Sprintf("different values (%d,%d vs %d,%d)", in.A, in.B, out.A, out.B)
	}
	loc := func(l int) int {
		if l < 0 || l >= len(r.Loc) {
			return l
		}
		return r.Loc[l]
	}
	differ := func(a, b int) string {
		if loc(a) == b {
			return ""
		}
		name := func(l int) string {
			if l < 0 || l >= len(p.Locs) {
				return "none"
			}
			return p.Locs[l].Name
		}
		return fmt.Sprintf("different locations (%s, renamed %s, against %s)", name(a), name(loc(a)), name(b))
	}
	var msg string
	switch in.Op {
	case OpWrite, OpAssumeEq, OpAssumeNe, OpSwitch:
		msg = differ(in.X, out.X)
	case OpCAS:
		if msg = differ(in.X, out.X); msg == "" {
			msg = differ(in.Z, out.Z)
		}
	case OpGet, OpPut, OpRCAS, OpRFAA:
		if msg = differ(in.X, out.X); msg == "" {
			msg = differ(in.Y, out.Y)
		}
	case OpLoad, OpEval, OpIf:
		if in.Fail != out.Fail || in.Lo != out.Lo || in.Hi != out.Hi {
			return "different error points or ranges"
		}
		if in.Op == OpLoad {
			msg = differ(in.Y, out.Y)
		} else {
			msg = r.sameExpr(in.E, out.E, differ)
		}
		if msg == "" && in.Op != OpIf {
			msg = differ(in.X, out.X)
		}
	case OpEnd, OpSkip, OpBranch, OpRFence, OpPoll, OpFail, OpQuiet:
		// no location (an rfence's and a poll's node: below; a quiet
		// waits on every queue pair of its thread, which the renaming
		// maps with the thread)
	default:
		// An operation this check does not know may name locations it
		// would not compare: no symmetry rather than a wrong one.
		return fmt.Sprintf("operation %v, which the symmetry check does not know", in.Op)
	}
	if msg != "" {
		return msg
	}
	if in.Op.IsRemote() || in.Op == OpPoll {
		if r.Node[in.Remote] != out.Remote || r.QP[in.QP] != out.QP {
			return "different remote nodes"
		}
	}
	return ""
}

// sameExpr says how the expression a, renamed, differs from b ("" if it
// does not); differ compares two locations.
func (r *Renaming) sameExpr(a, b Expr, differ func(a, b int) string) string {
	if len(a) != len(b) {
		return "different expressions"
	}
	for i := range a {
		switch {
		case a[i].Kind != b[i].Kind || a[i].Kind != TLoc && a[i].Val != b[i].Val:
			return "different expressions"
		case a[i].Kind == TLoc:
			if msg := differ(int(a[i].Val), int(b[i].Val)); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// Permutations calls do with every element of the group, as a renaming
// (the identity first), until do returns false.
func (s *Symmetry) Permutations(p *Program, do func(r Renaming) bool) {
	perms := make([][]int, len(s.Groups))
	var rec func(gi int) bool
	rec = func(gi int) bool {
		if gi == len(s.Groups) {
			return do(s.Renaming(p, perms))
		}
		n := s.Groups[gi].Instances()
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		perms[gi] = perm
		return permute(perm, 0, func() bool { return rec(gi + 1) })
	}
	rec(0)
}

// permute calls do with every permutation of a[k:] in place (Heap-free
// recursion by swaps, a restored after), until do returns false.
func permute(a []int, k int, do func() bool) bool {
	if k >= len(a)-1 {
		return do()
	}
	for i := k; i < len(a); i++ {
		a[k], a[i] = a[i], a[k]
		ok := permute(a, k+1, do)
		a[k], a[i] = a[i], a[k]
		if !ok {
			return false
		}
	}
	return true
}

// SortPerm sets perm[i] to the position of instance i when the instances
// are sorted by their keys (stably: instances with equal keys keep their
// order), using order as scratch, and reports whether any instance moves.
// It is the canonical image's permutation of the machines that reduce by
// a group (a sort of N keys rather than a search over the N! permutations).
func SortPerm(keys [][]byte, order, perm []int) ([]int, bool) {
	order = order[:0]
	for i := range keys {
		order = append(order, i)
	}
	// Insertion sort: there are few instances.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && bytes.Compare(keys[order[j]], keys[order[j-1]]) < 0; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	moved := false
	for j, i := range order {
		perm[i] = j
		moved = moved || i != j
	}
	return order, moved
}
