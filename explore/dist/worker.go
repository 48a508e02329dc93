package dist

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"rdmasim/explore"
	"rdmasim/store"
)

// A Worker serves the partitions of runs: it finds a run in the bucket of
// runs, claims one of its free partitions, serves it until the run is over,
// and looks for the next.
type Worker struct {
	// Factory builds the machine of a run from its payload (Spec.Payload).
	Factory func(payload []byte) (explore.Machine, error)
	// Version is this worker's build (Version() if empty): it refuses
	// runs of another.
	Version string
	// ID names the worker. A worker restarted with the same ID takes its
	// partition back at once; another waits for the claim to lapse
	// (ClaimTTL). Empty: the host name and process id.
	ID string
	// Once makes Run return after serving one run.
	Once bool
	// NewSet makes a partition's visited set; nil: in memory.
	NewSet func() (store.Set, error)
	// Log, if not nil, is told what the worker does.
	Log func(string)
	// Tasks are the task functions of the campaigns this worker serves
	// (see RunCampaign), by kind.
	Tasks map[string]func(ctx context.Context, payload []byte) ([]byte, error)
	// LostAfter is how long a partition waits for another whose messages
	// arrived short to be served again before it says they are lost
	// (ErrLost); 0: lostAfter.
	LostAfter time.Duration
}

func (w *Worker) lostAfter() time.Duration { return cmp.Or(w.LostAfter, lostAfter) }

// Run serves runs on the NATS server of nc until ctx is done (it then returns
// nil), or with Once after one run.
func (w *Worker) Run(ctx context.Context, nc *nats.Conn) error {
	if w.ID == "" {
		host, _ := os.Hostname()
		w.ID = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if w.Version == "" {
		w.Version = Version()
	}
	inc := w.ID + "-" + nuid.Next()
	js, err := newJS(nc)
	if err != nil {
		return err
	}
	runs, claims, err := buckets(ctx, js, 0)
	if err != nil {
		return err
	}
	// Any change to the runs wakes the worker up; it looks anyway every
	// second (a claim may have lapsed).
	wt, err := runs.WatchAll(ctx, jetstream.UpdatesOnly(), jetstream.IgnoreDeletes())
	if err != nil {
		return fmt.Errorf("dist: watching the runs: %w", err)
	}
	defer wt.Stop()
	refused := map[string]bool{}
	for {
		served, err := w.findRun(ctx, js, runs, claims, inc, refused)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			return err
		case served && w.Once:
			return nil
		case !served:
			select {
			case <-ctx.Done():
				return nil
			case <-wt.Updates():
			case <-time.After(time.Second):
			}
		}
	}
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		w.Log(fmt.Sprintf("worker %s: ", w.ID) + fmt.Sprintf(format, args...))
	}
}

// findRun looks for a run with a free partition, and serves it if there is
// one; served says it did.
func (w *Worker) findRun(ctx context.Context, js jetstream.JetStream, runs, claims jetstream.KeyValue, inc string, refused map[string]bool) (served bool, err error) {
	ids, err := w.listRuns(ctx, js, runs)
	if err != nil {
		return false, nil
	}
	for _, id := range ids {
		if refused[id] {
			continue
		}
		spec, ok := w.servable(ctx, js, runs, claims, id)
		if !ok {
			continue
		}
		if why := spec.compatible(w.Version); why != "" {
			w.refuse(ctx, runs, spec, why)
			refused[id] = true
			continue
		}
		if spec.Campaign != "" {
			if w.Tasks[spec.Campaign] == nil {
				refused[id] = true // not ours to serve
				continue
			}
			w.logf("serving campaign %s (%s)", spec.Run, spec.Name)
			if err := w.serveCampaign(ctx, js, runs, spec); err != nil && ctx.Err() == nil {
				w.logf("campaign %s failed: %v", spec.Run, err)
			}
			return true, nil
		}
		// Each time this worker serves a partition it publishes
		// as a new incarnation, which its claim names: the messages
		// of an attempt that failed midway (its publishes lost with
		// the connection to a server that restarted) must not be
		// counted with the next attempt's, which the end markers
		// count alone; and a receiver that found an incarnation's
		// messages short tells from the claim whether it was served
		// again (shorts.lost).
		attempt := w.ID + "-" + nuid.Next()
		k, lease, err := w.claim(ctx, js.Conn(), claims, spec, attempt)
		if err != nil {
			return false, err
		}
		if k < 0 {
			continue
		}
		w.logf("serving partition %d of %d of run %s (%s)", k, spec.Partitions, spec.Run, spec.Name)
		err = w.serve(ctx, js, runs, claims, spec, k, attempt, lease)
		lease.release()
		if err != nil && ctx.Err() == nil {
			if errors.Is(err, errRefused) {
				w.refuse(ctx, runs, spec, err.Error())
				refused[id] = true
				continue
			}
			if errors.Is(err, ErrLost) {
				// Serving it again would fail again: the
				// coordinator ends the run (see lostKey).
				w.lost(ctx, runs, spec, k, err)
			}
			// A failed partition is taken over by another worker
			// (or this one, once it retries): the run goes on.
			w.logf("partition %d of run %s failed: %v", k, spec.Run, err)
		}
		return true, nil
	}
	return false, nil
}

