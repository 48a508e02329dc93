package decide

import (
	"fmt"
	"strings"

	"rdmasim/opsem/prog"
)

// maxPermutations bounds the group elements orbitRepresentatives looks at:
// past it, blocks not yet found to be images are searched too, which costs
// time and never an answer.
const maxPermutations = 1 << 16

// orbitRepresentatives returns the blocks to search: one per orbit of
// p's symmetry group sym acting on blocks (all of them when sym is nil), in
// order, and for each the number of other blocks of its orbit. A program
// invariant under a permutation of its threads has a violation in a block
// exactly when it has one in the block's image, so one block per orbit
// decides.
//
// invariant[i] says that every permutation of the group maps reps[i] onto
// itself: its search may reduce by the whole group.
func orbitRepresentatives(p *prog.Program, sym *prog.Symmetry, blocks []uint64) (reps []uint64, images []int, invariant []bool) {
	if sym == nil {
		return blocks, make([]int, len(blocks)), make([]bool, len(blocks))
	}
	var perms [][]int
	sym.Permutations(p, func(r prog.Renaming) bool {
		perms = append(perms, append([]int(nil), r.Thread...))
		return len(perms) < maxPermutations
	})
	image := func(b uint64, perm []int) uint64 {
		var out uint64
		for t, u := range perm {
			if b&(1<<t) != 0 {
				out |= 1 << u
			}
		}
		return out
	}
	covered := map[uint64]bool{}
	for _, b := range blocks {
		if covered[b] {
			continue
		}
		orbit := map[uint64]bool{b: true}
		for _, perm := range perms {
			orbit[image(b, perm)] = true
		}
		invariant = append(invariant, len(orbit) == 1 && len(perms) < maxPermutations)
		n := 0
		for _, c := range blocks {
			if c != b && orbit[c] && !covered[c] {
				covered[c] = true
				n++
			}
		}
		covered[b] = true
		reps, images = append(reps, b), append(images, n)
	}
	return reps, images, invariant
}

// threadSet names the threads of a set: "{client[0] server}".
func threadSet(p *prog.Program, b uint64) string {
	var names []string
	for t := range p.Threads {
		if b&(1<<t) != 0 {
			names = append(names, p.Threads[t].Name)
		}
	}
	return "{" + strings.Join(names, " ") + "}"
}

// blockString describes the searches of a decision by blocks (Result.Blocks).
func blockString(p *prog.Program, reps []uint64, images []int) string {
	total := len(reps)
	for _, n := range images {
		total += n
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d blocks of threads that can share an SC cycle", total)
	if total > len(reps) {
		fmt.Fprintf(&b, ", one searched per orbit of the symmetry")
	}
	b.WriteString(":")
	for i, r := range reps {
		b.WriteString(" " + threadSet(p, r))
		if images[i] > 0 {
			fmt.Fprintf(&b, " (and %d %s)", images[i], map[bool]string{true: "image", false: "images"}[images[i] == 1])
		}
	}
	return b.String()
}
