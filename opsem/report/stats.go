package report

import (
	"fmt"
	"io"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// StatsJSON is the JSON form of an exploration's statistics (explore
// --json).
type StatsJSON struct {
	File         string  `json:"file"`
	Name         string  `json:"name"`
	Semantics    string  `json:"semantics"`
	States       uint64  `json:"states"`
	Transitions  uint64  `json:"transitions"`
	MaxDepth     int     `json:"max_depth"`
	Complete     bool    `json:"complete"`
	Bound        string  `json:"bound"`
	Seconds      float64 `json:"seconds"`
	StatesPerSec float64 `json:"states_per_sec"`
	PeakMemory   uint64  `json:"peak_memory_bytes"`
	StoreBytes   uint64  `json:"store_bytes"`
	// Final, filtered (stuck at a failing assume), deadlocked and failed
	// (stopped at an error point) configurations, and where the first
	// deadlock waits.
	Finals     uint64 `json:"finals"`
	Filtered   uint64 `json:"filtered"`
	Deadlocks  uint64 `json:"deadlocks"`
	Failed     uint64 `json:"failed"`
	DeadlockAt string `json:"deadlock_at,omitempty"`
	// Workers is the number of worker processes that took part in a
	// search on a cluster (explore --cluster, --nats), a restarted one
	// counted again; zero (and absent) for a search in one process.
	Workers int `json:"workers,omitempty"`
	// Symmetry describes the group the search reduced by, one
	// configuration per orbit ("4 instances of client (24
	// permutations)"); absent when it reduced by none.
	Symmetry string `json:"symmetry,omitempty"`
}

// NewStats returns the statistics of r, the exploration of p in file, for a
// process whose resident memory peaked at peak bytes.
func NewStats(file string, p *prog.Program, r *verdict.Result, peak uint64) StatsJSON {
	st := r.Search
	rate := 0.0
	if st.Elapsed > 0 {
		rate = float64(st.States) / st.Elapsed.Seconds()
	}
	return StatsJSON{File: file, Name: p.Name, Semantics: r.Semantics.String(), States: st.States, Transitions: st.Transitions,
		MaxDepth: st.MaxDepth, Complete: r.Complete, Bound: r.Bound, Seconds: st.Elapsed.Seconds(),
		StatesPerSec: rate, PeakMemory: peak, StoreBytes: st.StoreBytes,
		Finals: r.Finals, Filtered: r.Filtered, Deadlocks: r.Deadlocks, Failed: r.Failed, DeadlockAt: r.DeadlockAt, Symmetry: r.Symmetry}
}

// WriteStats prints the statistics s as explore does, one per line.
func WriteStats(w io.Writer, s StatsJSON) {
	complete := "yes"
	if !s.Complete {
		complete = "no, cut by " + s.Bound
	}
	fmt.Fprintf(w, "Explore %s (%s)\n", s.Name, s.Semantics)
	fmt.Fprintf(w, "  states       %s\n", Count(s.States))
	fmt.Fprintf(w, "  transitions  %s\n", Count(s.Transitions))
	fmt.Fprintf(w, "  max depth    %d\n", s.MaxDepth)
	fmt.Fprintf(w, "  complete     %s\n", complete)
	if s.Symmetry != "" {
		fmt.Fprintf(w, "  symmetry     %s\n", s.Symmetry)
	}
	fmt.Fprintf(w, "  ends         %s\n", Ends(s.Finals, s.Filtered, s.Deadlocks, s.Failed))
	if s.Deadlocks > 0 {
		fmt.Fprintf(w, "  deadlock     %s\n", s.DeadlockAt)
	}
	fmt.Fprintf(w, "  seconds      %.3f\n", s.Seconds)
	fmt.Fprintf(w, "  states/s     %s\n", Count(uint64(s.StatesPerSec)))
	fmt.Fprintf(w, "  peak memory  %s\n", Bytes(s.PeakMemory))
	fmt.Fprintf(w, "  visited set  %s\n", Bytes(s.StoreBytes))
	if s.Workers > 0 {
		fmt.Fprintf(w, "  workers      %d\n", s.Workers)
	}
}

// Ends says how the runs of a search ended: "2 final, 0 filtered by an
// assume, 1 deadlocked", and ", 3 at an error point" when some stopped at
// one (a protocol's failed assertion or value out of its range).
func Ends(finals, filtered, deadlocks, failed uint64) string {
	s := fmt.Sprintf("%s final, %s filtered by an assume, %s deadlocked", Count(finals), Count(filtered), Count(deadlocks))
	if failed > 0 {
		s += fmt.Sprintf(", %s at an error point", Count(failed))
	}
	return s
}

// Deadlock says where the threads of a deadlock wait, as a report line.
func Deadlock(waiting string) string {
	return "Deadlock " + waiting + ": waits for ever, nothing left to complete"
}
