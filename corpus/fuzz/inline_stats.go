package fuzz

import (
	"fmt"
	"io"
	"strings"

	"rdmasim/opsem/axiom"
	"rdmasim/opsem/prog"
)

// InlineCounts measures the rows and columns of an inline put's read in the
// ppo table (SEMANTICS-VERBS.md 5): Before[a] counts the programs in which
// some thread has an event of class a before the read of an inline put in
// program order (along some path), on its queue pair or with a CPU event
// (SameQP) or on another (OtherQP); After[b] the programs with an inline
// read before an event of class b.
type InlineCounts struct {
	Programs      int // programs with an inline put
	Before, After [NumClasses]PPOCount
}

// add counts the inline pairs of p's threads.
func (c *InlineCounts) add(p *prog.Program) {
	var before, after [NumClasses][2]bool
	has := false
	for t := range p.Threads {
		code := p.Threads[t].Code
		reach := prog.NewReach(code)
		for i := range code {
			ci := classes(code[i].Op)
			for j, r := range reach.From(i) {
				if !r {
					continue
				}
				cj := classes(code[j].Op)
				other := 0
				if code[i].QP != code[j].QP && code[i].QP >= 0 && code[j].QP >= 0 {
					other = 1
				}
				if code[j].Op == prog.OpPut && code[j].Inline {
					for _, a := range ci {
						if a == axiom.ClassCPU {
							before[a][0] = true
						} else {
							before[a][other] = true
						}
					}
				}
				if code[i].Op == prog.OpPut && code[i].Inline {
					for _, b := range cj {
						if b == axiom.ClassCPU {
							after[b][0] = true
						} else {
							after[b][other] = true
						}
					}
				}
			}
			has = has || code[i].Op == prog.OpPut && code[i].Inline
		}
	}
	if !has {
		return
	}
	c.Programs++
	for k := range NumClasses {
		for q, n := range [2]*int{&c.Before[k].SameQP, &c.Before[k].OtherQP} {
			if before[k][q] {
				*n++
			}
		}
		for q, n := range [2]*int{&c.After[k].SameQP, &c.After[k].OtherQP} {
			if after[k][q] {
				*n++
			}
		}
	}
}

// merge adds o's counts to c.
func (c *InlineCounts) merge(o *InlineCounts) {
	c.Programs += o.Programs
	for k := range NumClasses {
		c.Before[k].SameQP += o.Before[k].SameQP
		c.Before[k].OtherQP += o.Before[k].OtherQP
		c.After[k].SameQP += o.After[k].SameQP
		c.After[k].OtherQP += o.After[k].OtherQP
	}
}

// render writes the inline rows, if a program had an inline put: for each
// class its entry as axiom.PPO gives it and the programs with such a pair,
// same queue pair/other.
func (c *InlineCounts) render(w io.Writer) {
	if c.Programs == 0 {
		return
	}
	entry := func(a, b axiom.Class, ai, bi bool) string {
		ev := func(k axiom.Class, index, remote int, inline bool) *axiom.Event {
			return &axiom.Event{Event: prog.Event{Kind: k.Kind(), Thread: 0, Remote: remote}, Index: index, Inline: inline}
		}
		si, so := axiom.PPO(ev(a, 0, 1, ai), ev(b, 1, 1, bi))
		oi, oo := axiom.PPO(ev(a, 0, 1, ai), ev(b, 1, 2, bi))
		switch {
		case si && so && oi && oo:
			return "✓"
		case !si && !so && !oi && !oo:
			return "×"
		case si && so:
			return "sqp"
		}
		return "?"
	}
	var before, after []string
	for k := range NumClasses {
		a := axiom.Class(k)
		before = append(before, fmt.Sprintf("%s %s %d/%d", a, entry(a, axiom.ClassNLR, false, true), c.Before[k].SameQP, c.Before[k].OtherQP))
		after = append(after, fmt.Sprintf("%s %s %d/%d", a, entry(axiom.ClassNLR, a, true, false), c.After[k].SameQP, c.After[k].OtherQP))
	}
	fmt.Fprintf(w, "Inline reads (SEMANTICS-VERBS.md 5), %d programs with an inline put; entries as axiom.PPO gives them, programs same queue pair/other:\n", c.Programs)
	fmt.Fprintf(w, "  class -> inline nlR: %s\n", strings.Join(before, ", "))
	fmt.Fprintf(w, "  inline nlR -> class: %s\n", strings.Join(after, ", "))
}