// listRuns returns the ids of the runs in the bucket runs.
func (w *Worker) listRuns(ctx context.Context, js jetstream.JetStream, runs jetstream.KeyValue) ([]string, error) {
	// Looked at again a second later if the server does not answer.
	ctx, done := checking(ctx, js.Conn())
	defer done()
	keys, err := runs.ListKeysFiltered(ctx, "*")
	if err != nil {
		if !errors.Is(err, jetstream.ErrNoKeysFound) && ctx.Err() == nil {
			// The server is away or slow: look again later.
			w.logf("listing runs: %v", err)
		}
		return nil, err
	}
	var ids []string
	for k := range keys.Keys() {
		ids = append(ids, k)
	}
	return ids, nil
}

// servable returns the description of run id if it is running and its
// coordinator is there.
func (w *Worker) servable(ctx context.Context, js jetstream.JetStream, runs, claims jetstream.KeyValue, id string) (*Spec, bool) {
	ctx, done := checking(ctx, js.Conn())
	defer done()
	e, err := runs.Get(ctx, id)
	if err != nil {
		return nil, false // gone
	}
	var spec Spec
	if err := json.Unmarshal(e.Value(), &spec); err != nil {
		return nil, false
	}
	if st, err := runs.Get(ctx, stateKey(id)); err != nil || isDone(st.Value()) {
		return nil, false // over, or not started yet
	}
	if _, err := claims.Get(ctx, coordKey(id)); errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, false // its coordinator is gone
	}
	return &spec, true
}

var errRefused = errors.New("refused")

// ErrLost is the error of a run whose stream lacks messages that were
// published to it: an end marker counts more data messages than the stream
// holds, as when the NATS server restarted without writes it had not yet
// synced to disk. Serving the partition again rebuilds it from the same
// stream and fails the same way, so a worker that meets it records it
// (lostKey) and the coordinator ends the run with it.
var ErrLost = errors.New("messages of the run are missing from its stream (did the NATS server restart and lose them?)")

// lostKey is the key under which a worker records that partition k of run
// lost messages.
func lostKey(run string, k int) string { return run + ".lost." + strconv.Itoa(k) }

// lost records that partition k of run s cannot be served as its stream
// lacks messages (err, an ErrLost), for its coordinator to end the run.
func (w *Worker) lost(ctx context.Context, runs jetstream.KeyValue, s *Spec, k int, err error) {
	runs.Put(ctx, lostKey(s.Run, k), []byte(fmt.Sprintf("partition %d (worker %s): %v", k, w.ID, err)))
}

// isDone says whether the state b is that of a run that is over.
func isDone(b []byte) bool {
	var st State
	return json.Unmarshal(b, &st) != nil || st.Done
}

// refuse records that this worker refuses run s, for its coordinator to say.
func (w *Worker) refuse(ctx context.Context, runs jetstream.KeyValue, s *Spec, why string) {
	msg := fmt.Sprintf("worker %s refuses run %s (%s): %s", w.ID, s.Run, s.Name, why)
	w.logf("%s", msg)
	key := s.Run + ".refused." + keySafe(w.ID)
	runs.Put(ctx, key, []byte(msg))
}

// keySafe turns s into a key token.
func keySafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// A lease is a worker's claim on a partition, renewed in the background;
// lost is closed if another worker took it.
type lease struct {
	cancel   context.CancelFunc
	lost     chan struct{}
	orphaned chan struct{} // closed if the run's coordinator is gone
	// coordMissing counts the renewals in a row that found the
	// coordinator's lease missing (see renewLease).
	coordMissing int
	done         chan struct{}
}

