package dist

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"rdmasim/explore"
)

// A death is how a test's first coordinator dies: after the commit core
// visited the first state of depth visit (mid-level: the level that found it
// is never numbered), once the state of level at is recorded (at a level's
// boundary), or once the ids of level ids are published and before its state
// is recorded (the next coordinator publishes them again); lapse leaves its
// lease to lapse (ClaimTTL) rather than removing it at once.
type death struct {
	visit, at, ids int
	lapse          bool
}

// runOpt changes a test run's coordinator: set its Config before it is
// made, hook the coordinator once made (a test's hooks: levelDone).
type runOpt struct {
	set  func(*Config)
	hook func(*Coordinator)
}

// apply applies the opts to cfg (nil c) or to c.
func apply(opts []runOpt, cfg *Config, c *Coordinator) {
	for _, o := range opts {
		if cfg != nil && o.set != nil {
			o.set(cfg)
		}
		if c != nil && o.hook != nil {
			o.hook(c)
		}
	}
}

// dyingRun runs the search of g with n partitions and the key key until its
// coordinator dies as d says, and leaves the run as a dead coordinator
// does; it returns the level the run's state had reached.
func dyingRun(t *testing.T, url string, g grid, n int, key string, d death, opts ...runOpt) int {
	t.Helper()
	nc, err := Connect(url, "test coordinator (dies)")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	cfg := Config{Partitions: n, Payload: g.payload(), Batch: 64, Key: key}
	apply(opts, &cfg, nil)
	c, err := NewCoordinator(nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	apply(opts, nil, c)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	level := 0
	c.levelDone = func(l int) {
		level = l
		if d.at > 0 && l == d.at {
			cancel()
		}
	}
	c.idsDone = func(l int) {
		if d.ids > 0 && l == d.ids {
			cancel()
		}
	}
	opt := explore.Options{Remote: c, Trace: true}
	if d.visit > 0 {
		opt.Visit = func(_ uint64, _ []byte, depth int) bool { return depth < d.visit }
	}
	r, err := explore.New(g, opt).Run(ctx)
	if err != nil && (d.ids == 0 || ctx.Err() == nil) {
		t.Fatal(err) // the state of level ids fails to be recorded
	}
	if err == nil && r.Stop == explore.Complete {
		t.Fatalf("the dying run completed: %+v", r)
	}
	c.abandon(!d.lapse)
	return level
}

// resumedRun runs the search of g with n partitions and the key key to its
// end, and returns its result, its search, its visits, the level it resumed
// at (-1: it started afresh) and what its coordinator logged.
func resumedRun(t *testing.T, url string, g grid, n int, key string, opts ...runOpt) (explore.Result, *explore.Search, string, int, string) {
	t.Helper()
	nc, err := Connect(url, "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var mu sync.Mutex
	var log strings.Builder
	cfg := Config{Partitions: n, Payload: g.payload(), Batch: 64, Key: key, Log: func(s string) {
		mu.Lock()
		fmt.Fprintln(&log, s)
		mu.Unlock()
	}}
	apply(opts, &cfg, nil)
	c, err := NewCoordinator(nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	apply(opts, nil, c)
	var got visits
	s := explore.New(g, explore.Options{Remote: c, Trace: true, Visit: got.visit})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r, err := s.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at := -1
	if l, ok := c.Resumed(); ok {
		at = l
	}
	mu.Lock()
	defer mu.Unlock()
	return r, s, got.buf.String(), at, log.String()
}

// sequential returns the sequential search's result, search and visits of
// g.
func sequential(t *testing.T, g grid) (explore.Result, *explore.Search, string) {
	t.Helper()
	var want visits
	ws := explore.New(grid{g.a, g.b, g.c, 0}, explore.Options{Trace: true, Visit: want.visit})
	wr, err := ws.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return wr, ws, want.buf.String()
}

// sameSearch says how the result, search and visits got differ from want's,
// or "".
func sameSearch(gr explore.Result, gs *explore.Search, got string, wr explore.Result, ws *explore.Search, want string) string {
	if gr.States != wr.States || gr.Transitions != wr.Transitions || gr.MaxDepth != wr.MaxDepth || gr.Stop != wr.Stop || gr.Pruned != wr.Pruned {
		return fmt.Sprintf("got %+v, want %+v", gr, wr)
	}
	if got != want {
		return "the visits differ"
	}
	gp, err1 := gs.Path(gr.States - 1)
	wp, err2 := ws.Path(wr.States - 1)
	if err1 != nil || err2 != nil || fmt.Sprint(gp) != fmt.Sprint(wp) {
		return fmt.Sprintf("last path %v %v, want %v %v", gp, err1, wp, err2)
	}
	return ""
}

// TestResume kills a run's coordinator mid-run (mid-level, or at a level's
// boundary; its lease removed, or left to lapse), runs the same search again
// with the same key and partitions, and checks that it resumed the run at
// the level the dead one had reached and reports what the sequential search
// does (counts, visits, the witness of the last state); then that the same
// search run once more, the run being finished, starts afresh, with the same
// report.
func TestResume(t *testing.T) {
	srv := startCluster(t, 3)
	for _, tc := range []struct {
		g grid
		n int
		d death
	}{
		{grid{12, 25, 8, 100 * time.Microsecond}, 3, death{visit: 6}},
		{grid{12, 25, 8, 100 * time.Microsecond}, 2, death{at: 9}},
		{grid{9, 11, 6, 100 * time.Microsecond}, 3, death{at: 4, lapse: true}},
		{grid{12, 25, 8, 100 * time.Microsecond}, 3, death{ids: 8}},
	} {
		name := fmt.Sprintf("%v/n=%d/%+v", tc.g, tc.n, tc.d)
		key := "test-resume " + name
		wr, ws, want := sequential(t, tc.g)
		level := dyingRun(t, srv.URL(), tc.g, tc.n, key, tc.d)
		wantAt := tc.d.at
		switch {
		case tc.d.visit > 0:
			wantAt = tc.d.visit - 1 // the level that found it was not numbered
		case tc.d.ids > 0:
			wantAt = tc.d.ids - 1 // its state was not recorded
		}
		if level != wantAt {
			t.Fatalf("%s: the dying run recorded level %d, want %d", name, level, wantAt)
		}
		gr, gs, got, at, log := resumedRun(t, srv.URL(), tc.g, tc.n, key)
		if at != wantAt {
			t.Errorf("%s: resumed at %d, want %d; the coordinator said:\n%s", name, at, wantAt, log)
		}
		if !strings.Contains(log, fmt.Sprintf("resumed at level %d:", wantAt)) {
			t.Errorf("%s: the coordinator said %q, want it to say it resumed at level %d", name, log, wantAt)
		}
		if why := sameSearch(gr, gs, got, wr, ws, want); why != "" {
			t.Errorf("%s: resumed: %s", name, why)
		}
		// Finished: run again, it starts afresh.
		gr, gs, got, at, _ = resumedRun(t, srv.URL(), tc.g, tc.n, key)
		if at != -1 {
			t.Errorf("%s: the finished run was resumed at level %d", name, at)
		}
		if why := sameSearch(gr, gs, got, wr, ws, want); why != "" {
			t.Errorf("%s: run again: %s", name, why)
		}
	}
}

// TestResumeOnlyTheSameSearch kills a run's coordinator and checks that
// searches that differ from it (another partition count, another key) do not
// resume it but start afresh, with the sequential search's report, and that
// the run is still resumed by the same search after them.
func TestResumeOnlyTheSameSearch(t *testing.T) {
	srv := startCluster(t, 3)
	g := grid{12, 25, 8, 100 * time.Microsecond}
	wr, ws, want := sequential(t, g)
	const key = "test-resume-mismatch"
	level := dyingRun(t, srv.URL(), g, 3, key, death{at: 7})
	for _, tc := range []struct {
		n      int
		key    string
		wantAt int
	}{
		{2, key, -1},
		{3, key + " other", -1},
		{3, key, level},
	} {
		name := fmt.Sprintf("n=%d/key=%s", tc.n, tc.key)
		gr, gs, got, at, log := resumedRun(t, srv.URL(), g, tc.n, tc.key)
		if at != tc.wantAt {
			t.Errorf("%s: resumed at %d, want %d; the coordinator said:\n%s", name, at, tc.wantAt, log)
		}
		if why := sameSearch(gr, gs, got, wr, ws, want); why != "" {
			t.Errorf("%s: %s", name, why)
		}
	}
}

// TestResumeLiveCoordinator starts a second coordinator of a search while
// the first is running it (held at level 3 until the second is done, its
// lease renewed meanwhile): the second must not take the run over but start
// its own, served by three more workers, and both must report what the
// sequential search does.
func TestResumeLiveCoordinator(t *testing.T) {
	srv := startCluster(t, 6)
	g := grid{12, 25, 8, 100 * time.Microsecond}
	wr, ws, want := sequential(t, g)
	const key = "test-resume-live"
	nc, err := Connect(srv.URL(), "test coordinator (first)")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	first, err := NewCoordinator(nc, Config{Partitions: 3, Payload: g.payload(), Batch: 64, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	held, release := make(chan struct{}), make(chan struct{})
	var fv visits
	wasHeld := false // the search's goroutine's
	fs := explore.New(g, explore.Options{Remote: first, Trace: true, Visit: func(id uint64, s []byte, depth int) bool {
		if depth == 3 && !wasHeld {
			wasHeld = true
			close(held)
			<-release
		}
		return fv.visit(id, s, depth)
	}})
	type outcome struct {
		r   explore.Result
		err error
	}
	ran := make(chan outcome, 1)
	go func() {
		r, err := fs.Run(context.Background())
		ran <- outcome{r, err}
	}()
	select {
	case <-held:
	case o := <-ran:
		t.Fatalf("the first run ended (%v, %v) before level 3", o.r, o.err)
	}
	gr, gs, got, at, log := resumedRun(t, srv.URL(), g, 3, key)
	close(release)
	if at != -1 || !strings.Contains(log, "its coordinator is alive") {
		t.Errorf("the second coordinator resumed at %d, want a new run because the first is alive; it said:\n%s", at, log)
	}
	if why := sameSearch(gr, gs, got, wr, ws, want); why != "" {
		t.Errorf("second: %s", why)
	}
	o := <-ran
	if o.err != nil {
		t.Fatal(o.err)
	}
	if why := sameSearch(o.r, fs, fv.buf.String(), wr, ws, want); why != "" {
		t.Errorf("first: %s", why)
	}
}

// TestResumableMismatch checks that a resumable record, or the run it
// names, that differs from the coordinator's search in anything that
// matters is refused, each with its reason.
func TestResumableMismatch(t *testing.T) {
	c := &Coordinator{key: "k", spec: Spec{Run: "R", Partitions: 3, Version: "v", Seed: [2]uint64{1, 2}, Initial: [2]uint64{3, 4}, Protocol: protocol}}
	rec := func(f func(*resumable)) *resumable {
		r := &resumable{Key: "k", Run: "R", Partitions: 3, Version: "v", Seed: [2]uint64{1, 2}, Initial: [2]uint64{3, 4}}
		if f != nil {
			f(r)
		}
		return r
	}
	spec := func(f func(*Spec)) *Spec {
		s := c.spec
		if f != nil {
			f(&s)
		}
		return &s
	}
	for _, tc := range []struct {
		name string
		r    *resumable
		s    *Spec
		want string
	}{
		{"same", rec(nil), spec(nil), ""},
		{"record's key", rec(func(r *resumable) { r.Key = "other" }), spec(nil), "another search"},
		{"record's partitions", rec(func(r *resumable) { r.Partitions = 2 }), spec(nil), "another search"},
		{"record's build", rec(func(r *resumable) { r.Version = "w" }), spec(nil), "another search"},
		{"record's seed", rec(func(r *resumable) { r.Seed[0] = 9 }), spec(nil), "another search"},
		{"record's initial state", rec(func(r *resumable) { r.Initial[1] = 9 }), spec(nil), "another search"},
		{"another run", rec(nil), spec(func(s *Spec) { s.Run = "S" }), "not a search's"},
		{"a campaign", rec(nil), spec(func(s *Spec) { s.Campaign = "square" }), "not a search's"},
		{"another protocol", rec(nil), spec(func(s *Spec) { s.Protocol = protocol + 1 }), "not a search's"},
		{"run's partitions", rec(nil), spec(func(s *Spec) { s.Partitions = 2 }), "2 partitions, this search 3"},
		{"run's build", rec(nil), spec(func(s *Spec) { s.Version = "w" }), `built from "w"`},
		{"run's seed", rec(nil), spec(func(s *Spec) { s.Seed[1] = 9 }), "fingerprint seed"},
		{"run's initial state", rec(nil), spec(func(s *Spec) { s.Initial[0] = 9 }), "initial state"},
	} {
		got := c.mismatch(tc.r, tc.s)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// The record's key in the bucket names the search, the partitions,
	// the build and the seed.
	base := resumableKey("k", &c.spec)
	for name, s := range map[string]*Spec{
		"partitions": spec(func(s *Spec) { s.Partitions = 2 }),
		"build":      spec(func(s *Spec) { s.Version = "w" }),
		"seed":       spec(func(s *Spec) { s.Seed[0] = 9 }),
	} {
		if resumableKey("k", s) == base {
			t.Errorf("another %s, the same record key %s", name, base)
		}
	}
	if resumableKey("k2", &c.spec) == base {
		t.Errorf("another search key, the same record key %s", base)
	}
}
