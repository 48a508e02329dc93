package reduce

import (
	"fmt"
	"strings"
)

// Program returns the .rdma program of the paper's undecidability proof
// (section 3 and the appendix "Program Code for the Undecidability Proof")
// for a valid p (see Validate). Four threads p1..p4 run on nodes n1..n4:
//
//   - p1 guesses the solution: (A1 + ... + AN)+ then x1 := #, x2 := #,
//     where Ai puts the index i into x1 (node n2) and raises the flag f1,
//     then does the same towards n3 (x2, f2).
//   - p2 receives indices on (x1, f1); for index i (subroutine Bi) it puts
//     the letters of the top word Ui into y1 on n4, raising the flag g1
//     after each; after # it puts # into y1. p3 does the same with the
//     bottom words Vi, over (x2, f2) and (y2, g2).
//   - p4 repeatedly receives one letter from each of p2 and p3 and checks
//     that they are equal (subroutine Dσ), and at the end that both
//     streams end together with #.
//
// Values: ⊥ = 0 and ⊤ = 1 for flags and for empty message registers, index
// i = i and # = N+1 on x1, x2, letter number k of the alphabet = k and # =
// |Σ|+1 on y1, y2. Every put copies a read-only location holding the
// constant (the appendix: "x̄ := c assumes the value c is available in some
// (readonly) variable"), so a put's value never depends on when it reads.
//
// The query is reach p1@end /\ p2@end /\ p3@end /\ p4@end: every thread has
// terminated. This holds in some RDMA run if and only if p has a solution.
// Reachability under RDMA being undecidable, a bounded search (unroll,
// max-inflight) can only confirm it: the expect rdma line (written when
// p.Expect is set) holds for the unbounded program.
//
// # The channel protocol, and why it loses nothing
//
// Each of the four channels (p1→p2, p1→p3, p2→p4, p3→p4) is one queue pair
// carrying puts of constants to a message register m and a flag r of the
// receiver (m = x1, r = f1 for p1→p2, and so on). The sender puts
// m := v1; r := ⊤; m := v2; r := ⊤; ...; m := #. Puts of one queue pair
// reach memory in order (FIFO buffers B1, B2 and RW), and only the
// receiver writes these registers otherwise. For each message the receiver
// runs
//
//	R1 assume(m == v)    for some message value v (a choice over the values)
//	R2 m := ⊥
//	R3 assume(r == ⊥)
//	R4 assume(r == ⊤)
//	R5 r := ⊥
//	R6 assume(m == ⊥)
//
// and at the end F1 assume(m == #); F2 assume(r == ⊥). Claim: in every run
// in which the receiver completes F2, its k-th R1 reads exactly the k-th
// message value, and it reads exactly as many messages as were sent. By
// induction on k, with the invariant "at the (k-1)-th R6 (or at the start),
// exactly the writes up to the (k-1)-th flag have reached memory, m = r = ⊥":
// R1 reads v ≠ ⊥, so some message write reached memory after R6 (m was ⊥
// there and only R2 writes ⊥): the first one after the invariant is the
// k-th message. Had the (k+1)-th message also arrived by R1, the k-th flag
// would have arrived before it, r would be ⊤ at R1, and R3 would block
// forever (nothing writes ⊥ to r before R3, the sender only writes ⊤). So R1
// reads the k-th value, and R2 erases nothing unread. R3 sees ⊥, so the k-th
// flag arrives after R3; R4 sees ⊤, so it arrived by R4; R6 sees ⊥, so no
// message write arrived between R2 and R6, hence no later flag arrived
// before R6 either: R5 erased exactly the k-th flag, and the invariant holds
// again. At the end, F1 sees #, so every write has arrived; had fewer
// messages been read than sent, the next flag would have arrived after the
// last R5 and F2 would see ⊤; had more been read, some R1 would have had to
// read # as a message value, which no choice offers. Conversely the
// synchronous schedule (deliver each write just when the receiver waits for
// it) completes the protocol, so buffering never hurts completeness.
//
// With lossless channels, p2 and p3 receive exactly the index sequence p1
// guessed (non-empty: the loops are "+" loops), p4 receives exactly
// U(i1)...U(ik) from p2 and V(i1)...V(ik) from p3 and compares them letter
// by letter, and the streams end together: all four threads terminate if and
// only if the guessed sequence is a solution.
//
// # Why SC forbids it: the buffers are essential
//
// Under SC no run ends all four threads, whatever the instance: p2 puts its
// first flag g1 before its first R3 on f1 (program order); p1's first f1
// must land after that R3 (else R3 would see ⊤ and block); p1 puts its first
// index to p3 after that f1 (program order); p3 reads it before putting its
// first letter; p4 reads that letter (Dσ) before its first R3 on g1; and
// that R3 must come before p2's first flag lands (else it would see ⊤):
// under SC, where a put's write lands before its thread goes on, this is a
// cycle. Under RDMA p2's flag simply waits in its queue pair while p2 goes
// on. Every generated program therefore carries expect sc forbidden, and
// expect rdma allowed or forbidden as the instance is solvable or not.
//
// # Deviations from the paper's appendix code
//
//   - Processes 2 and 3, main routine lines 4-6, read assume(f = ⊤);
//     assume(f = ⊥); f := ⊤. As written they can never complete an iteration
//     (once f is ⊤ nobody writes ⊥ to it), so the program could never
//     terminate. This generator uses the order of process 4 (lines 4-6 and
//     9-11) and of the protocol's description in section 3: assume(f = ⊥);
//     assume(f = ⊤); f := ⊥.
//   - Process 3, subroutine Ci, ends with f̄2 := ⊤; f2 is process 3's own
//     register, and the flag that follows each letter is ḡ2 (as in process
//     2's Bi, which ends with ḡ1 := ⊤). This generator puts ḡ2 := ⊤.
//   - A+ is written A; loop { A } (the format has only * loops).
//   - The question "do all four processes terminate" is asked as a reach
//     query on the four threads' end (FORMAT.md's T@end), rather than as
//     reachability of a final configuration; the two agree here (p4 can only
//     end after every put of p2 and p3 and, through them, of p1 has arrived).
func (p *PCP) Program() []byte {
	n := len(p.Pairs)
	alpha := p.Alphabet()
	lv := p.letterValues()
	idxEnd, letEnd := n+1, len(alpha)+1
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by rdmasim/corpus/reduce from PCP instance %s: the reduction of the seed\n", p.Name)
	b.WriteString("# paper, section 3 and appendix \"Program Code for the Undecidability Proof\" (PCP to RDMA\n")
	b.WriteString("# reachability). p1 guesses indices and sends them to p2 and p3, which send the letters\n")
	b.WriteString("# of the top and bottom words to p4, which compares them; every channel runs the\n")
	b.WriteString("# alternating-bit handshake. All four threads can end iff the instance has a solution.\n")
	b.WriteString("# pairs:")
	for i, pr := range p.Pairs {
		fmt.Fprintf(&b, " %d=%s/%s", i+1, pr.U, pr.V)
	}
	fmt.Fprintf(&b, "\n# values: flags and empty registers 0, top 1; indices 1..%d, end %d; letters", n, idxEnd)
	for _, c := range alpha {
		fmt.Fprintf(&b, " %c=%d", c, lv[c])
	}
	fmt.Fprintf(&b, ", end %d\n", letEnd)
	fmt.Fprintf(&b, "litmus pcp-%s\n", p.Name)
	fmt.Fprintf(&b, "\"PCP %s: %d pairs over {%s}\"\n", p.Name, n, strings.Join(strings.Split(string(alpha), ""), ","))

	// Nodes: registers and read-only constants.
	b.WriteString("node n1 {")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, " idx%d = %d;", i, i)
	}
	fmt.Fprintf(&b, " top1 = 1; end1 = %d }\n", idxEnd)
	for node := 2; node <= 3; node++ {
		ch := node - 1
		fmt.Fprintf(&b, "node n%d { x%d = 0; f%d = 0;", node, ch, ch)
		for _, c := range alpha {
			fmt.Fprintf(&b, " L%d%c = %d;", node, c, lv[c])
		}
		fmt.Fprintf(&b, " top%d = 1; end%d = %d }\n", node, node, letEnd)
	}
	b.WriteString("node n4 { y1 = 0; g1 = 0; y2 = 0; g2 = 0 }\n")

	// p1: (A1 + ... + AN)+; x̄1 := #; x̄2 := #.
	b.WriteString("\nthread p1 on n1 {\n")
	var as []string
	for i := 1; i <= n; i++ {
		as = append(as, fmt.Sprintf("x1 := idx%d; f1 := top1; x2 := idx%d; f2 := top1", i, i))
	}
	plus(&b, "  ", "(A1 + ... + AN)+, Ai: send index i to p2, then to p3", as, nil)
	b.WriteString("  x1 := end1\n  x2 := end1\n}\n")

	// p2, p3: (B1 + ... + BN; handshake)+; final checks; ȳ := #.
	for node := 2; node <= 3; node++ {
		ch := node - 1
		fmt.Fprintf(&b, "\nthread p%d on n%d {\n", node, node)
		var bs []string
		for i, pr := range p.Pairs {
			w := pr.U
			if node == 3 {
				w = pr.V
			}
			stmts := []string{fmt.Sprintf("assume(x%d == %d)", ch, i+1)}
			for j := 0; j < len(w); j++ {
				stmts = append(stmts, fmt.Sprintf("y%d := L%d%c; g%d := top%d", ch, node, w[j], ch, node))
			}
			bs = append(bs, strings.Join(stmts, "; "))
		}
		word := "top word U"
		if node == 3 {
			word = "bottom word V"
		}
		hs := handshake(fmt.Sprintf("x%d", ch), fmt.Sprintf("f%d", ch))
		plus(&b, "  ", fmt.Sprintf("(B1 + ... + BN; handshake on x%d, f%d)+, Bi: index i received, send the letters of the %si to p4", ch, ch, word), bs, hs)
		fmt.Fprintf(&b, "  assume(x%d == %d)    # F1: the end marker\n", ch, idxEnd)
		fmt.Fprintf(&b, "  assume(f%d == 0)    # F2: no unread message\n", ch)
		fmt.Fprintf(&b, "  y%d := end%d\n}\n", ch, node)
	}

	// p4: (Dσ1 + ... + Dσk; handshake 1; handshake 2)+; final checks.
	b.WriteString("\nthread p4 on n4 {\n")
	var ds []string
	for _, c := range alpha {
		ds = append(ds, fmt.Sprintf("assume(y1 == %d); assume(y2 == %d)", lv[c], lv[c]))
	}
	hs := append(handshake("y1", "g1"), handshake("y2", "g2")...)
	plus(&b, "  ", "(Dσ1 + ... + Dσk; handshake on y1, g1; handshake on y2, g2)+, Dσ: both letters received are σ", ds, hs)
	fmt.Fprintf(&b, "  assume(y1 == %d)\n  assume(g1 == 0)\n  assume(y2 == %d)\n  assume(g2 == 0)\n}\n", letEnd, letEnd)

	b.WriteString("\nreach p1@end /\\ p2@end /\\ p3@end /\\ p4@end\n")
	switch p.Expect {
	case ExpectYes:
		b.WriteString("# the instance is solvable: some RDMA run ends every thread\nexpect rdma allowed\n")
	case ExpectNo:
		b.WriteString("# the instance is unsolvable: no RDMA run ends every thread\nexpect rdma forbidden\n")
	}
	b.WriteString("# under SC no run ends every thread, whatever the instance (see the generator's comment)\nexpect sc forbidden\n")
	return []byte(b.String())
}

