package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultKeep is how long a run whose coordinator died is kept for a
// coordinator of the same search to resume it (rdmasim's --nats-keep):
// Config.Keep when the caller gives none.
const DefaultKeep = 24 * time.Hour

// sweepWait bounds a sweep.
const sweepWait = 30 * time.Second

// A deadRun is a run of the bucket of runs that sweep removes: no
// coordinator holds its lease, and nothing of it was written for longer
// than the coordinator's Keep.
type deadRun struct {
	run, name string
	keys      []string  // its keys in the bucket of runs
	last      time.Time // the last write of one of them
}

// sweep removes the runs whose coordinator died more than keep ago and that
// nobody resumed: their streams (a search's, a campaign's queue and
// results), their keys in the bucket of runs (description, state, the
// workers' records of refusals and losses) and the resumable records that
// name them; their partitions' claims lapse by themselves, ClaimTTL after
// their last renewal. A run is dead when no coordinator holds its lease (a
// live one renews it every ClaimTTL/5) and none of its keys was written for
// keep: a live coordinator records its state at every level, and a dead
// one's lease lapses ClaimTTL after its death. The sweeper takes the dead
// run's lease before it removes anything (a coordinator resuming the run at
// that moment holds it, or waits and finds the run gone) and gives it up
// after. Failures are logged, not returned: a run left is removed by the
// next sweep. keep <= 0 sweeps nothing. now is the sweep's clock (a test's
// later one). It returns the runs removed.
func sweep(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, runs, claims jetstream.KeyValue, keep time.Duration, now time.Time, logf func(string, ...any)) []string {
	if keep <= 0 {
		return nil
	}
	// Bounded: a bucket whose leader went away must not hold the run's
	// start. A sweep cut short removes less (a run whose keys or lease
	// could not be read is left), never a live run.
	ctx, cancel := context.WithTimeout(ctx, sweepWait)
	defer cancel()
	lister, err := runs.ListKeys(ctx)
	if err != nil {
		if !errors.Is(err, jetstream.ErrNoKeysFound) {
			logf("sweeping dead runs: listing the runs: %v", err)
		}
		return nil
	}
	var keys []string
	for k := range lister.Keys() {
		keys = append(keys, k)
	}
	resumables := map[string][]string{} // run -> keys of its resumable records
	byRun := map[string]*deadRun{}      // run -> its keys' last write
	var order []string
	for _, k := range keys {
		e, err := runs.Get(ctx, k)
		if err != nil {
			continue // gone meanwhile, or unreadable: the next sweep
		}
		if strings.HasPrefix(k, "resume.") {
			var r resumable
			if json.Unmarshal(e.Value(), &r) == nil {
				resumables[r.Run] = append(resumables[r.Run], k)
			}
			continue
		}
		// The run's description (its id), its state (RUN.state), the
		// workers' records (RUN.lost.K, RUN.refused.W).
		run, _, _ := strings.Cut(k, ".")
		d := byRun[run]
		if d == nil {
			d = &deadRun{run: run}
			byRun[run] = d
			order = append(order, run)
		}
		d.keys = append(d.keys, k)
		if e.Created().After(d.last) {
			d.last = e.Created()
		}
		if k == run {
			var s Spec
			if json.Unmarshal(e.Value(), &s) == nil {
				d.name = s.Name
			}
		}
	}
	var dead []*deadRun
	for _, run := range order {
		d := byRun[run]
		if now.Sub(d.last) <= keep {
			continue
		}
		if _, err := claims.Get(ctx, coordKey(run)); !errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // its coordinator is alive, or the claims unreadable
		}
		dead = append(dead, d)
	}
	var removed []string
	for _, d := range dead {
		stop, err := coordLease(ctx, nc, claims, d.run)
		if err != nil {
			continue // taken meanwhile: resumed, or swept by another
		}
		var errs []error
		for _, name := range []string{streamName(d.run), taskStream(d.run), resultStream(d.run)} {
			if err := js.DeleteStream(ctx, name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
				errs = append(errs, fmt.Errorf("deleting the stream %s: %w", name, err))
			}
		}
		for _, key := range append(d.keys, resumables[d.run]...) {
			if err := runs.Purge(ctx, key); err != nil {
				errs = append(errs, fmt.Errorf("removing %s: %w", key, err))
			}
		}
		stop(true)
		if err := errors.Join(errs...); err != nil {
			logf("sweeping run %s (%s), dead since %s: %v", d.run, d.name, d.last.UTC().Format(time.RFC3339), err)
			continue
		}
		logf("run %s (%s) removed: nothing of it was written since %s, more than %v ago, and no coordinator holds it (--nats-keep)", d.run, d.name, d.last.UTC().Format(time.RFC3339), keep)
		removed = append(removed, d.run)
	}
	return removed
}