func (l *lease) release() {
	l.cancel()
	<-l.done
}

// renew takes the claim key back after an update failed: it returns the
// claim's new revision if it is still (or again) this worker's value, 0 and
// held if that cannot be told now (the server is slow), and 0 and not held if
// another worker has it.
func renew(ctx context.Context, claims jetstream.KeyValue, key string, value []byte) (rev uint64, held bool) {
	e, err := claims.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		// It lapsed, and nobody took it.
		if rev, err := claims.Create(ctx, key, value); err == nil {
			return rev, true
		}
		return 0, true // try again at the next tick
	case err != nil:
		return 0, true
	case string(e.Value()) != string(value):
		return 0, false
	}
	if rev, err := claims.Update(ctx, key, value, e.Revision()); err == nil {
		return rev, true
	}
	return 0, true
}

// take creates the claim key with value, or takes it back if this worker
// held it before a restart, and returns its revision; ok says it did.
func (w *Worker) take(ctx context.Context, nc *nats.Conn, claims jetstream.KeyValue, key string, value []byte) (rev uint64, ok bool) {
	ctx, done := checking(ctx, nc)
	defer done()
	rev, err := claims.Create(ctx, key, value)
	if err == nil {
		return rev, true
	}
	e, err := claims.Get(ctx, key)
	if err != nil || !strings.HasPrefix(string(e.Value()), w.ID+" ") {
		return 0, false
	}
	// Our own claim, from before a restart.
	rev, err = claims.Update(ctx, key, value, e.Revision())
	return rev, err == nil
}

// renewLease renews the claim key of lease l, at revision rev, and returns
// its new revision; gone says that the lease ended: the run's coordinator is
// gone (l.orphaned is closed) or another worker took the claim (l.lost is).
func (w *Worker) renewLease(ctx context.Context, nc *nats.Conn, claims jetstream.KeyValue, run, key string, value []byte, rev uint64, l *lease) (uint64, bool) {
	// Renewed again at the next tick if the server does not answer.
	cctx, done := checking(ctx, nc)
	defer done()
	if _, err := claims.Get(cctx, coordKey(run)); errors.Is(err, jetstream.ErrKeyNotFound) {
		// Twice in a row: one answer may come from a copy of the
		// bucket that is catching up (its server restarted), and
		// leaving a live run costs the level.
		if l.coordMissing++; l.coordMissing >= 2 {
			close(l.orphaned)
			return rev, true
		}
	} else if err == nil {
		l.coordMissing = 0
	}
	r, err := claims.Update(cctx, key, value, rev)
	if err == nil {
		return r, false
	}
	if cctx.Err() != nil {
		return rev, false
	}
	// A slow server is no lost claim: only another worker's claim is.
	if r, held := renew(cctx, claims, key, value); r != 0 {
		return r, false
	} else if !held {
		close(l.lost)
		return rev, true
	}
	return rev, false
}

// claim claims a free partition of run s: its first free one from an offset
// chosen by the worker's ID (so that workers spread), or the one this
// worker's ID already holds. It returns -1 when none is free.
func (w *Worker) claim(ctx context.Context, nc *nats.Conn, claims jetstream.KeyValue, s *Spec, inc string) (int, *lease, error) {
	h := fnv.New32a()
	h.Write([]byte(w.ID))
	off := int(h.Sum32() % uint32(s.Partitions))
	value := []byte(w.ID + " " + inc)
	for i := range s.Partitions {
		k := (off + i) % s.Partitions
		key := claimKey(s.Run, k)
		rev, ok := w.take(ctx, nc, claims, key, value)
		if !ok {
			continue
		}
		lctx, cancel := context.WithCancel(ctx)
		l := &lease{cancel: cancel, lost: make(chan struct{}), orphaned: make(chan struct{}), done: make(chan struct{})}
		go func() {
			defer close(l.done)
			t := time.NewTicker(ClaimTTL / 5)
			defer t.Stop()
			for {
				select {
				case <-lctx.Done():
					dctx, dcancel := context.WithTimeout(context.Background(), time.Second)
					claims.Delete(dctx, key, jetstream.LastRevision(rev))
					dcancel()
					return
				case <-t.C:
					var gone bool
					if rev, gone = w.renewLease(lctx, nc, claims, s.Run, key, value, rev, l); gone {
						<-lctx.Done()
						return
					}
				}
			}
		}()
		return k, l, nil
	}
	return -1, nil, nil
}
