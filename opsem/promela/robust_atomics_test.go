package promela

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	rgen "rdmasim/corpus/gen"
	"rdmasim/explore"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

var (
	robustAtomGen   = flag.Int("promela.robust.atomics", 45, "generated programs with remote atomics that TestRobustAtomicsGenerated compares")
	robustAtomMax   = flag.Uint64("promela.robust.atomics.states", 30000, "TestRobustAtomics skips a program whose instr machine without reduction has more states")
	robustAtomBytes = flag.Int("promela.robust.atomics.bytes", maxModelBytes, "TestRobustAtomics skips a program whose robustness model has more bytes")
)

// atomicsOptions are the robustness model's options with the experimental
// instrumentation of remote atomics.
var atomicsOptions = RobustOptions{AllowAtomics: true}

// TestRobustAtomics: on every corpus/litmus/ATOM-*.rdma and
// corpus/protocols/atomics-*.rdma file, and on its variant in which every
// fetch-and-add adds 128, SPIN's complete search of the robustness model
// with the experimental instrumentation of atomics finds a violation iff
// instr's machine without reduction reaches a target iff the decider
// (AllowAtomics) answers "not robust", and pan (spin -o2, pan -c0) stores
// at least the machine's states. Count-boxed: a program is compared when
// instr's machine without reduction has at most
// -promela.robust.atomics.states states (30,000) and its model at most
// -promela.robust.atomics.bytes (maxModelBytes).
//
// Why the variants: a fetch-and-add's target, without a range, can hold
// every value (instr's domain of y is closed under y + d modulo 256), and
// a tau2 read of it has one option per boundary guess: a model of
// 0.6-1.6 MB that spin -a and cc take one to three minutes on (2 cores),
// for pan states 10 to 300 times instr's (the model keeps guesses that
// instr's canon forgets). Adding 128 leaves a few values each (20-65 KB).
//
// Skipped by default (27 compared, 32 skipped), state explosion: the
// originals of the 17 ATOM-* tests with a fetch-and-add (models of 0.6 to
// 2.5 MB; ATOM-FAA-COUNTER-3 also has 56,890 instr states); the originals
// of the atomics-* protocols (models of 1.7 MB, or instr's machine over
// 30,000 states: atomics-counter 76,954, mcs-lock 90,990 and -nopoll
// 101,734, ticket-lock 91,637, rw-lock, tas-lock and ticket-lock-nopoll
// over 200,000) and the variants of rw-lock-nopoll, ticket-lock and
// ticket-lock-nopoll (over 30,000). Measured once with larger bounds
// (pan states / instr's): the originals of ATOM-CPU-BETWEEN (7,738 / 22),
// FAA-FAA (27,452 / 3,081), FAIL-LOCK (150,719 / 4,321), GET-SAMEQP
// (6,416 / 8), MP-SAMEQP (7,410 / 80), PENDING-CAS-FAA (342,595 / 5,514),
// PENDING-FAA-CAS (422,123 / 11,256), PENDING-FAA-FAA (455,453 / 25,186)
// and PENDING-POLL (1,430,271 / 17,259) agreed too, each in one to four
// minutes; ATOM-PER-LOCATION's pan had not finished after ten.
func TestRobustAtomics(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: SPIN on models of thousands of options")
	}
	needSpin(t)
	litmusFiles, _ := filepath.Glob(litmus + "ATOM-*.rdma")
	protocols, _ := filepath.Glob("../../corpus/protocols/atomics-*.rdma")
	files := append(litmusFiles, protocols...)
	if len(litmusFiles) < 16 || len(protocols) < 10 {
		t.Fatalf("%d ATOM-* litmus tests and %d atomics-* protocols: the corpus moved?", len(litmusFiles), len(protocols))
	}
	var compared, notRobust, skipped []string
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		variant := faaRE.ReplaceAll(src, []byte("rfaa($1, 128)"))
		for _, v := range []struct {
			name string
			src  []byte
		}{{filepath.Base(file), src}, {strings.TrimSuffix(filepath.Base(file), ".rdma") + "-faa128.rdma", variant}} {
			if v.name != filepath.Base(file) && bytes.Equal(v.src, src) {
				continue // no fetch-and-add
			}
			t.Run(v.name, func(t *testing.T) {
				p, err := parse.ParseOptions(v.name, v.src, parse.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer func() { // t.Skip ends the function
					if t.Skipped() {
						skipped = append(skipped, v.name)
					}
				}()
				robust := compareAtomics(t, p, *robustAtomMax, *robustAtomBytes)
				compared = append(compared, v.name)
				if !robust {
					notRobust = append(notRobust, v.name)
				}
			})
		}
	}
	t.Logf("%d programs compared (%d not robust: %s); %d skipped: %s", len(compared), len(notRobust),
		strings.Join(notRobust, ", "), len(skipped), strings.Join(skipped, ", "))
	if len(compared) < 20 {
		t.Errorf("only %d programs compared", len(compared))
	}
}

