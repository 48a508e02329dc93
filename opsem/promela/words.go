package promela

import (
	"fmt"
	"strings"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
)

// Multi-word puts and gets (SEMANTICS-VERBS.md 1) in the models of the
// machines, entry for entry as package opsem/machine keeps them (its
// state.go: groupLoc, kGroup, b1V), so that SPIN's states stay the
// machine's configurations:
//
//   - B1: the work request's entry PUT or GET carries w = k-1 (the machine's
//     v byte without the fence mark). Entries E gain the field w in a model
//     of a program with a multi-word operation, and only there.
//   - N1 reads one unread source word per step, any of them (reads tear:
//     machine/tear.go): word i becomes a PUTP entry at the tail of B2, kept in
//     word order among the put's PUTP entries, with w = the words after it
//     (the machine's b); the put stays at the head of B1 until its last word
//     is read, when it leaves B1 and its PUTP entries become PUTV.
//   - N2 carries k-1 to GETREQ's w; N5 turns a k-word GETREQ into its group
//     in B3: GROUP(a = k) and k unread GETR entries, which N6 reads one per
//     step as a one-word get's.
//   - N4 moves a put's k words from B2 to RW at once, as one group: a
//     header entry {a = groupLoc, b = c} before the c words kept (dead
//     destinations are dropped on queue pairs without gets, as one-word
//     puts' are), no header when fewer than two are kept; one ACK.
//   - N8 moves a GROUP at the head of B3 to LW whole once every word is read,
//     as a header {a = groupLoc, b = k, rank} and the words.
//   - F1 and F2 place the head of RW or LW, or, when it is a header, word j
//     of its group (any word under placement any, the first under
//     in-order); the header then counts one word less and goes when one is
//     left.
//   - Under SC a multi-word put or get is one step: it writes every target
//     word from its source word.
//
// groupLoc is the machine's location byte of a group's header; no location
// has it (prog.MaxLocs is 250).
const groupLoc = 0xFF

// words reports whether some put or get of the program moves several words.
func (g *gen) words() bool { return firstWords(g.p) != nil }

// firstWords returns the statement of p's first multi-word put or get, or nil.
func firstWords(p *prog.Program) *prog.Stmt {
	for t := range p.Threads {
		for _, in := range p.Threads[t].Code {
			if in.Words > 1 {
				return in.Stmt
			}
		}
	}
	return nil
}

// inOrder reports whether the words of a work request are placed in
// address order: the option, or the program's placement line (as
// machine.NewRDMA decides).
func (g *gen) inOrder() bool { return g.opt.Placement == machine.PlaceInOrder || g.p.InOrder }

// nwords returns the words an instruction moves (1 for a one-word one).
func nwords(in *prog.Instr) int { return max(in.Words, 1) }

// wordsQP sets what queue pair qi's model needs for its multi-word puts and
// gets: q.words, and buffers large enough for a group per work request
// (one entry per word, and a header or a GROUP before them), and the dead
// destinations of every word of its puts.
func (g *gen) wordsQP(qi int) {
	q := &g.qps[qi]
	th := &g.p.Threads[g.p.QPs[qi].Thread]
	q.words = 1
	for _, in := range th.Code {
		if in.QP == qi && (in.Op == prog.OpPut || in.Op == prog.OpGet) {
			q.words = max(q.words, nwords(&in))
		}
	}
	if q.words == 1 {
		return
	}
	q.deadDsts = nil
	kept := func(in *prog.Instr) bool { // a put with a word whose remote write goes through RW
		if in.QP != qi || in.Op != prog.OpPut {
			return false
		}
		for i := 0; i < nwords(in); i++ {
			if !(q.dropRW && g.dead[in.Y+i]) {
				return true
			}
		}
		return false
	}
	for _, in := range th.Code {
		if in.QP == qi && in.Op == prog.OpPut && q.dropRW {
			for i := 0; i < nwords(&in); i++ {
				if g.dead[in.Y+i] {
					q.deadDsts = appendOnce(q.deadDsts, in.Y+i)
				}
			}
		}
	}
	if g.sc {
		return
	}
	w := q.words
	q.cap2 *= w
	q.cap3 *= w + 1
	q.capRW = min(g.k, total(th, kept)) * (w + 1)
	q.capLW *= w + 1
}

