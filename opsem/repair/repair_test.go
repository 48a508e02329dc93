package repair

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/robust"
)

const protocols = "../../corpus/protocols/"

// decideText parses text as file and decides it with the decider.
func decideText(t *testing.T, file string, text []byte) *robust.Result {
	t.Helper()
	p, err := parse.Parse(file, text)
	if err != nil {
		t.Fatalf("%s: the repaired text does not parse: %v\n%s", file, err, text)
	}
	opt := robust.Options{Method: robust.Decider, Deadlocks: true}
	opt.Verdict.Machine = machine.DefaultOptions()
	r, err := robust.Decide(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func repairFile(t *testing.T, file string, opt Options) *Result {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	opt.Parse = func(ctx context.Context, text []byte) (*prog.Program, error) {
		return parse.ParseContext(ctx, file, text, parse.Options{})
	}
	if opt.Costs == (Costs{}) {
		opt.Costs = DefaultCosts
	}
	r, err := Repair(context.Background(), src, opt)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return r
}

// TestRepairProtocols repairs the non-robust protocols whose hand-fixed
// variant exists, and a few litmus shapes: the repaired text is robust by the decider, inserts no
// more statements than the hand fix, and every insertion is needed (without
// any one of them the program is not robust).
func TestRepairProtocols(t *testing.T) {
	tests := []struct {
		file string
		hand int    // statements the hand fix inserts
		want string // the kinds inserted, in order
	}{
		{"seqlock-get", 2, "rfence rfence"},                 // seqlock-get-rfence: an rfence between consecutive gets
		{"commit-other-qp", 2, "readback"},                  // -readback: chk := log, one more poll
		{"xprtrdma-reuse", 1, "poll"},                       // -poll: poll(S) before the reuse
		{"dekker-put-poll", 6, "readback readback"},         // dekker-put-readback: get + 2 polls, each thread
		{"peterson-alock-nopoll", 4, "poll poll poll poll"}, // peterson-alock: poll(A); poll(A) twice
		{"mu-heartbeat-pipelined", 1, "rfence"},             // mu-heartbeat: poll(L) before the next read
		{"abp-staged", 1, "poll"},                           // README: "a poll before reuse"
		// Litmus tests (no hand fix: hand is what the shape needs).
		{"litmus/GET-GET-MP", 1, "poll"},
		{"litmus/GET-LR", 1, "poll"},
		{"litmus/PUT-LW", 1, "poll"},
		{"litmus/PUTACK-NOT-VISIBLE", 2, "readback"},
		{"litmus/SB-PUT", 6, "readback readback"},
		{"litmus/paper-5.1", 2, "poll poll"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			file := filepath.Join(protocols, tc.file+".rdma")
			if dir, name, ok := strings.Cut(tc.file, "/"); ok {
				file = filepath.Join(protocols, "..", dir, name+".rdma")
			}
			// The claim of cost-minimality is TestRepairCostMinimal's;
			// its proof takes peterson-alock-nopoll 82 decisions.
			r := repairFile(t, file, Options{MaxProof: -1})
			if !r.Found() {
				t.Fatalf("no repair: why %q, cut %q", r.Why, r.Cut)
			}
			kinds := ""
			for i, in := range r.Insertions {
				if i > 0 {
					kinds += " "
				}
				kinds += in.Kind
			}
			if kinds != tc.want {
				t.Errorf("inserted %q, want %q", kinds, tc.want)
			}
			if n := r.Statements(); n > tc.hand {
				t.Errorf("%d statements inserted, the hand fix %d", n, tc.hand)
			}
			if v := decideText(t, file, r.Text); !v.Robust || !v.Complete || v.Deadlock != nil {
				t.Errorf("the repaired text is not proven robust, or deadlocks:\n%s", r.Text)
			}
			for i, in := range r.Insertions {
				if v := decideText(t, file, r.Without(i)); v.Robust {
					t.Errorf("without %q at line %d it is still robust: the repair is redundant", in.Stmt, in.Line)
				}
			}
		})
	}
}

// TestRepairKinds: with only the kinds that cannot fix a cycle, repair says
// why; a robust program needs nothing.
func TestRepairKinds(t *testing.T) {
	tests := []struct {
		file  string
		kinds string
		found bool
	}{
		{"commit-other-qp", "poll,rfence", false}, // a polled put is not visible: only a read-back orders it
		{"seqlock-get", "poll", false},            // polls after the gets leave the polls below them nothing to wait for
		{"seqlock-get-rfence", "", true},          // robust already
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.kinds, func(t *testing.T) {
			k, err := ParseKinds(tc.kinds)
			if err != nil {
				t.Fatal(err)
			}
			r := repairFile(t, filepath.Join(protocols, tc.file+".rdma"), Options{Kinds: k})
			if r.Found() != tc.found {
				t.Fatalf("found %v (why %q), want %v", r.Found(), r.Why, tc.found)
			}
			if tc.found && tc.kinds == "" && (!r.Already || len(r.Insertions) != 0) {
				t.Errorf("a robust program got %d insertions", len(r.Insertions))
			}
			if !tc.found && r.Why == "" {
				t.Error("no repair and no reason")
			}
		})
	}
}

// TestRepairAtomics: on remote atomics, which the decider refuses, repair
// decides by enumeration on the machine and learns from its run: the
// repaired text is robust by a complete enumeration, within a time the
// model's enumeration did not reach (atomics-tas-lock-nopoll: over a
// minute before), and every insertion is needed.
func TestRepairAtomics(t *testing.T) {
	tests := []struct{ file, want string }{
		{"atomics-tas-lock-nopoll", "rfence"},
		{"atomics-mcs-lock-nopoll", "poll"},
		{"atomics-ticket-lock-nopoll", "poll"},
	}
	enum := func(t *testing.T, file string, text []byte) *robust.Result {
		t.Helper()
		p, err := parse.Parse(file, text)
		if err != nil {
			t.Fatalf("%s: %v\n%s", file, err, text)
		}
		opt := robust.Options{Method: robust.EnumMachine}
		opt.Verdict.Machine = machine.DefaultOptions()
		r, err := robust.Decide(context.Background(), p, opt)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			file := filepath.Join(protocols, tc.file+".rdma")
			r := repairFile(t, file, Options{})
			if !r.Found() {
				t.Fatalf("no repair: why %q, cut %q", r.Why, r.Cut)
			}
			var kinds []string
			for _, in := range r.Insertions {
				kinds = append(kinds, in.Kind)
			}
			if got := strings.Join(kinds, " "); got != tc.want {
				t.Errorf("inserted %q, want %q", got, tc.want)
			}
			if v := enum(t, file, r.Text); !v.Robust || !v.Complete {
				t.Errorf("the repaired text is not robust by a complete enumeration (robust %v, complete %v):\n%s", v.Robust, v.Complete, r.Text)
			}
			for i, in := range r.Insertions {
				if v := enum(t, file, r.Without(i)); v.Robust {
					t.Errorf("without %q it is still robust", in.Stmt)
				}
			}
		})
	}
}
