// Package dist runs the breadth-first search of package explore over many
// processes, on NATS JetStream: partitioned exhaustive search, as distributed
// Murphi, PReach and TLC's sharded fingerprint sets do it, with JetStream's
// persistent streams as the network and as every partition's memory.
//
// A run has a coordinator (a Coordinator, the explore.Remote of the search
// that prints the report) and n partitions, each served by one worker process
// (Worker) wherever it runs. Every state has an owner, the partition Owner
// picks from its fingerprint; the owner keeps it in its visited set and
// expands it. The search is level-synchronous. For level d:
//
//  1. each partition expands its states of depth d and sends every successor,
//     as its encoding, its parent's id and its ordinal, to the successor's
//     owner (subject succ.d.OWNER), batched, then an end marker to every
//     partition, and its expansion records (id, successors, pruned bounds) to
//     the coordinator (exp.d.K);
//  2. each partition reads every successor sent to it until it has an end
//     marker from every partition, keeps those not in its visited set with
//     their least (parent, ordinal), and sends them, sorted so, to the
//     coordinator (new.d+1.K);
//  3. the coordinator merges the partitions' records into the order of the
//     sequential breadth-first search and hands them to the search's commit
//     core (see explore.Remote), which numbers, records and visits the new
//     states and applies the bounds; it sends each partition the ids of its
//     new states (ids.d+1.K), and records in the key-value store that level
//     d+1 has begun.
//
// So the ids, depths, parents, visits, counts and stops are those of the
// sequential search, and the witness runs too: the coordinator records the
// parent references the partitions send and replays them on its machine.
//
// A worker may die at any moment (SIGKILL). Whatever it sent is in the
// stream; a worker that takes its partition over (the same worker restarted
// takes its claim back at once, any other once the claim's lease lapses)
// rebuilds the visited set from the partition's new-state messages of every
// level the coordinator numbered, and redoes the current level. Doing a level
// twice is harmless: a successor received twice keeps its least discoverer,
// and the coordinator uses, per partition, the messages of the first worker
// incarnation that finished them, which are the same whoever sent them.
//
// The package knows nothing of what it searches: a run carries an opaque
// payload from which a worker's Factory builds the machine, and a worker
// refuses a run whose version, fingerprint seed or initial state differs
// from its own.
package dist

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"rdmasim/store"
)

// Spec describes a run to its workers. The coordinator stores it in the
// bucket of runs (RunsBucket) under the run's id; workers find runs there.
type Spec struct {
	Run        string    `json:"run"`
	Name       string    `json:"name"`
	Partitions int       `json:"partitions"`
	Payload    []byte    `json:"payload"`  // what a worker's Factory builds the machine from
	Version    string    `json:"version"`  // the coordinator's build (Version)
	Seed       [2]uint64 `json:"seed"`     // store.FingerprintSeed
	Initial    [2]uint64 `json:"initial"`  // the fingerprint of the initial state
	Batch      int       `json:"batch"`    // the bytes of records per message
	Created    time.Time `json:"created"`  // when the run began
	Protocol   int       `json:"protocol"` // protocol
	// Campaign, for a campaign rather than a search, names its task
	// function (see RunCampaign); AckWait is how long a task may run.
	Campaign string        `json:"campaign,omitempty"`
	AckWait  time.Duration `json:"ack_wait,omitempty"`
}

// State is a run's progress, in the bucket of runs under RUN.state: the
// coordinator's state, from which workers (and a restarted worker) learn
// where the run is.
type State struct {
	// Level is the depth whose states are numbered and being expanded.
	Level int `json:"level"`
	// Done says the run is over: its workers leave it.
	Done bool `json:"done"`
}

const (
	// RunsBucket is the key-value bucket of run specs and states.
	RunsBucket = "rdmasim-runs"
	// ClaimsBucket is the key-value bucket of partition claims
	// (RUN.K), whose entries lapse after ClaimTTL unless renewed.
	ClaimsBucket = "rdmasim-claims"
	// ClaimTTL is how long a dead worker's partition waits for another
	// (a worker restarted under the same ID takes it back at once).
	ClaimTTL = 10 * time.Second

	protocol = 1

	// DefaultBatch is the bytes of records a message carries.
	DefaultBatch = 256 << 10

	hInc   = "Rdm-Inc"   // the sending worker incarnation
	hFrom  = "Rdm-From"  // the sending partition
	hEnd   = "Rdm-End"   // an end marker: the count of data messages it ends
	hBytes = "Rdm-Bytes" // on an expansion end marker: the visited set's bytes
	hOf    = "Rdm-Of"    // on an ids end marker: the incarnation whose new states they number
)

