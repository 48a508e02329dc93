package reduce

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits of VASS instances. They keep the generated program within the
// limits of the .rdma format: a control state is a value (0..255) of the
// leader's location x, and every counter takes a node of its own besides the
// leader's node and the node of the non-robust fragment (64 nodes at most).
const (
	MaxVASSStates      = 256
	MaxVASSCounters    = 62
	MaxVASSTransitions = 800
)

// Expectation is the known answer an instance file states with its expect
// line.
type Expectation uint8

// Expectations. For a VASS, Yes means "coverable"; for PCP, "solvable".
const (
	ExpectNone Expectation = iota // no expect line
	ExpectYes
	ExpectNo
)

// Transition is one VASS transition: from control state From to To, adding
// Delta (+1 or -1) to counter Counter. A decrement is enabled only when the
// counter is positive.
type Transition struct {
	From, To int
	Counter  int
	Delta    int
}

// VASS is a vector addition system with states whose transitions each add +1
// or -1 to one counter (the form used in section 7 of the paper). Control
// states are numbered 0..len(States)-1; the number of a state is the value
// the generated program stores in the leader's location x. All counters start
// at 0.
type VASS struct {
	Name     string
	Counters int
	States   []string // state names, indexed by number
	Init     int
	Accept   int
	Trans    []Transition
	Expect   Expectation // ExpectYes: accept is coverable; ExpectNo: it is not
}

// Validate reports whether v respects the limits and is internally
// consistent; VASS.Program needs a valid VASS.
func (v *VASS) Validate() error {
	switch {
	case !isName(v.Name):
		return fmt.Errorf("vass name %q: must be 1 to 64 of [A-Za-z0-9_.+-]", v.Name)
	case v.Counters < 1 || v.Counters > MaxVASSCounters:
		return fmt.Errorf("vass %s: %d counters, must be 1..%d", v.Name, v.Counters, MaxVASSCounters)
	case len(v.States) < 1 || len(v.States) > MaxVASSStates:
		return fmt.Errorf("vass %s: %d states, must be 1..%d", v.Name, len(v.States), MaxVASSStates)
	case v.Init < 0 || v.Init >= len(v.States) || v.Accept < 0 || v.Accept >= len(v.States):
		return fmt.Errorf("vass %s: init or accept state out of range", v.Name)
	case len(v.Trans) > MaxVASSTransitions:
		return fmt.Errorf("vass %s: %d transitions, more than the limit of %d", v.Name, len(v.Trans), MaxVASSTransitions)
	case v.Expect > ExpectNo:
		return fmt.Errorf("vass %s: invalid expectation %d", v.Name, v.Expect)
	}
	names := map[string]bool{}
	for _, s := range v.States {
		if !isIdent(s) || vassKeywords[s] || names[s] {
			return fmt.Errorf("vass %s: state name %q is not an identifier, is a keyword or is used twice", v.Name, s)
		}
		names[s] = true
	}
	for i, t := range v.Trans {
		if t.From < 0 || t.From >= len(v.States) || t.To < 0 || t.To >= len(v.States) ||
			t.Counter < 0 || t.Counter >= v.Counters || t.Delta != 1 && t.Delta != -1 {
			return fmt.Errorf("vass %s: transition %d (%+v) is invalid", v.Name, i, t)
		}
	}
	return nil
}

// vassKeywords are the words that start a directive line; they cannot name
// states.
var vassKeywords = map[string]bool{"vass": true, "counters": true, "states": true, "init": true, "accept": true, "expect": true}

// LoadVASS reads and parses the VASS instance file at path.
func LoadVASS(path string) (*VASS, error) {
	src, err := readFile("VASS", path)
	if err != nil {
		return nil, err
	}
	return ParseVASS(path, src)
}

// ParseVASS parses a VASS instance, naming it name in error messages (and
// deriving the instance name from it when the file has no vass line). The
// format is line based; comments run from # or // to the end of the line:
//
//	vass NAME                 # optional: the instance name, [A-Za-z0-9_.+-]+
//	counters 2                # required: counters c0 .. c1 (1..62)
//	states q0 q1 q2 q3 q4     # optional: fixes the numbering of these states
//	init q0                   # required: the initial control state
//	accept q4                 # required: the state whose coverability is asked
//	q0 -> q0 : c0 +1          # a transition: increment c0
//	q0 -> q1 : c1 -1          # a transition: decrement c1 (needs c1 > 0)
//	expect coverable          # optional: or "expect not-coverable"
//
// Directives come in any order, each at most once. States are identifiers
// ([A-Za-z_][A-Za-z0-9_]*, not a directive keyword), declared by use, and
// numbered from 0 in order of first appearance (a states line, which must
// then come before any other mention of a state, lists them in the order
// wanted); there are at most 256 states and 800 transitions. Errors are *Error values (file:line:col: message).
func ParseVASS(name string, src []byte) (*VASS, error) {
	ls, err := lines(name, src)
	if err != nil {
		return nil, err
	}
	vp := &vassParser{name: name, v: &VASS{Init: -1, Accept: -1}, states: map[string]int{}, seen: map[string]int{}}
	for _, l := range ls {
		if first := l.toks[0]; first.kind == tWord && vassKeywords[first.text] {
			err = vp.directive(l)
		} else {
			err = vp.transition(l)
		}
		if err != nil {
			return nil, err
		}
	}
	return vp.finish()
}

