package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"rdmasim/store"
)

// A campaign is work split into independent tasks (seed ranges of a fuzz
// run, batches of walks, files), as opposed to a search: the coordinator
// puts the tasks in a JetStream work queue, any number of workers pull them,
// run them with the task function the campaign names (Worker.Tasks) and
// publish their results, and the coordinator hands the results over in task
// order. A task is acknowledged once its result is stored: a worker killed
// while running one leaves it unacknowledged, and JetStream gives it to
// another worker after CampaignConfig.AckWait; a result published twice (a
// worker killed between publishing and acknowledging) is stored once, by
// its task's index (the stream's duplicate window).
//
// rdmasim corpus --cluster runs a campaign of files (corpus/suite's Task),
// rdmasim fuzz --cluster one of batches of programs (corpus/fuzz's Task);
// to this package a task and its result are opaque bytes.

// CampaignConfig describes a campaign.
type CampaignConfig struct {
	// Kind names the task function workers run (a key of Worker.Tasks).
	Kind string
	// Name names the campaign to workers.
	Name string
	// Version is the coordinator's build (Version() if empty).
	Version string
	// AckWait is how long a task's worker may stay silent before the task
	// is given to another worker (DefaultAckWait if 0); a worker says it
	// is alive five times per AckWait while a task runs.
	AckWait time.Duration
	// Served, if not nil, is called with each task's index and the ID of
	// the worker that ran it (Worker.ID) as its result arrives (once per
	// task: a duplicate result is dropped), from RunCampaign's goroutine.
	Served func(index int, worker string)
}

// DefaultAckWait is a campaign's AckWait unless it gives one: a task whose
// worker died (SIGKILL: it cannot give the task back) goes to another worker
// this long after the worker's last sign of life, as a dead worker's
// partition of a search does (ClaimTTL). A live worker says it is alive
// every DefaultAckWait/5, so that four signs lost in a row (while the
// consumer's leader moves to another server) cost only a task done twice,
// whose second result the results' duplicate window drops.
const DefaultAckWait = ClaimTTL

// heartbeat is how often a worker says a task's worker is alive, for a
// campaign whose AckWait is ackWait.
func heartbeat(ackWait time.Duration) time.Duration { return max(ackWait/5, 50*time.Millisecond) }

func taskStream(run string) string   { return "rdmasim-tasks-" + run }
func resultStream(run string) string { return "rdmasim-results-" + run }

const (
	hIndex  = "Rdm-Index"  // a task's index, on the task and its result
	hWorker = "Rdm-Worker" // the ID of the worker that made a result
)

// RunCampaign runs the tasks on the workers of nc's server and calls result
// with each task's index and result in index order, until every task has
// its result or ctx is done (it then returns ctx's error).
func RunCampaign(ctx context.Context, nc *nats.Conn, cfg CampaignConfig, tasks [][]byte, result func(index int, out []byte) error) error {
	js, err := newJS(nc)
	if err != nil {
		return err
	}
	runs, claims, err := buckets(ctx, js, 1)
	if err != nil {
		return err
	}
	run := nuid.Next()
	stopLease, err := coordLease(ctx, js.Conn(), claims, run)
	if err != nil {
		return err
	}
	defer stopLease(true)
	ackWait := cfg.AckWait
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	spec := Spec{Run: run, Name: cfg.Name, Campaign: cfg.Kind, Version: cfg.Version, Seed: store.FingerprintSeed(),
		Created: time.Now().UTC(), Protocol: protocol, AckWait: ackWait}
	if spec.Version == "" {
		spec.Version = Version()
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b, _ := json.Marshal(State{Done: true})
		runs.Put(dctx, stateKey(run), b)
		js.DeleteStream(dctx, taskStream(run))
		js.DeleteStream(dctx, resultStream(run))
		runs.Purge(dctx, run)
		runs.Purge(dctx, stateKey(run))
	}()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: taskStream(run), Subjects: []string{"rdmasim." + run + ".task"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage}); err != nil {
		return fmt.Errorf("dist: creating the campaign's work queue: %w", err)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: resultStream(run), Subjects: []string{"rdmasim." + run + ".result"},
		Storage: jetstream.FileStorage, Duplicates: 24 * time.Hour}); err != nil {
		return fmt.Errorf("dist: creating the campaign's results: %w", err)
	}
	// One consumer that every worker pulls from.
	if _, err := js.CreateConsumer(ctx, taskStream(run), jetstream.ConsumerConfig{Durable: "workers",
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: -1}); err != nil {
		return fmt.Errorf("dist: creating the campaign's consumer: %w", err)
	}
	pub := newPublisher(js, "coordinator", 0)
	for i, t := range tasks {
		if err := pub.pub("rdmasim."+run+".task", t, map[string]string{hIndex: strconv.Itoa(i)}); err != nil {
			return err
		}
	}
	if err := pub.flush(ctx); err != nil {
		return err
	}
	b, _ := json.Marshal(State{})
	if _, err := runs.Put(ctx, stateKey(run), b); err != nil {
		return fmt.Errorf("dist: %w", err)
	}
	if b, err = json.Marshal(spec); err != nil {
		return fmt.Errorf("dist: %w", err)
	}
	if _, err := runs.Put(ctx, run, b); err != nil {
		return fmt.Errorf("dist: publishing the campaign: %w", err)
	}

	// Results arrive in any order, and possibly twice; hand them over in
	// task order.
	got := make([][]byte, len(tasks))
	have := make([]bool, len(tasks))
	next := 0
	if len(tasks) == 0 {
		return nil
	}
	cons, err := js.OrderedConsumer(ctx, resultStream(run), jetstream.OrderedConsumerConfig{})
	if err != nil {
		return fmt.Errorf("dist: reading the campaign's results: %w", err)
	}
	msgs := make(chan jetstream.Msg, 64)
	done := make(chan struct{})
	defer close(done)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-done:
		}
	})
	if err != nil {
		return fmt.Errorf("dist: reading the campaign's results: %w", err)
	}
	defer cc.Stop()
	for next < len(tasks) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m := <-msgs:
			i, err := strconv.Atoi(m.Headers().Get(hIndex))
			if err != nil || i < 0 || i >= len(tasks) {
				return fmt.Errorf("dist: a result for task %q", m.Headers().Get(hIndex))
			}
			if have[i] {
				continue
			}
			have[i], got[i] = true, m.Data()
			if cfg.Served != nil {
				cfg.Served(i, m.Headers().Get(hWorker))
			}
			for next < len(tasks) && have[next] {
				if err := result(next, got[next]); err != nil {
					return err
				}
				got[next] = nil
				next++
			}
		}
	}
	return nil
}

