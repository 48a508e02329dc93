package repair

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRepairCostMinimal: on protocols and litmus shapes whose cheapest
// repair is known by hand (the hand-fixed pairs of corpus/protocols), the
// repair costs what the hand fix costs, or less, and claims cost-minimal:
// no set of the insertions met that costs less reaches the goal.
func TestRepairCostMinimal(t *testing.T) {
	tests := []struct {
		file  string
		goal  Goal
		kinds string
		cost  int // the cheapest repair, by hand
	}{
		{"seqlock-get", GoalRobust, "", 2},            // seqlock-get-rfence: two rfences
		{"seqlock-get", GoalRobust, "rfence", 2},      // the same, rfences only
		{"seqlock-get", GoalQuery, "", 2},             // the assertion needs both too
		{"xprtrdma-reuse", GoalRobust, "", 1},         // xprtrdma-reuse-poll: one poll
		{"commit-other-qp", GoalRobust, "", 3},        // -readback: a get and one more poll (cost 3)
		{"dekker-put-poll", GoalRobust, "", 6},        // dekker-put-readback: a read-back in each thread
		{"mu-heartbeat-pipelined", GoalRobust, "", 1}, // mu-heartbeat: one poll (here an rfence)
		{"peterson-alock-nopoll", GoalQuery, "", 3},   // the mutual exclusion needs three polls
		{"atomics-counter-nofifo-nopoll", GoalRobust, "", 2},
		{"litmus/GET-GET-MP", GoalRobust, "", 1},
		{"litmus/SB-PUT-POLL", GoalRobust, "", 6},
		{"litmus/paper-5.1", GoalRobust, "", 2},
	}
	for _, tc := range tests {
		name := tc.file + "/" + tc.goal.String() + "/" + tc.kinds
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(protocols, tc.file+".rdma")
			if dir, base, ok := strings.Cut(tc.file, "/"); ok {
				file = filepath.Join(protocols, "..", dir, base+".rdma")
			}
			kinds, err := ParseKinds(tc.kinds)
			if err != nil {
				t.Fatal(err)
			}
			r := repairFile(t, file, Options{Goal: tc.goal, Kinds: kinds})
			if !r.Found() {
				t.Fatalf("no repair: why %q, cut %q", r.Why, r.Cut)
			}
			if r.Cost != tc.cost || r.Minimal != "cost-minimal" {
				t.Errorf("cost %d, %s (%s); want cost %d, cost-minimal", r.Cost, r.Minimal, r.MinimalWhy, tc.cost)
			}
		})
	}
}

// TestRepairCostMinimalBrute checks the claim independently of the proof:
// on small programs (litmus shapes, protocols whose universe is small, and
// the first 60 generated programs of TestRepairGenerated that are not robust), every set of the
// insertions met that costs less than the answer is decided, and none is a
// repair (each is not robust, or deadlocks where the original does not).
func TestRepairCostMinimalBrute(t *testing.T) {
	type program struct{ name, src string }
	var progs []program
	for _, f := range []string{"litmus/GET-GET-MP", "litmus/GET-PUT-WAR", "litmus/rule-N6-gets-any-order", "litmus/SB-PUT-POLL",
		"litmus/paper-5.1", "litmus/paper-vass-ext-nonrobust", "seqlock-get", "mu-heartbeat-pipelined", "xprtrdma-reuse", "dekker-put-poll"} {
		file := filepath.Join(protocols, f+".rdma")
		if dir, base, ok := strings.Cut(f, "/"); ok {
			file = filepath.Join(protocols, "..", dir, base+".rdma")
		}
		progs = append(progs, program{file, string(mustRead(t, file))})
	}
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 60; n++ {
		progs = append(progs, program{"gen.rdma", genProgram(rng, n)})
	}
	var claims, subsets atomic.Int64
	t.Run("each", func(t *testing.T) {
		for i, pg := range progs {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				c, n := bruteCheaper(t, pg.name, pg.src)
				claims.Add(c)
				subsets.Add(n)
			})
		}
	})
	t.Logf("%d cost-minimal claims checked, %d cheaper sets decided", claims.Load(), subsets.Load())
	if claims.Load() < 10 {
		t.Errorf("only %d claims to check", claims.Load())
	}
}

// bruteCheaper repairs src and, when the repair claims cost-minimal,
// decides every set of the insertions met that costs less: none may be
// robust without a deadlock. It returns the claims checked (0 or 1) and the
// sets decided.
func bruteCheaper(t *testing.T, name, src string) (claims, subsets int64) {
	orig := decideText(t, name, []byte(src))
	if orig.Robust || orig.Deadlock != nil {
		return 0, 0 // nothing to repair, or a deadlock to compare with
	}
	r, err := Repair(context.Background(), []byte(src), Options{Parse: textParser(name), Costs: DefaultCosts})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if !r.Found() || r.Minimal != "cost-minimal" {
		return 0, 0
	}
	u := r.universe
	if len(u) > 16 {
		t.Fatalf("%d insertions met: too many to enumerate", len(u))
	}
	for mask := 0; mask < 1<<len(u); mask++ {
		var parts []Insertion
		cost := 0
		for k := range u {
			if mask&(1<<k) != 0 {
				parts = append(parts, u[k])
				cost += u[k].Cost
			}
		}
		if cost >= r.Cost {
			continue
		}
		subsets++
		text := expectRobust.ReplaceAll(build(r.orig, parts).Text, []byte("${1}yes"))
		if v := decideText(t, name, text); v.Robust && v.Deadlock == nil {
			t.Errorf("claimed cost-minimal at cost %d, but this text of cost %d is robust:\n%s", r.Cost, cost, text)
		}
	}
	return 1, subsets
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRepairHittingExcept: the proof's branch and bound excludes sets one
// by one (a set that deadlocks), not with their supersets.
func TestRepairHittingExcept(t *testing.T) {
	cost := []int{1, 1, 3, 1}
	tests := []struct {
		clauses, except [][]int
		want            []int
		ok              bool
	}{
		{[][]int{{0, 1, 2, 3}}, nil, []int{0}, true},
		{[][]int{{0, 1, 2, 3}}, [][]int{{0}, {1}, {3}}, []int{0, 1}, true},
		{[][]int{{0, 2}, {1, 2}}, [][]int{{0, 1}, {0, 1, 3}}, []int{2}, true},
		{[][]int{{0}, {1}}, [][]int{{0, 1}}, []int{0, 1, 3}, true},
		{[][]int{{0}}, [][]int{{0}, {0, 1}, {0, 2}, {0, 3}, {0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {0, 1, 2, 3}}, nil, false},
	}
	for i, tc := range tests {
		got, exact, ok := minHitting(tc.clauses, nil, tc.except, cost, 1000)
		if ok != tc.ok || !exact || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%d: got %v (exact %v, ok %v), want %v (ok %v)", i, got, exact, ok, tc.want, tc.ok)
		}
	}
}
