package repair

import (
	"fmt"
	"io"

	"rdmasim/opsem/report"
)

// WriteText prints r as rdmasim repair (and the playground) report it: the
// insertions by thread, each with the cycle it breaks, the proof, the
// rounds.
func (r *Result) WriteText(w io.Writer, file string) {
	fmt.Fprintf(w, "%s:\n", file)
	switch {
	case r.Why != "":
		fmt.Fprintf(w, "  no repair: %s\n", r.Why)
	case r.Cut != "":
		fmt.Fprintf(w, "  no repair verified: %s\n", r.Cut)
	case r.Already && r.Goal == GoalQuery:
		fmt.Fprintln(w, "  holds already under RDMA: nothing to insert")
	case r.Already:
		fmt.Fprintln(w, "  robust already: nothing to insert")
	}
	thread := ""
	for _, in := range r.Insertions {
		if in.Thread != thread {
			thread = in.Thread
			fmt.Fprintf(w, "  thread %s:\n", thread)
		}
		fmt.Fprintf(w, "    line %d (after %q): %s  — breaks: %s\n", in.AfterLine, in.After, in.Stmt, in.Breaks)
	}
	if v := r.Verified; v != nil && r.Found() {
		proof := "complete"
		if r.Bounded {
			proof = "bounded: " + v.Bound
		}
		fmt.Fprintf(w, "  cost %d, %s; proof: robust by %s, %d %ss, %s\n", r.Cost, r.Minimal, v.Method, v.Search.States, v.Unit(), proof)
	}
	if r.Found() && len(r.Checked) > 0 {
		fmt.Fprintf(w, "  cost %d, %s; proof: check's search of the RDMA machine, complete:\n", r.Cost, r.Minimal)
		for i, c := range r.Checked {
			rdma := c.Results[0]
			fmt.Fprintf(w, "    %s: %d states, %s\n", r.Claims[i], rdma.Search.States, report.Plural(len(rdma.Outcomes), "final outcome"))
		}
	}
	if r.Found() && r.MinimalWhy != "" {
		fmt.Fprintf(w, "  %s: %s\n", r.Minimal, r.MinimalWhy)
	}
	fmt.Fprintf(w, "  %d rounds, %d decisions, %.2f s\n", r.Rounds, r.Decisions, r.Seconds)
}
