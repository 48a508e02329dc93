package axiom

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"rdmasim/opsem/prog"
)

func memString(p *prog.Program, mems [][]uint8) string {
	var out []string
	for _, m := range mems {
		var parts []string
		for l, v := range m {
			parts = append(parts, fmt.Sprintf("%s=%d", p.Locs[l].Name, v))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return strings.Join(out, "; ")
}

// TestNoThinAir: two puts copying each other's source can only ever move the
// initial zeros; no value is invented.
func TestNoThinAir(t *testing.T) {
	p := mustParse(t, "lb-put", `
node A { a = 0; c = 0 }
node B { b = 0; d = 0 }
thread T0 on A { b := a; c := d }
thread T1 on B { a := b; d := c }
`)
	rdma, sc, _, err := Outcomes(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "a=0 c=0 b=0 d=0"
	if memString(p, rdma) != want || memString(p, sc) != want {
		t.Errorf("outcomes rdma {%s} sc {%s}, want {%s}", memString(p, rdma), memString(p, sc), want)
	}
	n := 0
	_, err = Enumerate(context.Background(), p, Options{Prune: PruneNone}, true, func(tr *Trace, rdma, sc bool) bool {
		n++
		for _, e := range tr.Events {
			if e.Val != 0 {
				t.Errorf("invented value:\n%s", tr.Format(p))
				return false
			}
		}
		return true
	})
	if err != nil || n == 0 {
		t.Fatalf("%d candidates, %v", n, err)
	}
}

// TestCASOutcomes: success and failure paths with their values.
func TestCASOutcomes(t *testing.T) {
	p := mustParse(t, "cas", `
node A { z = 0; a = 9; b = 9 }
thread T0 on A { a := cas(z, 0, 1) }
thread T1 on A { b := cas(z, 0, 2) }
`)
	rdma, sc, _, err := Outcomes(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// exactly one CAS succeeds; the other reads its new value
	want := "z=1 a=0 b=1; z=2 a=2 b=0"
	if memString(p, rdma) != want || memString(p, sc) != want {
		t.Errorf("rdma {%s} sc {%s}, want {%s}", memString(p, rdma), memString(p, sc), want)
	}
}

// TestUnroll: a loop body runs 0..Unroll times per entry, and nested loops
// restart their count at each entry.
func TestUnroll(t *testing.T) {
	p := mustParse(t, "loop", `
node A { x = 0; y = 0 }
thread T0 on A { loop { x := 1; loop { y := 1 } } }
`)
	for _, tc := range []struct {
		unroll   int
		complete int // distinct complete label sequences
	}{{0, 1}, {1, 3}, {2, 1 + 3 + 9}} {
		seen := map[string]bool{}
		st, err := Enumerate(context.Background(), p, Options{Unroll: tc.unroll}, false, func(tr *Trace, rdma, sc bool) bool {
			var b strings.Builder
			for _, e := range tr.Events[len(p.Locs):] {
				b.WriteString(p.EventString(e.Event))
			}
			seen[b.String()] = true
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != tc.complete {
			t.Errorf("unroll %d: %d complete sequences %v, want %d", tc.unroll, len(seen), seen, tc.complete)
		}
		if !st.Bounded {
			t.Errorf("unroll %d: Bounded false", tc.unroll)
		}
	}
	q := mustParse(t, "noloop", `node A { x = 0 }
thread T0 on A { x := 1 }`)
	st, err := Enumerate(context.Background(), q, Options{Unroll: 3}, true, func(*Trace, bool, bool) bool { return true })
	if err != nil || st.Bounded {
		t.Errorf("loop-free program: Bounded %v, err %v", st.Bounded, err)
	}
	if st.Candidates != 2 || st.Skeletons != 2 {
		t.Errorf("x := 1 has 2 partial traces (empty, lW), got %d candidates, %d skeletons", st.Candidates, st.Skeletons)
	}
}

// TestPartialTraces: prefixes stop inside an instruction (between nlR and
// nrW) and before a poll with nothing to poll from.
func TestPartialTraces(t *testing.T) {
	p := mustParse(t, "prefix", `
node A { x = 1 }
node B { y = 0 }
thread T0 on A { y := x; poll(B); poll(B); x := 2 }
`)
	var lens []int
	_, err := Enumerate(context.Background(), p, Options{Prune: PruneNone}, true, func(tr *Trace, rdma, sc bool) bool {
		if err := tr.WellFormed(); err != nil {
			t.Error(err)
		}
		if tr.Complete {
			t.Errorf("complete trace of a blocked thread:\n%s", tr.Format(p))
		}
		lens = append(lens, len(tr.Events)-len(p.Locs))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	// prefixes: 0, nlR, nlR nrW, nlR nrW poll; the second poll is ill-formed
	if fmt.Sprint(lens) != "[0 1 2 3]" {
		t.Errorf("prefix lengths %v", lens)
	}
	rdma, _, _, err := Outcomes(context.Background(), p, Options{})
	if err != nil || len(rdma) != 0 {
		t.Errorf("blocked program has final outcomes %v (%v)", rdma, err)
	}
}

// TestLimits: a program whose traces are too large for the model gets a
// *LimitError that matches ErrTooLarge and says by how much (every entry
// point, every way of exceeding); bad options are plain errors.
func TestLimits(t *testing.T) {
	repeat := func(s string, n int) string { return strings.Repeat(s, n) }
	var locs strings.Builder
	for i := range 70 {
		fmt.Fprintf(&locs, " l%d;", i)
	}
	type entry func(*prog.Program, Options) error
	outcomes := func(p *prog.Program, o Options) error {
		_, _, _, err := Outcomes(context.Background(), p, o)
		return err
	}
	robust := func(p *prog.Program, o Options) error {
		_, _, _, err := Robust(context.Background(), p, o)
		return err
	}
	enumerate := func(p *prog.Program, o Options) error {
		_, err := Enumerate(context.Background(), p, o, false, func(*Trace, bool, bool) bool { return true })
		return err
	}
	tests := []struct {
		name, src string
		opt       Options
		run       entry
		want      LimitError
		summary   string
	}{
		{"70 writes", "node A { x = 0 }\nthread T0 on A {" + repeat(" x := 1;", 70) + " }\n", Options{}, outcomes,
			LimitError{Program: "t", What: LimitEvents, N: 71, Limit: 64}, "71 events > 64"},
		{"a loop unrolled 100 times", "node A { x = 0 }\nthread T0 on A { loop { x := 1 } }\n", Options{Unroll: 100}, robust,
			LimitError{Program: "t", What: LimitEvents, N: 101, Limit: 64, Unroll: 100}, "101 events > 64"},
		{"MaxEvents 2 with 3-event traces", "node A { x = 0 }\nthread T0 on A { loop { x := 1 } }\n", Options{Unroll: 2, MaxEvents: 2}, robust,
			LimitError{Program: "t", What: LimitEvents, N: 3, Limit: 2, Unroll: 2}, "3 events > 2"},
		{"two threads that fit alone", "node A { x = 0 }\nnode B { y = 0 }\n" +
			"thread T0 on A {" + repeat(" y := x;", 20) + " }\nthread T1 on B {" + repeat(" x := y;", 20) + " }\n", Options{}, enumerate,
			LimitError{Program: "t", What: LimitEvents, N: 82, Limit: 64}, "82 events > 64"},
		{"70 locations", "node A {" + locs.String() + " }\nthread T0 on A { l0 := 1 }\n", Options{}, outcomes,
			LimitError{Program: "t", What: LimitEvents, N: 71, Limit: 64}, "71 events > 64"},
		{"a trie of more than 2^20 prefixes", "node A { x = 0 }\nthread T0 on A {" + repeat(" choose { x := 1 } or { x := 2 };", 21) + " }\n", Options{}, outcomes,
			LimitError{Program: "t", What: LimitPrefixes, Thread: "T0", N: maxTreeNodes + 1, AtLeast: true, Limit: maxTreeNodes},
			"more than 1048576 label-sequence prefixes of thread T0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(mustParse(t, "t.rdma", tc.src), tc.opt)
			var le *LimitError
			if !errors.Is(err, ErrTooLarge) || !errors.As(err, &le) {
				t.Fatalf("err %v (%T), want a *LimitError", err, err)
			}
			if *le != tc.want {
				t.Errorf("got %+v, want %+v", *le, tc.want)
			}
			if le.Summary() != tc.summary || !strings.Contains(err.Error(), tc.summary) {
				t.Errorf("summary %q, error %q, want %q", le.Summary(), err, tc.summary)
			}
		})
	}
	q := mustParse(t, "loop", "node A { x = 0 }\nthread T0 on A { loop { x := 1 } }\n")
	for _, o := range []Options{{Unroll: 2, MaxEvents: 65}, {Unroll: -1}} {
		if _, _, _, err := Robust(context.Background(), q, o); err == nil || errors.Is(err, ErrTooLarge) {
			t.Errorf("options %+v: err %v, want an error other than ErrTooLarge", o, err)
		}
	}
}

// TestCancel: a cancelled context stops the search with its error.
func TestCancel(t *testing.T) {
	p := mustParseFile(t, "../../corpus/litmus/ppo-37-IRIW-GET-RFENCE.rdma")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := Robust(ctx, p, Options{}); err == nil {
		t.Error("cancelled Robust returned no error")
	}
	if _, err := Enumerate(ctx, p, Options{Prune: PruneNone}, true, func(*Trace, bool, bool) bool { return true }); err == nil {
		t.Error("cancelled Enumerate returned no error")
	}
}

// TestStop: yield returning false stops Enumerate at once.
func TestStop(t *testing.T) {
	p := mustParseFile(t, "../../corpus/litmus/ppo-37-IRIW-GET-RFENCE.rdma")
	n := 0
	st, err := Enumerate(context.Background(), p, Options{}, true, func(*Trace, bool, bool) bool { n++; return n < 3 })
	if err != nil || n != 3 || st.Candidates != 3 {
		t.Errorf("stopped after %d yields (%d candidates), err %v", n, st.Candidates, err)
	}
}

// TestWitnessSmall: Robust's witness has the fewest events among violating
// traces.
func TestWitnessSmall(t *testing.T) {
	for _, f := range corpusFiles(t) {
		p := mustParseFile(t, f)
		opt := Options{Unroll: unrollFor(p)}
		robust, w, _, err := Robust(context.Background(), p, opt)
		if err != nil || robust {
			continue
		}
		min := -1
		opt.Prune = PruneRDMA
		_, err = Enumerate(context.Background(), p, opt, true, func(tr *Trace, rdma, sc bool) bool {
			if !sc && (min < 0 || len(tr.Events) < min) {
				min = len(tr.Events)
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Events) != min {
			t.Errorf("%s: witness has %d events, smallest violation %d", f, len(w.Events), min)
		}
	}
}
