package stress

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
)

// TestWalk: a random run ends as it should say, and prints and encodes
// as much.
func TestWalk(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	const deadlock = "node A { x = 0 }\nnode B { y = 0 }\nthread T0 on A { y := x; poll(B); poll(B) }\nexists (y = 1)\n"
	for _, tc := range []struct {
		name, src string
		ctx       context.Context
		maxSteps  int
		end       string
	}{
		{"final", "", context.Background(), 1000, "final"},
		{"step limit", "", context.Background(), 1, "step-limit"},
		{"interrupted", "", cancelled, 1000, "interrupted"},
		{"deadlock", deadlock, context.Background(), 1000, "deadlock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := load(t, "paper-5.1.rdma")
			if tc.src != "" {
				var err error
				if p, err = parse.Parse("d.rdma", []byte(tc.src)); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Walk(tc.ctx, p, WalkOptions{Semantics: machine.RDMA, Machine: machine.DefaultOptions(), Seed: 1, MaxSteps: tc.maxSteps})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			r.WriteText(&b)
			j := r.JSON("f.rdma")
			if r.End != tc.end || j.End != tc.end || !strings.Contains(b.String(), ", "+tc.end+"\n") || len(j.Memory) != len(p.Locs) ||
				(r.Waiting != "") != (tc.end == "deadlock") || len(r.Run.Steps) < r.Steps {
				t.Errorf("end %q, waiting %q, %d steps\n%s", r.End, r.Waiting, r.Steps, b.String())
			}
		})
	}
}
