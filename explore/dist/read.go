package dist

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// read reads the messages of the run's stream on the subjects, from the
// first, calling each until it says done; while none arrives it calls wait
// (if not nil) every 100ms. It returns ctx's error when ctx is done.
//
// Should its consumer fail (the server went away: it shut down, or was
// killed and restarted), read waits for the connection to come back and
// reads on from the message after the last one it handed to each, with a
// new consumer; when the server does not come back within stallWait, it
// returns the error.
func read(ctx context.Context, js jetstream.JetStream, run string, subjects []string, each func(jetstream.Msg) (done bool, err error), wait func()) error {
	return readAt(ctx, js, run, subjects, 0, each, wait)
}

// readAt is read from the stream sequence next (0: the first).
func readAt(ctx context.Context, js jetstream.JetStream, run string, subjects []string, next uint64, each func(jetstream.Msg) (done bool, err error), wait func()) error {
	for {
		failed, err := readFrom(ctx, js, run, subjects, &next, each, wait)
		if failed == nil {
			return err
		}
		if err := reconnected(ctx, js, run, stallWait); err != nil {
			return fmt.Errorf("dist: reading %v: %v, and then %w", subjects, failed, err)
		}
	}
}

// reconnected waits, at most patience, until the server serves the run's
// stream again: after the server went away, the client may not yet know it,
// and a server that restarts takes a moment to restore its streams.
func reconnected(ctx context.Context, js jetstream.JetStream, run string, patience time.Duration) error {
	deadline := time.Now().Add(patience)
	for {
		// Let the client see the server go away.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
		if js.Conn().IsConnected() {
			sctx, cancel := context.WithTimeout(ctx, time.Second)
			_, err := js.Stream(sctx, streamName(run))
			cancel()
			if err == nil || errors.Is(err, jetstream.ErrStreamNotFound) {
				return nil // not found: the run is over, as the next read says
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the NATS server did not serve the run's stream again within %v", patience)
		}
	}
}

// readExpiry is how long a read's pull requests last; the server sends
// heartbeats four times as often, so that a consumer the server lost (it
// restarted) is noticed within half of it and made again.
const readExpiry = 8 * time.Second

// readLeader is read, except that the messages stored when it begins are
// asked of the stream's leader one by one (a message get, not a consumer),
// and only those after are read with a consumer (readAt). A reader whose
// records arrived short reads them again so (see rereadAfter): on a
// JetStream cluster that lost a server, consumers handed an end marker
// without a data message it counts, though the stream had acknowledged it
// to its sender, even a new consumer; the leader has every message it
// acknowledged. A get left unanswered is made again, for at most
// stallWait.
func readLeader(ctx context.Context, js jetstream.JetStream, run string, subjects []string, each func(jetstream.Msg) (done bool, err error), wait func()) error {
	var stream jetstream.Stream
	err := retryGet(ctx, js, func(ctx context.Context) (err error) {
		stream, err = js.Stream(ctx, streamName(run))
		return err
	})
	if err != nil {
		return fmt.Errorf("dist: reading %v again: %w", subjects, err)
	}
	last := stream.CachedInfo().State.LastSeq
	for _, subj := range subjects {
		for seq := uint64(1); seq <= last; {
			var m *jetstream.RawStreamMsg
			err := retryGet(ctx, js, func(ctx context.Context) (err error) {
				m, err = stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subj))
				return err
			})
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				break
			}
			if err != nil {
				return fmt.Errorf("dist: reading %s again: %w", subj, err)
			}
			if m.Sequence > last {
				break
			}
			if done, err := each(rawMsg{m}); err != nil || done {
				return err
			}
			seq = m.Sequence + 1
		}
	}
	return readAt(ctx, js, run, subjects, last+1, each, wait)
}

