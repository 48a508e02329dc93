package syntax

import (
	"strings"
)

// A statement starts with a keyword or with the location an assignment
// writes. A name that is followed by neither ':=' nor '=' is therefore no
// statement at all, and the likeliest cause is a word from another language
// or library (fence, flush, wait, nop) or a misspelt keyword (pol, asume).
// statementHint names the statements of the format the user may have meant,
// so that the message says "did you mean rfence(B) or poll(B)?" rather than
// "expected ':='".

// statementSynonyms maps words that other memory-model tools, the verbs
// API and common languages use for a statement, lower-cased, to the
// statements of the format that do that job (keys of statementForms).
var statementSynonyms = map[string][]string{
	// Fences: an rfence orders a thread's operations towards one node.
	"fence": {"rfence"}, "mfence": {"rfence"}, "sfence": {"rfence"}, "lfence": {"rfence"},
	"barrier": {"rfence"}, "sync": {"rfence"}, "dmb": {"rfence"}, "remote_fence": {"rfence"},
	// flush: wait for the operations to complete (poll) or order them (rfence).
	"flush": {"rfence", "poll"},
	// Completions are waited for with poll.
	"wait": {"poll"}, "await": {"poll"}, "poll_cq": {"poll"}, "pollcq": {"poll"}, "wait_cq": {"poll"},
	"complete": {"poll"}, "completion": {"poll"},
	// Waiting for every operation of the thread, delivered: quiet
	// (OpenSHMEM's shmem_quiet, MPI's MPI_Win_flush_all).
	"shmem_quiet": {"quiet"}, "flush_all": {"quiet"}, "win_flush_all": {"quiet"}, "mpi_win_flush_all": {"quiet"},
	// Remote writes and reads are assignments, decided by ownership.
	"put": {"put"}, "write": {"put"}, "rdma_write": {"put"}, "send": {"put"},
	"get": {"get"}, "read": {"get"}, "rdma_read": {"get"}, "recv": {"get"},
	"nop": {"skip"}, "noop": {"skip"}, "pass": {"skip"},
	"require": {"assume", "assert"}, "when": {"assume", "if"}, "guard": {"assume"}, "check": {"assert"},
	"cmpxchg": {"cas"}, "compare_and_swap": {"cas"}, "atomic_cas": {"cas"},
	"repeat": {"while", "loop"}, "do": {"while", "loop"}, "until": {"while"}, "foreach": {"for"},
	"elif": {"if"}, "elsif": {"if"}, "elseif": {"if"},
	"choice": {"choose"}, "select": {"choose"}, "either": {"choose"}, "nondet": {"choose"},
}

// statementKeywords are the keywords that start a statement, in the order
// hints list them: the core's, then the protocol language's.
var statementKeywords = []string{"skip", "assume", "rfence", "poll", "quiet", "choose", "loop", "while", "if", "for", "assert", "break"}

// statementList names the statements, for a message about a word that
// starts none.
const statementList = "statements are skip, assignments x := ..., assume, assert, rfence, poll, quiet, choose, loop, while, if, for, break and calls of procedures"

// statementForm prints statement s (a keyword, or put, get, cas) as the
// user would write it; arg names the node of rfence and poll.
func statementForm(s, arg string) string {
	switch s {
	case "assume":
		return "assume(x == v)"
	case "rfence", "poll":
		return s + "(" + arg + ")"
	case "choose":
		return "choose { A } or { B }"
	case "loop":
		return "loop { A }"
	case "while":
		return "while (cond) { A }"
	case "if":
		return "if (cond) { A } else { B }"
	case "for":
		return "for k in lo..hi { A }"
	case "assert":
		return "assert(cond)"
	case "put":
		return "a put y := x (y on the remote node, x on the thread's)"
	case "get":
		return "a get x := y (x on the thread's node, y on the remote one)"
	case "cas":
		return "x := cas(z, a, b)"
	}
	return s
}

// statementHint returns "did you mean ...?" for word, a name found where a
// statement starts but not followed by ':=', or "" when no statement is
// near it. arg is the name written in parentheses after word, if any, used
// as the node of a suggested rfence or poll ("m" otherwise).
func statementHint(word, arg string) string {
	if arg == "" {
		arg = "m"
	}
	lower := strings.ToLower(word)
	stmts := statementSynonyms[lower]
	if stmts == nil {
		stmts = nearestKeywords(lower)
	}
	if len(stmts) == 0 {
		return ""
	}
	forms := make([]string, len(stmts))
	for i, s := range stmts {
		forms[i] = statementForm(s, arg)
	}
	return "did you mean " + strings.Join(forms, " or ") + "?"
}

// nearestKeywords returns the statement keywords closest to word in edit
// distance, if close enough to be a misspelling: one edit for words of up
// to four letters, two for longer ones (so that pol, Skip, asume and rfenc
// find theirs, and x or foo nothing).
func nearestKeywords(word string) []string {
	limit := 1
	if len(word) > 4 {
		limit = 2
	}
	best := limit + 1
	var out []string
	for _, kw := range statementKeywords {
		d := editDistance(word, kw)
		if len(kw) < 4 && d > 0 {
			if !shortTypo(word, kw) {
				continue
			}
			d = 1 // a swap counts as one edit
		}
		switch {
		case d > limit:
		case d < best:
			best, out = d, []string{kw}
		case d == best:
			out = append(out, kw)
		}
	}
	return out
}

// shortTypo reports whether word is a typo of kw, a keyword of fewer than
// four letters (if, for), that changes no letter: one letter more or less
// (iff, fr), or two letters swapped (fro, fi). A changed letter makes
// another word of its own (foo is no for).
func shortTypo(word, kw string) bool {
	if len(word) != len(kw) {
		return editDistance(word, kw) == 1
	}
	for i := 0; i+1 < len(word); i++ {
		if word[i] != kw[i] {
			return word[i] == kw[i+1] && word[i+1] == kw[i] && word[i+2:] == kw[i+2:]
		}
	}
	return false
}

// editDistance is the Levenshtein distance between a and b (insertions,
// deletions and substitutions of bytes), by the two-row dynamic program.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
