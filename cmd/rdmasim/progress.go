package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/report"
)

// progress prints how a long run goes, on stderr: on a terminal one line
// rewritten in place, elsewhere (a log, a pipe) one line per report. Each
// line says which search it is, how long it has run, how far it got and its
// current rate: the rate over the last report's interval, not the average
// since the start, which hides a search that slows down. An estimate of the
// time left is given only where the amount of work is known (walks of a
// stress run, programs of a fuzz campaign): the state space of a search is
// not known before it ends.
//
// On a terminal, the writers of env go through the printer, so that a
// report or message ends a pending progress line before it is printed.
type progress struct {
	mu      sync.Mutex
	w       io.Writer // the real stderr
	inPlace bool
	pending int // length of the line left on the terminal, 0 for none
	last    map[string]sample
	now     func() time.Time
}

// sample is a search's count at a moment, for its current rate.
type sample struct {
	n       uint64
	elapsed time.Duration
}

func newProgress(w io.Writer, inPlace bool) *progress {
	return &progress{w: w, inPlace: inPlace, last: map[string]sample{}, now: time.Now}
}

// line prints one report.
func (p *progress) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.inPlace {
		fmt.Fprintln(p.w, s)
		return
	}
	fmt.Fprintf(p.w, "\r%s\033[K", s)
	p.pending = len(s)
}

// end finishes a pending in-place line, so that what follows starts on a
// line of its own.
func (p *progress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked()
}

func (p *progress) endLocked() {
	if p.pending > 0 {
		fmt.Fprint(p.w, "\r\033[K")
		p.pending = 0
	}
}

// rate returns the rate of the counter n of search name since its last
// report (since its start for the first one).
func (p *progress) rate(name string, n uint64, elapsed time.Duration) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	prev, ok := p.last[name]
	if !ok || elapsed < prev.elapsed || n < prev.n {
		prev = sample{} // a new search under the same name
	}
	p.last[name] = sample{n, elapsed}
	dt := (elapsed - prev.elapsed).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(n-prev.n) / dt
}

// search reports a search's statistics.
func (p *progress) search(s explore.Stats) {
	name := s.Search
	if name == "" {
		name = "search"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rdmasim: %s: %s, %s states (%s/s now), frontier %s, depth %d, memory %s, store %s",
		name, clock(s.Elapsed), report.Count(s.States), report.Count(uint64(p.rate(name, s.States, s.Elapsed))),
		report.Count(s.Frontier), s.MaxDepth, report.Bytes(peakRSS()), report.Bytes(s.StoreBytes))
	if s.DiskBytes > 0 {
		fmt.Fprintf(&b, ", frontier and parents on disk %s", report.Bytes(s.DiskBytes))
	}
	p.line(b.String())
}

// work reports a run whose amount of work is known: done of total units
// (total 0: unknown), with an estimate of the time left at the current rate.
func (p *progress) work(name, unit string, done, total uint64, elapsed time.Duration, extra string) {
	r := p.rate(name, done, elapsed)
	var b strings.Builder
	fmt.Fprintf(&b, "rdmasim: %s: %s, %s", name, clock(elapsed), report.Count(done))
	if total > 0 {
		fmt.Fprintf(&b, " of %s", report.Count(total))
	}
	fmt.Fprintf(&b, " %s (%s/s now)", unit, report.Count(uint64(r)))
	if total > done && r > 0 {
		fmt.Fprintf(&b, ", about %s left", clock(time.Duration(float64(total-done)/r*float64(time.Second))))
	}
	if extra != "" {
		b.WriteString(", " + extra)
	}
	p.line(b.String())
}

// clock prints a duration as m:ss, or h:mm:ss from an hour on.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// ending is a writer that ends a pending progress line before each write.
type ending struct {
	w io.Writer
	p *progress
}

func (e ending) Write(b []byte) (int, error) {
	e.p.end()
	return e.w.Write(b)
}