// Version returns the version of this build, as a run records it: the
// module version or VCS revision, and the Go version.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			v += " " + s.Value
		}
	}
	return fmt.Sprintf("%s %s %s", bi.Main.Path, v, bi.GoVersion)
}

// compatible says why a worker of version version cannot serve run s, or "".
func (s *Spec) compatible(version string) string {
	switch {
	case s.Protocol != protocol:
		return fmt.Sprintf("protocol %d, this worker speaks %d", s.Protocol, protocol)
	case s.Version != version:
		return fmt.Sprintf("built from %q, this worker from %q", s.Version, version)
	case s.Seed != store.FingerprintSeed():
		return "another fingerprint seed"
	}
	return ""
}

func streamName(run string) string { return "rdmasim-" + run }

func subject(run, kind string, depth, part int) string {
	return fmt.Sprintf("rdmasim.%s.%s.%d.%d", run, kind, depth, part)
}

func stateKey(run string) string { return run + ".state" }

func claimKey(run string, k int) string { return run + "." + strconv.Itoa(k) }

// coordKey is the key of the coordinator's lease in the bucket of claims.
func coordKey(run string) string { return run + ".coordinator" }

// buckets opens the bucket of runs and of claims. The coordinator (replicas
// > 0) creates or updates them with that many replicas; a worker (replicas
// 0) opens them, creating them with one replica only if they do not exist
// yet, so that it never changes a coordinator's choice.
func buckets(ctx context.Context, js jetstream.JetStream, replicas int) (runs, claims jetstream.KeyValue, err error) {
	open := func(cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
		deadline := time.Now().Add(stallWait)
		for {
			kv, err := openBucket(ctx, js, cfg, replicas)
			if err != nil && ctx.Err() == nil && time.Now().Before(deadline) &&
				(unanswered(err) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) || errors.Is(err, jetstream.ErrBucketExists) || noPeersYet(err)) {
				// The bucket's stream has no leader for a moment
				// (the coordinator scales it up, or its leader's
				// server went away), or another process made it
				// at the same moment (the workers of a cluster
				// start together), or the cluster's servers are
				// still joining: ask again.
				select {
				case <-ctx.Done():
				case <-time.After(250 * time.Millisecond):
				}
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("dist: opening the bucket %s: %w", cfg.Bucket, err)
			}
			if err := streamReady(ctx, js, "KV_"+cfg.Bucket); err != nil {
				return nil, fmt.Errorf("dist: the bucket %s: %w", cfg.Bucket, err)
			}
			return kv, nil
		}
	}
	if runs, err = open(jetstream.KeyValueConfig{Bucket: RunsBucket, Storage: jetstream.FileStorage}); err != nil {
		return nil, nil, err
	}
	if claims, err = open(jetstream.KeyValueConfig{Bucket: ClaimsBucket, TTL: ClaimTTL, Storage: jetstream.FileStorage}); err != nil {
		return nil, nil, err
	}
	return runs, claims, nil
}

// openBucket makes one attempt at opening the bucket of cfg, as buckets
// does, each request bounded by requestWait and by the connection
// (whileConnected).
func openBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig, replicas int) (jetstream.KeyValue, error) {
	wctx, done := whileConnected(ctx, js.Conn())
	defer done()
	rctx, cancel := context.WithTimeout(wctx, requestWait)
	defer cancel()
	mark := func(kv jetstream.KeyValue, err error) (jetstream.KeyValue, error) {
		if err != nil && rctx.Err() != nil && ctx.Err() == nil {
			// Unanswered, not abandoned: say so to buckets.
			err = fmt.Errorf("%w (%w)", errUnanswered, err)
		}
		return kv, err
	}
	if replicas > 0 {
		cfg.Replicas = replicas
		return mark(js.CreateOrUpdateKeyValue(rctx, cfg))
	}
	// A worker makes the bucket only if it does not exist: a request
	// that failed otherwise must not scale a coordinator's bucket down.
	kv, err := js.KeyValue(rctx, cfg.Bucket)
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return mark(kv, err)
	}
	cfg.Replicas = 1
	return mark(js.CreateKeyValue(rctx, cfg))
}

