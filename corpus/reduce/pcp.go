package reduce

import (
	"fmt"
	"strings"
)

// Limits of PCP instances. They keep the generated program within the
// limits of the .rdma format (values 0..255, 250 locations, 4000
// instructions per thread).
const (
	MaxPCPPairs   = 100
	MaxPCPLetters = 500 // in all top words together, and in all bottom words
)

// Pair is one pair of a PCP instance: the top word U and the bottom word V,
// non-empty words over the letters a..z.
type Pair struct {
	U, V string
}

// PCP is an instance of Post's Correspondence Problem: is there a non-empty
// sequence of indices i1 .. ik with U(i1)...U(ik) = V(i1)...V(ik)?
type PCP struct {
	Name   string
	Pairs  []Pair
	Expect Expectation // ExpectYes: solvable; ExpectNo: unsolvable
}

// Validate reports whether p respects the limits; PCP.Program needs a
// valid instance.
func (p *PCP) Validate() error {
	if !isName(p.Name) {
		return fmt.Errorf("pcp name %q: must be 1 to 64 of [A-Za-z0-9_.+-]", p.Name)
	}
	if len(p.Pairs) < 1 || len(p.Pairs) > MaxPCPPairs {
		return fmt.Errorf("pcp %s: %d pairs, must be 1..%d", p.Name, len(p.Pairs), MaxPCPPairs)
	}
	if p.Expect > ExpectNo {
		return fmt.Errorf("pcp %s: invalid expectation %d", p.Name, p.Expect)
	}
	nu, nv := 0, 0
	for i, pr := range p.Pairs {
		if !isWord(pr.U) || !isWord(pr.V) {
			return fmt.Errorf("pcp %s: pair %d (%q / %q): words must be non-empty, of letters a..z", p.Name, i+1, pr.U, pr.V)
		}
		nu += len(pr.U)
		nv += len(pr.V)
	}
	if nu > MaxPCPLetters || nv > MaxPCPLetters {
		return fmt.Errorf("pcp %s: %d top and %d bottom letters, more than the limit of %d", p.Name, nu, nv, MaxPCPLetters)
	}
	return nil
}

// isWord reports whether s is a non-empty word over a..z.
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// LoadPCP reads and parses the PCP instance file at path.
func LoadPCP(path string) (*PCP, error) {
	src, err := readFile("PCP", path)
	if err != nil {
		return nil, err
	}
	return ParsePCP(path, src)
}

// ParsePCP parses a PCP instance, naming it name in error messages (and
// deriving the instance name from it when the file has no pcp line). The
// format is line based; comments run from # or // to the end of the line:
//
//	pcp NAME                  # optional: the instance name, [A-Za-z0-9_.+-]+
//	ab / a                    # pair 1: top word ab, bottom word a
//	b / bb                    # pair 2
//	expect solvable           # optional: or "expect unsolvable"
//
// Words are non-empty, over the letters a..z. The pcp and expect lines come
// at most once each, anywhere (a line whose second token is / is a pair,
// even if its first word is pcp or expect); pairs are numbered from 1 in
// file order. At
// most 100 pairs, and 500 letters in all top words and in all bottom words.
// Errors are *Error values (file:line:col: message).
func ParsePCP(name string, src []byte) (*PCP, error) {
	ls, err := lines(name, src)
	if err != nil {
		return nil, err
	}
	p := &PCP{}
	seen := map[string]int{}
	nu, nv := 0, 0
	for _, l := range ls {
		first := l.toks[0]
		if first.kind == tWord && (first.text == "pcp" || first.text == "expect") && (len(l.toks) < 2 || l.toks[1].kind != tSlash) {
			if prev, dup := seen[first.text]; dup {
				return nil, errorf(name, l, first.col, "second %s line (first at line %d)", first.text, prev)
			}
			seen[first.text] = l.num
			what := "a name"
			if first.text == "expect" {
				what = "solvable or unsolvable"
			}
			if len(l.toks) < 2 {
				return nil, errorf(name, l, l.end, "expected %s after %s", what, first.text)
			}
			arg := l.toks[1]
			if len(l.toks) > 2 {
				return nil, errorf(name, l, l.toks[2].col, "unexpected %s after the %s line's argument", l.toks[2].describe(), first.text)
			}
			if first.text == "pcp" {
				if arg.kind != tWord || !isName(arg.text) {
					return nil, errorf(name, l, arg.col, "invalid pcp name %s: use 1 to 64 of [A-Za-z0-9_.+-]", arg.describe())
				}
				p.Name = arg.text
				continue
			}
			switch arg.text {
			case "solvable":
				p.Expect = ExpectYes
			case "unsolvable":
				p.Expect = ExpectNo
			default:
				return nil, errorf(name, l, arg.col, "expected solvable or unsolvable after expect, found %s", arg.describe())
			}
			continue
		}
		// A pair: TOP / BOTTOM
		word := func(i int, which string) (string, error) {
			if i >= len(l.toks) {
				return "", errorf(name, l, l.end, "expected the %s word, found end of line", which)
			}
			t := l.toks[i]
			if t.kind != tWord {
				return "", errorf(name, l, t.col, "expected the %s word, found %s", which, t.describe())
			}
			for j := 0; j < len(t.text); j++ {
				if c := t.text[j]; c < 'a' || c > 'z' {
					return "", errorf(name, l, t.col+j, "invalid letter %q in word %s: words are over a..z", c, t.describe())
				}
			}
			return t.text, nil
		}
		u, err := word(0, "top")
		if err != nil {
			return nil, err
		}
		if len(l.toks) < 2 || l.toks[1].kind != tSlash {
			col, found := l.end, "end of line"
			if len(l.toks) >= 2 {
				col, found = l.toks[1].col, l.toks[1].describe()
			}
			return nil, errorf(name, l, col, "expected / between the top and the bottom word, found %s", found)
		}
		v, err := word(2, "bottom")
		if err != nil {
			return nil, err
		}
		if len(l.toks) > 3 {
			return nil, errorf(name, l, l.toks[3].col, "unexpected %s after the pair", l.toks[3].describe())
		}
		if len(p.Pairs) == MaxPCPPairs {
			return nil, errorf(name, l, first.col, "too many pairs (the limit is %d)", MaxPCPPairs)
		}
		if nu, nv = nu+len(u), nv+len(v); nu > MaxPCPLetters || nv > MaxPCPLetters {
			return nil, errorf(name, l, first.col, "too many letters (the limit is %d in all top words, and in all bottom words)", MaxPCPLetters)
		}
		p.Pairs = append(p.Pairs, Pair{U: u, V: v})
	}
	if len(p.Pairs) == 0 {
		return nil, &Error{File: name, Line: 1, Col: 1, Msg: "no pairs (write one pair a line: TOP / BOTTOM)"}
	}
	if p.Name == "" {
		p.Name = defaultName(name)
	}
	if err := p.Validate(); err != nil {
		return nil, &Error{File: name, Line: 1, Col: 1, Msg: err.Error()}
	}
	return p, nil
}

