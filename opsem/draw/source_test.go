package draw_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/draw"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/robust"
	"rdmasim/opsem/verdict"
)

// stmtOf is the kinds of statement an event of each kind comes from.
var stmtOf = map[prog.EventKind][]prog.StmtKind{
	prog.EvLW:  {prog.SWrite, prog.SCAS},
	prog.EvLR:  {prog.SAssume, prog.SCAS, prog.SChoose},
	prog.EvCAS: {prog.SCAS},
	prog.EvNLR: {prog.SPut},
	prog.EvNRW: {prog.SPut},
	prog.EvNRR: {prog.SGet},
	prog.EvNLW: {prog.SGet, prog.SRCAS, prog.SRFAA},
	prog.EvNAR: {prog.SRCAS, prog.SRFAA},
	prog.EvNAW: {prog.SRCAS, prog.SRFAA},
}

// TestMachineRunSources checks the statements MachineRun finds for the
// events of enum-machine's violations on the litmus tests: every event of
// the run's graph has one, of a kind that makes such an event (a put for
// nlR and nrW, a get for nrR, ...).
func TestMachineRunSources(t *testing.T) {
	files, err := filepath.Glob("../../corpus/litmus/*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no litmus tests: %v", err)
	}
	st, err := explore.Choices{Order: "bfs", Workers: 1, Store: "mem", MaxStates: 200000}.Settings()
	if err != nil {
		t.Fatal(err)
	}
	drawn := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parse.Parse(f, src)
		if err != nil {
			continue
		}
		r, err := robust.Decide(context.Background(), p, robust.Options{Method: robust.EnumMachine,
			Verdict: verdict.Options{Machine: machine.DefaultOptions(), Settings: st}})
		if err != nil || r.Robust || r.Graph == nil || r.Run == nil {
			continue
		}
		drawn++
		d := draw.MachineRun(p, r.Graph, r.Run, "")
		for i, e := range r.Graph.Events {
			ev := d.Events[i]
			if ev.Line == 0 {
				t.Errorf("%s: event %s of thread %d (slot %d) has no source", f, ev.Label, e.Thread, e.Slot)
				continue
			}
			var kind prog.StmtKind = 255
			for _, in := range p.Threads[e.Thread].Code {
				if in.Stmt != nil && in.Stmt.Pos.Line == ev.Line && in.Stmt.Pos.Col == ev.Col {
					kind = in.Stmt.Kind
				}
			}
			ok := false
			for _, k := range stmtOf[e.Kind] {
				ok = ok || k == kind
			}
			if !ok {
				t.Errorf("%s: event %s placed at line %d:%d %q (statement kind %d)", f, ev.Label, ev.Line, ev.Col, ev.Stmt, kind)
			}
		}
	}
	t.Logf("%d violations drawn", drawn)
	if drawn < 10 {
		t.Errorf("drew %d violations, want at least 10", drawn)
	}
}
