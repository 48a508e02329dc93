package repair

// Proving a repair cost-minimal over the candidates met.
//
// The counterexample loop (search.loop) stops at the first text that
// reaches the goal. Its hitting sets are exact over the clauses learnt, but
// those clauses say what suffices to break a violation (order every
// unordered po edge of its cycle), not what any repair must contain, so a
// cheaper repair may exist. proveMinimal settles it by an implicit hitting
// set search over a fixed universe U, the candidates met by the loop:
//
//   - A set M of candidates is refuted when a complete decision of the
//     original text with M applied says the goal fails (a violation, a
//     witness run). Insertions only add synchronisation, so every subset
//     of M fails too (monotonicity, below). A repair drawn from U therefore
//     contains a candidate outside M: U \ M is a core, a clause every
//     repair meets.
//   - Choose H, a minimum-cost set meeting every core, by the exact branch
//     and bound (minHitting with the refuted sets excepted). Its cost is a lower bound on the cost
//     of every repair drawn from U. When it reaches the answer's cost, no
//     cheaper repair exists: the answer is cost-minimal.
//   - Else decide H. When H reaches the goal it is a cheaper repair and
//     becomes the answer. When it fails, H is refuted, and grown: the
//     violation's clauses name the candidates that would order its edges
//     (B); M = U \ B is decided, and when it fails too it is refuted in
//     H's stead — its core is B, far smaller than U \ H. Growing repeats
//     from M's own violation until it stops growing.
//   - H robust but deadlocking (a nogood) is no repair, and says nothing
//     about its subsets or supersets: it is excluded as that one set.
//
// Monotonicity — removing insertions from a set that fails leaves a set that
// fails — is what the cores rest on. An rfence, a read-back and a poll only
// add events and order; a poll also decides which completion a later poll
// of the same queue pair takes, which is why the claim is checked
// independently: TestRepairCostMinimalBrute decides every cheaper subset of
// U on small programs.
//
// The claim is over U: the candidates the table (Orders, candidates) offered
// for the po edges of the violations met, at the places it puts them. A
// poll placed elsewhere, or a kind the table does not offer for an edge, is
// outside it.

import (
	"context"
	"fmt"
	"sort"

	"rdmasim/opsem/check"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
)

// proof says how the minimality of a repair was settled.
type proof struct {
	costMinimal bool
	why         string // the claim, or why it is not made
}

// proveMinimal tries to prove that no set of the insertions met (the
// universe U: every insertion of the candidates the loop met) cheaper than
// answer reaches the goal. U is made of insertions, not candidates, so that
// a set's cost is the sum of its members' (candidates share insertions: a
// poll after each pending operation and a poll after one of them). refuted
// are sets of candidates already decided to fail (the loop's rounds). It
// returns the answer (candidate indices) — cheaper than the one given when
// a cheaper repair was found — and whether, and how, minimality was
// established. At most budget decisions are made; past it, or when a
// decision is cut, no claim is made.
func (s *search) proveMinimal(ctx context.Context, res *Result, decide judge, answer []int, refuted [][]int, budget int) ([]int, proof, error) {
	u := &universe{s: s, pos: map[int]int{}}
	u.rebuild()
	inU, cands, sum := u.inU, u.cands, u.sum
	best := sum(inU(answer))
	// fails are the refuted sets, as candidates (U may grow after they
	// are refuted); except the sets that deadlock, as members of U.
	fails := append([][]int(nil), refuted...)
	var except [][]int
	decisions := 0
	// try decides set (members of U), keeping the proof of the answer
	// unless set becomes it: a decision that fails must not replace res's
	// proof.
	try := func(set []int) (judgement, error) {
		decisions++
		kept := res.proofState()
		j, err := decide(ctx, res, cands(set), true)
		if !j.ok {
			res.setProofState(kept)
		}
		return j, err
	}
	// grow refutes a larger set from a failing one: the insertions of U
	// outside the violation's clauses do not order its edges, so adding
	// them all may well leave it; a decision says whether it does.
	grow := func(m []int, j judgement) ([]int, error) {
		for decisions < budget && len(j.clauses) > 0 {
			var b []int
			for _, cl := range j.clauses {
				b = append(b, cl...)
			}
			ordering := map[int]bool{}
			for _, k := range inU(b) {
				ordering[k] = true
			}
			inM := map[int]bool{}
			for _, k := range m {
				inM[k] = true
			}
			var next []int
			for k := range u.univ {
				if inM[k] || !ordering[k] {
					next = append(next, k)
				}
			}
			if len(next) == len(m) {
				break
			}
			kept := res.proofState()
			jn, err := try(next)
			if err != nil {
				return nil, err
			}
			if jn.ok || jn.nogood || jn.cut != "" {
				res.setProofState(kept)
				break
			}
			m, j = next, jn
		}
		return m, nil
	}
	for {
		u.rebuild()
		n := len(u.univ)
		h, exact, ok := minHitting(u.cores(fails), nil, except, u.cost, 1_000_000)
		switch {
		case !exact:
			return answer, proof{why: "the branch and bound over the refuted sets was cut"}, nil
		case !ok || sum(h) >= best:
			return answer, proof{costMinimal: true, why: fmt.Sprintf("no set of the %s met costing less than %d reaches the goal (%s refuted by decision; %s in this proof)",
				report.Plural(n, "insertion"), best, report.Plural(len(fails), "set"), report.Plural(decisions, "decision"))}, nil
		case decisions >= budget:
			return answer, proof{why: fmt.Sprintf("the proof's budget of %d decisions ran out with a lower bound of %d", budget, sum(h))}, nil
		}
		j, err := try(h)
		if err != nil {
			return nil, proof{}, err
		}
		switch {
		case j.cut != "":
			return answer, proof{why: "a decision of a cheaper set was cut: " + j.cut}, nil
		case j.ok:
			// A cheaper repair: it is the answer now.
			answer, best = cands(h), sum(h)
		case j.nogood:
			except = append(except, h)
		default:
			m, err := grow(h, j)
			if err != nil {
				return nil, proof{}, err
			}
			fails = append(fails, cands(m))
		}
	}
}

