package decide

import (
	"context"
	"path/filepath"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestSwitchesAgree: on every corpus program with a switch that the decider
// covers, it answers the same with the switches and with the chooses of
// assumes they were compiled from (prog.Unswitch), with a checked and
// replayed witness for each violation; on a robust program the switches'
// search stores no more states.
func TestSwitchesAgree(t *testing.T) {
	var files []string
	for _, dir := range []string{"litmus", "protocols"} {
		fs, err := filepath.Glob("../../corpus/" + dir + "/*.rdma")
		if err != nil || len(fs) == 0 {
			t.Fatalf("no corpus in %s: %v", dir, err)
		}
		files = append(files, fs...)
	}
	ctx := context.Background()
	n := 0
	for _, f := range files {
		sw, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		if prog.HasAtomics(sw) || !hasSwitch(sw) {
			continue
		}
		ch, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		prog.Unswitch(ch)
		t.Run(sw.Name, func(t *testing.T) {
			rs, err := Decide(ctx, sw, Options{})
			if err != nil {
				t.Fatal(err)
			}
			rc, err := Decide(ctx, ch, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rs.Robust != rc.Robust || rs.Complete != rc.Complete {
				t.Fatalf("with switches robust=%v complete=%v, with chooses robust=%v complete=%v",
					rs.Robust, rs.Complete, rc.Robust, rc.Complete)
			}
			if !rs.Robust && (rs.Witness == nil || rs.Witness.Replay == nil) {
				t.Errorf("a violation without a replayed witness")
			}
			if rs.Robust && rs.Search.States > rc.Search.States {
				t.Errorf("with switches %d states, with chooses %d", rs.Search.States, rc.Search.States)
			}
		})
		n++
	}
	if n == 0 {
		t.Fatal("no program with a switch")
	}
}

func hasSwitch(p *prog.Program) bool {
	for t := range p.Threads {
		for _, in := range p.Threads[t].Code {
			if in.Op == prog.OpSwitch {
				return true
			}
		}
	}
	return false
}