// faaRE matches a fetch-and-add, its target in $1.
var faaRE = regexp.MustCompile(`rfaa\(([^,()]+), *[0-9]+\)`)

// compareAtomics compares, on p without range checks (as robust.Decide
// answers), SPIN's complete search of the robustness model with the
// experimental instrumentation of atomics with instr's machine without
// reduction and the experimental decider, and returns SPIN's verdict. It
// skips p when instr's machine without reduction has more than maxStates
// states, or when the model has more than maxBytes bytes.
func compareAtomics(t *testing.T, p *prog.Program, maxStates uint64, maxBytes int) (robust bool) {
	t.Helper()
	q, _ := prog.WithoutRangeChecks(p)
	m, err := instr.New(q, instr.Options{NoReduction: true, AllowAtomics: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := explore.New(m, explore.Options{MaxStates: maxStates}).Run(context.Background()); err != nil {
		t.Fatal(err)
	} else if r.Stop != explore.Complete {
		t.Skipf("instr's machine without reduction has more than %d states", maxStates)
	}
	spin, states, violation := robustStatesOf(t, q, maxBytes, atomicsOptions)
	d, err := decide.Decide(context.Background(), q, decide.Options{NoWitness: true, AllowAtomics: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("spin: violation %v, %d states; instr without reduction: violation %v, %d states; decider: robust %v (%d states); spin -a %v, cc %v, pan %v",
		spin.Violation, spin.States, violation, states, d.Robust, d.Search.States, spin.Generate.Round(time.Millisecond), spin.Compile.Round(time.Millisecond), spin.Search.Round(time.Millisecond))
	switch {
	case !spin.Complete():
		t.Errorf("SPIN's search was cut (%q)", spin.Cut)
	case !d.Certain():
		t.Errorf("the decider is not certain: %s", d.Bound)
	case spin.Violation != violation:
		t.Errorf("SPIN finds a violation %v, instr's machine without reduction a target %v", spin.Violation, violation)
	case spin.Violation == d.Robust:
		t.Errorf("SPIN finds a violation %v, the decider robust %v", spin.Violation, d.Robust)
	case spin.States < uint64(states):
		t.Errorf("SPIN stores %d states, fewer than instr's machine without reduction (%d)", spin.States, states)
	}
	return !spin.Violation
}

// TestRobustAtomicsGenerated compares, as TestRobustAtomics, SPIN on the
// robustness model of generated programs with remote atomics (corpus/gen
// with Config.Atomics, at most four statements per thread, every other one
// drawn in the contention shape, Config.Contended) with instr's machine
// without reduction and the experimental decider. Count-boxed: it draws
// programs until -promela.robust.atomics (45) have been compared, or 20
// times as many drawn; compared are those with an atomic whose instr
// machine without reduction has at most 3,000 states and whose model has
// at most genAtomicsBytes (a fetch-and-add's target without a range can
// hold every value: one boundary guess each, and cc takes half a minute on
// a model of 400 KB).
func TestRobustAtomicsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: SPIN on 45 programs")
	}
	needSpin(t)
	rng := rand.New(rand.NewPCG(35, 54))
	compared, notRobust, drawn := 0, 0, 0
	for ; compared < *robustAtomGen && drawn < 20**robustAtomGen; drawn++ {
		cfg := rgen.DefaultConfig()
		cfg.Atomics, cfg.Instrs = true, [2]int{1, 4}
		if drawn%2 == 1 {
			cfg = cfg.Contended()
		}
		p := rgen.Program(rng, cfg, fmt.Sprintf("gen-atomics-%d", drawn))
		if !prog.HasAtomics(p) {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			robust := compareAtomics(t, p, 3000, genAtomicsBytes) // t.Skip ends the function
			compared++
			if !robust {
				notRobust++
			}
			if t.Failed() {
				t.Logf("program:\n%s", p)
			}
		})
	}
	t.Logf("%d of %d generated programs compared, %d of them not robust", compared, drawn, notRobust)
	if compared < *robustAtomGen {
		t.Errorf("only %d programs compared, want %d", compared, *robustAtomGen)
	}
}

// genAtomicsBytes bounds the models TestRobustAtomicsGenerated compares.
const genAtomicsBytes = 150 << 10

// TestRobustAtomicsOption: without RobustOptions.AllowAtomics the model
// refuses a remote atomic (*AtomicsError, naming it); with it the model
// says it is the experimental instrumentation, and each remote atomic has
// its whole options (naR+naW, and naR alone where an rcas fails), its
// pending ones and its nlW; a program without atomics gets the same model
// either way.
func TestRobustAtomicsOption(t *testing.T) {
	for _, file := range []string{"ATOM-CPU-BETWEEN.rdma", "ATOM-CAS-CAS.rdma"} {
		p, err := parse.File(litmus + file)
		if err != nil {
			t.Fatal(err)
		}
		var ae *AtomicsError
		if err := WriteRobustness(&bytes.Buffer{}, p, RobustOptions{}); !errors.As(err, &ae) || !strings.Contains(err.Error(), "--atomics-experimental") {
			t.Errorf("%s: %v, want an *AtomicsError pointing to the option", file, err)
		}
		var b bytes.Buffer
		if err := WriteRobustness(&b, p, atomicsOptions); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		s := b.String()
		want := []string{"EXPERIMENTAL: the decider's instrumentation of remote atomics", "naR(y)+naW(y) whole", "naR(y) pending", "second event: nlW(", "lk_y", "a2_y"}
		if strings.Contains(file, "CAS") {
			want = append(want, "naR(y) whole (the rcas fails)")
		}
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: the model has no %q", file, w)
			}
		}
	}
	p, err := parse.File(litmus + "SB-PUT.rdma")
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := WriteRobustness(&a, p, RobustOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteRobustness(&b, p, atomicsOptions); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("SB-PUT: the option changes the model of a program without atomics")
	}
}

