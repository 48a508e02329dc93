package prog

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The parts of a symmetry group that fix something: a query's condition
// (ForCond: the instances it names stay put) or a set of threads (Without:
// the decider's search of one block of threads). Both restrict each group
// to the instances left free (Group.restrict).

// Apply renames the locations and threads of a condition.
func (r *Renaming) Apply(c *Cond) *Cond {
	if c == nil {
		return nil
	}
	d := *c
	switch c.Op {
	case CEq, CNe:
		d.Loc = r.Loc[c.Loc]
	case CAt, CEnd, CFail:
		d.Thread = r.Thread[c.Thread]
	}
	d.L, d.R = r.Apply(c.L), r.Apply(c.R)
	return &d
}

// condKey is a normal form of c for comparing conditions up to the order
// of the operands of chains of \/ and of /\.
func condKey(c *Cond) string {
	if c == nil {
		return ""
	}
	switch c.Op {
	case CAnd, COr:
		var ops []string
		var flat func(x *Cond)
		flat = func(x *Cond) {
			if x.Op == c.Op {
				flat(x.L)
				flat(x.R)
				return
			}
			ops = append(ops, condKey(x))
		}
		flat(c)
		sort.Strings(ops)
		return fmt.Sprintf("(%d %s)", c.Op, strings.Join(ops, " "))
	case CNot:
		return "(~ " + condKey(c.L) + ")"
	case CEq, CNe:
		return fmt.Sprintf("(%d l%d %d)", c.Op, c.Loc, c.Val)
	case CAt:
		return fmt.Sprintf("(@ t%d %s)", c.Thread, c.Label)
	case CEnd, CFail:
		return fmt.Sprintf("(%d t%d)", c.Op, c.Thread)
	}
	return "true"
}

// ForCond returns the part of s under which c is invariant: each group
// whose transpositions (of instance 0 with every other) leave c unchanged,
// up to the order of the operands of \/ and /\, is kept (they generate
// the group); a group that does not is restricted to the instances c does
// not mention, kept if two or more remain. It returns nil when nothing
// remains, and whether it restricted anything.
func (s *Symmetry) ForCond(p *Program, c *Cond) (*Symmetry, bool) {
	if s == nil || c == nil {
		return s, false
	}
	key := condKey(c)
	out := &Symmetry{}
	restricted := false
	for gi := range s.Groups {
		g := &s.Groups[gi]
		ok := true
		for j := 1; j < g.Instances() && ok; j++ {
			r := s.transposition(p, gi, 0, j)
			ok = condKey(r.Apply(c)) == key
		}
		if ok {
			out.Groups = append(out.Groups, *g)
			continue
		}
		restricted = true
		mentioned := map[int]bool{}
		var walk func(x *Cond)
		walk = func(x *Cond) {
			if x == nil {
				return
			}
			switch x.Op {
			case CEq, CNe:
				for i := range g.Locs {
					if slices.Contains(g.Locs[i], x.Loc) {
						mentioned[i] = true
					}
				}
			case CAt, CEnd, CFail:
				if i := slices.Index(g.Threads, x.Thread); i >= 0 {
					mentioned[i] = true
				}
			}
			walk(x.L)
			walk(x.R)
		}
		walk(c)
		if sub := g.restrict(func(i int) bool { return !mentioned[i] }); sub.Instances() >= 2 {
			out.Groups = append(out.Groups, sub)
		}
	}
	if len(out.Groups) == 0 {
		return nil, restricted
	}
	return out, restricted
}

// Without returns the part of s that fixes every thread of threads (bit t
// for thread t): each group restricted to its instances whose thread is not
// among them, kept if two or more remain; nil when nothing remains. Every
// permutation of the result fixes those threads, and maps the program to
// itself as s's do.
func (s *Symmetry) Without(threads uint64) *Symmetry {
	if s == nil {
		return nil
	}
	out := &Symmetry{}
	for gi := range s.Groups {
		g := &s.Groups[gi]
		if sub := g.restrict(func(i int) bool { return threads&(1<<g.Threads[i]) == 0 }); sub.Instances() >= 2 {
			out.Groups = append(out.Groups, sub)
		}
	}
	if len(out.Groups) == 0 {
		return nil
	}
	return out
}

// transposition returns the renaming that swaps instances i and j of group
// gi.
func (s *Symmetry) transposition(p *Program, gi, i, j int) Renaming {
	perms := make([][]int, len(s.Groups))
	perm := make([]int, s.Groups[gi].Instances())
	for k := range perm {
		perm[k] = k
	}
	perm[i], perm[j] = j, i
	perms[gi] = perm
	return s.Renaming(p, perms)
}

// restrict returns the group of g's instances that keep reports true for
// (by index): the permutations of those instances, the others fixed.
func (g *Group) restrict(keep func(i int) bool) Group {
	sub := Group{Family: g.Family}
	for i := range g.Threads {
		if keep(i) {
			sub.Threads = append(sub.Threads, g.Threads[i])
			sub.Nodes = append(sub.Nodes, g.Nodes[i])
			sub.Locs = append(sub.Locs, g.Locs[i])
			sub.QPs = append(sub.QPs, g.QPs[i])
		}
	}
	return sub
}
