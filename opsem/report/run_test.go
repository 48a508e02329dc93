package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/verdict"
)

// run returns the first run of PUT-LW's machine to z=2, found by a search,
// as check -w finds it.
func run(t *testing.T) (*verdict.Run, func(int) string) {
	t.Helper()
	p, err := parse.Parse("t.rdma", []byte("node A { x = 1 }\nnode B { z = 0 }\nthread T0 on A { z := x; x := 2 }\nexists (z = 2)\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := verdict.Compute(t.Context(), p, machine.RDMA, verdict.Options{Machine: machine.DefaultOptions(), Witness: true})
	if err != nil || r.Witness == nil {
		t.Fatalf("no witness: %v", err)
	}
	return r.Witness, p.ThreadName
}

func TestWriteRun(t *testing.T) {
	w, _ := run(t)
	var b bytes.Buffer
	WriteRun(&b, "Witness", machine.RDMA, w)
	want := `Witness (rdma, 6 steps):
  | A { x=1 }
  | B { z=0 }
  | T0: at z := x (line 3)
    1. T0         z := x (submit)  {B1[T0->B] = [PUT(z,x)]}
    2. T0         x := 2  lW(x,2)  {x: 1 -> 2}
    3. NIC T0->B  N1 put reads its source (B1 -> B2)  nlR(x,2,B)  {B1[T0->B] = []; B2[T0->B] = [PUTV(z,2)]}
    4. NIC T0->B  N4 put arrives (B2 -> RW, ACK -> B3)  nrW(z,2) issued  {B2[T0->B] = []; B3[T0->B] = [ACK]; RW[T0->B] = [z=2]}
    5. NIC T0->B  N7 put acknowledged (complete)  {B3[T0->B] = []}
    6. NIC T0->B  F1 remote write reaches memory  nrW(z,2) visible  {z: 0 -> 2; RW[T0->B] = []}
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestNewRun: the JSON run carries each step's thread, line, rule, event
// and the memory and buffers it changed, structured.
func TestNewRun(t *testing.T) {
	w, names := run(t)
	got := NewRun(w, names)
	if len(got.Initial) != 3 || len(got.Steps) != 6 {
		t.Fatalf("got %d initial lines and %d steps", len(got.Initial), len(got.Steps))
	}
	s := got.Steps[1]
	if s.Thread != "T0" || s.Line != 3 || s.Rule != "step" || s.Event != "lW(x,2)" || len(s.Memory) != 1 || s.Memory[0] != (machine.MemChange{Loc: "x", From: 1, To: 2}) {
		t.Errorf("step 2 = %+v", s)
	}
	n := got.Steps[2]
	if n.Actor != "NIC T0->B" || n.Thread != "T0" || n.Line != 0 || n.Rule != "N1" || len(n.Buffers) != 2 || n.Buffers[0] != (machine.BufChange{Buf: "B1", QP: "T0->B", Entries: "[]"}) {
		t.Errorf("step 3 = %+v", n)
	}
	b, err := json.Marshal(got)
	if err != nil || !strings.Contains(string(b), `"memory":[{"loc":"x","from":1,"to":2}]`) {
		t.Errorf("JSON %s (%v)", b, err)
	}
	if NewRun(nil, names) != nil {
		t.Error("NewRun(nil) is not nil")
	}
}

func TestCycleLines(t *testing.T) {
	got := CycleLines([]CycleEvent{{"T0", "lW(x,2)", "rf", ""}, {"T0", "nlR(x,2,B)", "po", "line 3: y := x"}})
	if strings.Join(got, "|") != "T0 lW(x,2) -rf->|T0 nlR(x,2,B) (line 3: y := x) -po->" {
		t.Errorf("got %q", got)
	}
}
