package prog

// A read of a location by a choose of assumes: choose { assume(x == 0); A }
// or { assume(x == 1); B } ... The protocol lowering compiles every read of
// a location into a thread's registers so (opsem/parse, special.go), and
// hand-written programs use the same shape. Executed as written, the choose
// is a silent step to every alternative, and the assume then filters out all
// but the one that holds: a machine stores a configuration for each
// alternative, dead ones included, and a write to x between the two steps
// strands a thread that chose early.
//
// Compile rewrites such a choose into an OpSwitch when the alternatives'
// tests are exclusive (no value of x passes two of them): one step that
// reads x, takes the one alternative whose test holds (Case) and goes on at
// that assume's Next, with the assume's event lR(x,v) and its statement. No
// matching alternative blocks the thread, as the failing assume did. Every
// run of the switch is a run of the choose (its two steps taken back to
// back), and every run of the choose that goes on past the assume is, with
// the choose's step moved to just before the assume's, a run of the switch
// with the same events; a thread that waits between the choose and a
// failing assume is a filtered run either way. So outcomes, verdicts,
// robustness and witnesses' events are those of the choose; only the
// silent step and its configurations are gone.
//
// The assumes stay in the graph as the switch's alternatives (Alts, Succ):
// analyses over the control-flow graph (the declarative model's event
// sequences, the decider's, poll bounds, Promela) see the same reads at the
// same instructions as before, and Unswitch gives the choose back.
//
// A choose is left as it is when an alternative is labelled (T@L names the
// configurations where a thread waits at it, which a switch never has) or
// when two alternatives' tests overlap (the read would have two successors
// with one event).

// NoSwitch turns the rewrite off, for before/after measurements and tests.
var NoSwitch bool

// SwitchAlt returns the index in in.Alts of the alternative an OpSwitch
// takes when its location holds v, or -1 when none does (the thread waits).
func (in *Instr) SwitchAlt(v uint8) int { return int(in.Case[v]) }

// switches rewrites the thread's chooses of exclusive assumes on one
// location into OpSwitch instructions (see above).
func switches(t *Thread) {
	labelled := make(map[int]bool, len(t.Labels))
	for _, l := range t.Labels {
		labelled[l.PC] = true
	}
	for pc := range t.Code {
		in := &t.Code[pc]
		if in.Op != OpBranch || in.Loop >= 0 {
			continue
		}
		if x, cases, ok := SwitchCases(t, pc, labelled); ok {
			in.Op, in.X, in.Case = OpSwitch, x, cases
		}
	}
}

// SwitchCases reports whether the OpBranch at pc of thread t is a read by
// assumes: every alternative an assume on one location x, none of them at
// a labelled instruction, no two of them passing the same value. It
// returns x and the alternative each value takes (-1: none), the Case
// table of the OpSwitch the branch can run as. The branch of a loop
// (Loop >= 0, the body first, the exit second) qualifies as a choose does;
// Compile rewrites only chooses, since the machines count a loop's
// iterations at its branch, and the decider runs a loop's as a switch
// itself (package instr).
func SwitchCases(t *Thread, pc int, labelled map[int]bool) (x int, cases []int16, ok bool) {
	in := &t.Code[pc]
	if in.Op != OpBranch || len(in.Alts) == 0 {
		return 0, nil, false
	}
	x = -1
	for _, a := range in.Alts {
		alt := &t.Code[a]
		if alt.Op != OpAssumeEq && alt.Op != OpAssumeNe || labelled[a] || x >= 0 && alt.X != x {
			return 0, nil, false
		}
		x = alt.X
	}
	cases = make([]int16, MaxValue+1)
	for v := range cases {
		cases[v] = -1
		for i, a := range in.Alts {
			alt := &t.Code[a]
			if (alt.A == uint8(v)) == (alt.Op == OpAssumeEq) {
				if cases[v] >= 0 {
					return 0, nil, false // overlapping tests
				}
				cases[v] = int16(i)
			}
		}
	}
	return x, cases, true
}

// Unswitch turns every OpSwitch of p back into the choose it was compiled
// from (the same alternatives): the program as it runs without the
// rewrite, for comparisons.
func Unswitch(p *Program) {
	for t := range p.Threads {
		for pc := range p.Threads[t].Code {
			if in := &p.Threads[t].Code[pc]; in.Op == OpSwitch {
				in.Op, in.X, in.Case = OpBranch, 0, nil
			}
		}
	}
}
