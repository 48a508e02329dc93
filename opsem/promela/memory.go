package promela

import (
	"fmt"
	"strings"

	"rdmasim/opsem/prog"
)

// memory declares the locations and the accessors the NIC rules use.
func (g *gen) memory() {
	if g.sc {
		g.f("/* Locations: m_NAME is the value of NAME. */\n")
	} else {
		g.f("/* Locations: m_NAME is the value of NAME, L_NAME its index in buffer entries. */\n")
		for l := range g.p.Locs {
			if !g.p.Locs[l].Reg { // no buffer entry names a register
				g.f("#define %s %d\n", g.locID(l), l)
			}
		}
	}
	for l, loc := range g.p.Locs {
		node := g.p.Nodes[loc.Node].Name
		if loc.Reg {
			continue // declared with its thread (see registers)
		}
		if g.dead[l] {
			g.f("/* %s on %s: dead (nothing reads it, no outcome shows it), not stored */\n", loc.Name, node)
			continue
		}
		g.f("byte %s = %d;\t/* on %s */\n", g.loc(l), loc.Init, node)
	}
	g.f("\n")
	if g.sc {
		return
	}
	// The NIC rules read and write locations named by buffer entries.
	var loads, stores []int
	for t := range g.p.Threads {
		for _, in := range g.p.Threads[t].Code {
			switch in.Op {
			case prog.OpPut:
				for i := range nwords(&in) { // every word of a multi-word put
					loads = appendOnce(loads, in.X+i)
					if !g.dead[in.Y+i] {
						stores = appendOnce(stores, in.Y+i)
					}
				}
			case prog.OpGet:
				for i := range nwords(&in) {
					loads = appendOnce(loads, in.Y+i)
					if !g.dead[in.X+i] {
						stores = appendOnce(stores, in.X+i)
					}
				}
			case prog.OpRCAS, prog.OpRFAA:
				loads = appendOnce(loads, in.Y)
				stores = appendOnce(stores, in.Y) // read by the atomic: never dead
				if !g.dead[in.X] {
					stores = appendOnce(stores, in.X)
				}
			}
		}
	}
	if len(loads) > 0 {
		g.f("/* val = the value of location loc (for the NIC's reads). */\n")
		g.f("inline load(loc, val) {\n\tif\n")
		for _, l := range loads {
			g.f("\t:: loc == %s -> val = %s\n", g.locID(l), g.loc(l))
		}
		g.f("\tfi\n}\n\n")
	}
	if len(loads)+len(stores) > 0 {
		g.f("/* location loc := val (for the NIC's writes; dead locations stay unchanged). */\n")
		g.f("inline store(loc, val) {\n\tif\n")
		for _, l := range stores {
			g.f("\t:: loc == %s -> %s = val\n", g.locID(l), g.loc(l))
		}
		g.f("\t:: else\n\tfi\n}\n\n")
	}
}

// bufNames are the five buffers of a queue pair, in pipeline order.
var bufNames = [...]string{"b1", "b2", "b3", "rw", "lw"}

// countAcks reports whether the model keeps the number of ACKs in B3, for
// the in-flight count of the max-inflight bound.
func (q *qpInfo) countAcks() bool { return q.bounded && q.capRW > 0 }

func (q *qpInfo) caps() [5]int { return [5]int{q.cap1, q.cap2, q.cap3, q.capRW, q.capLW} }