// handshake returns the receiver's statements R2..R6 for message register m
// and flag r (see PCP.Program).
func handshake(m, r string) []string {
	return []string{
		m + " := 0",
		fmt.Sprintf("assume(%s == 0)", r),
		fmt.Sprintf("assume(%s == 1)", r),
		r + " := 0",
		fmt.Sprintf("assume(%s == 0)", m),
	}
}

// plus writes (choose { alts[0] } or ...; tail)+ as the body once, then
// loop { body }, indented by ind, with a comment.
func plus(b *strings.Builder, ind, comment string, alts, tail []string) {
	fmt.Fprintf(b, "%s# %s\n", ind, comment)
	body := func(ind string) {
		if len(alts) == 1 {
			fmt.Fprintf(b, "%s%s\n", ind, alts[0])
		} else {
			for i, a := range alts {
				kw := "or    "
				if i == 0 {
					kw = "choose"
				}
				fmt.Fprintf(b, "%s%s { %s }\n", ind, kw, a)
			}
		}
		if len(tail) > 0 {
			fmt.Fprintf(b, "%s%s\n", ind, strings.Join(tail, "; "))
		}
	}
	body(ind)
	fmt.Fprintf(b, "%sloop {\n", ind)
	body(ind + "  ")
	fmt.Fprintf(b, "%s}\n", ind)
}
