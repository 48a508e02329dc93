package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"rdmasim/explore"
	"rdmasim/opsem/report"
)

// progress prints how a long run goes, on stderr (opsem/report's
// progress lines): on a terminal one line rewritten in place, elsewhere (a
// log, a pipe) one line per report.
//
// On a terminal, the writers of env go through the printer, so that a
// report or message ends a pending progress line before it is printed.
type progress struct {
	mu      sync.Mutex
	w       io.Writer // the real stderr
	inPlace bool
	pending int // length of the line left on the terminal, 0 for none
	rates   report.Rates
}

func newProgress(w io.Writer, inPlace bool) *progress {
	return &progress{w: w, inPlace: inPlace}
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

// search reports a search's statistics.
func (p *progress) search(s explore.Stats) { p.line(report.SearchLine(s, &p.rates, report.PeakRSS())) }

// work reports a run whose amount of work is known: done of total units
// (total 0: unknown), with an estimate of the time left at the current rate.
func (p *progress) work(name, unit string, done, total uint64, elapsed time.Duration, extra string) {
	p.line(report.WorkLine(&p.rates, name, unit, done, total, elapsed, extra))
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