// wordsDecls declares what the buffers of a model with multi-word
// operations add: the kind GROUP, the scratch variables of the group rules
// and the macros that move entries inside a buffer.
func (g *gen) wordsDecls() {
	place := "any word of the head group"
	if g.inOrder() {
		place = "the first word of the head group (placement in-order)"
	}
	g.f(`/*
 * Multi-word work requests (SEMANTICS-VERBS.md 1): w of a B1 entry is its words - 1,
 * w of a PUTV the words of its put after it, w of a GETREQ and v of a GETR the get's
 * words - 1. GROUP(a=k) in B3 heads a get's k GETRV responses; in RW and LW an entry
 * of a = %d heads a group of b words still to place. F1 and F2 place %s.
 */
mtype = { GROUP, PUTP };
hidden byte tw, tj, tk;	/* scratch of the group rules */
/* buf[d] := buf[s] (B1 and B2 entries). */
#define mv2(buf, d, s) buf[d].kind = buf[s].kind; buf[d].a = buf[s].a; buf[d].b = buf[s].b; buf[d].rank = buf[s].rank; buf[d].w = buf[s].w
/* buf[d] := buf[s] (B3 entries). */
#define mv3(buf, d, s) buf[d].kind = buf[s].kind; buf[d].a = buf[s].a; buf[d].b = buf[s].b; buf[d].v = buf[s].v; buf[d].rank = buf[s].rank
/* Remove entry j of buf (RW or LW), shift, and zero the freed slot. */
#define rm(buf, n, j) \
	i = j + 1; \
	do \
	:: i < n -> buf[i-1].kind = buf[i].kind; buf[i-1].a = buf[i].a; buf[i-1].b = buf[i].b; buf[i-1].rank = buf[i].rank; buf[i-1].w = buf[i].w; i++ \
	:: else -> break \
	od; \
	n--; buf[n].kind = 0; buf[n].a = 0; buf[n].b = 0; buf[n].rank = 0; buf[n].w = 0; i = 0

`, groupLoc, place)
}

// wordsPop returns what the entry type E and the macro pop add in a model
// with multi-word operations (the field w), or "" elsewhere, so that other
// models are unchanged.
func (g *gen) wordsPop() (field, move, zero string) {
	if !g.words() {
		return "", "", ""
	}
	return "; byte w", " buf[i-1].w = buf[i].w;", "; buf[n].w = 0"
}

// wordsSubmit returns the effect that marks the B1 entry of a multi-word
// put or get on queue pair q with its words (machine's b1V), or nil.
func (g *gen) wordsSubmit(in *prog.Instr, q *qpInfo) []string {
	if in.Words <= 1 {
		return nil
	}
	return []string{fmt.Sprintf("%s_b1[%s_nb1-1].w = %d", q.name, q.name, in.Words-1)}
}

// wordsCarry returns the effect that carries a get's words - 1 (read into
// tw by take) into the entry just pushed on buffer b (GETREQ's w in B2,
// GETR's v in B3), or nil on a queue pair without multi-word operations.
func (g *gen) wordsCarry(q *qpInfo, b string) []string {
	if q.words <= 1 {
		return nil
	}
	field := "w"
	if b == "b3" {
		field = "v"
	}
	return []string{fmt.Sprintf("%s_%s[%s_n%s-1].%s = tw", q.name, b, q.name, b, field)}
}

// wordsTake returns what take reads besides an entry's a, b and rank: its
// w, on B1 and B2 of a queue pair with multi-word operations.
func (g *gen) wordsTake(q *qpInfo, b string) string {
	if q.words <= 1 || b != "b1" && b != "b2" {
		return ""
	}
	return fmt.Sprintf(" tw = %s_%s[0].w;", q.name, b)
}