// A universe is U of proveMinimal: one single-insertion candidate per
// insertion met (univ, with their costs), pos mapping a candidate index to
// its place in U. It is rebuilt when the proof's own decisions meet new
// insertions, so that the claim is over every insertion the table offered
// for every violation met.
type universe struct {
	s     *search
	univ  []int
	cost  []int
	pos   map[int]int
	built int // len(s.cands) when U was built
}

// rebuild adds to U the insertions of the candidates met since it was
// last built.
func (u *universe) rebuild() {
	s := u.s
	for i := u.built; i < len(s.cands); i++ {
		for _, in := range s.cands[i].parts {
			j := s.single(in)
			if _, ok := u.pos[j]; !ok {
				u.pos[j] = len(u.univ)
				u.univ = append(u.univ, j)
				u.cost = append(u.cost, s.cands[j].cost)
			}
		}
	}
	u.built = len(s.cands)
}

// inU returns a set of candidates as a set of U's members (their
// insertions), sorted; insertions met after U was last built are not in
// it.
func (u *universe) inU(set []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, i := range set {
		for _, in := range u.s.cands[i].parts {
			j, met := u.s.byKey[in.key]
			k, inUniv := u.pos[j]
			if met && inUniv && !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Ints(out)
	return out
}

// cands returns a set of U's members as candidate indices, for decide.
func (u *universe) cands(set []int) []int {
	out := make([]int, len(set))
	for i, k := range set {
		out[i] = u.univ[k]
	}
	return out
}

// sum is the cost of a set of U's members.
func (u *universe) sum(set []int) int {
	c := 0
	for _, k := range set {
		c += u.cost[k]
	}
	return c
}

// cores returns, for each refuted set of candidates, its core: the
// members of U outside it, one of which every repair contains.
func (u *universe) cores(fails [][]int) [][]int {
	var cores [][]int
	for _, m := range fails {
		in := map[int]bool{}
		for _, k := range u.inU(m) {
			in[k] = true
		}
		var c []int
		for k := range u.univ {
			if !in[k] {
				c = append(c, k)
			}
		}
		cores = append(cores, c)
	}
	return cores
}

// single is the index of the candidate made of insertion in alone, added
// to s.cands when the loop met in only as part of a larger candidate.
func (s *search) single(in Insertion) int {
	if i, ok := s.byKey[in.key]; ok {
		return i
	}
	i := len(s.cands)
	s.cands = append(s.cands, candidate{parts: []Insertion{in}, cost: in.Cost, key: in.key})
	s.byKey[in.key] = i
	return i
}

// proofState is what a decision that reaches the goal records in a Result.
type proofState struct {
	verified *robust.Result
	checked  []*check.Result
	claims   []string
	own      *check.Result
}

func (r *Result) proofState() proofState {
	return proofState{r.Verified, r.Checked, r.Claims, r.own}
}

func (r *Result) setProofState(p proofState) {
	r.Verified, r.Checked, r.Claims, r.own = p.verified, p.checked, p.claims, p.own
}