// buffers declares the entry type, the buffer helpers and every queue pair.
func (g *gen) buffers() {
	if len(g.qps) == 0 {
		return
	}
	field, move, zero := g.wordsPop()
	g.f(`/*
 * Buffer entries (E). B1: PUT(a=y, b=x), GET(a=x, b=y), FENCE. B2: PUTV(a=y,
 * b=value), GETREQ(a=x, b=y). RW and LW (kind 0): a NIC write of location
 * a := b. B3 (E3): ACK, GETR(a=x, b=y) not read yet, GETRV(a=x, b=y, v=value).
 * rank: the operation's position among its queue pair's unpolled puts and
 * gets, NORANK when no future poll can wait for it (fences, and operations
 * past the polls left).
 */
mtype = { PUT, GET, FENCE, PUTV, GETREQ, ACK, GETR, GETRV };
typedef E { mtype kind; byte a; byte b; byte rank%[2]s }
typedef E3 { mtype kind; byte a; byte b; byte v; byte rank }
#define NORANK %[1]d
hidden byte i, ta, tb, tr;	/* scratch of d_steps, not part of the state */

/* Append an entry to buffer buf of length n. */
#define push(buf, n, k, x, y, rk) buf[n].kind = k; buf[n].a = x; buf[n].b = y; buf[n].rank = rk; n++
#define push3(buf, n, k, x, y, rk) push(buf, n, k, x, y, rk)	/* v of a free slot is 0 */
/* Remove the head of buf, shift, and zero the freed slot. */
#define pop(buf, n) \
	i = 1; \
	do \
	:: i < n -> buf[i-1].kind = buf[i].kind; buf[i-1].a = buf[i].a; buf[i-1].b = buf[i].b; buf[i-1].rank = buf[i].rank;%[3]s i++ \
	:: else -> break \
	od; \
	n--; buf[n].kind = 0; buf[n].a = 0; buf[n].b = 0; buf[n].rank = 0%[4]s
#define pop3(buf, n) \
	i = 1; \
	do \
	:: i < n -> buf[i-1].kind = buf[i].kind; buf[i-1].a = buf[i].a; buf[i-1].b = buf[i].b; buf[i-1].v = buf[i].v; buf[i-1].rank = buf[i].rank; i++ \
	:: else -> break \
	od; \
	n--; buf[n].kind = 0; buf[n].a = 0; buf[n].b = 0; buf[n].v = 0; buf[n].rank = 0
/*
 * A poll: every ranked entry moves one place closer to the next poll.
 * (decr and forget end in i = 0: a d_step must not end in a loop, whose
 * break SPIN 6.5.2 would compile to a missing label.)
 */
#define decr(buf, n) \
	i = 0; \
	do \
	:: i < n -> if :: buf[i].rank != NORANK && buf[i].rank > 0 -> buf[i].rank-- :: else fi; i++ \
	:: else -> break \
	od; \
	i = 0
/* At most left polls remain: entries of rank >= left lose their rank. */
#define forget(buf, n, left) \
	i = 0; \
	do \
	:: i < n -> if :: buf[i].rank != NORANK && buf[i].rank >= left -> buf[i].rank = NORANK :: else fi; i++ \
	:: else -> break \
	od; \
	i = 0

`, noRank, field, move, zero)
	if g.words() {
		g.wordsDecls()
	}
	if len(g.atoms) > 0 {
		g.atomicDecls()
	}
	if g.fenced() {
		g.f("/* Fenced work requests in B1 (SEMANTICS-VERBS.md 4): PUT, GET, ATOM with the fence flag. */\nmtype = { PUTF, GETF, ATOMF };\n")
	}
	if g.inlined() {
		g.inlineDecls()
	}
	for qi := range g.qps {
		q := &g.qps[qi]
		g.f("/* Queue pair %s: %s (%s, %s, %s, %s). */\n", q.name, g.qpString(qi),
			plural(q.puts, "put"), plural(q.gets, "get"), plural(q.fences, "fence"), plural(q.polls, "poll"))
		for b, c := range q.caps() {
			if c > 0 {
				typ := "E"
				if b == 2 {
					typ = "E3"
				}
				g.f("%s %s_%s[%d]; byte %s_n%s;\n", typ, q.name, bufNames[b], c, q.name, bufNames[b])
			}
		}
		if q.countAcks() {
			g.f("byte %s_acks;\t/* ACKs in B3 (derived, for the in-flight count) */\n", q.name)
		}
		g.f("byte %s_npend;\t/* puts and gets submitted and not yet polled */\n", q.name)
		var terms []string
		for b, c := range q.caps() {
			if c > 0 {
				terms = append(terms, fmt.Sprintf("%s_n%s", q.name, bufNames[b]))
			}
		}
		if q.bounded {
			// machine's qstate.inflight: a put past N4 may sit in RW and
			// as an ACK in B3 at once; it is counted once.
			infl := strings.Join(terms, " + ")
			if q.countAcks() {
				infl += fmt.Sprintf(" - (%s_acks < %s_nrw -> %s_acks : %s_nrw)", q.name, q.name, q.name, q.name)
			}
			if q.words > 1 {
				infl = g.wordsInflight(q) // a work request counts once, not each word
			}
			g.f("#define %s_inflight (%s)\n", q.name, infl)
		}
		if q.polls > 0 {
			// machine's qstate.oldestPending: the oldest unpolled operation is
			// still in B1, B2, B3 or LW.
			var pend []string
			for _, b := range []int{0, 1, 2, 4} {
				for s := 0; s < q.caps()[b]; s++ {
					pend = append(pend, fmt.Sprintf("%s_n%s > %d && %s_%s[%d].rank == 0", q.name, bufNames[b], s, q.name, bufNames[b], s))
				}
			}
			if len(pend) == 0 {
				pend = append(pend, "false") // a poll without puts or gets blocks
			}
			g.f("#define %s_pending (%s)\n", q.name, strings.Join(pend, " || "))
		}
		g.f("\n")
	}
}
