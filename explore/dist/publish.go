package dist

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A publisher publishes a worker's (or the coordinator's) messages of one
// level, asynchronously, and counts the data messages per subject so that an
// end marker can say how many it ends.
//
// A worker's publisher fails when the server goes away with its messages:
// its partition is then served again, as a new incarnation (see
// Worker.findRun). The coordinator has no one to take over: its publisher
// (resending) gives each message an id (Nats-Msg-Id) and, when the
// connection was lost before the stream acknowledged a message, publishes it
// again once the server is back; the stream drops the copy of a message it
// had stored.
type publisher struct {
	js      jetstream.JetStream
	inc     string
	from    int
	count   map[string]int
	pending []pending
	run     string // resending: the run whose stream says the server is back; "" for none
	sent    int    // messages published so far, which resending numbers
}

// A pending message waits for the stream's acknowledgement; f is nil when
// the publish failed at once (the connection was away).
type pending struct {
	m *nats.Msg
	f jetstream.PubAckFuture
}

func newPublisher(js jetstream.JetStream, inc string, from int) *publisher {
	return &publisher{js: js, inc: inc, from: from, count: map[string]int{}}
}

// resending makes p publish again what the connection lost, as the
// coordinator of run does.
func (p *publisher) resending(run string) *publisher {
	p.run = run
	return p
}

// data publishes a message of records on subj.
func (p *publisher) data(subj string, body []byte) error {
	seq := p.count[subj]
	p.count[subj]++
	return p.pub(subj, body, map[string]string{hSeq: strconv.Itoa(seq)})
}

// end publishes the end marker of subj, with the extra headers hs.
func (p *publisher) end(subj string, hs map[string]string) error {
	if hs == nil {
		hs = map[string]string{}
	}
	hs[hEnd] = strconv.Itoa(p.count[subj])
	return p.pub(subj, nil, hs)
}

func (p *publisher) pub(subj string, body []byte, hs map[string]string) error {
	m := nats.NewMsg(subj)
	m.Data = body
	m.Header.Set(hInc, p.inc)
	m.Header.Set(hFrom, strconv.Itoa(p.from))
	for k, v := range hs {
		m.Header.Set(k, v)
	}
	if p.run != "" {
		p.sent++
		m.Header.Set(jetstream.MsgIDHeader, p.inc+"."+strconv.Itoa(p.sent)+"."+subj)
	}
	return p.send(m)
}

// send publishes m and keeps it pending.
func (p *publisher) send(m *nats.Msg) error {
	// Past WithPublishAsyncMaxPending messages not yet stored, a publish
	// waits for the server; its default patience (200 ms) runs out on a
	// loaded machine (ErrTooManyStalledMsgs failed corpus --cluster under
	// four CPU-bound processes): wait as long as a request may.
	f, err := p.js.PublishMsgAsync(m, jetstream.WithStallWait(stallWait))
	if err != nil {
		if p.run != "" && p.resendable(err) {
			p.pending = append(p.pending, pending{m: m})
			return nil
		}
		return fmt.Errorf("dist: publishing on %s: %w", m.Subject, err)
	}
	p.pending = append(p.pending, pending{m: m, f: f})
	return nil
}

// resendable says whether a publish that failed with err may be made again:
// the connection went away before the stream acknowledged it.
func (p *publisher) resendable(err error) bool {
	return errors.Is(err, nats.ErrDisconnected) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, jetstream.ErrAsyncPublishTimeout) ||
		!p.js.Conn().IsConnected()
}

// flush waits until the stream has stored every message published so far;
// a resending publisher publishes again, in their order, those the
// connection lost, once the server serves the run's stream again.
func (p *publisher) flush(ctx context.Context) error {
	for len(p.pending) > 0 {
		var again []*nats.Msg
		for _, q := range p.pending {
			if q.f == nil {
				again = append(again, q.m)
				continue
			}
			select {
			case <-q.f.Ok():
			case err := <-q.f.Err():
				if p.run == "" || !p.resendable(err) {
					return fmt.Errorf("dist: publishing on %s: %w", q.m.Subject, err)
				}
				again = append(again, q.m)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		p.pending = p.pending[:0]
		if len(again) == 0 {
			break
		}
		if err := reconnected(ctx, p.js, p.run, stallWait); err != nil {
			return fmt.Errorf("dist: publishing on %s: the connection went away, and then %w", again[0].Subject, err)
		}
		for _, m := range again {
			if err := p.send(m); err != nil {
				return err
			}
		}
	}
	return nil
}
