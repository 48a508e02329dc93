package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// resumable is a run's resumable record, in the bucket of runs under
// resumableKey: the run that a coordinator of the same search resumes.
type resumable struct {
	Key        string    `json:"key"` // Config.Key
	Run        string    `json:"run"`
	Partitions int       `json:"partitions"`
	Version    string    `json:"version"`
	Seed       [2]uint64 `json:"seed"`
	Initial    [2]uint64 `json:"initial"`
}

// resumableKey is the key of the resumable record of the search key with
// the partitions, build and fingerprint seed of s. It has two tokens, so
// that workers, which list the runs by one-token keys, never see it.
func resumableKey(key string, s *Spec) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%d.%d", key, s.Partitions, s.Version, s.Seed[0], s.Seed[1])
	return fmt.Sprintf("resume.%016x", h.Sum64())
}

// mismatch says why the record r, or the run s it names, cannot be resumed
// by the coordinator c, or "".
func (c *Coordinator) mismatch(r *resumable, s *Spec) string {
	want := c.spec
	switch {
	case r.Key != c.key || r.Partitions != want.Partitions || r.Version != want.Version || r.Seed != want.Seed || r.Initial != want.Initial:
		return "its record is of another search"
	case s.Run != r.Run || s.Campaign != "" || s.Protocol != protocol:
		return "its description is not a search's of this protocol"
	case s.Partitions != want.Partitions:
		return fmt.Sprintf("it has %d partitions, this search %d", s.Partitions, want.Partitions)
	case s.Version != want.Version:
		return fmt.Sprintf("it was built from %q, this coordinator from %q", s.Version, want.Version)
	case s.Seed != want.Seed:
		return "another fingerprint seed"
	case s.Initial != want.Initial:
		return "another initial state (another program or semantics)"
	}
	return ""
}

// putResumable records the run as the one a coordinator of the same search
// resumes should this one die.
func (c *Coordinator) putResumable(ctx context.Context) error {
	if c.key == "" {
		return nil
	}
	b, err := json.Marshal(resumable{Key: c.key, Run: c.spec.Run, Partitions: c.spec.Partitions, Version: c.spec.Version, Seed: c.spec.Seed, Initial: c.spec.Initial})
	if err != nil {
		return fmt.Errorf("dist: %w", err)
	}
	err = retry(ctx, c.js, c.spec.Run, func(ctx context.Context) error {
		_, err := c.runs.Put(ctx, resumableKey(c.key, &c.spec), b)
		return err
	})
	if err != nil {
		return fmt.Errorf("dist: recording the run as resumable: %w", err)
	}
	return nil
}

// dropResumable removes the run's resumable record, unless it names another
// run by now.
func (c *Coordinator) dropResumable(ctx context.Context) error {
	if c.key == "" {
		return nil
	}
	key := resumableKey(c.key, &c.spec)
	e, err := c.runs.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil
	}
	var r resumable
	if err == nil && json.Unmarshal(e.Value(), &r) == nil && r.Run != c.spec.Run {
		return nil
	}
	if err := c.runs.Purge(ctx, key); err != nil {
		return fmt.Errorf("dist: removing the run's resumable record: %w", err)
	}
	return nil
}

func (c *Coordinator) logf(format string, args ...any) {
	if c.log != nil {
		c.log(fmt.Sprintf(format, args...))
	}
}

