// Package surface checks the lowering of the protocol language (package
// opsem/parse, lower.go) against an independent semantics: it runs a
// protocol program both ways under SC — lowered to the core and explored on
// the SC machine (opsem/machine), and interpreted directly from its syntax
// tree (InterpretSC, interp*.go) — and compares what they reach: the final
// memories, the error points (thread, position, message) and whether some
// run deadlocks. It also draws random protocol programs (Generate) so that
// the comparison runs on thousands of them (TestAgreement, make
// agree-surface).
package surface

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// Options configure Compare.
type Options struct {
	// Params override the program's params (--param).
	Params map[string]int
	// MaxStates bounds each side's search (0: no bound). A side whose
	// search it cuts is compared only by inclusion: what it reached, the
	// other side, if complete, must reach too.
	MaxStates int
	// Registers is where the lowering keeps registers (parse.Options):
	// with registers kept at run time the lowered program has a location
	// per register, which the comparison leaves out of the final memories,
	// and its error points are compared by thread and position (an
	// instruction that computes at run time cannot name the value that
	// left a range).
	Registers parse.RegisterMode
}

// Behaviours is what one side reached.
type Behaviours struct {
	Finals   [][]uint8 // distinct final memories, sorted, by location index
	Errors   []ErrorPoint
	Deadlock bool
	Complete bool
	States   int
}

// Report is the comparison of the two sides on one program.
type Report struct {
	// Program is the lowered program (nil when Skipped says the lowering
	// rejected it).
	Program *prog.Program
	// Skipped says why no comparison was made ("" when one was).
	Skipped string
	// Machine is the SC machine's exploration of the lowered program;
	// Interp the interpreter's.
	Machine, Interp Behaviours
	// Problems are the disagreements, one a line ("" when they agree).
	Problems []string
}

// Agree reports whether a comparison was made and found no disagreement.
func (r *Report) Agree() bool { return r.Skipped == "" && len(r.Problems) == 0 }

// Compare lowers and interprets src and compares the two under SC. A
// program the lowering rejects is skipped (Report.Skipped), as one neither
// side could explore completely; the interpreter failing on a program the
// lowering accepts is a disagreement (a run meets a mistake that the
// lowering missed, or the interpreter is wrong).
func Compare(ctx context.Context, name string, src []byte, opt Options) (*Report, error) {
	popt := parse.Options{Params: opt.Params, Registers: opt.Registers}
	rep := &Report{}
	p, err := parse.ParseOptions(name, src, popt)
	if err != nil {
		rep.Skipped = "the lowering rejects it: " + firstLine(err.Error())
		return rep, nil
	}
	rep.Program = p
	if prog.HasAtomics(p) {
		rep.Skipped = "remote atomics: the interpreter does not cover them"
		return rep, nil
	}
	rep.Machine, err = exploreSC(ctx, p, opt.MaxStates)
	if err != nil {
		return nil, err
	}
	in, err := InterpretSC(name, src, parse.Options{Params: opt.Params}, opt.MaxStates)
	if err != nil {
		rep.Problems = append(rep.Problems, "the interpreter fails where the lowering does not: "+err.Error())
		return rep, nil
	}
	rep.Interp = Behaviours{Finals: in.Finals, Errors: in.Errors, Deadlock: in.Deadlock, Complete: in.Complete, States: in.States}
	regs := 0
	for l := range p.Locs {
		if p.Locs[l].Reg {
			regs++
		}
	}
	if len(in.Locs) != len(p.Locs)-regs {
		rep.Problems = append(rep.Problems, fmt.Sprintf("%d locations interpreted, %d lowered (%d of them registers)", len(in.Locs), len(p.Locs), regs))
		return rep, nil
	}
	if regs > 0 {
		rep.Machine.withoutRegisters(p, len(in.Locs))
		rep.Interp.withoutRegisters(p, len(in.Locs))
	}
	for l := range in.Locs {
		if in.Locs[l] != p.Locs[l].Name {
			rep.Problems = append(rep.Problems, fmt.Sprintf("location %d is %s interpreted, %s lowered", l, in.Locs[l], p.Locs[l].Name))
			return rep, nil
		}
	}
	m, i := &rep.Machine, &rep.Interp
	switch {
	case m.Complete && i.Complete:
		rep.compare(p, m, i, "machine")
		rep.compare(p, i, m, "interpreter")
		if m.Deadlock != i.Deadlock {
			rep.Problems = append(rep.Problems, fmt.Sprintf("deadlock: machine %v, interpreter %v", m.Deadlock, i.Deadlock))
		}
	case m.Complete:
		rep.compare(p, i, m, "interpreter")
	case i.Complete:
		rep.compare(p, m, i, "machine")
	default:
		rep.Skipped = "both searches were cut"
	}
	return rep, nil
}

