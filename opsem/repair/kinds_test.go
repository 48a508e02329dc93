package repair

import (
	"testing"

	"rdmasim/opsem/prog"
)

// TestRepairOrders checks the candidate table against what the model says
// (docs/REPAIR.md): which kind orders which pair of one thread's events
// when inserted between them.
func TestRepairOrders(t *testing.T) {
	tests := []struct {
		name     string
		a, b     prog.EventKind
		sameNode bool
		want     [numKinds]bool // poll, rfence, readback
	}{
		{"put's source read before a CPU write (PUT-LW)", prog.EvNLR, prog.EvLW, true, [numKinds]bool{true, false, true}},
		{"put's remote write before a CPU read: completion is not visibility", prog.EvNRW, prog.EvLR, true, [numKinds]bool{false, false, true}},
		{"put's remote write before a put to another node", prog.EvNRW, prog.EvNRW, false, [numKinds]bool{false, false, true}},
		{"get's remote read before a get of the same queue pair (GET-GET)", prog.EvNRR, prog.EvNRR, true, [numKinds]bool{true, true, true}},
		{"get's remote read before a get to another node", prog.EvNRR, prog.EvNRR, false, [numKinds]bool{true, false, true}},
		{"get's local write before a CPU read (GET-LR)", prog.EvNLW, prog.EvLR, true, [numKinds]bool{true, false, true}},
		{"get's local write before a put's read, same queue pair: an rfence is only ippo", prog.EvNLW, prog.EvNLR, true, [numKinds]bool{true, false, true}},
	}
	for _, tc := range tests {
		for k := Kind(0); k < numKinds; k++ {
			if got := Orders(k, tc.a, tc.b, tc.sameNode); got != tc.want[k] {
				t.Errorf("%s: %s orders it: %v, want %v", tc.name, k, got, tc.want[k])
			}
		}
	}
}

// TestRepairText: insertions keep the text around them, and positions of
// the repaired text map back to the original's.
func TestRepairText(t *testing.T) {
	src := "node A { x = 0 }\nthread t on A {\n  x := 1   # c\n  a := 1; b := 2\n}\n"
	ed := apply(src, []edit{
		{Line: 3, Col: 3, Text: "poll(B)"},                 // own line above
		{Line: 4, Col: 11, Text: "rfence(B)"},              // inline, before b := 2
		{Line: 3, Text: "skip", AfterLine: true},           // own line below
		{Line: 1, Col: 15, Text: "; rb = 0", Inline: true}, // a declaration
	})
	want := "node A { x = 0; rb = 0 }\nthread t on A {\n  poll(B)\n  x := 1   # c\n  skip\n  a := 1; rfence(B); b := 2\n}\n"
	if string(ed.Text) != want {
		t.Fatalf("got\n%s\nwant\n%s", ed.Text, want)
	}
	maps := []struct {
		repaired, orig prog.Pos
		ok             bool
	}{
		{prog.Pos{Line: 4, Col: 3}, prog.Pos{Line: 3, Col: 3}, true},
		{prog.Pos{Line: 3, Col: 3}, prog.Pos{}, false},
		{prog.Pos{Line: 6, Col: 22}, prog.Pos{Line: 4, Col: 11}, true},
		{prog.Pos{Line: 6, Col: 11}, prog.Pos{}, false},
		{prog.Pos{Line: 6, Col: 3}, prog.Pos{Line: 4, Col: 3}, true},
	}
	for _, m := range maps {
		got, ok := ed.Orig(m.repaired)
		if ok != m.ok || ok && got != m.orig {
			t.Errorf("Orig(%v) = %v, %v; want %v, %v", m.repaired, got, ok, m.orig, m.ok)
		}
	}
	decls := []struct {
		src, want string
	}{
		{"node A { x = 0 }", "node A { x = 0; rb = 0 }"},
		{"node A { x = 0; }", "node A { x = 0; rb = 0 }"},
		{"node A {}", "node A { rb = 0}"},
		{"node A {\n  x = 0\n  y = 1\n}", "node A {\n  x = 0\n  y = 1; rb = 0\n}"},
		{"node A {\n  x = 0   # why\n}", ""},
	}
	for _, d := range decls {
		e, ok := nodeDecl(d.src, prog.Pos{Line: 1, Col: 1}, "rb = 0")
		got := ""
		if ok {
			got = string(apply(d.src, []edit{e}).Text)
		}
		if got != d.want {
			t.Errorf("declaration in %q: got %q, want %q", d.src, got, d.want)
		}
	}
}

// TestRepairHitting: the branch and bound finds the cheapest set meeting
// every clause, and avoids the sets known to deadlock.
func TestRepairHitting(t *testing.T) {
	cost := []int{1, 1, 3, 1}
	tests := []struct {
		clauses, nogoods [][]int
		want             []int
		ok               bool
	}{
		{[][]int{{0, 2}, {1, 2}}, nil, []int{0, 1}, true},
		{[][]int{{0, 2}, {1, 2}}, [][]int{{0, 1}}, []int{2}, true},
		{[][]int{{0}, {1}}, [][]int{{0, 1}}, nil, false},
		{[][]int{{0, 3}, {3}}, nil, []int{3}, true},
	}
	for i, tc := range tests {
		got, exact, ok := minHitting(tc.clauses, tc.nogoods, nil, cost, 1000)
		if ok != tc.ok || !exact || len(got) != len(tc.want) {
			t.Errorf("%d: got %v (exact %v, ok %v), want %v (ok %v)", i, got, exact, ok, tc.want, tc.ok)
			continue
		}
		for j := range got {
			if got[j] != tc.want[j] {
				t.Errorf("%d: got %v, want %v", i, got, tc.want)
			}
		}
	}
}