// resume looks for the run of the coordinator's search whose coordinator
// died, and if there is one it can resume, takes it over (see "Resuming a
// run"): ok says it did. Without one it returns false and no error, and
// the caller starts a new run; err is a request that failed.
func (c *Coordinator) resume(ctx context.Context) (ok bool, err error) {
	// Asked again while unanswered (a JetStream cluster's bucket whose
	// leader moves), for at most stallWait.
	get := func(key string) (e jetstream.KeyValueEntry, err error) {
		err = retryGet(ctx, c.js, func(ctx context.Context) error {
			e, err = c.runs.Get(ctx, key)
			return err
		})
		return e, err
	}
	e, err := get(resumableKey(c.key, &c.spec))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("dist: looking for a run to resume: %w", err)
	}
	var r resumable
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		c.logf("a resumable record %s is unreadable (%v): starting a new run", e.Key(), err)
		return false, nil
	}
	notResumed := func(why string) (bool, error) {
		c.logf("run %s is not resumed: %s; starting a new run", r.Run, why)
		return false, nil
	}
	se, err := get(r.Run)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return notResumed("its description is gone")
	}
	if err != nil {
		return false, fmt.Errorf("dist: reading run %s to resume it: %w", r.Run, err)
	}
	var spec Spec
	if err := json.Unmarshal(se.Value(), &spec); err != nil {
		return notResumed(fmt.Sprintf("its description is unreadable (%v)", err))
	}
	if why := c.mismatch(&r, &spec); why != "" {
		return notResumed(why)
	}
	ste, err := get(stateKey(r.Run))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return notResumed("its state is gone")
	}
	if err != nil {
		return false, fmt.Errorf("dist: reading run %s's state: %w", r.Run, err)
	}
	var st State
	if err := json.Unmarshal(ste.Value(), &st); err != nil || st.Done {
		return notResumed("it is over")
	}
	var stream jetstream.Stream
	err = retryGet(ctx, c.js, func(ctx context.Context) (err error) {
		stream, err = c.js.Stream(ctx, streamName(r.Run))
		return err
	})
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return notResumed("its stream is gone")
	}
	if err != nil {
		return false, fmt.Errorf("dist: opening run %s's stream: %w", r.Run, err)
	}
	if ok, err := c.takeLease(ctx, r.Run); err != nil || !ok {
		if err != nil {
			return false, err
		}
		return notResumed("its coordinator is alive (its lease is renewed): the same search running twice?")
	}
	// A coordinator that ends its run marks it over before it gives the
	// lease up (Close): read its state again, now that the lease is ours.
	if ste, err = get(stateKey(r.Run)); err != nil || isDone(ste.Value()) {
		c.stopHeartbeat(true)
		c.stopHeartbeat = nil
		return notResumed("it ended meanwhile")
	}
	if err := json.Unmarshal(ste.Value(), &st); err != nil {
		return false, fmt.Errorf("dist: reading run %s's state: %w", r.Run, err)
	}
	c.spec, c.stream = spec, stream
	c.resumed, c.replayTo, c.wantNext = true, st.Level, st.Next
	c.logf("run %s (%s) resumed at level %d: its coordinator had died; levels 0 to %d are replayed from its stream, level %d is done again", spec.Run, spec.Name, st.Level, st.Level-1, st.Level)
	return true, nil
}

// takeLease takes the coordinator's lease on the run, which a dead
// coordinator holds until it lapses (ClaimTTL after its last renewal): it
// waits for that, and gives up (false) if the lease is renewed meanwhile, by
// a coordinator that is alive.
func (c *Coordinator) takeLease(ctx context.Context, run string) (bool, error) {
	deadline := time.Now().Add(ClaimTTL + ClaimTTL/2)
	var rev uint64
	for said := false; ; {
		stop, err := coordLease(ctx, c.nc, c.claims, run)
		if err == nil {
			c.stopHeartbeat = stop
			return true, nil
		}
		var e jetstream.KeyValueEntry
		gerr := retryGet(ctx, c.js, func(ctx context.Context) (err error) {
			e, err = c.claims.Get(ctx, coordKey(run))
			return err
		})
		switch {
		case errors.Is(gerr, jetstream.ErrKeyNotFound):
			// It lapsed since: take it at once (below).
		case gerr != nil:
			return false, fmt.Errorf("dist: reading the lease of run %s's coordinator: %w", run, gerr)
		case rev != 0 && e.Revision() != rev:
			return false, nil // renewed
		default:
			rev = e.Revision()
			if !said {
				c.logf("waiting for the lease of run %s's last coordinator to lapse (at most %v)", run, ClaimTTL)
				said = true
			}
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("dist: the lease of run %s's coordinator neither lapsed nor was renewed within %v: %w", run, ClaimTTL+ClaimTTL/2, err)
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// abandon leaves the run as a coordinator that dies leaves it: it stops
// renewing its lease, which lapses after ClaimTTL (with release, removes
// it at once, as a test's shortcut), and deletes nothing. The coordinator
// is unusable after.
func (c *Coordinator) abandon(release bool) {
	if c.stopHeartbeat != nil {
		c.stopHeartbeat(release)
		c.stopHeartbeat = nil
	}
	c.purged()
	c.runs = nil // Close does nothing
}