// noPeersYet says whether err is JetStream's "no suitable peers for
// placement" (10005), which a cluster whose servers are still joining
// answers a stream with replicas: once a run of TestReplicaServerLost in
// four, right after its cluster elected its meta leader.
func noPeersYet(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.ErrorCode == 10005
}

// errUnanswered is the error of a request to a JetStream cluster that got
// no answer within its bound, as a request to a stream without a leader
// gets none: it may be made again.
var errUnanswered = errors.New("no answer")

// unanswered says whether err, a request's error, may be cured by making
// the request again: it got no answer, or the connection went away, or the
// stream had no leader to answer. (A server without JetStream, as a server
// restarting is for a moment, fails the request at once: a worker pointed
// at a plain nats-server should say so at once.)
func unanswered(err error) bool {
	return errors.Is(err, errUnanswered) || errors.Is(err, nats.ErrDisconnected) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse)
}

// streamReady waits until the stream name of a JetStream cluster has a leader
// and a quorum of its replicas has caught up, with no change of its peers
// under way, for at most stallWait; on a single server it returns at once.
//
// A bucket made with one replica (by a worker, which makes it when it is
// missing, or by an earlier run with --nats-replicas 1) and opened with
// three is scaled up by CreateOrUpdateKeyValue, which returns at once: a
// request sent while the stream elects its leader among the new peers gets
// no answer, and the key-value operation that sent it (taking the
// coordinator's lease) waits until its context ends ("context deadline
// exceeded") even though the stream is ready a second later.
func streamReady(ctx context.Context, js jetstream.JetStream, name string) error {
	ctx, cancel := context.WithTimeout(ctx, stallWait)
	defer cancel()
	for {
		s, err := js.Stream(ctx, name)
		if err == nil {
			info := s.CachedInfo()
			c := info.Cluster
			// Right after the update the info may still be the old
			// group's: a leader and no peers. Ready is the new
			// group's leader with every peer listed and a quorum
			// current: a cluster that lost a server keeps working
			// with two copies of three.
			ready := c == nil
			if c != nil && c.Leader != "" && c.Desired == nil && len(c.Replicas) == info.Config.Replicas-1 {
				current := 1 // the leader
				for _, r := range c.Replicas {
					if r.Current && !r.Offline {
						current++
					}
				}
				ready = current > info.Config.Replicas/2
			}
			if ready {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = ctx.Err()
			}
			return fmt.Errorf("its stream %s has no leader with a quorum of current replicas after %s (a JetStream cluster with fewer servers than --nats-replicas?): %w", name, stallWait, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

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
	p.count[subj]++
	return p.pub(subj, body, nil)
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

// stallWait is how long a publish waits for the server to store the
// messages published before it (see publisher.pub): as long as a request.
const stallWait = 30 * time.Second

// ackWait is how long a published message waits for the stream's
// acknowledgement before its publish fails (a worker's level fails and is
// served again; the coordinator publishes it again). A stream stores a
// message within milliseconds, or a second on a loaded machine; but on a
// JetStream cluster, a message sent to a stream leader whose server went
// away is lost with it while the client stays connected to another server,
// and nothing else says so: waiting stallWait for it held the run up for
// 30 s each time (TestReplicaServerLost).
const ackWait = 5 * time.Second

// newJS returns the JetStream context of nc, with a bound on the messages
// published and not yet stored, and a patient timeout for requests: a
// server on a loaded machine answers slowly, and a request that times out
// costs a level's work.
func newJS(nc *nats.Conn) (jetstream.JetStream, error) {
	// A message that the server never acknowledges (it went away with
	// it) fails its publish after ackWait: the level that sent it
	// fails, and its partition is served again.
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(64), jetstream.WithDefaultTimeout(30*time.Second),
		jetstream.WithPublishAsyncTimeout(ackWait))
	if err != nil {
		return nil, fmt.Errorf("dist: %w", err)
	}
	return js, nil
}

// A collector gathers the messages of one subject per partition, as several
// incarnations of a worker may have sent them, and keeps, per partition, the
// data of the first incarnation whose end marker arrives with the count of
// data messages that arrived. An incarnation whose end marker counts more
// (the stream lacks some of its messages) is short: its data are dropped,
// and the collector waits for another incarnation of the partition, which
// comes if the short one's worker found its publishes failed (see shorts).
type collector struct {
	n     int
	parts []map[string]*incData // per partition, per incarnation
	done  []*incData            // per partition, once complete
	left  int
	short shorts
}

type incData struct {
	inc    string
	bodies [][]byte
	hdr    nats.Header // of the end marker
}

func newCollector(n int) *collector {
	c := &collector{n: n, parts: make([]map[string]*incData, n), done: make([]*incData, n), left: n, short: shorts{}}
	for i := range c.parts {
		c.parts[i] = map[string]*incData{}
	}
	return c
}

// add takes a message; it fails on a malformed one. An end marker that
// counts more data messages than arrived makes its incarnation short.
func (c *collector) add(m jetstream.Msg) error {
	h := m.Headers()
	from, err := strconv.Atoi(h.Get(hFrom))
	if err != nil || from < 0 || from >= c.n {
		return fmt.Errorf("dist: message on %s from partition %q", m.Subject(), h.Get(hFrom))
	}
	if c.done[from] != nil {
		return nil
	}
	inc := h.Get(hInc)
	d := c.parts[from][inc]
	if d == nil {
		d = &incData{inc: inc}
		c.parts[from][inc] = d
	}
	end := h.Get(hEnd)
	if end == "" {
		d.bodies = append(d.bodies, m.Data())
		return nil
	}
	n, err := strconv.Atoi(end)
	if err != nil {
		return fmt.Errorf("dist: the end marker on %s of %s: a count %q", m.Subject(), inc, end)
	}
	if n != len(d.bodies) {
		c.short.add(from, inc, fmt.Sprintf("the end marker on %s of %s says %d messages, %d arrived", m.Subject(), inc, n, len(d.bodies)))
		delete(c.parts[from], inc)
		return nil
	}
	d.hdr = h
	c.done[from] = d
	c.parts[from] = nil
	c.left--
	return nil
}

// shorts are the short incarnations of the partitions whose messages a
// reader waits for: per partition, the last one, what was short and when it
// was seen.
type shorts map[int]short

type short struct {
	inc, what string
	since     time.Time
}

func (s shorts) add(k int, inc, what string) { s[k] = short{inc: inc, what: what, since: time.Now()} }

// older says whether a short incarnation has been waiting for longer than
// d.
func (s shorts) older(d time.Duration) bool {
	for _, sh := range s {
		if time.Since(sh.since) > d {
			return true
		}
	}
	return false
}

// A reader whose records have arrived short for rereadAfter(lostAfter)
// reads them all again, from the stream's first, as the stream's leader has
// them (readLeader), once per wait, before it waits for the short
// incarnation to be served again (shorts.lost). On a JetStream cluster that lost a server, a consumer
// handed an end marker without the data message it counts, though the
// stream had acknowledged that message to its sender, which went on to
// wait for the next level: the run stopped with ErrLost after lostAfter
// (one run of four of TestReplicaServerLost/restarted). By rereadAfter, a
// sender whose publishes were lost has found out (ackWait) and is served
// again.
const maxRereads = 1

// rereadAfter is how long a reader whose records arrived short waits before
// it reads them again: 2 ackWait, or half of lostAfter if that is shorter.
func rereadAfter(lostAfter time.Duration) time.Duration { return min(2*ackWait, lostAfter/2) }

// lost returns the ErrLost of a partition of run, among those waited for
// (waiting), whose short incarnation has had lostAfter to be replaced and
// still holds the partition's claim: its worker believes its messages sent,
// so that no other incarnation will send them; nil if there is none.
func (s shorts) lost(ctx context.Context, claims jetstream.KeyValue, run string, waiting func(k int) bool, lostAfter time.Duration) error {
	for k, sh := range s {
		if !waiting(k) || time.Since(sh.since) < lostAfter {
			continue
		}
		e, err := claims.Get(ctx, claimKey(run, k))
		if err != nil || !strings.HasSuffix(string(e.Value()), " "+sh.inc) {
			continue // served again, or about to be
		}
		return fmt.Errorf("dist: %s: %w", sh.what, ErrLost)
	}
	return nil
}

// lostAfter is how long a reader waits for a partition whose messages arrived
// short to be served again before it says they are lost (ErrLost): longer
// than a publish waits for its acknowledgement (ackWait) or for the server
// to store what it sent before (stallWait), after which the
// sending worker finds its publishes failed, and a claim's renewal.
const lostAfter = stallWait + ClaimTTL/2

// bodies returns the data of partition k, as the bodies of its messages.
func (c *collector) bodies(k int) [][]byte { return c.done[k].bodies }

// joined returns the data of partition k, concatenated.
func (c *collector) joined(k int) []byte {
	var b []byte
	for _, x := range c.done[k].bodies {
		b = append(b, x...)
	}
	return b
}
