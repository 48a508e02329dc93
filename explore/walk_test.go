package explore

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// stressStar has an initial state with n successors, labelled 1..n, each a
// dead end that reports the bounds cut.
type stressStar struct {
	n   int
	cut Pruned
}

func (s *stressStar) Initial(dst []byte) []byte { return append(dst, 0) }

func (s *stressStar) Successors(st []byte, emit func(Label, []byte)) Pruned {
	if st[0] != 0 {
		return s.cut
	}
	for i := 1; i <= s.n; i++ {
		emit(Label(i), []byte{byte(i)})
	}
	return 0
}

// stressChain is the infinite chain 0 -> 1 -> ..., with two transitions (to
// the same state) from each: labels 1 and 2; states are uint64.
type stressChain struct{ buf []byte }

func (c *stressChain) Initial(dst []byte) []byte { return binary.LittleEndian.AppendUint64(dst, 0) }

func (c *stressChain) Successors(s []byte, emit func(Label, []byte)) Pruned {
	c.buf = binary.LittleEndian.AppendUint64(c.buf[:0], binary.LittleEndian.Uint64(s)+1)
	emit(1, c.buf)
	emit(2, c.buf)
	return 0
}

func TestWalker(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	tests := []struct {
		name      string
		m         Machine
		opt       WalkerOptions
		stopAt    int // visit returns false at this step (-1: never)
		wantSteps int
		wantEnd   WalkEnd
		wantLast  Pruned
	}{
		{"dead end", &stressStar{n: 4}, WalkerOptions{}, -1, 1, EndDeadEnd, 0},
		{"dead end cut by a bound", &stressStar{n: 4, cut: 2}, WalkerOptions{}, -1, 1, EndDeadEnd, 2},
		{"depth", &stressChain{}, WalkerOptions{MaxSteps: 100}, -1, 100, EndDepth, 0},
		{"default depth", &stressChain{}, WalkerOptions{}, -1, 10000, EndDepth, 0},
		{"visitor stops", &stressChain{}, WalkerOptions{}, 17, 17, EndStopped, 0},
		{"visitor stops at the initial state", &stressChain{}, WalkerOptions{}, 0, 0, EndStopped, 0},
		{"done", &stressChain{}, WalkerOptions{MaxSteps: 1 << 20, Done: closed}, -1, doneEvery - 1, EndStopped, 0},
		{"tree leaf", &tree{depth: 8}, WalkerOptions{}, -1, 8, EndDeadEnd, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Trace = true
			w := NewWalker(tc.m, rand.New(rand.NewPCG(1, 2)), tc.opt)
			var visited []int
			r := w.Walk(func(step int, s []byte) bool {
				visited = append(visited, step)
				return step != tc.stopAt
			})
			if r.Steps != tc.wantSteps || r.End != tc.wantEnd || r.LastPruned != tc.wantLast || r.Pruned != tc.wantLast {
				t.Fatalf("got %+v, want %d steps, end %v, pruned %d", r, tc.wantSteps, tc.wantEnd, tc.wantLast)
			}
			if len(w.Trace()) != r.Steps {
				t.Fatalf("trace of %d labels for %d steps", len(w.Trace()), r.Steps)
			}
			if want := r.Steps + 1; len(visited) != want || visited[len(visited)-1] != r.Steps {
				t.Fatalf("visited steps %v, want 0..%d", visited, r.Steps)
			}
			// The trace replays to the state the walk ended in.
			s := tc.m.Initial(nil)
			for _, l := range w.Trace() {
				var next []byte
				tc.m.Successors(s, func(l2 Label, n []byte) {
					if l2 == l && next == nil {
						next = append([]byte{}, n...)
					}
				})
				if next == nil {
					t.Fatalf("label %d not enabled in %v", l, s)
				}
				s = next
			}
			if !bytes.Equal(s, w.State()) {
				t.Fatalf("trace replays to %v, walk ended in %v", s, w.State())
			}
		})
	}
}

