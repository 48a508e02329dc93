package instr

import (
	"slices"

	"rdmasim/opsem/prog"
)

// Blocks returns sets of threads (bit t for thread t) such that every SC
// cycle the instrumented machine of p can find lies among the threads of
// one set; running the machine once per set with Options.CycleThreads
// finds a target exactly when the unrestricted machine does.
//
// The sets are the blocks (biconnected components) of p's conflict graph:
// a vertex per thread, an edge between two threads that may access a
// common location, one of the two accesses a write (the events of a get,
// put or CAS included). The argument:
//
//   - The machine records an edge u -> t only between events on one
//     location of which one writes (linked), so consecutive threads of a
//     cycle of recorded edges are adjacent in the conflict graph, and a
//     shortest such cycle visits each thread once.
//   - A cycle through k >= 3 threads is a simple cycle of the graph, and a
//     simple cycle lies within one block; a cycle u -> t -> u uses one
//     edge, which lies in one block; a cycle of one thread (a τ2 event
//     po-before a linked τ1 exit of the same thread) needs that thread to
//     access a location twice, and lies in any block holding the thread,
//     or in the block of that thread alone when it conflicts with no
//     other.
//   - A run of the machine restricted to a block B is a run of the full
//     machine in which the other threads mark nothing, and the edges it
//     records among B's threads are those the full run records with the
//     same choices: its targets are targets. Conversely a run of the full
//     machine to a target, with its cycle in B, is matched step by step by
//     the restricted machine making the same choices for B's threads, and
//     records that cycle.
//
// Threads on no cycle (no location they access twice, and no conflict
// with another thread) are in no block. A program whose graph is one
// block gets one set; the sets are ordered by their lowest thread.
func Blocks(p *prog.Program) []uint64 {
	nt := len(p.Threads)
	nl := len(p.Locs)
	rd := make([][]bool, nt)
	wr := make([][]bool, nt)
	self := make([]bool, nt)
	for t := range p.Threads {
		rd[t], wr[t] = make([]bool, nl), make([]bool, nl)
		for _, in := range p.Threads[t].Code {
			switch in.Op {
			case prog.OpWrite:
				wr[t][in.X] = true
			case prog.OpAssumeEq, prog.OpAssumeNe, prog.OpSwitch:
				rd[t][in.X] = true
			case prog.OpCAS:
				rd[t][in.Z], wr[t][in.Z] = true, true
				wr[t][in.X] = true
			case prog.OpGet:
				rd[t][in.Y], wr[t][in.X] = true, true
			case prog.OpPut:
				rd[t][in.X], wr[t][in.Y] = true, true
			}
		}
		mk, _ := accesses(p, 1<<t)
		self[t] = slices.Contains(mk, true)
	}
	adj := make([]uint64, nt)
	for u := 0; u < nt; u++ {
		for t := u + 1; t < nt; t++ {
			for l := 0; l < nl; l++ {
				if wr[u][l] && (rd[t][l] || wr[t][l]) || rd[u][l] && wr[t][l] {
					adj[u] |= 1 << t
					adj[t] |= 1 << u
					break
				}
			}
		}
	}
	blocks := biconnected(adj)
	for t := 0; t < nt; t++ {
		if adj[t] == 0 && self[t] {
			blocks = append(blocks, 1<<t)
		}
	}
	slices.SortFunc(blocks, func(a, b uint64) int { return lowest(a) - lowest(b) })
	return blocks
}

// lowest returns the lowest thread of a non-empty set.
func lowest(s uint64) int {
	for t := 0; t < 64; t++ {
		if s&(1<<t) != 0 {
			return t
		}
	}
	return 64
}

// biconnected returns the vertex sets of the biconnected components with at
// least one edge of the undirected graph adj (bit u of adj[t]: an edge
// t–u, no self-loops), by Hopcroft and Tarjan's depth-first search with a
// stack of edges.
func biconnected(adj []uint64) []uint64 {
	n := len(adj)
	num := make([]int, n) // depth-first number + 1; 0 = unvisited
	low := make([]int, n)
	type edge struct{ u, v int }
	var stack []edge
	var blocks []uint64
	counter := 0
	var visit func(u, parent int)
	visit = func(u, parent int) {
		counter++
		num[u], low[u] = counter, counter
		for v := 0; v < n; v++ {
			if adj[u]&(1<<v) == 0 || v == parent {
				continue
			}
			if num[v] == 0 {
				stack = append(stack, edge{u, v})
				visit(v, u)
				low[u] = min(low[u], low[v])
				if low[v] >= num[u] {
					// u separates v's subtree: pop its block.
					var b uint64
					for {
						e := stack[len(stack)-1]
						stack = stack[:len(stack)-1]
						b |= 1<<e.u | 1<<e.v
						if e == (edge{u, v}) {
							break
						}
					}
					blocks = append(blocks, b)
				}
			} else if num[v] < num[u] {
				stack = append(stack, edge{u, v})
				low[u] = min(low[u], num[v])
			}
		}
	}
	for u := 0; u < n; u++ {
		if num[u] == 0 && adj[u] != 0 {
			visit(u, -1)
		}
	}
	return blocks
}
