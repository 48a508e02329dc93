package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"rdmasim/explore"
)

// TestProgressLines: one line per report in a log; on a terminal one line
// rewritten in place, ended before anything else is written.
func TestProgressLines(t *testing.T) {
	var log bytes.Buffer
	p := newProgress(&log, false)
	p.search(explore.Stats{Search: "SB rdma", States: 1000, Elapsed: time.Second})
	p.search(explore.Stats{Search: "SB rdma", States: 1500, Elapsed: 3 * time.Second})
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2:\n%s", len(lines), log.String())
	}
	for i, want := range []string{"rdmasim: SB rdma: 0:01, 1,000 states (1,000/s now)", "rdmasim: SB rdma: 0:03, 1,500 states (250/s now)"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %q, want prefix %q", i+1, lines[i], want)
		}
	}

	var term bytes.Buffer
	q := newProgress(&term, true)
	out := ending{&term, q}
	q.work("fuzz", "programs", 50, 100, 10*time.Second, "")
	out.Write([]byte("report\n"))
	out.Write([]byte("more\n"))
	want := "\rrdmasim: fuzz: 0:10, 50 of 100 programs (5/s now), about 0:10 left\033[K\r\033[Kreport\nmore\n"
	if term.String() != want {
		t.Errorf("terminal got %q, want %q", term.String(), want)
	}
}