// vassParser is ParseVASS's state between lines: the instance so far, its
// states by name, the directives seen and the counters the transitions
// name (checked once the counters line is known).
type vassParser struct {
	name   string // the file, for errors
	v      *VASS
	states map[string]int // state name → number
	seen   map[string]int // directive → its line
	refs   []counterRef
}

// counterRef is a counter cN a transition names, where it is written.
type counterRef struct {
	l   srcLine
	col int
	c   int
}

// state returns the number of the state t names on line l, numbering a
// new one.
func (vp *vassParser) state(l srcLine, t tok) (int, error) {
	v, name := vp.v, vp.name
	if t.kind != tWord || !isIdent(t.text) {
		return 0, errorf(name, l, t.col, "expected a state name, found %s", t.describe())
	}
	if vassKeywords[t.text] {
		return 0, errorf(name, l, t.col, "%q is a keyword and cannot name a state", t.text)
	}
	if n, ok := vp.states[t.text]; ok {
		return n, nil
	}
	if len(v.States) == MaxVASSStates {
		return 0, errorf(name, l, t.col, "too many states (the limit is %d)", MaxVASSStates)
	}
	vp.states[t.text] = len(v.States)
	v.States = append(v.States, t.text)
	return len(v.States) - 1, nil
}

// directive parses line l, a directive (vass, counters, states, init,
// accept, expect), each allowed once.
func (vp *vassParser) directive(l srcLine) error {
	v, name := vp.v, vp.name
	first := l.toks[0]
	if prev, dup := vp.seen[first.text]; dup {
		return errorf(name, l, first.col, "second %s line (first at line %d)", first.text, prev)
	}
	vp.seen[first.text] = l.num
	if len(l.toks) < 2 {
		return errorf(name, l, l.end, "expected %s after %s", vassArg(first.text), first.text)
	}
	if first.text == "states" {
		return vp.statesLine(l)
	}
	arg := l.toks[1]
	if len(l.toks) > 2 {
		return errorf(name, l, l.toks[2].col, "unexpected %s after the %s line's argument", l.toks[2].describe(), first.text)
	}
	var err error
	switch first.text {
	case "vass":
		if arg.kind != tWord || !isName(arg.text) {
			return errorf(name, l, arg.col, "invalid vass name %s: use 1 to 64 of [A-Za-z0-9_.+-]", arg.describe())
		}
		v.Name = arg.text
	case "counters":
		n, err := strconv.Atoi(arg.text)
		if arg.kind != tWord || err != nil || n < 1 || n > MaxVASSCounters {
			return errorf(name, l, arg.col, "expected a number of counters (1..%d), found %s", MaxVASSCounters, arg.describe())
		}
		v.Counters = n
	case "init":
		v.Init, err = vp.state(l, arg)
	case "accept":
		v.Accept, err = vp.state(l, arg)
	case "expect":
		switch arg.text {
		case "coverable":
			v.Expect = ExpectYes
		case "not-coverable":
			v.Expect = ExpectNo
		default:
			return errorf(name, l, arg.col, "expected coverable or not-coverable after expect, found %s", arg.describe())
		}
	}
	return err
}

// statesLine parses line l, `states q0 q1 ...`: the states numbered in
// that order, before any other mention of a state.
func (vp *vassParser) statesLine(l srcLine) error {
	if len(vp.v.States) > 0 {
		return errorf(vp.name, l, l.toks[0].col, "the states line must come before any other mention of a state")
	}
	for _, t := range l.toks[1:] {
		if _, dup := vp.states[t.text]; dup {
			return errorf(vp.name, l, t.col, "state %s listed twice", t.text)
		}
		if _, err := vp.state(l, t); err != nil {
			return err
		}
	}
	return nil
}

