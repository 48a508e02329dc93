package report

import (
	"testing"
	"time"

	"rdmasim/explore"
)

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0:00", 61 * time.Second: "1:01", 3723 * time.Second: "1:02:03"} {
		if got := Clock(d); got != want {
			t.Errorf("Clock(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestProgressLines checks the current rate (over the last interval, afresh
// for a new search under the same name) and the lines it goes into.
func TestProgressLines(t *testing.T) {
	var r Rates
	for _, c := range []struct {
		name    string
		n       uint64
		elapsed time.Duration
		want    float64
	}{
		{"a", 1000, time.Second, 1000},
		{"a", 1500, 3 * time.Second, 250},
		{"b", 10, 2 * time.Second, 5},
		{"a", 1500, 3 * time.Second, 0}, // no time passed
		{"a", 100, time.Second, 100},    // a new search
	} {
		if got := r.Rate(c.name, c.n, c.elapsed); got != c.want {
			t.Errorf("Rate(%q, %d, %v) = %g, want %g", c.name, c.n, c.elapsed, got, c.want)
		}
	}
	for _, c := range []struct{ got, want string }{
		{SearchLine(explore.Stats{States: 10, Elapsed: time.Second, DiskBytes: 2048}, &r, 1<<20),
			"rdmasim: search: 0:01, 10 states (10/s now), frontier 0, depth 0, memory 1.0 MiB, store 0 B, frontier and parents on disk 2.0 KiB"},
		{WorkLine(&r, "fuzz", "programs", 50, 100, 10*time.Second, "1 disagreement"),
			"rdmasim: fuzz: 0:10, 50 of 100 programs (5/s now), about 0:10 left, 1 disagreement"},
		{WorkLine(&r, "walks", "walks", 7, 0, time.Second, ""), "rdmasim: walks: 0:01, 7 walks (7/s now)"},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
}
