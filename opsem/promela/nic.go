package promela

import (
	"fmt"
	"strings"
)

// hasNIC reports whether some queue pair has NIC rules (puts, gets or
// fences).
func (g *gen) hasNIC() bool {
	for qi := range g.qps {
		if g.qps[qi].cap1 > 0 {
			return true
		}
	}
	return false
}

// fenced reports whether some instruction of the program is marked fenced.
func (g *gen) fenced() bool {
	for t := range g.p.Threads {
		for _, in := range g.p.Threads[t].Code {
			if in.Fenced {
				return true
			}
		}
	}
	return false
}

// noReadsPending returns the condition that no get or atomic of queue
// pair q that has left B1 is pending (machine.qstate.readsPending false):
// LW empty, no request in B2, no response in B3.
func (g *gen) noReadsPending(q *qpInfo) string {
	n := q.name
	var c []string
	if q.capLW > 0 {
		c = append(c, n+"_nlw == 0")
	}
	kinds2, kinds3 := []string{"GETREQ"}, []string{"GETR", "GETRV"}
	if len(g.atoms) > 0 {
		kinds2, kinds3 = append(kinds2, "ATOMREQ"), append(kinds3, "ATOMR", "ATOMRH")
	}
	slots := func(b string, capacity int, kinds []string) {
		for s := 0; s < capacity; s++ {
			var k []string
			for _, kind := range kinds {
				k = append(k, fmt.Sprintf("%s_%s[%d].kind == %s", n, b, s, kind))
			}
			c = append(c, fmt.Sprintf("!(%s_n%s > %d && (%s))", n, b, s, strings.Join(k, " || ")))
		}
	}
	slots("b2", q.cap2, kinds2)
	slots("b3", q.cap3, kinds3)
	if len(c) == 0 {
		return "true"
	}
	return "(" + strings.Join(c, " && ") + ")"
}