// transition parses line l, a transition FROM -> TO : cN +1|-1.
func (vp *vassParser) transition(l srcLine) error {
	v, name := vp.v, vp.name
	first := l.toks[0]
	if len(l.toks) < 2 || l.toks[1].kind != tArrow {
		return errorf(name, l, first.col, "expected a directive (vass, counters, states, init, accept, expect) or a transition FROM -> TO : cN +1|-1, found %s", first.describe())
	}
	if len(v.Trans) == MaxVASSTransitions {
		return errorf(name, l, first.col, "too many transitions (the limit is %d)", MaxVASSTransitions)
	}
	from, err := vp.state(l, first)
	if err != nil {
		return err
	}
	// at returns token i, or an error naming what was expected there.
	at := func(i int, what string) (tok, error) {
		if i >= len(l.toks) {
			return tok{}, errorf(name, l, l.end, "expected %s, found end of line", what)
		}
		return l.toks[i], nil
	}
	tt, err := at(2, "the target state")
	if err != nil {
		return err
	}
	to, err := vp.state(l, tt)
	if err != nil {
		return err
	}
	colon, err := at(3, ": after the target state")
	if err != nil {
		return err
	}
	if colon.kind != tColon {
		return errorf(name, l, colon.col, "expected : after the target state, found %s", colon.describe())
	}
	ct, err := at(4, "a counter cN")
	if err != nil {
		return err
	}
	c, ok := counterIndex(ct.text)
	if ct.kind != tWord || !ok {
		return errorf(name, l, ct.col, "expected a counter cN, found %s", ct.describe())
	}
	dt, err := at(5, "+1 or -1")
	if err != nil {
		return err
	}
	var delta int
	switch dt.text {
	case "+1":
		delta = 1
	case "-1":
		delta = -1
	default:
		return errorf(name, l, dt.col, "expected +1 or -1, found %s", dt.describe())
	}
	if len(l.toks) > 6 {
		return errorf(name, l, l.toks[6].col, "unexpected %s after the transition", l.toks[6].describe())
	}
	vp.refs = append(vp.refs, counterRef{l, ct.col, c})
	v.Trans = append(v.Trans, Transition{From: from, To: to, Counter: c, Delta: delta})
	return nil
}

// finish checks what needs every line read: the required directives, the
// counters the transitions name; it names the instance after the file
// when it has no vass line, and validates it.
func (vp *vassParser) finish() (*VASS, error) {
	v, name := vp.v, vp.name
	for _, d := range []string{"counters", "init", "accept"} {
		if _, ok := vp.seen[d]; !ok {
			return nil, &Error{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("missing %s line (%s %s)", d, d, vassArg(d))}
		}
	}
	for _, r := range vp.refs {
		if r.c >= v.Counters {
			return nil, errorf(name, r.l, r.col, "counter c%d out of range: the VASS has %d counter%s (c0..c%d)", r.c, v.Counters, plural(v.Counters), v.Counters-1)
		}
	}
	if v.Name == "" {
		v.Name = defaultName(name)
	}
	if err := v.Validate(); err != nil {
		return nil, &Error{File: name, Line: 1, Col: 1, Msg: err.Error()}
	}
	return v, nil
}

// vassArg describes the argument of a directive.
func vassArg(d string) string {
	switch d {
	case "vass":
		return "a name"
	case "counters":
		return "N"
	case "expect":
		return "coverable or not-coverable"
	case "states":
		return "state names"
	}
	return "STATE"
}

// counterIndex parses cN (N decimal, no leading zeros, at most 3 digits).
func counterIndex(s string) (int, bool) {
	if len(s) < 2 || len(s) > 4 || s[0] != 'c' || s[1] == '0' && len(s) > 2 {
		return 0, false
	}
	n := 0
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// String prints v in the instance format, with a states line, so that
// ParseVASS reads it back to an equal VASS.
func (v *VASS) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vass %s\ncounters %d\n", v.Name, v.Counters)
	b.WriteString("states")
	for _, s := range v.States {
		b.WriteString(" " + s)
	}
	fmt.Fprintf(&b, "\ninit %s\naccept %s\n", v.States[v.Init], v.States[v.Accept])
	for _, t := range v.Trans {
		fmt.Fprintf(&b, "%s -> %s : c%d %+d\n", v.States[t.From], v.States[t.To], t.Counter, t.Delta)
	}
	switch v.Expect {
	case ExpectYes:
		b.WriteString("expect coverable\n")
	case ExpectNo:
		b.WriteString("expect not-coverable\n")
	}
	return b.String()
}

// MaxChain is the largest n VASSChain accepts.
const MaxChain = MaxVASSStates - 2

// VASSChain returns a one-counter VASS whose accepting state needs the
// counter to reach n: state p pumps c0, then n decrements in a row lead
// through d1 .. d(n-1) to acc. Its shortest accepting run has 2n transitions,
// so the generated program needs 2n+1 leader loop iterations to show its
// robustness violation. n is clamped to 1..MaxChain.
func VASSChain(n int) *VASS {
	n = max(1, min(n, MaxChain))
	v := &VASS{Name: fmt.Sprintf("chain-%d", n), Counters: 1, Expect: ExpectYes}
	v.States = append(v.States, "p", "acc")
	v.Init, v.Accept = 0, 1
	v.Trans = append(v.Trans, Transition{From: 0, To: 0, Counter: 0, Delta: 1})
	prev := 0
	for i := 1; i < n; i++ {
		v.States = append(v.States, fmt.Sprintf("d%d", i))
		cur := len(v.States) - 1
		v.Trans = append(v.Trans, Transition{From: prev, To: cur, Counter: 0, Delta: -1})
		prev = cur
	}
	v.Trans = append(v.Trans, Transition{From: prev, To: 1, Counter: 0, Delta: -1})
	return v
}

