package axiom

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestSwitchSameTraces: a switch's event sequences are those of the choose
// of assumes it was compiled from (its alternatives stay in the graph), so
// the model finds the same outcomes, traces and skeletons with the switches
// and with the chooses (prog.Unswitch), on every corpus program with a
// switch that fits the model.
func TestSwitchSameTraces(t *testing.T) {
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
		switches := 0
		for ti := range sw.Threads {
			for _, in := range sw.Threads[ti].Code {
				if in.Op == prog.OpSwitch {
					switches++
				}
			}
		}
		if switches == 0 || prog.HasAtomics(sw) {
			continue
		}
		ch, err := parse.File(f)
		if err != nil {
			t.Fatal(err)
		}
		prog.Unswitch(ch)
		opt := Options{Unroll: 1}
		r1, s1, st1, err := Outcomes(ctx, sw, opt)
		var limit *LimitError
		if errors.As(err, &limit) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		r2, s2, st2, err := Outcomes(ctx, ch, opt)
		if err != nil {
			t.Fatalf("%s: unswitched: %v", f, err)
		}
		if !reflect.DeepEqual(r1, r2) || !reflect.DeepEqual(s1, s2) || st1 != st2 {
			t.Errorf("%s: with switches %d RDMA and %d SC outcomes (%+v), with chooses %d and %d (%+v)",
				f, len(r1), len(s1), st1, len(r2), len(s2), st2)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no program with a switch within the model's limit")
	}
	t.Logf("%d programs compared", n)
}
