package dist

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// errConnLost is the cause of a request's context that whileConnected ended
// because the connection went away while the request waited for its answer.
var errConnLost = errors.New("the connection to the NATS server went away during the request")

// whileConnected returns a context for one JetStream request on nc: it ends
// with ctx, or, with errConnLost as its cause, as soon as nc is seen
// disconnected or reconnected. A request in flight when the server goes
// away (it shut down, or was killed) is never answered: the server that
// comes back knows nothing of it, and nats.go would wait for the answer
// until the request's timeout (30 s), stalling a level or failing the run.
// Ended at once, the request is made again once the server is back (see
// retry).
func whileConnected(ctx context.Context, nc *nats.Conn) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithCancelCause(ctx)
	start := nc.Stats().Reconnects
	go func() {
		t := time.NewTicker(connPoll)
		defer t.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-t.C:
				if nc.Status() != nats.CONNECTED || nc.Stats().Reconnects != start {
					cancel(errConnLost)
					return
				}
			}
		}
	}()
	return rctx, func() { cancel(context.Canceled) }
}

// checking returns the context of a check made again later if it fails (a
// look at the run's records, a claim's renewal): it ends with ctx, when nc
// is lost (whileConnected), or after checkWait.
func checking(ctx context.Context, nc *nats.Conn) (context.Context, context.CancelFunc) {
	wctx, done := whileConnected(ctx, nc)
	tctx, cancel := context.WithTimeout(wctx, checkWait)
	return tctx, func() { cancel(); done() }
}

// checkWait bounds a check (see checking). A check is made again a moment
// later, and the level that makes it waits for it: on a JetStream cluster a
// request to a stream whose leader's server went away is not answered, and
// a bound of 10 s held a level up that long (TestReplicaServerLost).
const checkWait = 3 * time.Second

// requestWait bounds a request that is made again when it goes unanswered
// (a consumer's creation, see readFrom): longer than a stream takes to
// elect a new leader.
const requestWait = 5 * time.Second

// connPoll is how often whileConnected looks at the connection.
const connPoll = 50 * time.Millisecond

// lostConn says whether err, the error of a request made with the context
// rctx of whileConnected, came from losing the connection: the request may
// be made again once the server is back.
func lostConn(rctx context.Context, err error) bool {
	// No responders: the server is back, its JetStream not yet.
	return errors.Is(context.Cause(rctx), errConnLost) || errors.Is(err, nats.ErrDisconnected) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse)
}

// retry calls op, an idempotent JetStream request about run (a key-value
// put, a purge), until it succeeds, fails otherwise than by losing the
// connection, the server does not serve the run's stream again within
// stallWait, or retryFor has passed since the first loss: on a JetStream
// cluster that lost a server, a request to a bucket whose stream had no
// leader went on finding no responders while the run's stream was served,
// and the run hung (TestReplicaServerLost); it now fails, with the error.
func retry(ctx context.Context, js jetstream.JetStream, run string, op func(ctx context.Context) error) error {
	var since time.Time
	for {
		rctx, cancel := whileConnected(ctx, js.Conn())
		err := op(rctx)
		lost := err != nil && lostConn(rctx, err)
		cancel()
		if err == nil || !lost || ctx.Err() != nil {
			return err
		}
		if since.IsZero() {
			since = time.Now()
		} else if time.Since(since) > retryFor {
			return fmt.Errorf("%w, for %v", err, retryFor)
		}
		if rerr := reconnected(ctx, js, run, stallWait); rerr != nil {
			return fmt.Errorf("%w, and then %w", err, rerr)
		}
	}
}

// retryFor bounds how long retry makes a request again that keeps being
// lost: longer than a stream of a JetStream cluster takes to elect a leader
// after losing a server, or a single server to restart (stallWait).
const retryFor = 2 * stallWait
