package prog

// ShortestCycle returns the nodes of a shortest cycle of the directed graph
// over the nodes 0..n-1 whose edges edge reports, in order (each node has an
// edge to the next, the last to the first), or nil when the graph is
// acyclic. An edge from a node to itself is a cycle of one node.
//
// The cycle is chosen deterministically, so that a report that prints it is
// stable: it starts at the least node that lies on some shortest cycle, and
// it is the first such cycle a breadth-first search from that node finds,
// visiting each node's successors in increasing order. edge is asked about
// O(n³) pairs at worst (one breadth-first search per node), so n should be
// small: the threads of a program, the events of one trace.
func ShortestCycle(n int, edge func(x, y int) bool) []int {
	var best []int
	prev := make([]int, n) // the node a search reached each node from, -1: not reached
	queue := make([]int, 0, n)
	for s := 0; s < n; s++ {
		cyc := cycleThrough(s, n, edge, prev, queue)
		if cyc != nil && (best == nil || len(cyc) < len(best)) {
			best = cyc
		}
	}
	return best
}

// cycleThrough returns a shortest cycle through s, starting at s, or nil:
// a breadth-first search from s that stops at the first node it dequeues
// with an edge back to s. prev and queue are scratch space, reset here.
func cycleThrough(s, n int, edge func(x, y int) bool, prev, queue []int) []int {
	for i := range prev {
		prev[i] = -1
	}
	queue = append(queue[:0], s)
	last := -1 // the cycle's last node, whose edge closes it back to s
	for len(queue) > 0 && last < 0 {
		x := queue[0]
		queue = queue[1:]
		for y := 0; y < n; y++ {
			if !edge(x, y) {
				continue
			}
			if y == s {
				last = x
				break
			}
			if prev[y] < 0 {
				prev[y] = x
				queue = append(queue, y)
			}
		}
	}
	if last < 0 {
		return nil
	}
	var cyc []int
	for x := last; x != s; x = prev[x] {
		cyc = append(cyc, x)
	}
	cyc = append(cyc, s)
	for i, j := 0, len(cyc)-1; i < j; i, j = i+1, j-1 {
		cyc[i], cyc[j] = cyc[j], cyc[i]
	}
	return cyc
}
