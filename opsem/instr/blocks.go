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
	adj := conflicts(p)
	blocks := biconnected(adj)
	for t := range p.Threads {
		if mk, _ := accesses(p, 1<<t, 0); adj[t] == 0 && slices.Contains(mk, true) {
			blocks = append(blocks, 1<<t)
		}
	}
	slices.SortFunc(blocks, func(a, b uint64) int { return lowest(a) - lowest(b) })
	return blocks
}

// conflicts returns p's conflict graph: bit u of adj[t] when threads t and
// u (t != u) may access a common location, one of the two accesses a
// write (the events of a get, put or CAS included).
func conflicts(p *prog.Program) (adj []uint64) {
	rd, wr := accessSets(p)
	nt, nl := len(p.Threads), len(p.Locs)
	adj = make([]uint64, nt)
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
	return adj
}

// accessSets returns, per thread, the locations its events may read and
// those they may write (the events of a get, put or CAS included).
func accessSets(p *prog.Program) (rd, wr [][]bool) {
	nt, nl := len(p.Threads), len(p.Locs)
	rd, wr = make([][]bool, nt), make([][]bool, nt)
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
			case prog.OpRCAS, prog.OpRFAA:
				rd[t][in.Y], wr[t][in.Y] = true, true
				wr[t][in.X] = true
			case prog.OpLoad:
				rd[t][in.Y] = true // its register is the thread's own
			case prog.OpEval:
				if !p.Locs[in.X].Reg {
					wr[t][in.X] = true
				}
			}
		}
	}
	return rd, wr
}

// Influence returns the threads (bit t) whose events can change what a
// thread of set reads: set itself, and every thread that may write a
// location some thread of the result may read (a least fixpoint). A
// search for cycles among set may freeze every other thread
// (Options.Frozen), for this reason. Take a violating trace whose SC cycle
// lies among set, and drop the events of the threads outside the result
// (each keeps the empty prefix of its paths). No remaining read read from
// a dropped write, so every value and rf edge stays; mo and rb between the
// remaining events stay (an rb edge starts at a read, whose write
// remains); the cycle stays; and every relation of ob is restricted to the
// remaining events, so ob stays acyclic. Conversely a run with frozen
// threads is a run of the program in which they never move.
//
// The result lies within set's connected components of the conflict graph
// (see Blocks), and is often smaller: a thread that only reads what the
// others write (a follower of a log, a reader of a table) influences no
// one, and a search for cycles among other threads never runs it.
func Influence(p *prog.Program, set uint64) uint64 {
	rd, wr := accessSets(p)
	keep := set
	for changed := true; changed; {
		changed = false
		for u := range p.Threads {
			if keep&(1<<u) != 0 {
				continue
			}
			for t := range p.Threads {
				if keep&(1<<t) != 0 && writesRead(wr[u], rd[t]) {
					keep |= 1 << u
					changed = true
					break
				}
			}
		}
	}
	return keep
}

// writesRead reports whether a location written (w) is also read (r).
func writesRead(w, r []bool) bool {
	for l := range w {
		if w[l] && r[l] {
			return true
		}
	}
	return false
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