// String prints p in the instance format; ParsePCP reads it back to an equal
// instance.
func (p *PCP) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pcp %s\n", p.Name)
	for _, pr := range p.Pairs {
		fmt.Fprintf(&b, "%s / %s\n", pr.U, pr.V)
	}
	switch p.Expect {
	case ExpectYes:
		b.WriteString("expect solvable\n")
	case ExpectNo:
		b.WriteString("expect unsolvable\n")
	}
	return b.String()
}

// Alphabet returns the letters p uses, in order.
func (p *PCP) Alphabet() []byte {
	var used [26]bool
	for _, pr := range p.Pairs {
		for _, w := range []string{pr.U, pr.V} {
			for i := 0; i < len(w); i++ {
				used[w[i]-'a'] = true
			}
		}
	}
	var out []byte
	for c := range used {
		if used[c] {
			out = append(out, byte('a'+c))
		}
	}
	return out
}

// Solve searches for a solution of p breadth first, over the "overhang" of
// the longer side (what one concatenation has beyond the other), using at
// most maxPairs pairs. It returns a shortest solution as 0-based indices into
// Pairs (nil when none was found), and whether the search was exhaustive: no
// solution and exhausted together prove p unsolvable (every reachable
// overhang was explored), while no solution within maxPairs otherwise proves
// nothing.
func (p *PCP) Solve(maxPairs int) (solution []int, exhausted bool) {
	// An overhang is the suffix one side has beyond the other: top ahead
	// ("t" + rest) or bottom ahead ("b" + rest); "" once both are equal.
	type node struct {
		over   string
		parent int
		pair   int
	}
	var nodes []node
	seen := map[string]bool{}
	step := func(over string, pr Pair) (string, bool) {
		top, bot := pr.U, pr.V
		if over != "" {
			if over[0] == 't' {
				top = over[1:] + top
			} else {
				bot = over[1:] + bot
			}
		}
		switch {
		case strings.HasPrefix(top, bot):
			if len(top) == len(bot) {
				return "", true
			}
			return "t" + top[len(bot):], true
		case strings.HasPrefix(bot, top):
			return "b" + bot[len(top):], true
		}
		return "", false
	}
	var level []int
	for i, pr := range p.Pairs {
		if over, ok := step("", pr); ok && !seen[over] {
			seen[over] = true
			nodes = append(nodes, node{over, -1, i})
			level = append(level, len(nodes)-1)
		}
	}
	for depth := 1; len(level) > 0; depth++ {
		for _, ni := range level {
			if nodes[ni].over == "" {
				for n := ni; n >= 0; n = nodes[n].parent {
					solution = append(solution, nodes[n].pair)
				}
				for i, j := 0, len(solution)-1; i < j; i, j = i+1, j-1 {
					solution[i], solution[j] = solution[j], solution[i]
				}
				return solution, false
			}
		}
		if depth == maxPairs {
			return nil, false
		}
		var next []int
		for _, ni := range level {
			for i, pr := range p.Pairs {
				if over, ok := step(nodes[ni].over, pr); ok && !seen[over] {
					seen[over] = true
					nodes = append(nodes, node{over, ni, i})
					next = append(next, len(nodes)-1)
				}
			}
		}
		level = next
	}
	return nil, true
}

// Check reports whether the indices (0-based) form a solution of p.
func (p *PCP) Check(solution []int) bool {
	if len(solution) == 0 {
		return false
	}
	var top, bot strings.Builder
	for _, i := range solution {
		if i < 0 || i >= len(p.Pairs) {
			return false
		}
		top.WriteString(p.Pairs[i].U)
		bot.WriteString(p.Pairs[i].V)
	}
	return top.String() == bot.String()
}

// letterValues maps each letter of p's alphabet to its value 1..|Σ|.
func (p *PCP) letterValues() map[byte]int {
	vals := map[byte]int{}
	for i, c := range p.Alphabet() {
		vals[c] = i + 1
	}
	return vals
}
