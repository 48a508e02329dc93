package verdict

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// symFamily is a family of n identical clients, each running body, with
// query appended.
func symFamily(n int, body, query string) string {
	return fmt.Sprintf(`param N = %d
node S { x : 0..1 = 0; slot[N] : 0..1 = 0 }
node m[i] for i in 0..N-1 { v : 0..1 = 1; d : 0..1 = 0 }
thread client[i] on m[i] for i in 0..N-1 {
%s
}
%s
`, n, body, query)
}

// symPrograms returns the family programs of the corpus with a verified
// group (family-slots with N = 3) and small generated ones.
func symPrograms(t *testing.T) map[string]*prog.Program {
	out := map[string]*prog.Program{}
	var files []string
	for _, dir := range []string{"../../corpus/protocols", "../../corpus/bench"} {
		fs, err := filepath.Glob(dir + "/*.rdma")
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	for _, f := range files {
		var opt parse.Options
		if strings.HasSuffix(f, "family-slots.rdma") {
			opt.Params = map[string]int{"N": 3}
		}
		p, err := parse.FileOptions(f, opt)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if sym, _ := prog.FindSymmetry(p); sym != nil {
			out[filepath.Base(f)] = p
		}
	}
	gen := map[string]string{
		"put-poll-get-put": symFamily(3, "slot[i] := v[i]\npoll(S)\nd[i] := x\npoll(S)\nx := v[i]\npoll(S)", ""),
		"unpolled":         symFamily(3, "slot[i] := v[i]\nd[i] := x\nx := v[i]", ""),
		"exists-all":       symFamily(3, "x := v[i]\nd[i] := x\npoll(S)\npoll(S)", "exists (d[0] = 0 /\\ d[1] = 0 /\\ d[2] = 0)"),
		"exists-named":     symFamily(4, "slot[i] := v[i]\nd[i] := x\npoll(S)\npoll(S)", "exists (d[0] = 0 /\\ slot[1] = 1)"),
		"forall-named":     symFamily(3, "x := v[i]\nd[i] := x\npoll(S)\npoll(S)", "forall (d[0] = 1)"),
		"reach":            symFamily(3, "x := v[i]\npoll(S)\nd[i] := x\npoll(S)", "reach (x = 1 /\\ d[1] = 0)"),
		"deadlock":         symFamily(3, "slot[i] := v[i]\npoll(S)\npoll(S)", ""),
		"deadlock-some":    symFamily(2, "d[i] := x\npoll(S)\nif (d[i] == 0) { x := v[i]; poll(S); poll(S) }", ""),
	}
	for name, src := range gen {
		p, err := parse.Parse(name+".rdma", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		if sym, why := prog.FindSymmetry(p); sym == nil {
			t.Fatalf("%s: no symmetry: %v", name, why)
		}
		out[name] = p
	}
	return out
}

// TestComputeSymmetry checks that check's searches with and without
// symmetry give the same outcomes, verdicts, bounds and ends, on the RDMA
// machine (with and without its partial-order reduction) and the SC
// machine, and that the reduced search's witnesses and runs to deadlocks
// replay step by step on a machine without symmetry.
func TestComputeSymmetry(t *testing.T) {
	progs := symPrograms(t)
	names := make([]string, 0, len(progs))
	for n := range progs {
		names = append(names, n)
	}
	slices.Sort(names)
	reduced := 0
	for _, name := range names {
		p := progs[name]
		for _, c := range []struct {
			sem    machine.Semantics
			reduce bool
		}{{machine.RDMA, false}, {machine.RDMA, true}, {machine.SC, false}} {
			t.Run(fmt.Sprintf("%s/%s/reduce=%v", name, c.sem, c.reduce), func(t *testing.T) {
				opt := Options{Machine: machine.Options{MaxInflight: 4, Unroll: 2, Reduce: c.reduce}, Witness: true,
					Settings: explore.Settings{MaxStates: 200_000}}
				plain, err := Compute(context.Background(), p, c.sem, opt)
				if err != nil {
					t.Fatal(err)
				}
				if plain.Search.Stop != explore.Complete {
					t.Skipf("plain search cut: %s", plain.Bound)
				}
				opt.Symmetry = true
				red, err := Compute(context.Background(), p, c.sem, opt)
				if err != nil {
					t.Fatal(err)
				}
				compareSym(t, p, plain, red)
				if red.Symmetry != "" {
					reduced++
					replayRun(t, p, c.sem, opt.Machine, red.Witness, func(m *machine.Machine, last []byte) string {
						cond := p.Query.Cond
						if cond == nil {
							cond = &prog.Cond{Op: prog.CTrue}
						}
						sat := cond.Eval(p, m.Encoded(last))
						switch p.Query.Kind {
						case prog.QReach:
							if !sat {
								return "the witness does not satisfy the condition"
							}
						case prog.QForall:
							if sat || !m.FinalEncoded(last) {
								return "the counterexample is not a final configuration violating the condition"
							}
						default:
							if !sat || !m.FinalEncoded(last) {
								return "the witness is not a final configuration satisfying the condition"
							}
						}
						return ""
					})
					replayRun(t, p, c.sem, opt.Machine, red.DeadlockRun, func(m *machine.Machine, last []byte) string {
						if m.StuckEncoded(last) != machine.Deadlock {
							return "the run to a deadlock does not end in one"
						}
						if w := m.Waiting(last); w != red.DeadlockAt {
							return fmt.Sprintf("the deadlock waits at %s, the result says %s", w, red.DeadlockAt)
						}
						return ""
					})
				}
				t.Logf("states plain %d reduced %d (%s)", plain.Search.States, red.Search.States, red.Symmetry)
			})
		}
	}
	if reduced == 0 {
		t.Fatal("no search was reduced by symmetry")
	}
}

// compareSym compares what check reports of a plain and a reduced search.
func compareSym(t *testing.T, p *prog.Program, plain, red *Result) {
	t.Helper()
	if len(plain.Outcomes) != len(red.Outcomes) {
		t.Errorf("%d outcomes plain, %d with symmetry (%s)", len(plain.Outcomes), len(red.Outcomes), red.Symmetry)
	} else {
		for i := range plain.Outcomes {
			a, b := plain.Outcomes[i], red.Outcomes[i]
			if !bytes.Equal(a.Values, b.Values) || a.Satisfies != b.Satisfies {
				t.Errorf("outcome %d: plain %v %v, with symmetry %v %v", i, a.Values, a.Satisfies, b.Values, b.Satisfies)
			}
		}
	}
	ph, pc := plain.Holds()
	rh, rc := red.Holds()
	if plain.Allowed != red.Allowed || plain.Complete != red.Complete || plain.Bound != red.Bound || ph != rh || pc != rc {
		t.Errorf("plain allowed=%v complete=%v bound=%q holds=%v,%v; with symmetry allowed=%v complete=%v bound=%q holds=%v,%v",
			plain.Allowed, plain.Complete, plain.Bound, ph, pc, red.Allowed, red.Complete, red.Bound, rh, rc)
	}
	if p.Query.Kind != prog.QReach && (plain.Positive != red.Positive || plain.Negative != red.Negative) {
		t.Errorf("positive/negative plain %d/%d, with symmetry %d/%d", plain.Positive, plain.Negative, red.Positive, red.Negative)
	}
	if (plain.Finals > 0) != (red.Finals > 0) || (plain.Filtered > 0) != (red.Filtered > 0) || (plain.Deadlocks > 0) != (red.Deadlocks > 0) ||
		plain.Vacuous() != red.Vacuous() || (plain.ErrorAt != "") != (red.ErrorAt != "") {
		t.Errorf("ends plain %d/%d/%d error %q, with symmetry %d/%d/%d error %q", plain.Finals, plain.Filtered, plain.Deadlocks, plain.ErrorAt,
			red.Finals, red.Filtered, red.Deadlocks, red.ErrorAt)
	}
	if (plain.Witness == nil) != (red.Witness == nil) || (plain.DeadlockRun == nil) != (red.DeadlockRun == nil) {
		t.Errorf("witness plain %v with symmetry %v; deadlock run plain %v with symmetry %v", plain.Witness != nil, red.Witness != nil,
			plain.DeadlockRun != nil, red.DeadlockRun != nil)
	}
	if red.Symmetry != "" && red.Search.States > plain.Search.States {
		t.Errorf("with symmetry %d states, plain %d", red.Search.States, plain.Search.States)
	}
}

// replayRun replays run step by step on the full machine of p (no
// symmetry, no partial-order reduction) and checks its end with end.
func replayRun(t *testing.T, p *prog.Program, sem machine.Semantics, mopt machine.Options, run *Run, end func(*machine.Machine, []byte) string) {
	t.Helper()
	if run == nil {
		return
	}
	mopt.Reduce = false
	m, err := OutcomeMachine(p, sem, mopt)
	if err != nil {
		t.Fatal(err)
	}
	if m.Symmetric() {
		t.Fatal("a fresh machine reduces by symmetry")
	}
	prev := m.Initial(nil)
	if !bytes.Equal(prev, run.Initial) {
		t.Fatal("the run does not start in the initial configuration")
	}
	for i, st := range run.Steps {
		ok := false
		m.Successors(prev, func(_ uint64, next []byte) {
			ok = ok || bytes.Equal(next, st.Post)
		})
		if !ok {
			t.Fatalf("step %d (%s %s) is not a step of the machine", i, st.Actor, st.What)
		}
		prev = bytes.Clone(st.Post)
	}
	if msg := end(m, prev); msg != "" {
		t.Error(msg)
	}
}