// wordsN1 writes N1 on queue pair q when it has multi-word puts: a
// one-word put at the head of B1 (w = 0) reads its source as without them;
// a k-word one reads its word j, for every j not read yet, as a PUTP entry
// kept in word order at the tail of B2, and leaves B1 with its words turned
// PUTV once they are all read (machine's enabledN1 and applyN1Word).
func (g *gen) wordsN1(q *qpInfo, guard, take string) {
	n := q.name
	g.step(guard+fmt.Sprintf(" && %s_b1[0].w == 0", n), "N1 put reads its source (B1 -> B2)",
		[]string{take, "load(tb, tb)", fmt.Sprintf("push(%s_b2, %s_nb2, PUTV, ta, tb, tr)", n, n)})
	for j := 0; j < q.words; j++ {
		var read []string
		for s := 0; s < q.cap2; s++ {
			read = append(read, fmt.Sprintf("%s_nb2 > %d && %s_b2[%d].kind == PUTP && %s_b2[%d].a == %s_b1[0].a + %d", n, s, n, s, n, s, n, j))
		}
		cond := fmt.Sprintf(" && %s_b1[0].w > 0 && %s_b1[0].w >= %d", n, n, j)
		if len(read) > 0 {
			cond += " && !(" + strings.Join(read, " || ") + ")"
		}
		g.step(guard+cond, fmt.Sprintf("N1 put reads word %d of its source", j), []string{
			fmt.Sprintf("ta = %s_b1[0].a + %d; tr = %s_b1[0].rank; tw = %s_b1[0].w; load(%s_b1[0].b + %d, tk)", n, j, n, n, n, j),
			fmt.Sprintf("i = %s_nb2; do :: i > 0 && %s_b2[i-1].kind == PUTP && %s_b2[i-1].a > ta -> mv2(%s_b2, i, i-1); i-- :: else -> break od", n, n, n, n),
			fmt.Sprintf("%s_b2[i].kind = PUTP; %s_b2[i].a = ta; %s_b2[i].b = tk; %s_b2[i].rank = tr; %s_b2[i].w = tw - %d; %s_nb2++", n, n, n, n, n, j, n),
			fmt.Sprintf("tj = 0; i = 0; do :: i < %s_nb2 -> if :: %s_b2[i].kind == PUTP -> tj++ :: else fi; i++ :: else -> break od", n, n),
			fmt.Sprintf("if :: tj == tw + 1 -> i = 0; do :: i < %s_nb2 -> if :: %s_b2[i].kind == PUTP -> %s_b2[i].kind = PUTV :: else fi; i++ :: else -> break od; pop(%s_b1, %s_nb1) :: else fi", n, n, n, n, n),
			"i = 0; tj = 0; tk = 0",
		})
	}
}

// wordsN5 returns the effects of N5 on queue pair q: the GETREQ at the head
// of B2 (taken by take, its w in tw) enters B3 as one GETR, or, for a k-word
// get, as its group GROUP(k) and k unread GETR entries (machine's getGroup).
func (g *gen) wordsN5(q *qpInfo, take string) []string {
	n := q.name
	return []string{take, fmt.Sprintf("if :: tw == 0 -> push3(%s_b3, %s_nb3, GETR, ta, tb, tr) :: else -> push3(%s_b3, %s_nb3, GROUP, tw + 1, 0, tr); ", n, n, n, n) +
		fmt.Sprintf("tj = 0; do :: tj <= tw -> push3(%s_b3, %s_nb3, GETR, ta + tj, tb + tj, tr); tj++ :: else -> break od; tj = 0 fi", n, n)}
}