// nic writes the process of the NIC rules of every queue pair.
func (g *gen) nic() {
	g.f("/* The NIC rules of every queue pair, one d_step each (machine.enabledNIC). */\n")
	g.f("active proctype nic() {\n\tdo\n")
	for qi := range g.qps {
		q := &g.qps[qi]
		n := q.name
		g.f("\t/* %s: %s */\n", n, g.qpString(qi))
		head := func(b, kind string) string { return fmt.Sprintf("%s_n%s > 0 && %s_%s[0].kind == %s", n, b, n, b, kind) }
		take := func(b string) string {
			val, rank, pop := "b", fmt.Sprintf(" tr = %s_%s[0].rank;", n, b), "pop"
			switch b {
			case "rw":
				rank = ""
			case "b3":
				val, pop = "v", "pop3"
			}
			return fmt.Sprintf("ta = %s_%s[0].a; tb = %s_%s[0].%s;%s%s %s(%s_%s, %s_n%s)", n, b, n, b, val, rank, g.wordsTake(q, b), pop, n, b, n, b)
		}
		// A fenced entry (PUTF, GETF, ATOMF) leaves B1 as its kind does,
		// and only when no earlier get or atomic is pending
		// (machine.readsPending).
		b1 := func(kind string) string {
			if !g.fenced() {
				return head("b1", kind)
			}
			return fmt.Sprintf("(%s || %s && %s)", head("b1", kind), head("b1", kind+"F"), g.noReadsPending(q))
		}
		if q.puts > 0 {
			guard := b1("PUT")
			if q.capLW > 0 {
				guard += fmt.Sprintf(" && %s_nlw == 0", n)
			}
			if q.words > 1 {
				g.wordsN1(q, guard, take("b1")) // one word per step
			} else {
				g.step(guard, "N1 put reads its source (B1 -> B2)", []string{take("b1"), "load(tb, tb)", fmt.Sprintf("push(%s_b2, %s_nb2, PUTV, ta, tb, tr)", n, n)})
			}
		}
		if g.inlineOn(qi) {
			g.inlineN1(q, b1("PUTI"), take("b1"))
		}
		if len(q.atoms) > 0 {
			g.step(b1("ATOM"), "N2 atomic request leaves (B1 -> B2)", []string{take("b1"), fmt.Sprintf("push(%s_b2, %s_nb2, ATOMREQ, ta, tb, tr)", n, n)})
		}
		if q.gets > 0 {
			g.step(b1("GET"), "N2 get request leaves (B1 -> B2)", append([]string{take("b1"), fmt.Sprintf("push(%s_b2, %s_nb2, GETREQ, ta, tb, tr)", n, n)}, g.wordsCarry(q, "b2")...))
		}
		if q.fences > 0 {
			guard := head("b1", "FENCE")
			if q.cap2 > 0 {
				guard += fmt.Sprintf(" && %s_nb2 == 0 && %s_nb3 == 0", n, n)
			}
			g.step(guard, "N3 fence", []string{fmt.Sprintf("pop(%s_b1, %s_nb1)", n, n)})
		}
		if q.puts > 0 {
			eff := []string{take("b2")}
			if q.capRW > 0 {
				push := fmt.Sprintf("push(%s_rw, %s_nrw, 0, ta, tb, 0)", n, n)
				if len(q.deadDsts) > 0 {
					var c []string
					for _, l := range q.deadDsts {
						c = append(c, "ta != "+g.locID(l))
					}
					// machine.applyNIC drops dead remote writes on queue pairs without gets.
					push = fmt.Sprintf("if :: %s -> %s :: else fi", strings.Join(c, " && "), push)
				}
				eff = append(eff, push)
			}
			if q.countAcks() {
				eff = append(eff, n+"_acks++")
			}
			eff = append(eff, fmt.Sprintf("push3(%s_b3, %s_nb3, ACK, 0, 0, tr)", n, n))
			if q.words > 1 {
				eff = g.wordsN4(q) // every word at once
			}
			g.step(head("b2", "PUTV"), "N4 put arrives (B2 -> RW, ACK -> B3)", eff)
		}
		if q.gets > 0 {
			eff := []string{take("b2"), fmt.Sprintf("push3(%s_b3, %s_nb3, GETR, ta, tb, tr)", n, n)}
			if q.words > 1 {
				eff = g.wordsN5(q, take("b2")) // a group of unread words
			}
			g.step(head("b2", "GETREQ"), "N5 get request arrives (B2 -> B3)", eff)
			for s := 0; s < q.cap3; s++ {
				guard := fmt.Sprintf("%s_nb3 > %d && %s_b3[%d].kind == GETR", n, s, n, s)
				if q.capRW > 0 {
					guard += fmt.Sprintf(" && %s_nrw == 0", n)
				}
				eff := []string{fmt.Sprintf("%s_b3[%d].kind = GETRV", n, s), fmt.Sprintf("load(%s_b3[%d].b, %s_b3[%d].v)", n, s, n, s)}
				g.step(guard, fmt.Sprintf("N6 get reads remote memory (B3 slot %d)", s), eff)
			}
		}
		if len(q.atoms) > 0 {
			g.atomicRules(qi, take)
		}
		if q.puts > 0 {
			eff := []string{fmt.Sprintf("pop3(%s_b3, %s_nb3)", n, n)}
			if q.countAcks() {
				eff = append(eff, n+"_acks--")
			}
			g.step(head("b3", "ACK"), "N7 put acknowledged (complete)", eff)
		}
		if q.gets > 0 || len(q.atoms) > 0 {
			guard, eff := head("b3", "GETRV"), []string{take("b3"), fmt.Sprintf("push(%s_lw, %s_nlw, 0, ta, tb, tr)", n, n)}
			if q.words > 1 {
				guard, eff = g.wordsN8(q, take) // or a group, whole
			}
			g.step(guard, "N8 get returns (B3 -> LW)", eff)
		}
		if q.capRW > 0 && q.words > 1 {
			g.wordsPlace(q, "rw", "F1 remote write reaches memory") // or a word of a group
		} else if q.capRW > 0 {
			g.step(fmt.Sprintf("%s_nrw > 0", n), "F1 remote write reaches memory", []string{take("rw"), "store(ta, tb)"})
		}
		if (q.gets > 0 || len(q.atoms) > 0) && q.words > 1 {
			g.wordsPlace(q, "lw", "F2 local write of a get reaches memory (complete)")
		} else if q.gets > 0 || len(q.atoms) > 0 {
			g.step(fmt.Sprintf("%s_nlw > 0", n), "F2 local write of a get reaches memory (complete)", []string{take("lw"), "store(ta, tb)"})
		}
	}
	g.f("\tod\n}\n\n")
}