// compare reports what a reached and b did not.
func (r *Report) compare(p *prog.Program, a, b *Behaviours, an string) {
	for _, f := range a.Finals {
		if !hasFinal(b.Finals, f) {
			r.Problems = append(r.Problems, fmt.Sprintf("final memory only on the %s: %s", an, Memory(p, f)))
		}
	}
	for _, e := range a.Errors {
		if !hasError(b.Errors, e) {
			r.Problems = append(r.Problems, fmt.Sprintf("error point only on the %s: %s (col %d)", an, e, e.Pos.Col))
		}
	}
}

func hasFinal(fs [][]uint8, f []uint8) bool {
	for _, g := range fs {
		if bytes.Equal(f, g) {
			return true
		}
	}
	return false
}

func hasError(es []ErrorPoint, e ErrorPoint) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// Memory prints a memory: "x=1 buf[0]=2".
func Memory(p *prog.Program, mem []uint8) string {
	var b strings.Builder
	for l, v := range mem {
		if l > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", p.Locs[l].Name, v)
	}
	return b.String()
}

// exploreSC explores the SC machine of p: its final memories, the error
// points its threads stop at, and whether some configuration deadlocks.
func exploreSC(ctx context.Context, p *prog.Program, limit int) (Behaviours, error) {
	var res Behaviours
	m, err := machine.New(p, machine.SC, machine.DefaultOptions())
	if err != nil {
		return res, err
	}
	finals := map[string]bool{}
	errs := map[ErrorPoint]bool{}
	visit := func(_ uint64, s []byte, _ int) bool {
		cfg := m.Encoded(s)
		if m.FinalEncoded(s) {
			mem := make([]byte, len(p.Locs))
			for l := range mem {
				mem[l] = cfg.Mem(l)
			}
			finals[string(mem)] = true
			return true
		}
		if l := p.OutOfRange(cfg); l >= 0 {
			// A write left l's range: the run stops (prog.Range). The
			// interpreter names it alike, without a thread.
			r := p.Locs[l].Check
			errs[ErrorPoint{Msg: prog.RangeMsg(p.Locs[l].Name, cfg.Mem(l), r.Lo, r.Hi)}] = true
		}
		for t := range p.Threads {
			pc, _ := cfg.PC(t)
			if in := &p.Threads[t].Code[pc]; in.Op == prog.OpFail {
				errs[ErrorPoint{Thread: p.Threads[t].Name, Pos: in.Stmt.Pos, Msg: in.Stmt.Src.Text}] = true
			}
		}
		if m.StuckEncoded(s) == machine.Deadlock {
			res.Deadlock = true
		}
		return true
	}
	sr, err := explore.New(m, explore.Options{MaxStates: uint64(limit), Visit: visit}).Run(ctx)
	if err != nil {
		return res, err
	}
	res.Complete = sr.Stop == explore.Complete && sr.Pruned == 0
	res.States = int(sr.States)
	for f := range finals {
		res.Finals = append(res.Finals, []uint8(f))
	}
	slices.SortFunc(res.Finals, bytes.Compare)
	for e := range errs {
		res.Errors = append(res.Errors, e)
	}
	SortErrorPoints(res.Errors)
	return res, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// withoutRegisters leaves the locations from user on (registers kept at run
// time, which the lowering declares after the program's own) out of b's
// final memories, and the messages out of its error points.
func (b *Behaviours) withoutRegisters(p *prog.Program, user int) {
	var finals [][]uint8
	for _, f := range b.Finals {
		if f = f[:min(user, len(f))]; !hasFinal(finals, f) {
			finals = append(finals, f)
		}
	}
	slices.SortFunc(finals, bytes.Compare)
	b.Finals = finals
	var errs []ErrorPoint
	for _, e := range b.Errors {
		e.Msg = ""
		if !hasError(errs, e) {
			errs = append(errs, e)
		}
	}
	SortErrorPoints(errs)
	b.Errors = errs
}
