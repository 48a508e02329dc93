package prog

import (
	"slices"
	"testing"
)

// TestShortestCycle checks ShortestCycle on small graphs given as edge
// lists: no cycle, a self-loop, the shortest of several cycles, and the
// choice among equally short ones (through the least node, found first by
// a breadth-first search visiting successors in increasing order).
func TestShortestCycle(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		edges [][2]int
		want  []int
	}{
		{"no nodes", 0, nil, nil},
		{"no edges", 3, nil, nil},
		{"a path", 4, [][2]int{{0, 1}, {1, 2}, {2, 3}}, nil},
		{"a self-loop", 3, [][2]int{{0, 1}, {2, 2}}, []int{2}},
		{"two nodes", 2, [][2]int{{1, 0}, {0, 1}}, []int{0, 1}},
		{"a triangle, entered late", 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 1}}, []int{1, 2, 3}},
		{"the shorter of two", 5, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {2, 4}, {4, 2}}, []int{2, 4}},
		{"a self-loop beats a pair", 3, [][2]int{{0, 1}, {1, 0}, {2, 2}}, []int{2}},
		{"ties: through the least node", 4, [][2]int{{2, 3}, {3, 2}, {0, 1}, {1, 0}}, []int{0, 1}},
		{"ties: the first successor", 4, [][2]int{{0, 2}, {0, 1}, {1, 3}, {2, 3}, {3, 0}}, []int{0, 1, 3}},
		{"ties: the first node back", 3, [][2]int{{0, 1}, {0, 2}, {2, 0}, {1, 0}}, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			edge := func(x, y int) bool {
				calls++
				return slices.Contains(tc.edges, [2]int{x, y})
			}
			got := ShortestCycle(tc.n, edge)
			if !slices.Equal(got, tc.want) {
				t.Errorf("ShortestCycle = %v, want %v", got, tc.want)
			}
			if limit := tc.n * tc.n * tc.n; calls > limit {
				t.Errorf("%d calls of edge, more than n³ = %d", calls, limit)
			}
			for k, x := range got {
				if y := got[(k+1)%len(got)]; !edge(x, y) {
					t.Errorf("%d → %d is no edge", x, y)
				}
			}
		})
	}
}
