package report

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"rdmasim/explore"
)

// Progress lines: how a long run goes, one line per report, saying which
// search or run it is, how long it has run, how far it got and its current
// rate: the rate over the last report's interval (Rates), not the average
// since the start, which hides a search that slows down. An estimate of the
// time left is given only where the amount of work is known (WorkLine): the
// state space of a search is not known before it ends.

// Rates keeps the last count of each named search or run, to give its
// current rate. Its zero value is ready; it is safe for concurrent use.
type Rates struct {
	mu   sync.Mutex
	last map[string]sample
}

// sample is a search's count at a moment.
type sample struct {
	n       uint64
	elapsed time.Duration
}

// Rate returns the rate of the counter n of the search name, at elapsed
// since its start, over the interval since its last report (since its start
// for the first one, or when n or elapsed went back: a new search under the
// same name).
func (r *Rates) Rate(name string, n uint64, elapsed time.Duration) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last = map[string]sample{}
	}
	prev, ok := r.last[name]
	if !ok || elapsed < prev.elapsed || n < prev.n {
		prev = sample{}
	}
	r.last[name] = sample{n, elapsed}
	dt := (elapsed - prev.elapsed).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(n-prev.n) / dt
}

// SearchLine is the progress line of a search (s.Search names it, else
// "search"): its time, states and their rate (from r), frontier, depth, the
// process's peak memory rss, the visited set's memory and what is on disk.
func SearchLine(s explore.Stats, r *Rates, rss uint64) string {
	name := s.Search
	if name == "" {
		name = "search"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rdmasim: %s: %s, %s states (%s/s now), frontier %s, depth %d, memory %s, store %s",
		name, Clock(s.Elapsed), Count(s.States), Count(uint64(r.Rate(name, s.States, s.Elapsed))),
		Count(s.Frontier), s.MaxDepth, Bytes(rss), Bytes(s.StoreBytes))
	if s.DiskBytes > 0 {
		fmt.Fprintf(&b, ", frontier and parents on disk %s", Bytes(s.DiskBytes))
	}
	return b.String()
}

// WorkLine is the progress line of a run whose amount of work is known:
// done of total units (total 0: unknown) at elapsed, with their rate (from
// r) and an estimate of the time left at that rate, then extra if not "".
func WorkLine(r *Rates, name, unit string, done, total uint64, elapsed time.Duration, extra string) string {
	rate := r.Rate(name, done, elapsed)
	var b strings.Builder
	fmt.Fprintf(&b, "rdmasim: %s: %s, %s", name, Clock(elapsed), Count(done))
	if total > 0 {
		fmt.Fprintf(&b, " of %s", Count(total))
	}
	fmt.Fprintf(&b, " %s (%s/s now)", unit, Count(uint64(rate)))
	if total > done && rate > 0 {
		fmt.Fprintf(&b, ", about %s left", Clock(time.Duration(float64(total-done)/rate*float64(time.Second))))
	}
	if extra != "" {
		b.WriteString(", " + extra)
	}
	return b.String()
}

// Clock prints a duration as m:ss, or h:mm:ss from an hour on.
func Clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
