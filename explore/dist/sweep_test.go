package dist

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// TestSweep leaves a run whose coordinator died (its state at level 5) and
// checks what a sweep does with it, the clock of the sweep given rather than
// waited for: within keep, or with its lease held (a live coordinator), the
// run stays and is resumed by the same search; past keep and unheld, its
// stream and every key of it (description, state, resumable record) are
// gone, and the same search starts afresh. Every search reports what the
// sequential search does. Last, a coordinator made with Keep 1ns sweeps a
// dead run itself in Start, says so, and starts afresh.
func TestSweep(t *testing.T) {
	srv := startCluster(t, 3)
	g := grid{12, 25, 8, 100 * time.Microsecond}
	wr, ws, want := sequential(t, g)
	nc, err := Connect(srv.URL(), "test sweeper")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := newJS(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	runs, claims, err := buckets(ctx, js, 1)
	if err != nil {
		t.Fatal(err)
	}
	const keep = time.Hour
	// left returns the keys of run in the bucket of runs and whether its
	// stream is there.
	left := func(run string) ([]string, bool) {
		var keys []string
		if l, err := runs.ListKeys(ctx); err == nil {
			for k := range l.Keys() {
				if k == run || strings.HasPrefix(k, run+".") {
					keys = append(keys, k)
				} else if strings.HasPrefix(k, "resume.") {
					if e, err := runs.Get(ctx, k); err == nil && strings.Contains(string(e.Value()), run) {
						keys = append(keys, k)
					}
				}
			}
		}
		_, err := js.Stream(ctx, streamName(run))
		return keys, !errors.Is(err, jetstream.ErrStreamNotFound)
	}
	for _, tc := range []struct {
		name   string
		after  time.Duration // the sweep's clock, after now
		held   bool          // its lease held during the sweep
		extra  []runOpt      // the second coordinator's
		swept  bool
		wantAt int // the second coordinator resumes at (-1: afresh)
	}{
		{name: "within keep", after: keep / 2, wantAt: 5},
		{name: "past keep, held", after: 2 * keep, held: true, wantAt: 5},
		{name: "past keep", after: 2 * keep, swept: true, wantAt: -1},
		{name: "Keep 1ns", extra: []runOpt{{set: func(c *Config) { c.Keep = time.Nanosecond }}}, swept: true, wantAt: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "test-sweep " + tc.name
			var dying *Coordinator
			hook := runOpt{hook: func(c *Coordinator) { dying = c }}
			if level := dyingRun(t, srv.URL(), g, 3, key, death{at: 5}, hook); level != 5 {
				t.Fatalf("the dying run recorded level %d, want 5", level)
			}
			run := dying.Run()
			if keys, ok := left(run); len(keys) < 3 || !ok {
				t.Fatalf("the dead run left %v and its stream %v, want its description, state, resumable record and stream", keys, ok)
			}
			var logged strings.Builder
			logf := func(f string, a ...any) { fmt.Fprintf(&logged, f+"\n", a...) }
			if tc.extra == nil {
				var stop func(bool)
				if tc.held {
					if stop, err = coordLease(ctx, nc, claims, run); err != nil {
						t.Fatal(err)
					}
				}
				removed := sweep(ctx, nc, js, runs, claims, keep, time.Now().Add(tc.after), logf)
				if stop != nil {
					stop(true)
				}
				if got := len(removed) == 1 && removed[0] == run; got != tc.swept || len(removed) > 1 {
					t.Errorf("swept %v, want %s swept %v; it said %q", removed, run, tc.swept, logged.String())
				}
			}
			gr, gs, got, at, log := resumedRun(t, srv.URL(), g, 3, key, tc.extra...)
			if tc.extra == nil && tc.swept {
				if keys, ok := left(run); len(keys) > 0 || ok {
					t.Errorf("after the sweep, the run left %v and its stream %v", keys, ok)
				}
			}
			if tc.extra != nil && !strings.Contains(log, "run "+run+" (") || tc.extra != nil && !strings.Contains(log, "removed") {
				t.Errorf("the coordinator with Keep 1ns said %q, want it to say it removed %s", log, run)
			}
			if at != tc.wantAt {
				t.Errorf("resumed at %d, want %d; the coordinator said:\n%s", at, tc.wantAt, log)
			}
			if why := sameSearch(gr, gs, got, wr, ws, want); why != "" {
				t.Errorf("%s", why)
			}
		})
	}
}
