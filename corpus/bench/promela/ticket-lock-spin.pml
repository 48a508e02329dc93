/*
 * The spinning ticket lock of corpus/protocols/ticket-lock-spin.rdma (N = 2), under SC, one step per event,
 * written by hand for SPIN, to compare state counts with `rdmasim explore --semantics sc` (issue 27).
 *
 * Each client i: t[i] := rfaa(next, 1); poll; s[i] := serving; poll; while (s[i] != t[i]) { s[i] := serving;
 * poll }; d[i] := D; poll; v[i] := d[i] + 1; D := v[i]; poll; n[i] := t[i] + 1; serving := n[i]; poll.
 *
 * Steps are those of rdmasim's SC machine, each an atomic sequence: a remote operation is two steps (its
 * remote and its local event; the fetch-and-add's read and write at the target are one atomic step), a poll
 * one, a local read or write one. The value a two-step operation carries waits in r (reset to 0 after use, as
 * the machine resets its register); np[i] counts the client's unpolled operations. A read dispatches on the
 * value it reads in the same step (as rdmasim's switch): the loop test reads s[i], then reads t[i] and leaves
 * or iterates. The machine's loop head is a silent step of its own; here the do folds it into the test. The
 * query exists ~(D = 2) is the assertion at the end.
 *
 *   spin -a ticket-lock-spin.pml && gcc -O2 -w -o pan pan.c && ./pan
 *   (SPIN 6.5.2: 585 states, stored; errors: 0)
 */
#define N 2

byte next, serving, D;
byte t[N], s[N], d[N], v[N], n[N];
byte np[N];

proctype client(byte i) {
	byte r;
	atomic { r = next; next = next + 1 }        /* naR(next) naW(next) */
	atomic { t[i] = r; r = 0; np[i]++ }         /* nlW(t[i]) */
	atomic { np[i] > 0 -> np[i]-- }             /* poll(S) */
	atomic { r = serving }                      /* nrR(serving) */
	atomic { s[i] = r; r = 0; np[i]++ }         /* nlW(s[i]) */
	atomic { np[i] > 0 -> np[i]-- }             /* poll(S) */
	do
	:: atomic { r = s[i] }                      /* lR(s[i]) */
		if
		:: atomic { t[i] != r -> r = 0 }        /* lR(t[i]): iterate */
			atomic { r = serving }              /* nrR(serving) */
			atomic { s[i] = r; r = 0; np[i]++ } /* nlW(s[i]) */
			atomic { np[i] > 0 -> np[i]-- }     /* poll(S) */
		:: atomic { t[i] == r -> r = 0 }        /* lR(t[i]): leave */
			break
		fi
	od;
	atomic { r = D }                            /* nrR(D) */
	atomic { d[i] = r; r = 0; np[i]++ }         /* nlW(d[i]) */
	atomic { np[i] > 0 -> np[i]-- }             /* poll(S) */
	atomic { r = d[i] }                         /* lR(d[i]) */
	atomic { v[i] = r + 1; r = 0 }              /* lW(v[i]) */
	atomic { r = v[i] }                         /* nlR(v[i]) */
	atomic { D = r; r = 0; np[i]++ }            /* nrW(D) */
	atomic { np[i] > 0 -> np[i]-- }             /* poll(S) */
	atomic { r = t[i] }                         /* lR(t[i]) */
	atomic { n[i] = r + 1; r = 0 }              /* lW(n[i]) */
	atomic { r = n[i] }                         /* nlR(n[i]) */
	atomic { serving = r; r = 0; np[i]++ }      /* nrW(serving) */
	atomic { np[i] > 0 -> np[i]-- }             /* poll(S) */
}

init {
	atomic { run client(0); run client(1) }
	_nr_pr == 1 -> assert(D == 2)
}