// TestWalkerEnds: how walks on the test machines of explore_test.go end,
// after how many steps, and which bounds they report, OR-ed over every state
// expanded.
func TestWalkerEnds(t *testing.T) {
	tests := []struct {
		name     string
		m        Machine
		maxSteps int
		stopAt   int // visit returns false on this step (1-based); 0 = never
		steps    int
		end      WalkEnd
		pruned   Pruned
	}{
		{"dead end", &grid{k: 3, n: 4}, 100, 0, 9, EndDeadEnd, 0},
		{"dead end exactly at max", &grid{k: 3, n: 4}, 9, 0, 9, EndDepth, 0},
		{"initial dead end", &grid{k: 1, n: 1}, 100, 0, 0, EndDeadEnd, 0},
		{"max steps", &line{}, 100, 0, 100, EndDepth, 0},
		{"default max steps", &line{}, 0, 0, defaultWalkSteps, EndDepth, 0},
		{"negative max steps", &line{}, -1, 0, defaultWalkSteps, EndDepth, 0},
		{"visit returns false", &line{}, 100, 3, 3, EndStopped, 0},
		{"pruned", &pruning{grid{k: 2, n: 3}}, 100, 0, 4, EndDeadEnd, 1 | 4},
		{"pruned dead end", &fan{n: 3}, 100, 0, 1, EndDeadEnd, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			w := NewWalker(tt.m, rand.New(rand.NewPCG(7, 7)), WalkerOptions{MaxSteps: tt.maxSteps})
			r := w.Walk(func(step int, _ []byte) bool {
				if step == 0 {
					return true
				}
				calls++
				return calls != tt.stopAt
			})
			if r.Steps != tt.steps || r.End != tt.end || r.Pruned != tt.pruned {
				t.Errorf("Walk = %d steps, %v, %#x; want %d, %v, %#x", r.Steps, r.End, r.Pruned, tt.steps, tt.end, tt.pruned)
			}
			if calls != r.Steps {
				t.Errorf("visit called %d times after the initial state for %d steps", calls, r.Steps)
			}
		})
	}
}

// TestWalkerDistribution checks the frequency of the preferred successors
// of a star with 1 preferred and 3 other successors: 1/4 unbiased, and
// bias + (1-bias)/4 with a bias.
func TestWalkerDistribution(t *testing.T) {
	const walks = 40000
	for _, tc := range []struct {
		name string
		bias float64
		n    int
		want float64 // frequency of label n (the preferred one)
	}{
		{"uniform", 0, 4, 0.25},
		{"bias 0.5", 0.5, 4, 0.5 + 0.5*0.25},
		{"bias 1", 1, 4, 1},
		{"all preferred", 1, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &stressStar{n: tc.n}
			w := NewWalker(m, rand.New(rand.NewPCG(3, 4)), WalkerOptions{
				Bias: tc.bias, Trace: true, Prefer: func(l Label) bool { return l == Label(tc.n) },
			})
			counts := make([]int, tc.n+1)
			for range walks {
				w.Walk(nil)
				counts[w.Trace()[0]]++
			}
			got := float64(counts[tc.n]) / walks
			if math.Abs(got-tc.want) > 0.01 {
				t.Fatalf("preferred successor taken with frequency %.4f, want %.4f (counts %v)", got, tc.want, counts)
			}
			for l := 1; l < tc.n; l++ { // the others stay uniform among themselves
				if want := (1 - tc.want) / float64(tc.n-1); math.Abs(float64(counts[l])/walks-want) > 0.01 {
					t.Fatalf("label %d taken with frequency %.4f, want %.4f", l, float64(counts[l])/walks, want)
				}
			}
		})
	}
}

// TestWalkerReproducible: the same seed gives the same walks.
func TestWalkerReproducible(t *testing.T) {
	traces := func(seed uint64) [][]Label {
		w := NewWalker(&tree{depth: 8}, rand.New(rand.NewPCG(seed, 0)), WalkerOptions{Trace: true, Bias: 0.3, Prefer: func(l Label) bool { return l == 1 }})
		var out [][]Label
		for range 50 {
			w.Walk(nil)
			out = append(out, slices.Clone(w.Trace()))
		}
		return out
	}
	a, b, c := traces(5), traces(5), traces(6)
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("walk %d differs for the same seed: %v vs %v", i, a[i], b[i])
		}
	}
	if slices.EqualFunc(a, c, slices.Equal) {
		t.Fatal("seeds 5 and 6 gave the same 50 walks")
	}
}

// TestWalkerAllocs: once its buffers have grown, a walk allocates nothing.
func TestWalkerAllocs(t *testing.T) {
	w := NewWalker(&stressChain{}, rand.New(rand.NewPCG(1, 1)), WalkerOptions{MaxSteps: 1000, Trace: true, Bias: 0.5, Prefer: func(l Label) bool { return l == 1 }})
	w.Walk(nil)
	if n := testing.AllocsPerRun(5, func() { w.Walk(nil) }); n != 0 {
		t.Fatalf("%v allocations per walk of 1000 steps", n)
	}
}

func TestWalkEndString(t *testing.T) {
	for e, want := range map[WalkEnd]string{EndDeadEnd: "dead end", EndDepth: "depth", EndStopped: "stopped"} {
		if e.String() != want {
			t.Errorf("%d.String() = %q, want %q", e, e.String(), want)
		}
	}
}