// atomicOpPrograms are corpus/differ's TestEveryOpInEveryRoom programs
// of the remote atomics (opPrograms), and the options each must make.
var atomicOpPrograms = []struct {
	op       prog.Op
	src      string
	contains []string
}{
	{prog.OpRCAS, "node A { r = 9 }\nnode B { L = 0 }\nthread T on A { r := rcas(L, 0, 1); poll(B) }\nexists (L = 1 /\\ r = 0)\n",
		[]string{": naR(L)+naW(L) whole", ": naR(L) whole (the rcas fails)", ": naR(L) pending", ": nlW(r)", ": poll"}},
	{prog.OpRFAA, "node A { r = 9 }\nnode B { C = 4 }\nthread T on A { r := rfaa(C, 2); poll(B) }\nexists (C = 6 /\\ r = 4)\n",
		[]string{": naR(C)+naW(C) whole", ": naR(C) pending", ": nlW(r)", ": poll"}},
}

// racingAtomic is corpus/differ's racing: src with a store-buffering pair
// added after thread T's operation (the decider prunes a one-thread
// program before any event), and a thread on the atomic's target that
// writes it, so that the atomic can be on an SC cycle. The fetch-and-add
// adds 128 instead of 2: the target then holds 4 values, not 128, each a
// boundary guess of the model (256,664 states in pan with 2, for 439 in
// instr's machine, which forgets guesses once checked).
func racingAtomic(src, target, loc string) string {
	src = strings.Replace(src, "rfaa(C, 2)", "rfaa(C, 128)", 1)
	src = strings.Replace(src, "node A { ", "node A { zp = 0; zq = 0; ", 1)
	src = strings.Replace(src, "; poll(B) }", "; poll(B); zp := 1; assume(zq == 0) }", 1)
	return src + "thread W on A { zq := 1; assume(zp == 0) }\nthread V on " + target + " { " + loc + " := 7 }\n"
}

// TestRobustAtomicsEveryOp is TestEveryOpInEveryRoom's room of the
// robustness model for the remote atomics, with the experimental option
// (corpus/differ's room checks the refusal without it): each atomic's
// program has the options of its events, and on it and on its racing
// programs SPIN's complete search agrees with instr's machine without
// reduction and the experimental decider.
func TestRobustAtomicsEveryOp(t *testing.T) {
	needSpin(t)
	for _, tc := range atomicOpPrograms {
		t.Run(tc.op.String(), func(t *testing.T) {
			p, err := parse.ParseOptions("op.rdma", []byte(tc.src), parse.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(p.Threads[0].Code, func(in prog.Instr) bool { return in.Op == tc.op }) {
				t.Fatalf("no %s in thread T", tc.op)
			}
			var b bytes.Buffer
			if err := WriteRobustness(&b, p, atomicsOptions); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.contains {
				if !strings.Contains(b.String(), w) {
					t.Errorf("no option makes %q", w)
				}
			}
			in := slices.IndexFunc(p.Threads[0].Code, func(in prog.Instr) bool { return in.Op == tc.op })
			loc := p.Locs[p.Threads[0].Code[in].Y].Name
			srcs := []string{tc.src, racingAtomic(tc.src, "B", loc)}
			for i, src := range srcs {
				rp, err := parse.ParseOptions(fmt.Sprintf("op-%d.rdma", i), []byte(src), parse.Options{})
				if err != nil {
					t.Fatalf("%v\n%s", err, src)
				}
				robust := compareAtomics(t, rp, 1<<20, 0)
				t.Logf("program %d robust %v", i, robust)
			}
		})
	}
}