// settled returns nil if the campaign's context ctx ends within a moment
// (the campaign ended, and its streams went before its state said so),
// else err.
func settled(ctx context.Context, err error) error {
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(2 * time.Second):
		return err
	}
}

// serveCampaign runs the tasks of campaign s until none is left and the
// campaign is over, or ctx is done.
func (w *Worker) serveCampaign(ctx context.Context, js jetstream.JetStream, runs jetstream.KeyValue, s *Spec) error {
	task := w.Tasks[s.Campaign]
	if task == nil {
		return fmt.Errorf("%w: this worker has no task %q", errRefused, s.Campaign)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if st, err := watchState(rctx, cancel, runs, s.Run); err != nil || st.Done {
		return err
	}
	cons, err := js.Consumer(rctx, taskStream(s.Run), "workers")
	if err != nil {
		return stopped(rctx, fmt.Errorf("dist: the campaign's work queue: %w", err))
	}
	for rctx.Err() == nil {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			return settled(rctx, fmt.Errorf("dist: pulling a task: %w", err))
		}
		for m := range batch.Messages() {
			idx := m.Headers().Get(hIndex)
			w.logf("task %s of campaign %s", idx, s.Run)
			// A long task says it is alive, so that it is not given
			// to another worker meanwhile.
			alive := make(chan struct{})
			go func() {
				t := time.NewTicker(heartbeat(s.AckWait))
				defer t.Stop()
				for {
					select {
					case <-alive:
						return
					case <-t.C:
						m.InProgress()
					}
				}
			}()
			out, err := task(rctx, m.Data())
			close(alive)
			if err != nil {
				// Another worker may do better; this one leaves.
				m.Nak()
				return stopped(rctx, fmt.Errorf("dist: task %s of campaign %s: %w", idx, s.Run, err))
			}
			w.logf("task %s of campaign %s done", idx, s.Run) // before its result is published
			r := nats.NewMsg("rdmasim." + s.Run + ".result")
			r.Data = out
			r.Header.Set(hIndex, idx)
			r.Header.Set(hWorker, w.ID)
			if _, err := js.PublishMsg(rctx, r, jetstream.WithMsgID(idx)); err != nil {
				// Given back at once rather than after AckWait (a
				// worker that stops has its context end here).
				m.Nak()
				return settled(rctx, fmt.Errorf("dist: publishing the result of task %s: %w", idx, err))
			}
			// The result is stored: should the acknowledgement be
			// lost, the task's second result is a duplicate.
			m.DoubleAck(rctx)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			return settled(rctx, fmt.Errorf("dist: pulling a task: %w", err))
		}
	}
	return nil
}
