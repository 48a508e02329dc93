/*
 * The ticket lock of corpus/protocols/ticket-lock-regs.rdma (N clients, 2 by default), under SC, one step per
 * event, with its registers my, cur and x as locals of the client, written by hand for SPIN to compare state
 * counts with `rdmasim explore --semantics sc` on the lock lowered with its registers kept at run time (issue 27;
 * docs/PROTOCOLS.md, "Registers at run time").
 *
 * Each client i: t[i] := rfaa(next, 1); poll; my := t[i]; s[i] := serving; poll; cur := s[i];
 * while (cur != my) { s[i] := serving; poll; cur := s[i] }; d[i] := D; poll; x := d[i]; v[i] := x + 1;
 * D := v[i]; poll; n[i] := my + 1; serving := n[i]; poll.
 *
 * Steps are those of rdmasim's SC machine, each an atomic sequence, as in ticket-lock-spin.pml: a remote
 * operation is two steps (its remote and its local event; the fetch-and-add's read and write at the target are
 * one atomic step), a poll one, a load of a location into a register one (lR), a store of a register
 * expression into a location one (lW). The value a two-step operation carries waits in r (reset to 0 after
 * use, as the machine resets its own); np[i] counts the client's unpolled operations. The registers keep their
 * values to the end, as the lowering leaves them. The loop test reads registers only: it makes no step of its
 * own but opens the step of the event after it (rdmasim runs it within the step that reaches it, as a d_step;
 * its machine's loop head stays a silent step, which the do here folds). No value reaches 255: the error
 * points of x + 1 and my + 1 are left out. The query exists ~(D = N) is the assertion at the end.
 *
 *   spin -a ticket-lock-regs.pml && gcc -O2 -w -o pan pan.c && ./pan
 *   (SPIN 6.5.2: 599 states, stored; errors: 0)
 *   spin -DN=3 -a ticket-lock-regs.pml && gcc -O2 -w -o pan pan.c && ./pan
 *   (SPIN 6.5.2: 23559 states, stored; errors: 0)
 *
 * Against `rdmasim explore --semantics sc corpus/protocols/ticket-lock-regs.rdma`: 627 configurations at N = 2
 * (1.05x), 27,616 with --param N=3 (1.17x); the model rdmasim exports (`rdmasim export --promela --semantics sc`)
 * stores exactly the machine's 627 and 27,616. What is left between them: the machine's loop head of
 * while (cur != my) is a silent step of its own, which the do here folds into the step after the test.
 */
#ifndef N
#define N 2
#endif

byte next, serving, D;
byte t[N], s[N], d[N], v[N], n[N];
byte np[N];

proctype client(byte i) {
	byte r;                                     /* the value a two-step operation carries */
	byte my, cur, x;                            /* the registers */
	atomic { r = next; next = next + 1 }        /* naR(next) naW(next) */
	atomic { t[i] = r; r = 0; np[i]++ }         /* nlW(t[i]) */
	atomic { np[i] > 0 -> np[i]-- }             /* poll(S) */
	atomic { my = t[i] }                        /* lR(t[i]) */
	atomic { r = serving }                      /* nrR(serving) */
	atomic { s[i] = r; r = 0; np[i]++ }         /* nlW(s[i]) */
	atomic { np[i] > 0 -> np[i]-- }             /* poll(S) */
	atomic { cur = s[i] }                       /* lR(s[i]) */
	do
	:: atomic { cur != my -> r = serving }      /* iterate; nrR(serving) */
		atomic { s[i] = r; r = 0; np[i]++ }     /* nlW(s[i]) */
		atomic { np[i] > 0 -> np[i]-- }         /* poll(S) */
		atomic { cur = s[i] }                   /* lR(s[i]) */
	:: atomic { cur == my -> r = D }            /* leave; nrR(D) */
		break
	od;
	atomic { d[i] = r; r = 0; np[i]++ }         /* nlW(d[i]) */
	atomic { np[i] > 0 -> np[i]-- }             /* poll(S) */
	atomic { x = d[i] }                         /* lR(d[i]) */
	atomic { v[i] = x + 1 }                     /* lW(v[i]) */
	atomic { r = v[i] }                         /* nlR(v[i]) */
	atomic { D = r; r = 0; np[i]++ }            /* nrW(D) */
	atomic { np[i] > 0 -> np[i]-- }             /* poll(S) */
	atomic { n[i] = my + 1 }                    /* lW(n[i]) */
	atomic { r = n[i] }                         /* nlR(n[i]) */
	atomic { serving = r; r = 0; np[i]++ }      /* nrW(serving) */
	atomic { np[i] > 0 -> np[i]-- }             /* poll(S) */
}

init {
	byte i;
	atomic { for (i : 0 .. N-1) { run client(i) }; i = 0 }
	_nr_pr == 1 -> assert(D == N)
}