// wordsN4 returns the effects of N4 on queue pair q: the put at the head
// of B2 arrives with its k words at once (machine's RuleN4).
func (g *gen) wordsN4(q *qpInfo) []string {
	n := q.name
	eff := []string{fmt.Sprintf("tw = %s_b2[0].w; tr = %s_b2[0].rank", n, n)}
	move := fmt.Sprintf("ta = %s_b2[0].a; tb = %s_b2[0].b; pop(%s_b2, %s_nb2)", n, n, n, n)
	if q.capRW > 0 {
		eff = append(eff, fmt.Sprintf("tk = %s_nrw; if :: tw > 0 -> push(%s_rw, %s_nrw, 0, %d, 0, 0) :: else fi", n, n, n, groupLoc))
		push := fmt.Sprintf("push(%s_rw, %s_nrw, 0, ta, tb, 0)", n, n)
		if len(q.deadDsts) > 0 {
			var c []string
			for _, l := range q.deadDsts {
				c = append(c, "ta != "+g.locID(l))
			}
			push = fmt.Sprintf("if :: %s -> %s :: else fi", strings.Join(c, " && "), push)
		}
		move += "; " + push
	}
	eff = append(eff, fmt.Sprintf("tj = 0; do :: tj <= tw -> %s; tj++ :: else -> break od", move))
	if q.capRW > 0 {
		// The header counts the words kept, and goes when fewer than two are.
		eff = append(eff, fmt.Sprintf("if :: tw > 0 && %s_nrw - tk >= 3 -> %s_rw[tk].b = %s_nrw - tk - 1 :: tw > 0 && %s_nrw - tk < 3 -> rm(%s_rw, %s_nrw, tk) :: else fi", n, n, n, n, n, n))
	}
	if q.countAcks() {
		eff = append(eff, n+"_acks++")
	}
	return append(eff, fmt.Sprintf("push3(%s_b3, %s_nb3, ACK, 0, 0, tr)", n, n), "tj = 0; tk = 0")
}

// wordsN8 returns the guard and effects of N8 on queue pair q: a one-word
// response, or a multi-word get's GROUP, moves from the head of B3 to LW
// (machine's RuleN8).
func (g *gen) wordsN8(q *qpInfo, take func(string) string) (string, []string) {
	n := q.name
	guard := fmt.Sprintf("%s_nb3 > 0 && (%s_b3[0].kind == GETRV || %s_b3[0].kind == GROUP", n, n, n)
	for j := 1; j <= q.words && j < q.cap3; j++ {
		guard += fmt.Sprintf(" && (%s_b3[0].a < %d || %s_b3[%d].kind == GETRV)", n, j, n, j) // every word read (groupRead)
	}
	guard += ")"
	return guard, []string{fmt.Sprintf("if :: %s_b3[0].kind == GETRV -> %s; push(%s_lw, %s_nlw, 0, ta, tb, tr) :: else -> ", n, take("b3"), n, n) +
		fmt.Sprintf("tw = %s_b3[0].a; tr = %s_b3[0].rank; pop3(%s_b3, %s_nb3); push(%s_lw, %s_nlw, 0, %d, tw, tr); ", n, n, n, n, n, n, groupLoc) +
		fmt.Sprintf("tj = 0; do :: tj < tw -> push(%s_lw, %s_nlw, 0, %s_b3[0].a, %s_b3[0].v, %s_b3[0].rank); pop3(%s_b3, %s_nb3); tj++ :: else -> break od; tj = 0 fi", n, n, n, n, n, n, n)}
}

// wordsPlace writes F1 (b = "rw") or F2 (b = "lw") of queue pair q: the
// head of the buffer reaches memory, or, when the head is a group's
// header, word j of the group, for every j the placement allows
// (machine's enabledPlace and place).
func (g *gen) wordsPlace(q *qpInfo, b, comment string) {
	n := q.name
	buf, cnt := n+"_"+b, n+"_n"+b
	g.step(fmt.Sprintf("%s > 0 && %s[0].a != %d", cnt, buf, groupLoc), comment,
		[]string{fmt.Sprintf("ta = %s[0].a; tb = %s[0].b; pop(%s, %s)", buf, buf, buf, cnt), "store(ta, tb)"})
	last := q.words
	if g.inOrder() {
		last = 1
	}
	for j := 1; j <= last; j++ {
		g.step(fmt.Sprintf("%s > 0 && %s[0].a == %d && %s[0].b >= %d", cnt, buf, groupLoc, buf, j), fmt.Sprintf("%s: word %d of the head group", comment, j),
			[]string{fmt.Sprintf("ta = %s[%d].a; tb = %s[%d].b; rm(%s, %s, %d)", buf, j, buf, j, buf, cnt, j),
				fmt.Sprintf("%s[0].b--; if :: %s[0].b < 2 -> pop(%s, %s) :: else fi", buf, buf, buf, cnt), "store(ta, tb)"})
	}
}