// Program returns the .rdma program of the paper's reduction (section 7,
// with the "Extension to Robustness"), for a valid v (see Validate):
//
//   - node L holds the leader's control state in x (initially the number of
//     Init), the read-only one = 1 that increments put, and y, a of the
//     non-robust fragment; node Ci holds xi, the target of counter i's puts;
//     node D holds z, w of the fragment.
//   - thread leader on L runs loop { choose { C1 } or ... or { Ck } or { C'a } }:
//     an increment of counter i from q to q' is
//     assume(x == q); xi := one; x := q' (a put towards Ci), a decrement is
//     assume(x == q); poll(Ci); x := q' (it blocks unless an earlier put
//     towards Ci is still unpolled), and C'a is assume(x == qa) followed by
//     the program of section 5.1, ACC: y := w; z := a; a := 2.
//
// The value of counter i is the number of unpolled puts towards Ci. Nothing
// reads the Ci, so the simulation itself is robust; the fragment is not (the
// put z := a may read a after the later a := 2). Hence the program is robust
// if and only if Accept is not coverable, and the query reach leader@ACC is
// allowed (under RDMA and under SC) if and only if it is. When v.Expect is
// set, the program carries the matching expect lines; they hold for the
// program with unbounded loops (a search bounded by an unroll or max-inflight
// smaller than the runs need finds no violation).
func (v *VASS) Program() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by rdmasim/corpus/reduce from VASS %s: the reduction of the seed paper,\n", v.Name)
	b.WriteString("# section 7 (VASS state coverability to RDMA robustness). The leader loops over one\n")
	b.WriteString("# branch per transition (a put towards Ci increments counter i, a poll(Ci) decrements\n")
	b.WriteString("# it) and a branch C'a that runs the non-robust program of section 5.1 once x holds\n")
	b.WriteString("# the accepting state: the program is robust iff the accepting state is not coverable.\n")
	b.WriteString("# control states (values of x):")
	for i, s := range v.States {
		fmt.Fprintf(&b, " %s=%d", s, i)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "litmus vass-%s\n", v.Name)
	fmt.Fprintf(&b, "\"VASS %s: %d counter%s, %d states, %d transitions, accept %s\"\n",
		v.Name, v.Counters, plural(v.Counters), len(v.States), len(v.Trans), v.States[v.Accept])
	fmt.Fprintf(&b, "node L { x = %d; one = 1; y = 0; a = 1 }\n", v.Init)
	for i := 0; i < v.Counters; i++ {
		fmt.Fprintf(&b, "node C%d { x%d = 0 }\n", i, i)
	}
	b.WriteString("node D { z = 0; w = 1 }\n")
	b.WriteString("thread leader on L {\n  loop {\n")
	var branches []string
	for _, t := range v.Trans {
		op := fmt.Sprintf("x%d := one", t.Counter)
		if t.Delta < 0 {
			op = fmt.Sprintf("poll(C%d)", t.Counter)
		}
		branches = append(branches, fmt.Sprintf("{ assume(x == %d); %s; x := %d }    # %s -> %s : c%d %+d",
			t.From, op, t.To, v.States[t.From], v.States[t.To], t.Counter, t.Delta))
	}
	branches = append(branches, fmt.Sprintf("{ assume(x == %d); ACC: y := w; z := a; a := 2 }    # C'a: %s reached, section 5.1",
		v.Accept, v.States[v.Accept]))
	if len(branches) == 1 {
		body := strings.TrimPrefix(branches[0], "{ ")
		body = strings.Replace(body, " }", "", 1)
		fmt.Fprintf(&b, "    %s\n", body)
	} else {
		for i, br := range branches {
			kw := "or    "
			if i == 0 {
				kw = "choose"
			}
			fmt.Fprintf(&b, "    %s %s\n", kw, br)
		}
	}
	b.WriteString("  }\n}\n")
	b.WriteString("reach leader@ACC\n")
	if v.Expect != ExpectNone {
		word, robust := "allowed", "no"
		if v.Expect == ExpectNo {
			word, robust = "forbidden", "yes"
		}
		b.WriteString("# the verdicts below hold for the program with unbounded loops\n")
		fmt.Fprintf(&b, "expect rdma %s\nexpect sc %s\nexpect robust %s\n", word, word, robust)
	}
	return []byte(b.String())
}
