package decide

import (
	"context"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// symFamily is a family of n identical clients; body is each client's.
func symFamily(n int, body string) string {
	return "param N = " + string(rune('0'+n)) + `
node S { x : 0..1 = 0; slot[N] : 0..1 = 0 }
node m[i] for i in 0..N-1 { v : 0..1 = 1; d : 0..1 = 0 }
thread client[i] on m[i] for i in 0..N-1 {
` + body + `
}
`
}

// TestDecideSymmetry decides family programs with and without symmetry:
// the verdicts agree, the reduced search visits fewer states, and its
// witness (checked and replayed by Decide) is a run of the program.
func TestDecideSymmetry(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
	}{
		{"put poll get put", symFamily(3, "slot[i] := v[i]\npoll(S)\nd[i] := x\npoll(S)\nx := v[i]")},
		{"put get no poll", symFamily(3, "slot[i] := v[i]\nd[i] := x\nx := v[i]")},
		{"polled", symFamily(2, "x := v[i]\npoll(S)\nd[i] := x\npoll(S)")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parse.Parse(tc.name+".rdma", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if sym, why := prog.FindSymmetry(p); sym == nil {
				t.Fatalf("no symmetry: %v", why)
			}
			plain, err := Decide(context.Background(), p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var o Options
			o.Symmetry = true
			red, err := Decide(context.Background(), p, o)
			if err != nil {
				t.Fatal(err)
			}
			if plain.Robust != red.Robust || plain.Complete != red.Complete {
				t.Fatalf("plain robust=%v complete=%v, symmetric robust=%v complete=%v", plain.Robust, plain.Complete, red.Robust, red.Complete)
			}
			if red.Symmetry == "" {
				t.Errorf("no symmetry reported")
			}
			if !plain.KarpMiller && red.Search.States >= plain.Search.States {
				t.Errorf("symmetric search %d states, plain %d", red.Search.States, plain.Search.States)
			}
			if !red.Robust && red.Witness == nil {
				t.Errorf("no witness")
			}
			t.Logf("robust=%v states plain %d symmetric %d (%s)", red.Robust, plain.Search.States, red.Search.States, red.Symmetry)
		})
	}
}
