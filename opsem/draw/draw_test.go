package draw

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"rdmasim/opsem/dot"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// Programs of the tests, from corpus/litmus.
const (
	// The paper's section 5.1: a put reads x after a po-later write.
	paper51 = `litmus paper-5.1
node n1 { x = 1; y = 0 }
node n2 { z = 0; w = 1 }
thread p on n1 { y := w; z := x; x := 2 }
exists (z = 2)
`
	// Robust, and the condition never holds.
	lwPut = `litmus LW-PUT
node A { x = 0 }
node B { z = 0 }
thread T0 on A { x := 1; z := x }
exists (z = 0)
`
	// A reach condition: between the two events of a CAS.
	reachMidCAS = `litmus REACH-MID-CAS
node A { z = 0; x = 7 }
thread T0 on A { x := cas(z, 0, 1) }
reach z = 1 /\ x = 7
`
	// A forall query: under SC the local write lands last and x = 1 holds;
	// under RDMA the get's write to x can land after it.
	forall = `litmus FORALL
node A { x = 0 }
node B { y = 0 }
thread T0 on A { x := y; x := 1 }
thread T1 on B { y := 1 }
forall (x = 1)
`
)

func program(t *testing.T, src string) *prog.Program {
	t.Helper()
	p, err := parse.Parse("test.rdma", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExecutions: which executions each selection draws, how many, their
// titles, bold sc cycles and legends, and the message when there are none.
func TestExecutions(t *testing.T) {
	rdma, sc := machine.RDMA, machine.SC
	tests := []struct {
		name    string
		src     string
		opt     Options
		graphs  int
		title   string // of the first graph
		bold    bool   // every graph has an sc cycle
		nothing string // Nothing's message
		err     string // part of Executions' error
	}{
		{"cond first", paper51, Options{Show: ShowCond, Semantics: rdma}, 1, "paper-5.1: rdma execution 1", true,
			"no rdma-consistent execution of paper-5.1 satisfies exists z = 2", ""},
		{"cond every", paper51, Options{Show: ShowCond, Semantics: rdma, Every: true}, 3, "paper-5.1: rdma execution 1", true, "", ""},
		{"cond sc", paper51, Options{Show: ShowCond, Semantics: sc, Every: true}, 0, "", false,
			"no sc-consistent execution of paper-5.1 satisfies exists z = 2", ""},
		{"all", paper51, Options{Show: ShowAll, Semantics: rdma, Every: true}, 6, "paper-5.1: rdma execution 1", false,
			"no rdma-consistent execution of paper-5.1", ""},
		{"all sc", paper51, Options{Show: ShowAll, Semantics: sc, Every: true}, 4, "paper-5.1: sc execution 1", false, "", ""},
		{"violation", paper51, Options{Show: ShowViolation, Semantics: rdma, Every: true}, 3, "paper-5.1: rdma execution 1 with an sc cycle", true, "", ""},
		{"violation sc", paper51, Options{Show: ShowViolation, Semantics: sc}, 0, "", false, "", "no SC-consistent execution has one"},
		{"none", lwPut, Options{Show: ShowCond, Semantics: rdma, Every: true}, 0, "", false,
			"no rdma-consistent execution of LW-PUT satisfies exists z = 0", ""},
		{"robust", lwPut, Options{Show: ShowViolation, Semantics: rdma, Every: true}, 0, "", false,
			"no rdma-consistent execution of LW-PUT has an sc cycle (rdmasim robust also looks at partial executions)", ""},
		{"reach cond", reachMidCAS, Options{Show: ShowCond, Semantics: rdma}, 0, "", false, "", "reach conditions are machine-only"},
		{"reach all", reachMidCAS, Options{Show: ShowAll, Semantics: rdma, Every: true}, 1, "REACH-MID-CAS: rdma execution 1", false, "", ""},
		{"forall counterexamples", forall, Options{Show: ShowCond, Semantics: rdma, Every: true}, 1, "FORALL: rdma execution 1", false, "", ""},
		{"forall sc", forall, Options{Show: ShowCond, Semantics: sc, Every: true}, 0, "", false,
			"no sc-consistent execution of FORALL violates forall x = 1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := program(t, tc.src)
			res, err := Executions(context.Background(), p, tc.opt)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Graphs) != tc.graphs {
				t.Fatalf("%d graphs, want %d", len(res.Graphs), tc.graphs)
			}
			if tc.nothing != "" {
				if got := tc.opt.Nothing(p); got != tc.nothing {
					t.Errorf("Nothing: %q, want %q", got, tc.nothing)
				}
			}
			for i, g := range res.Graphs {
				if i == 0 && g.Title != tc.title {
					t.Errorf("title %q, want %q", g.Title, tc.title)
				}
				if !g.Legend {
					t.Errorf("graph %d has no legend", i+1)
				}
				if tc.bold && !boldCycle(g) {
					t.Errorf("graph %d: the bold edges do not form a cycle: %+v", i+1, g.Edges)
				}
				if tc.opt.Semantics == machine.SC && hasBold(g) {
					t.Errorf("graph %d: an SC-consistent execution with bold edges", i+1)
				}
				render(t, g)
			}
		})
	}
}

// TestMachine: a violation found on the RDMA machine is drawn with its sc
// cycle bold and closed, without a legend (robust --dot's picture).
func TestMachine(t *testing.T) {
	p := program(t, paper51)
	r, err := verdict.RobustMachine(context.Background(), p, verdict.Options{Machine: machine.Options{MaxInflight: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Robust || r.Full == nil {
		t.Fatalf("paper-5.1 robust by enumeration: %+v", r)
	}
	g := Machine(p, r.Full, "violation")
	if g.Legend || !boldCycle(g) || len(g.Threads) != 1 {
		t.Fatalf("drawing: %+v", g)
	}
	render(t, g)
}

func TestParseShow(t *testing.T) {
	for _, s := range []Show{ShowCond, ShowAll, ShowViolation} {
		if got, err := ParseShow(s.String()); err != nil || got != s {
			t.Errorf("ParseShow(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := ParseShow("some"); err == nil || !strings.Contains(err.Error(), "want cond, all or violation") {
		t.Errorf("ParseShow(some): %v", err)
	}
}

func hasBold(g *dot.Graph) bool {
	for _, e := range g.Edges {
		if e.Bold {
			return true
		}
	}
	return false
}

// boldCycle reports whether g has bold edges and they close: every event
// a bold edge enters has a bold edge leaving it.
func boldCycle(g *dot.Graph) bool {
	out := map[int]bool{}
	for _, e := range g.Edges {
		if e.Bold {
			out[e.From] = true
		}
	}
	for _, e := range g.Edges {
		if e.Bold && !out[e.To] {
			return false
		}
	}
	return len(out) > 0
}

// render runs Graphviz on g when it is installed (always under CI).
func render(t *testing.T, g *dot.Graph) {
	t.Helper()
	exe, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("graphviz's dot is not installed (make tools installs it)")
		}
		return
	}
	var b bytes.Buffer
	if err := dot.Write(&b, g); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-Tsvg")
	cmd.Stdin = &b
	if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("<svg")) {
		t.Fatalf("dot: %v\n%s\n%s", err, out, b.String())
	}
}