// wordsInflight returns machine's qstate.inflight on queue pair q, which
// counts a work request once however many entries its words take (wrCount):
// a PUTV with words after it is not counted, and a GROUP or a header counts
// for its words.
func (g *gen) wordsInflight(q *qpInfo) string {
	n := q.name
	var terms []string
	if q.cap1 > 0 {
		terms = append(terms, n+"_nb1")
	}
	sum := func(count string, c int, term func(s int) string) string {
		parts := []string{count}
		for s := 0; s < c; s++ {
			parts = append(parts, term(s))
		}
		return "(" + strings.Join(parts, " - ") + ")"
	}
	if q.cap2 > 0 {
		terms = append(terms, sum(n+"_nb2", q.cap2, func(s int) string {
			return fmt.Sprintf("(%s_b2[%d].kind == PUTV && %s_b2[%d].w > 0 || %s_b2[%d].kind == PUTP -> 1 : 0)", n, s, n, s, n, s)
		}))
	}
	if q.cap3 > 0 {
		terms = append(terms, sum(n+"_nb3", q.cap3, func(s int) string {
			return fmt.Sprintf("(%s_b3[%d].kind == GROUP -> %s_b3[%d].a : 0)", n, s, n, s)
		}))
	}
	header := func(b string) func(int) string {
		return func(s int) string {
			return fmt.Sprintf("(%s_%s[%d].a == %d -> %s_%s[%d].b : 0)", n, b, s, groupLoc, n, b, s)
		}
	}
	if q.capLW > 0 {
		terms = append(terms, sum(n+"_nlw", q.capLW, header("lw")))
	}
	infl := strings.Join(terms, " + ")
	if q.capRW > 0 {
		rw := sum(n+"_nrw", q.capRW, header("rw"))
		infl += fmt.Sprintf(" + %s - (%s_acks < %s -> %s_acks : %s)", rw, n, rw, n, rw)
	}
	return infl
}

// scWords writes the SC step of a multi-word put or get (machine's
// scRemote): it writes every target word from its source word at once.
func (g *gen) scWords(t, pc int, text string) {
	in := &g.p.Threads[t].Code[pc]
	q := &g.qps[in.QP]
	at := fmt.Sprintf("pc%d == %d", t, pc)
	src, dst := in.X, in.Y
	if in.Op == prog.OpGet {
		src, dst = in.Y, in.X
	}
	guard := at
	if b := g.npendBound(in, pc); b != "" {
		guard += " && " + b
		g.cut(fmt.Sprintf("%s && !(%s)", at, b), "max-inflight")
	}
	var eff []string
	for i := 0; i < in.Words; i++ {
		if !g.dead[dst+i] {
			eff = append(eff, fmt.Sprintf("%s = %s", g.loc(dst+i), g.loc(src+i)))
		} else {
			// The source is live (rdmasim's configurations hold it) and
			// may be read nowhere else: the comparison, always true,
			// keeps SPIN from hiding it, as scRemote's does for reg.
			guard += fmt.Sprintf(" && %s <= 255", g.loc(src+i))
		}
	}
	added := -1
	if in.PollsLeft[g.p.QPs[in.QP].Local] > 0 { // else canonPolls would undo the count at once
		eff = append(eff, q.name+"_npend++")
		added = in.QP
	}
	g.step(guard, text+": read and write every word", append(eff, g.moveTo(t, pc, in.Next, added, -1)...))
}

// wordsHeader returns what the model's first line adds to its bounds: the
// placement, on the RDMA machine of a program with a multi-word operation.
func (g *gen) wordsHeader() string {
	if g.sc || !g.words() {
		return ""
	}
	if g.inOrder() {
		return ", placement in-order"
	}
	return ", placement any"
}