// retryGet makes the request op, bounded by requestWait, again while it is
// unanswered, for at most stallWait.
func retryGet(ctx context.Context, js jetstream.JetStream, op func(ctx context.Context) error) error {
	deadline := time.Now().Add(stallWait)
	for {
		wctx, done := whileConnected(ctx, js.Conn())
		rctx, cancel := context.WithTimeout(wctx, requestWait)
		err := op(rctx)
		again := err != nil && rctx.Err() != nil && ctx.Err() == nil || unanswered(err)
		cancel()
		done()
		if err == nil || !again || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// A rawMsg is a message got from the stream (readLeader), as a consumer
// would hand it: what a reader looks at (subject, headers, data, stream
// sequence); there is nothing to acknowledge.
type rawMsg struct{ m *jetstream.RawStreamMsg }

func (r rawMsg) Metadata() (*jetstream.MsgMetadata, error) {
	return &jetstream.MsgMetadata{Sequence: jetstream.SequencePair{Stream: r.m.Sequence}, Timestamp: r.m.Time}, nil
}
func (r rawMsg) Data() []byte                     { return r.m.Data }
func (r rawMsg) Headers() nats.Header             { return r.m.Header }
func (r rawMsg) Subject() string                  { return r.m.Subject }
func (r rawMsg) Reply() string                    { return "" }
func (r rawMsg) Ack() error                       { return nil }
func (r rawMsg) DoubleAck(context.Context) error  { return nil }
func (r rawMsg) Nak() error                       { return nil }
func (r rawMsg) NakWithDelay(time.Duration) error { return nil }
func (r rawMsg) InProgress() error                { return nil }
func (r rawMsg) Term() error                      { return nil }
func (r rawMsg) TermWithReason(string) error      { return nil }

// readIdle is how long a reader on a JetStream cluster waits for a message
// before it makes its consumer again, from the message after the last it
// handed (errIdle). After a server of the cluster restarted, a consumer
// placed on it, alive and beating, handed nothing while its stream had the
// messages: workers waited for ids the coordinator had published, and the
// run hung (TestReplicaServerLost/restarted, one run in about ten). A new
// consumer is placed afresh; one request per readIdle per reader costs
// little.
const readIdle = 5 * time.Second

// errIdle is the failure of a consumer that handed nothing for readIdle.
var errIdle = errors.New("no message for " + readIdle.String())

// readFrom is read with one consumer, from the stream sequence *next (0:
// the first message), which it advances past each message handed to each.
// failed is the consumer's error when it failed (read makes another), else
// nil, and err read's result.
func readFrom(ctx context.Context, js jetstream.JetStream, run string, subjects []string, next *uint64, each func(jetstream.Msg) (bool, error), wait func()) (failed, err error) {
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: subjects, MaxResetAttempts: 1}
	if *next > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, *next
	}
	// On a JetStream cluster, a request to make a consumer that reaches
	// a server about to go away, or a stream electing its leader, is not
	// answered while the client stays connected to another server:
	// bounded by requestWait, it is made again.
	wctx, cdone := whileConnected(ctx, js.Conn())
	cctx, ccancel := context.WithTimeout(wctx, requestWait)
	cons, err := js.OrderedConsumer(cctx, streamName(run), cfg)
	ccancel()
	if err != nil {
		lost := lostConn(wctx, err) || !js.Conn().IsConnected() || (errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil)
		cdone()
		if ctx.Err() == nil && lost {
			return err, nil
		}
		return nil, fmt.Errorf("dist: reading %v: %w", subjects, err)
	}
	cdone()
	msgs := make(chan jetstream.Msg, 64)
	errs := make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-done:
		}
	}, jetstream.PullMaxBytes(8<<20), jetstream.PullExpiry(readExpiry), jetstream.PullHeartbeat(readExpiry/4), jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		// The server going away (it shut down, it restarted and lost
		// the consumer, whose heartbeats then stop) ends this
		// consumer, which may not recover by itself: read makes a
		// new one once the server serves the stream again.
		select {
		case errs <- err:
		default:
		}
	}))
	if err != nil {
		return nil, fmt.Errorf("dist: reading %v: %w", subjects, err)
	}
	defer func() {
		cc.Stop()
		// The server would keep an ordered consumer for seconds after
		// its last pull; a run creates several per level, beyond its
		// limit on consumers in a deep run: delete it now.
		if info := cons.CachedInfo(); info != nil {
			go func() {
				dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				js.DeleteConsumer(dctx, streamName(run), info.Name)
			}()
		}
	}()
	// On a JetStream cluster, a consumer idle for readIdle is made again
	// (see readIdle).
	clustered := cons.CachedInfo() != nil && cons.CachedInfo().Cluster != nil
	last := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case err := <-errs:
			return err, nil
		case <-tick.C:
			if wait != nil {
				wait()
			}
			if clustered && time.Since(last) > readIdle {
				return errIdle, nil
			}
		case m := <-msgs:
			last = time.Now()
			if meta, err := m.Metadata(); err == nil {
				*next = meta.Sequence.Stream + 1
			}
			if done, err := each(m); err != nil || done {
				return nil, err
			}
		}
	}
}
